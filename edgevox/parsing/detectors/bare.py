"""Bare JSON calls with no tags: ``{"name": …, "arguments": …}``, ``[{…}, {…}]``,
``{"tool_calls": […]}``, optionally inside a ```json fence, several joined by ``;`` or ``,``.

Observed on Qwen2.5-Coder-0.5B (which answers tool requests with bare JSON despite its
hermes template), Llama 3.2 (its documented JSON format) and xLAM (a JSON array).

A JSON value counts only where a reply would start one: at the start of the text or of a
line, after a colon, or as the body of a code fence. It is a call when its objects are
call-shaped (exactly ``name`` + ``arguments``/``parameters``, optionally ``id``/``type``)
or, with tools known, when they name a known tool. Anything else (data the model prints,
prose mentioning a tool) stays content.
"""

from __future__ import annotations

import re

from .._values import decode_at, is_call_shaped, items_from_value, unbalanced, unwrap
from ..base import LINE_START, Detector, LeanSpan
from ..lean import read_calls, shallow
from ..types import RejectedCall, Span
from .tagged import last_json_name

_FENCE_LANGS = r"(?:json|JSON|json5|tool_calls?|javascript)?"
_CAND = re.compile(LINE_START + r"(?P<fence>```[ \t]*" + _FENCE_LANGS + r"[ \t]*\r?\n[ \t\r\n]*)?(?P<br>[{\[])")
_FENCE_CLOSE = re.compile(r"\s*```")
_AFTER_SEMI = re.compile(r"[ \t\r\n]*")
_SEMI = re.compile(r"[ \t]*[;,]")
_OPEN_FENCE_TAIL = re.compile(LINE_START + r"```[^\n`]*(?:\r?\n[ \t\r\n]*)?\Z")


class BareJson(Detector):
    """Untagged JSON calls (see module docstring)."""

    name = "bare_json"
    markers = ("```",)
    trigger_chars = "{[`"
    #: where a candidate may start (a subclass with other fence languages swaps it)
    _cand = _CAND
    spans_at_openings = True  # at a fence, a bracket, or the `{` after `;`

    def detect(self, text: str) -> list[Span]:
        out: list[Span] = []
        pos = 0
        for m in self._cand.finditer(text):
            if m.start("br") < pos:
                continue
            start = m.start("fence") if m.group("fence") else m.start("br")
            sp = self._at(text, start, m.start("br"), bool(m.group("fence")))
            while sp is not None:
                out.append(sp)
                pos = sp.end
                # Llama 3.2 joins calls with `;`, Qwen2.5-Coder-0.5B with `,`: each one is a span
                c = _AFTER_SEMI.match(text, sp.end) if sp.final and text[sp.end - 1:sp.end] in (";", ",") else None
                if c is None or c.end() >= len(text) or text[c.end()] != "{":
                    break
                sp = self._at(text, c.end(), c.end(), False, continuation=True)
        self._last = (text, out)
        return out

    def pending(self, text: str) -> int | None:
        last = getattr(self, "_last", None)
        spans = last[1] if last is not None and last[0] is text else self.detect(text)
        first = None
        for m in self._cand.finditer(text):
            if unbalanced(text, m.start("br")):
                first = m.start("fence") if m.group("fence") else m.start("br")
                break
        t = _OPEN_FENCE_TAIL.search(text, max(0, len(text) - 200))
        if t is not None:
            s = text.index("```", t.start())
            if not any(sp.start <= s < sp.end for sp in spans):  # not a span's own closing fence
                first = s if first is None else min(first, s)
        return first

    def _at(self, text: str, start: int, i: int, fenced: bool, continuation: bool = False) -> Span | None:
        d = decode_at(text, i)
        if d.truncated and continuation:  # `{…}; {…` : the next call is cut (or still arriving)
            name = last_json_name(text[i:])
            return Span(start, len(text), [RejectedCall(name, text[i:], d.error or "truncated JSON")], final=False, pending_name=name)
        if d.error is not None or not self._qualifies(d.value):
            return None
        items = items_from_value(d.value, text[i:d.end])
        end = d.end
        if fenced:
            f = _FENCE_CLOSE.match(text, end)
            if f:
                end = f.end()
        else:
            s = _SEMI.match(text, end)
            if s:
                end = s.end()
        return Span(start, end, items)

    def lean(self, text: str) -> list[LeanSpan] | None:
        """Every ``{``, ``[`` and backtick in the text opens a candidate that is a call
        (after an unfenced span only; a closing fence could open the next candidate)."""
        n = len(text)
        flat = shallow(text)
        out: list[LeanSpan] = []
        pos = 0
        braces_only = "[" not in text and "`" not in text  # then str.find: a third of a regex search
        while True:
            if braces_only:
                k = text.find("{", pos)
            else:
                t = _TRIGGER.search(text, pos)
                k = t.start() if t is not None else -1
            if k < 0:
                return out
            x = k
            while x > pos and text[x - 1] in " \t":
                x -= 1
            fenced = text[k] == "`"
            if fenced or self._cand is not _CAND:
                m = self._cand.match(text, x)
                if m is None or (m.start("fence") if m.group("fence") else m.start("br")) != k:
                    return None
                i = m.start("br")
            elif x == 0 or text[x - 1] in "\n:":  # what LINE_START allows before a bracket
                i = k
            else:
                return None
            start = k
            while True:
                r = read_calls(text, i, n, flat)
                # with tools known, every name must be one (``lean_result`` checks): that qualifies it
                if r is None or (self.tools is None and not _all_call_shaped(r[2])):
                    return None
                calls, end = r[0], r[1]
                if fenced:
                    f = _FENCE_CLOSE.match(text, end)
                    out.append((start, f.end() if f else end, calls))
                    return out if _next_trigger(text, out[-1][1]) < 0 else None
                j = end
                while j < n and text[j] in " \t":  # _SEMI by hand
                    j += 1
                if j < n and text[j] in ";,":
                    end = j + 1
                out.append((start, end, calls))
                pos = end
                if text[end - 1] not in ";,":
                    break
                c = _AFTER_SEMI.match(text, end).end()
                if c >= n or text[c] != "{":
                    break
                start = i = c

    def _qualifies(self, value: object) -> bool:
        if isinstance(value, dict) and "name" not in value and "function" not in value:
            calls = value.get("tool_calls")
            return isinstance(calls, list) and all(isinstance(c, dict) for c in calls)
        objs = value if isinstance(value, list) else [value]
        if not objs or not all(isinstance(o, dict) for o in objs):
            return False
        if self.tools is not None and any(self._known(o) for o in objs):
            return True
        return all(is_call_shaped(o) for o in objs)

    def _known(self, obj: dict) -> bool:
        name = unwrap(obj).get("name")
        return isinstance(name, str) and self.tools is not None and self.tools.resolve(name.strip()) is not None



_TRIGGER = re.compile(r"[{\[`]")


def _next_trigger(text: str, pos: int) -> int:
    """The first ``{``, ``[`` or backtick from ``pos`` (-1: none)."""
    m = _TRIGGER.search(text, pos)
    return m.start() if m is not None else -1


def _all_call_shaped(value: object) -> bool:
    return all(is_call_shaped(o) for o in value) if isinstance(value, list) else is_call_shaped(value)
