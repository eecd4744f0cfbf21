"""One running turn: hops until the model answers in words (see ``edgevox.agents.agent``
for the session consistency a turn keeps). ``RunningTurn`` drives the hops, settles a yes
or no to calls asked about in the previous turn, and ends the turn (closing words, the
result, the ``on_run_end`` hooks); a hop's generation and speech live in
``edgevox.agents.hop``, its tool calls in ``edgevox.agents.dispatch``."""

from __future__ import annotations

import logging
import time
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

from edgevox.agents import own_layout
from edgevox.agents.dispatch import CallDispatch
from edgevox.agents.hooks import HookFailed, TurnContext
from edgevox.agents.hop import HopStream, remainder
from edgevox.agents.session import Session
from edgevox.agents.speech import summarise
from edgevox.agents.steps import BackendFailed, Done, Next, Overflow, Step, TurnStop
from edgevox.agents.types import (
    ANSWER,
    STOP_CANCELLED,
    STOP_CONTEXT,
    STOP_ERROR,
    STOP_HOOK,
    STOP_HOOK_FAILED,
    STOP_MAX_HOPS,
    STOP_REPLY,
    AgentResult,
    LLMOutput,
    LLMRequest,
)

if TYPE_CHECKING:
    from edgevox.agents.agent import LLMAgent

log = logging.getLogger(__name__)


class AgentStream:
    """What ``run_stream`` returns: iterate for ``str`` pieces and events; then ``.result``."""

    def __init__(self, gen: Generator[Any, None, AgentResult]):
        self._gen = gen
        self.result: AgentResult | None = None

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        try:
            return next(self._gen)
        except StopIteration as stop:
            self.result = stop.value
            raise

    def close(self) -> None:
        """Stop early (cancels the turn; the session stays consistent)."""
        self._gen.close()

    def text(self) -> str:
        """Consume the stream and return the reply."""
        for _ in self:
            pass
        assert self.result is not None
        return self.result.reply


