"""Incremental parsing for voice: speak the first sentence while the model still types.

Each ``feed`` re-runs the one-shot chain on the buffer (see ``chain.analyse``) when the new
text could matter (a marker character, a bracket, a possible marker prefix, or while a
call is open) and otherwise just extends the current text. Only text before ``hold`` — the
point up to which no continuation can change the classification — is emitted, through the
same ``Joiner`` the one-shot parser uses. So feeding a reply whole or in any pieces yields
the same calls and the same concatenated content as ``parse_tool_calls``.

Re-parses start at the last line start inside decided content (outside every span, think
block and candidate), so a long reply costs O(undecided tail) per delta, not O(reply).
``regressions`` counts the times a re-parse wanted to take back emitted text; it must stay 0
(the property tests check it) and nothing is ever taken back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .base import Detector
from .chain import (
    DEFAULT_THINK_TAGS,
    Analysis,
    Joiner,
    analyse,
    make_config,
    marker_tail,
    result_of,
    truncation_note,
)
from .types import MAX_INPUT_CHARS, ParseResult, RejectedCall, ToolCall


@dataclass
class TextDelta:
    """Text that is final and safe to speak."""

    text: str


@dataclass
class ReasoningDelta:
    """Text of a think block (never to be spoken)."""

    text: str


@dataclass
class CallStarted:
    """A call's name is known; its arguments are still arriving."""

    index: int
    name: str


@dataclass
class CallComplete:
    """A call is complete and will not change. ``index`` matches its CallStarted."""

    call: ToolCall
    index: int = -1


@dataclass
class CallRejected:
    """A call attempt that cannot be dispatched; ``index`` set if it had been started."""

    rejected: RejectedCall
    index: int | None = None


Event = TextDelta | ReasoningDelta | CallStarted | CallComplete | CallRejected

_WS = " \t\r\n\f\v"
#: a re-parse may not start on these: whitespace, or what a call before it could still absorb
_NOT_RESTART = frozenset(_WS) | frozenset(",;}]`<")


