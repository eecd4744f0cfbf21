"""DeepSeek's tool calls, between full-width bar markers.

V3 / R1: ``<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`` then the arguments as JSON in
a ```json (or ```jsonc) fence, then ``<｜tool▁call▁end｜>``; V3.1:
``<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>``. Calls sit inside
``<｜tool▁calls▁begin｜> … <｜tool▁calls▁end｜>``, which the span includes when present.
A call whose JSON does not close before its end marker is rejected with the reason;
one cut off by the end of the reply is pending.
"""

from __future__ import annotations

import re

from ...formats.deepseek import CALL_BEGIN, CALL_END, CALLS_BEGIN, CALLS_END, LITERALS, SEP
from .._values import decode_at, items_from_value
from ..base import Detector
from ..types import RejectedCall, Span

_HEAD = re.compile(re.escape(CALL_BEGIN) + r"(?:function" + re.escape(SEP) + r"([^\n<]+?)\s*\n\s*```(?:jsonc?)?\s*\n"
                   r"|([^\n<]+?)" + re.escape(SEP) + r")")


class DeepSeek(Detector):
    """DeepSeek V3 / R1 / V3.1 calls (see module docstring)."""

    name = "deepseek"
    markers = LITERALS

    def pending(self, text: str) -> int | None:
        # an opened call (or call list) that has not ended yet may still become calls
        k = text.rfind(CALLS_BEGIN)
        if k >= 0 and text.find(CALLS_END, k) < 0:
            return k
        k = text.rfind(CALL_BEGIN)
        return k if k >= 0 and text.find(CALL_END, k) < 0 else None

    def detect(self, text: str) -> list[Span]:
        out: list[Span] = []
        pos = 0
        while (m := _HEAD.search(text, pos)) is not None:
            name = (m.group(1) or m.group(2)).strip()
            end_marker = text.find(CALL_END, m.end())
            limit = end_marker if end_marker >= 0 else len(text)
            i = m.end()
            while i < limit and text[i] in " \t\r\n":
                i += 1
            d = decode_at(text, i, limit=limit, repair=end_marker >= 0) if i < limit else None
            raw = text[m.start():limit]
            if d is not None and d.error is None:
                stop = end_marker + len(CALL_END) if end_marker >= 0 else d.end
                out.append(Span(m.start(), stop, items_from_value({"name": name, "arguments": d.value}, raw)))
            elif end_marker < 0 and (d is None or d.truncated):  # more text may complete it
                cut = RejectedCall(name, raw, "the reply ended inside the call")
                out.append(Span(m.start(), len(text), [cut], final=False, pending_name=name))
                break
            else:
                stop = end_marker + len(CALL_END) if end_marker >= 0 else len(text)
                why = "no arguments object" if d is None else d.error
                out.append(Span(m.start(), stop, [RejectedCall(name, raw, why or "malformed JSON")]))
            pos = stop
        return _widen(text, out)


def _widen(text: str, spans: list[Span]) -> list[Span]:
    """Let the first and last call span cover the outer calls-begin / calls-end markers."""
    if not spans:
        return spans
    first, last = spans[0], spans[-1]
    lead = text.rfind(CALLS_BEGIN, 0, first.start)
    if lead >= 0 and not text[lead + len(CALLS_BEGIN):first.start].strip():
        first.start = lead
    tail = text.find(CALLS_END, last.end)
    if last.final and tail >= 0 and not text[last.end:tail].strip(" \t\r\n`"):
        last.end = tail + len(CALLS_END)
    return spans