class RunningTurn(HopStream, CallDispatch):
    """State of one running turn (kept off the agent so turns can run in parallel)."""

    def __init__(self, agent: LLMAgent, session: Session, text: str, stop: TurnStop, tool_choice: Any):
        self.agent = agent
        self.session = session
        self.stop = stop
        self.tool_choice = tool_choice
        self.ctx = TurnContext(agent=agent, session=session, text=text, stop_event=stop)  # type: ignore[arg-type]
        self.start_len = len(session)
        self.t0 = time.perf_counter()
        self.llm_s = 0.0
        self.tools_s = 0.0
        self.ttft: float | None = None
        self.spoken: list[str] = []  # what was said, hop by hop
        self._hop_spoken = ""  # what was streamed of the current hop
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        self.hops = 0
        self.finished = False
        self.last_failed = False  # did a call of the latest tool exchange fail?
        self.taken_ids = {c.get("id") for m in session.messages for c in (m.get("tool_calls") or [])
                          if isinstance(c, dict)}
        self._early: list[tuple[tuple[str, dict], Any, int]] = []  # calls started while decoding (and their hop)
        # a call may start as soon as the stream completes it unless an after_llm hook could
        # still drop it (see Hook.keeps_calls)
        self._early_ok = all(getattr(h, "keeps_calls", False) for h in agent.hooks.hooks
                             if "after_llm" in h.points())

    # -- driver -----------------------------------------------------------------------

    def run(self) -> Generator[Any, None, AgentResult]:
        a = self.agent
        try:
            out = a.hooks.run("on_run_start", self.ctx, self.ctx.text)
            self.ctx.text = str(out.payload)
            self.session.append({"role": "user", "content": self.ctx.text})
            if out.ended:
                return (yield from self._finish(out.end_reply, STOP_HOOK))
            notes: list[str] = []
            hop = 0
            step = yield from self._settle_pending()
            if step is not None:
                if isinstance(step, Done):
                    return (yield from self._finish(step.reply, step.reason))
                hop = 1
            while True:
                if self.stop.is_set():
                    return (yield from self._finish("", STOP_CANCELLED))
                if hop >= a.max_hops:
                    return (yield from self._finish(self._max_hops_reply(), STOP_MAX_HOPS))
                self.ctx.hop = hop
                self.hops = hop + 1
                step = yield from self._hop(hop, notes)
                if isinstance(step, Done):
                    return (yield from self._finish(step.reply, step.reason))
                notes = [step.note] if step.note is not None else []
                hop += 1
        except HookFailed as exc:
            log.error("%s; the turn fails closed", exc)
            self.session.truncate(self.start_len)
            self.session.append({"role": "user", "content": self.ctx.text})
            self.spoken = []
            return (yield from self._finish(a.phrases.hook_failed, STOP_HOOK_FAILED, run_end_hooks=False))
        except Overflow as exc:
            log.warning("agent %r: %s", a.name, exc)
            self.session.truncate(self.start_len)
            return (yield from self._finish(a.phrases.context, STOP_CONTEXT, record=False))
        except BackendFailed as exc:
            log.error("agent %r: generation failed: %s", a.name, exc)
            self.session.truncate(self.start_len)
            return (yield from self._finish(a.phrases.error, STOP_ERROR, record=False))

    def _hop(self, hop: int, notes: list[str]) -> Generator[Any, None, Step]:
        """One generation and what follows from it: the next hop (retrying with a note) or
        the end of the turn."""
        a = self.agent
        strategy = a.strategy_for(hop, self.tool_choice)
        tools = a.registry.schemas() if len(a.registry) else []
        last = self.session.messages[-1] if self.session.messages else {}
        if last.get("role") == "tool":
            note = a.result_note(self.last_failed)
            if note:
                notes = [note, *notes]  # see Phrases.answer_note for why
            if a.answer_after_results and not self.last_failed and strategy != "none":
                strategy = ANSWER  # words only, under the same prompt (see answer_after_results)
        if hop == 0 and a._warm is not None:
            a._warm.wait()  # the prefix is (being) evaluated: let it finish first
        request = LLMRequest(hop=hop, messages=self._messages(),
                             tools=tools, strategy=strategy, notes=list(notes),
                             options={"max_tokens": a.max_tokens, "temperature": a.temperature,
                                      "seed": a.seed})
        out = a.hooks.run("before_llm", self.ctx, request)
        if out.ended:
            return Done(out.end_reply, STOP_HOOK)
        request = out.payload
        output = yield from self._generate(request)
        if own_layout.wanted(a, request, output, self.ctx) and not self.stop.is_set():
            t0 = time.perf_counter()
            output = own_layout.rewrite(self.ctx, request, output)
            self.llm_s += time.perf_counter() - t0
        if output.finish_reason == "cancelled" or self.stop.is_set():
            self.spoken_hop_commit(self._hop_spoken)
            return Done("", STOP_CANCELLED)
        output = self._drop_note_echo(output, request.notes)
        out = a.hooks.run("after_llm", self.ctx, output)
        spoken_before = self._hop_spoken
        if out.ended:
            self.spoken_hop_commit(spoken_before)
            return Done(out.end_reply, STOP_HOOK)
        output = out.payload
        if request.strategy in ("none", ANSWER) and output.calls:
            output = output.replace(calls=[])  # no tools were offered: a call is not acted on
        if output.retry:
            self.spoken_hop_commit(spoken_before)
            if self.ctx.hops_left > 0:
                a._count("retries")
                return Next(output.retry)
            return Done(output.fallback or self._fallback_reply(), STOP_HOOK if output.fallback else STOP_MAX_HOPS)
        yield from self._speak_rest(output.content)
        if output.calls:
            return (yield from self._dispatch(hop, output))
        reply = output.content.strip()
        if not reply:
            a._count("empty_replies")
            if self.ctx.hops_left > 0:
                return Next(a.phrases.empty_note)
            return Done(self._fallback_reply(), STOP_MAX_HOPS)
        return Done(None, STOP_REPLY)

    def _settle_pending(self) -> Generator[Any, None, Step | None]:
        """Calls waiting for a yes or no from the previous turn: a yes runs them (the model
        then words the answer), a no drops them; anything else drops them too and the turn
        goes on as a new request. None: nothing was pending, or it was dropped that way."""
        from edgevox.agents.confirm import PENDING_KEY, yes_or_no
        from edgevox.parsing import ToolCall

        pending = self.session.meta.pop(PENDING_KEY, None)
        if not pending:
            return None
        answer = yes_or_no(self.ctx.text)
        if answer is None:
            return None
        if answer is False:
            return Done(self.agent.phrases.declined, STOP_REPLY)
        calls = [ToolCall(None, p["name"], dict(p.get("arguments") or {}), confidence=p.get("confidence"))
                 for p in pending if isinstance(p, dict) and p.get("name") in self.agent.registry.names()]
        if not calls:
            return None
        self.hops = 1
        output = LLMOutput(hop=0, text="", content="", calls=calls, rejected=[], reasoning=None,
                           finish_reason="stop", strategy="confirmed")
        step = yield from self._dispatch(0, output, confirmed=True)
        if isinstance(step, Done):
            return step
        # said from the results, not by the model: measured, a 0.5B model answering here
        # repeated its own question ("Unlock the front door?") after the door was unlocked
        phrases = self.agent.phrases
        failed = [r for r in self.ctx.records if not r.ok]
        if failed:
            return Done(phrases.tool_failed.format(error=failed[0].error), STOP_REPLY)
        summary = "; ".join(summarise(r.result) for r in self.ctx.records)
        return Done(phrases.done.format(summary=summary), STOP_REPLY)

    def _drop_note_echo(self, output: LLMOutput, notes: list[str]) -> LLMOutput:
        """Small models sometimes read the runtime's one-off note back: never speak it."""
        content = output.content
        for note in notes:
            for form in (f"({note})", note):
                if form and form in content:
                    content = content.replace(form, " ")
        if content == output.content:
            return output
        self.agent._count("note_echoes")
        return output.replace(content=" ".join(content.split()))

    # -- endings ---------------------------------------------------------------------------

    def _fallback_reply(self) -> str:
        ok = self.ctx.successes()
        if ok:
            return self.agent.phrases.found.format(summary=summarise(ok[-1].result))
        return self.agent.phrases.empty

    def _max_hops_reply(self) -> str:
        ok = self.ctx.successes()
        base = self.agent.phrases.max_hops
        if ok:
            return base.split(".")[0] + ". " + self.agent.phrases.found.format(summary=summarise(ok[-1].result))
        return base

    def _finish(self, reply: str | None, reason: str, *, run_end_hooks: bool = True,
                record: bool = True) -> Generator[str, None, AgentResult]:
        """Say the closing words, build the result, run on_run_end hooks, and leave the
        session consistent."""
        a = self.agent
        self._drop_early()
        extra = reply.strip() if reply else ""
        if reason != STOP_CANCELLED and not extra and not any(self.spoken):
            extra = a.phrases.empty  # never silence
        if extra and reason != STOP_CANCELLED:
            if self.ttft is None and reason == STOP_REPLY:
                self.ttft = time.perf_counter() - self.t0
            yield (" " if any(self.spoken) else "") + extra
            self.spoken.append(extra)
        text = " ".join(s for s in self.spoken if s)
        if reason == STOP_CANCELLED:
            self._settle_cancelled(text)
            record = False
        result = AgentResult(
            reply=text, calls=list(self.ctx.records), hops=self.hops, stopped_reason=reason,
            usage=dict(self.usage),
            timings={"total_s": time.perf_counter() - self.t0, "llm_s": self.llm_s,
                     "tools_s": self.tools_s, "ttft_s": self.ttft},
        )
        if run_end_hooks:
            try:
                out = a.hooks.run("on_run_end", self.ctx, result)
                if isinstance(out.payload, AgentResult):
                    result = out.payload
                if out.ended:
                    result.reply = out.end_reply or result.reply
                    result.stopped_reason = STOP_HOOK
            except HookFailed as exc:
                log.error("%s; the turn fails closed", exc)
                result.reply, result.stopped_reason = a.phrases.hook_failed, STOP_HOOK_FAILED
            if result.reply != text and reason != STOP_CANCELLED:
                more = remainder(result.reply, text)
                if more:  # a hook extended the reply: say the rest
                    yield (" " if text else "") + more
        if record:
            self.session.append({"role": "assistant", "content": result.reply})
        result.timings["total_s"] = time.perf_counter() - self.t0
        self.finished = True
        return result

    def _settle_cancelled(self, spoken: str) -> None:
        """Drop the partial exchange: keep the user message + what was said, or nothing."""
        self.session.truncate(self.start_len)
        if spoken:
            self.session.append({"role": "user", "content": self.ctx.text})
            self.session.append({"role": "assistant", "content": spoken})

    def abandon(self) -> None:
        """The stream was closed before the end: treat as cancelled.

        The pieces of the current hop the consumer already took count as said, as they
        do when the stop event cancels the turn.
        """
        self.stop.set()
        self.spoken_hop_commit(self._hop_spoken)
        self._settle_cancelled(" ".join(self.spoken))
        self.finished = True
