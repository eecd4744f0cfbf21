"""The tool calls of a hop (a part of ``RunningTurn``): give each call its id and run the
``before_tool`` hooks, ask first where a call must be confirmed, start calls (early, while
the model still decodes, when no hook could drop them), wait for their results with the
turn's stop signal, record them, and put the exchange into the session."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from edgevox.agents.data import neutralise
from edgevox.agents.ids import assign_ids
from edgevox.agents.steps import Done, Next, Step, TurnStop
from edgevox.agents.types import (
    STOP_CANCELLED,
    STOP_CONFIRM,
    STOP_HOOK,
    STOP_REPLY,
    CallRecord,
    LLMOutput,
    ToolCallEvent,
    ToolResultEvent,
)

if TYPE_CHECKING:
    from edgevox.agents.agent import LLMAgent

log = logging.getLogger(__name__)


class CallDispatch:
    """Tool dispatch of a hop, mixed into ``RunningTurn`` (whose state it uses: ``agent``,
    ``session``, ``stop``, ``ctx``, ``taken_ids``, the calls started early)."""

    def _plan(self, call: Any) -> tuple[Any, Any] | str | None:
        """Give ``call`` its id and run the ``before_tool`` hooks: ``(call to run, pre-made
        ToolResult or None)``, or the reply of a hook that ended the turn."""
        from edgevox.tools import ToolResult

        a = self.agent
        call.id = assign_ids([call.id], a.preset.call_ids, self.taken_ids,
                             calls=[(call.name, call.arguments)],
                             seed=f"{self.start_len}\x00{self.ctx.text}")[0]
        out = a.hooks.run("before_tool", self.ctx, call, settled=lambda p: isinstance(p, ToolResult))
        if out.ended:
            return out.end_reply
        if isinstance(out.payload, ToolResult):
            out.payload.call_id = call.id
            return call, out.payload
        if hasattr(out.payload, "name") and isinstance(getattr(out.payload, "arguments", None), dict):
            new = out.payload
            new.id = call.id
            return new, None
        log.warning("a before_tool hook returned %r; running the original call", type(out.payload).__name__)
        return call, None

    def _start_early(self, call: Any) -> None:
        """A call the stream just completed starts while the model finishes its reply.

        Only a call of a known tool with valid arguments, and only when every ``after_llm``
        hook keeps completed calls (``Hook.keeps_calls``): a hook that might still drop the
        call must see it before it runs. This plan is the call's one and only: ``_dispatch``
        takes it over when the final parse has the same call at the same place."""
        a = self.agent
        tool = a.registry.get(call.name)
        if tool is None or tool.confirm or a.confirm_below is not None:
            return  # unknown, or it may have to be asked about first (its confidence comes at the end)
        try:
            tool.validate(call.arguments)
        except Exception:
            return
        plan = self._plan(call)
        if isinstance(plan, tuple) and plan[1] is None:
            plan = (plan[0], ToolJob(a, plan[0], self.stop))
        self._early.append(((call.name, dict(call.arguments or {})), plan, self.ctx.hop))
        a._count("early_dispatches")

    def _drop_early(self) -> None:
        """Calls started early that no dispatch took over (the hop was cancelled, retried or
        ended otherwise)."""
        early, self._early = self._early, []
        self._record_unused([(plan, hop) for _, plan, hop in early])

    def _record_unused(self, plans: list[tuple[Any, int]]) -> None:
        """Started calls no dispatch took over still go into the turn's record, with what
        came of them: a person's record must show every action that began (a light may be on
        already), ``error_type="cancelled"`` when the turn stopped before the tool ended."""
        if not plans:
            return
        log.warning("agent %r: %d call(s) started early were not used", self.agent.name, len(plans))
        self.agent._count("early_calls_unused")
        for plan, hop in plans:
            if isinstance(plan, tuple) and isinstance(plan[1], ToolJob):  # (a hook's answer ran nothing)
                self.ctx.records.append(call_record(plan[0], plan[1].wait(), hop, True))

    def _ask_first(self, output: LLMOutput) -> str | None:
        """The question to ask instead of running these calls, or None to run them: a tool
        marked ``confirm``, or a call less confident than the agent's ``confirm_below``."""
        from edgevox.agents.confirm import question_for

        a = self.agent
        unsure = [c for c in output.calls
                  if getattr(a.registry.get(c.name), "confirm", False)
                  or (a.confirm_below is not None and c.confidence is not None
                      and c.confidence < a.confirm_below)]
        if not unsure:
            return None
        return " ".join(question_for(a.registry.get(c.name), c.name, c.arguments or {}) for c in output.calls)

    def _dispatch(self, hop: int, output: LLMOutput, confirmed: bool = False) -> Generator[Any, None, Step]:
        from edgevox.agents.confirm import PENDING_KEY
        from edgevox.tools import ToolResult

        a = self.agent
        question = None if confirmed else self._ask_first(output)
        if question is not None:  # nothing started early: _start_early skips calls that may ask
            a._count("confirmations_asked")
            self.session.meta[PENDING_KEY] = [{"name": c.name, "arguments": dict(c.arguments or {}),
                                               "confidence": c.confidence} for c in output.calls]
            return Done(question, STOP_CONFIRM)
        early, self._early = self._early, []
        plans = []
        for i, call in enumerate(output.calls):
            same = i < len(early) and early[i][0] == (call.name, dict(call.arguments or {}))
            if same and isinstance(early[i][1], tuple):  # the early call is the streamed one:
                early[i][1][0].confidence = call.confidence  # its margin is known only now
            plans.append(early[i][1] if same else self._plan(call))
        self._record_unused([(plan, at) for i, (_, plan, at) in enumerate(early)
                             if i >= len(plans) or plans[i] is not plan])
        for plan in plans:
            if not isinstance(plan, tuple):  # a hook ended the turn: nothing of this hop is recorded
                return Done(plan, STOP_HOOK)
        planned = [(c, job if job is not None else ToolJob(a, c, self.stop)) for c, job in plans]
        for call, _ in planned:
            yield ToolCallEvent(id=call.id, name=call.name, arguments=dict(call.arguments or {}), hop=hop)
        t0 = time.perf_counter()
        results: list[ToolResult] = []
        hook_answered: set[int] = set()  # ids of results a hook made: no tool shaped them
        end_reply: str | None = None
        for call, job in planned:
            if isinstance(job, ToolResult):
                res, dispatched = job, False
            else:
                res, dispatched = job.wait(), True
            out = a.hooks.run("after_tool", self.ctx, res)
            res = out.payload
            if out.ended and end_reply is None:
                end_reply = out.end_reply
            results.append(res)
            if not dispatched:
                hook_answered.add(id(res))
            record = call_record(call, res, hop, dispatched)
            record.confidence = getattr(call, "confidence", None)
            self.ctx.records.append(record)
            self.ctx.results.append(res)
            ev = ToolResultEvent(id=call.id, name=call.name, ok=res.ok, result=res.value if res.ok else None,
                                 error=res.error, duration_s=res.duration_s, hop=hop, record=record)
            yield ev
        self.tools_s += time.perf_counter() - t0
        if self.stop.is_set():
            return Done("", STOP_CANCELLED)
        self._record_exchange(output.content, planned, results)
        kept = [(c, r) for (c, _), r in zip(planned, results, strict=True) if r.error_type != "withdrawn"]
        self.last_failed = not all(r.ok for _, r in kept)
        if end_reply is not None:  # what this hop did is said before the hook's words ("The office
            # light is off. Sorry, I can't control the fan.", dev50): an action is never silent
            done = [(c, r) for c, r in kept if r.ok and id(r) not in hook_answered]
            said = self._tools_say([c for c, _ in done], [r for _, r in done]) if done else None
            return Done(f"{said} {end_reply}" if said else end_reply, STOP_HOOK)
        said = None if any(id(r) in hook_answered for _, r in kept) else \
            self._tools_say([c for c, _ in kept], [r for _, r in kept])
        more, self.ctx.more = self.ctx.more, None
        if said is not None and more and self.ctx.hops_left > 0:  # part of the request is still undone
            if self.ttft is None:
                self.ttft = time.perf_counter() - self.t0
            yield (" " if any(self.spoken) else "") + said
            self.spoken.append(said)
            return Next(more)
        if said is not None:  # one hop: the tools word their own results
            a._count("one_hop_replies")
            return Done(said, STOP_REPLY)
        if more and self.ctx.hops_left > 0:  # the results go back to the model after the undone part
            return Next(more)
        return Next()

    def _tools_say(self, calls: list, results: list) -> str | None:
        """The tools' own sentences (``@tool(say=...)``) when every call succeeded and has
        one; None sends the results back to the model as before. Only results the tools
        made come here: a hook's stand-in (the loop guard's) has not the fields ``say`` words."""
        sentences = []
        for call, res in zip(calls, results, strict=True):
            tool = self.agent.registry.get(call.name)
            speak = getattr(tool, "speak", None)
            text = speak(res.value, res.arguments if isinstance(res.arguments, dict) else None) \
                if res.ok and speak is not None else None
            if not text:
                return None
            sentences.append(text)
        return " ".join(sentences) if sentences else None

    def _record_exchange(self, content: str, planned: list, results: list) -> None:
        a = self.agent
        markers = tuple(a.preset.stop) + (tuple(a.preset.think) if a.preset.think else ())
        self.session.append({
            "role": "assistant", "content": content or "",
            "tool_calls": [{"id": c.id, "type": "function",
                            "function": {"name": c.name,
                                         "arguments": json.dumps(c.arguments or {}, ensure_ascii=False)}}
                           for c, _ in planned],
        })
        for (c, _), res in zip(planned, results, strict=True):
            self.session.append({"role": "tool", "tool_call_id": c.id, "name": c.name,
                                 "content": neutralise(res.to_model_text(), markers)})


class ToolJob:
    """One tool call started on the registry; ``wait`` honours the turn's stop signal
    (a cancelled turn gets ``error_type="cancelled"`` at once, the tool's thread is left)."""

    def __init__(self, agent: LLMAgent, call: Any, stop: TurnStop):
        self.stop = stop
        tool = agent.registry.get(call.name)
        limits = [t for t in (getattr(tool, "timeout", None), agent.tool_timeout) if t]
        self._running = agent.registry.start(call, timeout=min(limits) if limits else None)

    def wait(self) -> Any:
        return self._running.wait(self.stop)  # type: ignore[arg-type]


def call_record(call: Any, res: Any, hop: int, dispatched: bool) -> CallRecord:
    args = res.arguments if isinstance(res.arguments, dict) else (call.arguments or {})
    return CallRecord(name=call.name, arguments=dict(args), result=res.value if res.ok else None,
                      error=None if res.ok else (res.error or res.error_type or "error"),
                      duration_s=res.duration_s, id=call.id, error_type=res.error_type, hop=hop,
                      dispatched=dispatched and res.error_type != "cancelled")