class StreamingParser:
    """Feed text deltas, get events. Same settings as ``parse_tool_calls``.

    ``feed`` and ``close`` never raise on any text; after ``close`` further feeds are
    ignored. ``result()`` is the one-shot result of everything fed (final after close).
    """

    def __init__(
        self,
        parsers: Sequence[str | type[Detector]] | str | None = None,
        tools: Any = None,
        think_tags: Iterable[tuple[str, str]] | None = DEFAULT_THINK_TAGS,
        *,
        think_open: bool = False,
    ):
        self._cfg = make_config(parsers, tools, think_tags, think_open)
        self._buf = ""
        self._total = 0
        self._content = Joiner()
        self._reasoning = Joiner()
        self._c_out = 0
        self._r_out = 0
        self._fed = 0
        self._fast: str | None = "reasoning" if think_open else "content"
        self._started: dict[tuple[int, int], tuple[int, str]] = {}
        self._done: set[tuple[int, int]] = set()
        self._next = 0
        self._closed = False
        self._final: ParseResult | None = None
        self._base = 0  # everything before it is decided: re-parses start here
        self._drafted: frozenset[str] = frozenset()
        self._said: dict[int, int] = {}  # span start -> chars of its ``say`` already fed
        self.reparses = 0  # how often the chain was re-run (for benchmarks)
        self.regressions = 0

    # -- public -----------------------------------------------------------------------
    def feed(self, delta: str) -> list[Event]:
        if self._closed or not delta:
            return []
        if not isinstance(delta, str):
            delta = str(delta)
        self._total += len(delta)
        room = MAX_INPUT_CHARS - len(self._buf)
        if room <= 0:
            return []
        delta = delta[:room]
        self._buf += delta
        events: list[Event] = []
        try:
            if self._fast is not None and self._can_fast(delta):
                self._feed_fast(events)
            else:
                self._step(events, final=False)
        except Exception as e:  # noqa: BLE001 - a bug here must not kill the voice loop
            events.append(CallRejected(RejectedCall(None, "", f"streaming parser error: {e!r}")))
            self._fast = None
        return events

    def close(self) -> list[Event]:
        if self._closed:
            return []
        self._closed = True
        events: list[Event] = []
        try:
            a = self._step(events, final=True)
        except Exception as e:  # noqa: BLE001
            events.append(CallRejected(RejectedCall(None, "", f"streaming parser error: {e!r}")))
            a = None
        for key, (index, name) in self._started.items():
            if key not in self._done:
                events.append(CallRejected(RejectedCall(name, "", "call did not complete"), index))
        if a is not None:
            full = analyse(self._buf, self._cfg) if self._base else a
            events.extend(CallRejected(r) for r in full.extra_rejected)
            self._final = result_of(full, self._total)
        else:
            self._final = ParseResult(content=self._content.text)
        if self._total > MAX_INPUT_CHARS:
            events.append(CallRejected(truncation_note(self._total)))
        return events

    def result(self) -> ParseResult:
        if self._final is not None:
            return self._final
        return result_of(analyse(self._buf, self._cfg), self._total)

    # -- internals ----------------------------------------------------------------------
    def _can_fast(self, delta: str) -> bool:
        cfg = self._cfg
        if cfg.always_reparse or any(c in cfg.trigger_chars for c in delta):
            return False
        if any(m in delta for m in cfg.markers):
            return False
        return marker_tail(self._buf, cfg.markers) == len(self._buf)

    def _feed_fast(self, events: list[Event]) -> None:
        buf = self._buf
        end = len(buf)
        while end > self._fed and buf[end - 1] in _WS:
            end -= 1
        if end <= self._fed:
            return
        if self._fast == "content":
            self._reasoning.cut()
            self._content.feed(buf[self._fed:end])
        else:
            self._content.cut()
            self._reasoning.feed(buf[self._fed:end])
        self._fed = end
        self._emit_text(events)

    def _step(self, events: list[Event], final: bool) -> Analysis:
        self.reparses += 1
        base = self._base
        buf = self._buf
        think_open = self._cfg.think_open if base == 0 else False
        a = analyse(buf[base:], self._cfg, want_hold=not final, drafted=self._drafted, think_open=think_open)
        hold = len(buf) if final else base + a.hold
        if not final:
            # an answer still arriving is decided up to its start: say what it has so far
            open_say = next((sp for sp in a.spans if sp.say is not None and not sp.final), None)
            if open_say is not None and a.hold_raw == open_say.start:
                hold = base + open_say.start
        self._walk(a, base, hold, events)
        if final:
            return a
        self._announce(a, base, events)
        last = a.regions[-1].kind if a.regions else None
        if base + a.hold_raw == len(buf) and last in ("content", "reasoning"):
            self._fast = last
        elif not buf:
            self._fast = "reasoning" if self._cfg.think_open else "content"
        else:
            self._fast = None
        self._advance(a, base)
        return a

    def _advance(self, a: Analysis, base: int) -> None:
        """Move the re-parse start to a line start inside decided content, so each re-parse
        costs the undecided tail, not the whole reply (O(n) overall instead of O(n²))."""
        buf = self._buf
        for r in reversed(a.regions):
            start, end = base + r.start, min(base + r.end, self._fed)
            if end <= start:
                continue
            if r.kind != "content":
                continue
            k = buf.rfind("\n", start, end - 1)
            while k >= 0:
                nxt = k + 1
                inside = any(base + a_ < nxt < base + b_ for a_, b_ in a.seen)
                if nxt > self._base and buf[nxt] not in _NOT_RESTART and not inside:
                    self._drafted = self._drafted | {key for s, key in a.drafted if base + s < nxt}
                    self._base = nxt
                    return
                k = buf.rfind("\n", start, k)
            if start <= self._base:
                return

    def _walk(self, a: Analysis, base: int, hold: int, events: list[Event]) -> None:
        text = self._buf
        if hold < self._fed:
            self.regressions += 1  # a detector un-decided emitted text: a bug (tests watch this)
            return
        for r in a.regions:
            rs, re_ = base + r.start, base + r.end
            if re_ <= self._fed:
                continue
            if rs == hold and re_ > hold and r.span is not None and r.span.say is not None:
                self._say(rs, r.span.say)  # the answer so far; the span stays open
                break
            if rs >= hold:
                break
            if r.kind in ("span", "tag"):
                if re_ > hold:
                    break
                if r.span is not None and r.span.say is not None:
                    self._say(rs, r.span.say)
                self._content.cut()
                self._reasoning.cut()
                if r.span is not None:
                    self._emit_text(events)
                    self._finish(r.span, base, events)
                self._fed = re_
                continue
            b = min(re_, hold)
            s = max(rs, self._fed)
            if r.kind == "content":
                self._reasoning.cut()
                self._content.feed(text[s:b])
            else:
                self._content.cut()
                self._reasoning.feed(text[s:b])
            self._fed = b
            self._emit_text(events)
            if re_ > hold:
                break
        self._emit_text(events)

    def _say(self, start: int, say: str) -> None:
        """Feed the part of a span's ``say`` not fed yet (cut from what came before once)."""
        done = self._said.get(start)
        if done is None:
            self._content.cut()
            self._reasoning.cut()
            done = 0
        self._content.feed(say[done:])
        self._said[start] = max(done, len(say))

    def _emit_text(self, events: list[Event]) -> None:
        c = self._content.text
        if len(c) > self._c_out:
            events.append(TextDelta(c[self._c_out:]))
            self._c_out = len(c)
        r = self._reasoning.text
        if len(r) > self._r_out:
            events.append(ReasoningDelta(r[self._r_out:]))
            self._r_out = len(r)

    def _start(self, key: tuple[int, int], name: str, events: list[Event]) -> int:
        if key not in self._started:
            self._started[key] = (self._next, name)
            events.append(CallStarted(self._next, name))
            self._next += 1
        return self._started[key][0]

    def _finish(self, span: Any, base: int, events: list[Event]) -> None:
        for idx, item in enumerate(span.items):
            key = (base + span.start, idx)
            if key in self._done:
                continue
            self._done.add(key)
            if isinstance(item, ToolCall):
                events.append(CallComplete(item, self._start(key, item.name, events)))
            else:
                started = self._started.get(key)
                events.append(CallRejected(item, started[0] if started else None))

    def _announce(self, a: Analysis, base: int, events: list[Event]) -> None:
        """CallStarted for calls whose name is known but that are not complete yet."""
        tools = self._cfg.tools
        for sp in a.spans:
            if base + sp.end <= self._fed:
                continue
            names = [it.name for it in sp.items]
            if sp.pending_name and (not names or names[-1] != sp.pending_name):
                names.append(sp.pending_name)
            for idx, name in enumerate(names):
                item = sp.items[idx] if idx < len(sp.items) else None
                if not name or (base + sp.start, idx) in self._done:
                    continue
                if isinstance(item, RejectedCall) and item.reason.startswith("unknown tool"):
                    continue
                if tools is not None and tools.resolve(name) is None:
                    continue
                self._start((base + sp.start, idx), name, events)
