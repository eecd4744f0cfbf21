"""One hop's generation and speech (a part of ``RunningTurn``): render the prompt,
trimming old history until it fits; stream the model's reply through the preset's
streaming parser, saying text as it comes (through the hooks' stream filters) and
starting completed calls early; then take the parser's result as the hop's output."""

from __future__ import annotations

import logging
import time
from collections.abc import Generator, Iterable, Iterator
from typing import Any

from edgevox.agents import own_layout
from edgevox.agents.demonstrations import tool_spec
from edgevox.agents.hooks import StreamFilter
from edgevox.agents.steps import BackendFailed, Overflow
from edgevox.agents.types import ANSWER, LLMOutput, LLMRequest

log = logging.getLogger(__name__)

DECISIONS = 12  # sampled tokens whose margins are kept: enough to cover "answer or call" and the name


def note_text(notes: Iterable[str]) -> str:
    """One-off runtime notes as the user turn the model sees: "(note. other note.)"."""
    return "(" + " ".join(dict.fromkeys(n.strip() for n in notes if n.strip())) + ")"


class HopStream:
    """Generation and speaking of a hop, mixed into ``RunningTurn`` (whose state it uses:
    ``agent``, ``session``, ``stop``, ``ctx``, the spoken text, the timings)."""

    def _messages(self) -> list[dict]:
        return self.agent.conversation(self.session)

    def _messages_for(self, request: LLMRequest) -> list[dict]:
        msgs = request.messages
        if not request.notes:
            return msgs
        from edgevox.llm.template import prepare_messages

        note = note_text(request.notes)
        msgs = prepare_messages(msgs, self.agent.preset)  # fold synthetic results first
        if msgs and msgs[-1]["role"] == "user":  # keep roles alternating for strict templates
            last = dict(msgs[-1])
            last["content"] = f"{last.get('content') or ''}\n\n{note}".strip()
            return [*msgs[:-1], last]
        return [*msgs, {"role": "user", "content": note}]

    def _render_fitting(self, request: LLMRequest, tools: list[dict]) -> tuple[list[dict], str]:
        """Trim the session until the prompt plus the reply budget fits; return the prompt."""
        a = self.agent
        backend = a.backend
        n_ctx = getattr(backend, "n_ctx", None)
        msgs = self._messages_for(request)
        prompt = backend.render(msgs, tools or None)
        if not n_ctx or not hasattr(backend, "tokenize"):
            return msgs, prompt
        budget = n_ctx - request.options.get("max_tokens", a.max_tokens) - 1
        if len(backend.tokenize(prompt)) <= budget:
            return msgs, prompt
        turn_start = self.start_len
        n_head = len(a.prompt_prefix(self.session))

        def count(history: list[dict]) -> int:
            head = request.messages[:n_head]
            return len(backend.tokenize(backend.render(self._messages_for(
                LLMRequest(request.hop, head + history[:], tools, request.strategy, {}, request.notes)),
                tools or None)))

        dropped = self.session.trim_to_fit(count, budget, keep_from=turn_start)
        if dropped:
            a._count("trimmed_messages")
            self.start_len = max(0, self.start_len - dropped)
            log.info("agent %r: dropped %d old messages to fit the context", a.name, dropped)
            request.messages = self._messages()
            msgs = self._messages_for(request)
            prompt = backend.render(msgs, tools or None)
        if len(backend.tokenize(prompt)) > budget:
            raise Overflow(f"this turn needs more than the {n_ctx}-token context window")
        return msgs, prompt

    def _generate(self, request: LLMRequest) -> Generator[Any, None, LLMOutput]:
        from edgevox.llm import ContextOverflow
        from edgevox.parsing import (
            DEFAULT_THINK_TAGS,
            CallComplete,
            StreamingParser,
            TextDelta,
            parse_tool_calls,
        )

        a = self.agent
        tools = request.tools if request.strategy != "none" else []
        callable_tools = tools if request.allowed is None else [t for t in tools if tool_spec(t)[0] in request.allowed]
        grammar = (a.grammar_for("none", []) if request.strategy == ANSWER
                   else a.grammar_for(request.strategy, callable_tools or tools))
        msgs, prompt = self._render_fitting(request, tools)
        think = (a.preset.think,) if a.preset.think else DEFAULT_THINK_TAGS
        parser = StreamingParser(a.preset.detectors, tools=tools or None, think_tags=think)
        ordered = sorted(a.hooks.hooks, key=lambda h: not getattr(h, "stream_first", False))  # stable
        filters = [f for f in (h.stream_filter(self.ctx) for h in ordered) if f is not None]
        early = (self._early_ok and bool(tools) and request.strategy not in ("none", ANSWER)
                 and not (request.hop == 0 and own_layout.may_rewrite(a)))
        hold = own_layout.may_drop_words(a, request, self.ctx)  # words said only once the hop ends
        self._drop_early()
        self._hop_spoken = ""
        opts = {k: v for k, v in request.options.items() if v is not None}
        if tools and getattr(a.backend, "reports_decisions", False):
            opts.setdefault("decisions", DECISIONS)  # margins for the calls' confidence
        t0 = time.perf_counter()
        pieces: list[str] = []
        said: list[str] = []  # the parser's content deltas (what precedes a call)
        stream = None
        ended = False
        try:
            stream = a.backend.stream(msgs, tools or None, grammar=grammar,
                                      stop_event=self.stop, prompt=prompt, **opts)
            for piece in stream:
                pieces.append(piece)
                for ev in parser.feed(piece):
                    if isinstance(ev, TextDelta):
                        said.append(ev.text)
                        if not hold:
                            yield from self._say(ev.text, filters)
                    elif isinstance(ev, CallComplete):
                        if early:
                            self._start_early(ev.call)
                        # (not when the call's confidence is wanted: it comes with the end)
                        ended = ended or (not a.parallel_tool_calls and bool(tools) and a.confirm_below is None)
                if ended:  # one call allowed and it is complete: nothing more to decode
                    break
        except ContextOverflow as exc:
            raise Overflow(str(exc)) from None
        except (RuntimeError, OSError, ValueError) as exc:  # BackendError is a RuntimeError
            raise BackendFailed(f"{type(exc).__name__}: {exc}") from exc
        finally:
            if stream is not None:
                stream.close()  # frees the backend at once when decoding ended at the call
            self.llm_s += time.perf_counter() - t0
        completion = stream.completion  # a TextStream (see edgevox.llm.Backend)
        if not self.stop.is_set() and not ended and not hold:  # a cancelled tail is undecided text: never say it
            for ev in parser.close():
                if isinstance(ev, TextDelta):
                    yield from self._say(ev.text, filters)
        text = completion.text if completion is not None else "".join(pieces)
        if completion is not None:
            for k in self.usage:
                self.usage[k] += int(completion.usage.get(k, 0))
        if text == "".join(pieces):  # the usual case: the streaming parser has read it all
            parsed = parser.result()
        else:  # a backend whose final text differs from what it streamed: read the final one
            parsed = parse_tool_calls(text, parsers=a.preset.detectors, tools=tools or None, think_tags=think)
        if ended:  # decoding stopped at the one allowed call: what came after it is undecided
            parsed.calls, parsed.content = parsed.calls[:1], "".join(said).strip()
        decisions = completion.info.get("decisions") if completion is not None else None
        calls = list(parsed.calls)
        if decisions is not None:
            from edgevox.agents.confirm import call_confidences

            for call, conf in zip(calls, call_confidences(text, [c.name for c in calls], decisions), strict=True):
                call.confidence = conf
        return LLMOutput(hop=request.hop, text=text, content=parsed.content, calls=calls,
                         rejected=list(parsed.rejected), reasoning=parsed.reasoning,
                         finish_reason=completion.finish_reason if completion else "stop",
                         strategy=request.strategy, decisions=decisions)

    # -- speaking -----------------------------------------------------------------------

    def _say(self, text: str, filters: list[StreamFilter]) -> Iterator[str]:
        for f in filters:
            if not text:
                break
            text = f.feed(text)
        if text:
            if self.ttft is None:
                self.ttft = time.perf_counter() - self.t0
            sep = " " if not self._hop_spoken and self.spoken else ""
            self._hop_spoken += text
            yield sep + text

    def _speak_rest(self, content: str) -> Iterator[str]:
        """Say what the final content of this hop adds to what was already streamed."""
        rest = remainder(content, self._hop_spoken)
        if rest:
            if self.ttft is None:
                self.ttft = time.perf_counter() - self.t0
            yield (" " if not self._hop_spoken and self.spoken else "") + rest
        # the reply holds the final (hook-processed) text; the stream may have said an
        # earlier version of it when a hook rewrote text that was already streamed
        self.spoken_hop_commit(content)

    def spoken_hop_commit(self, text: str) -> None:
        if text and text.strip():
            self.spoken.append(text.strip())
        self._hop_spoken = ""


def remainder(final: str, spoken: str) -> str:
    """What ``final`` adds after the already ``spoken`` text.

    Whitespace differences are ignored. If the two diverge (a hook rewrote text that was
    already streamed), the rest of ``final`` from the point of divergence is returned:
    a repeated word is better than a lost answer.
    """
    if not spoken:
        return final.strip()
    i = j = 0
    while i < len(spoken) and j <= len(final):
        if spoken[i].isspace():
            i += 1
            continue
        while j < len(final) and final[j].isspace():
            j += 1
        if j >= len(final) or final[j] != spoken[i]:
            break
        i += 1
        j += 1
    rest = final[j:]
    return rest if rest.strip() else ""
