"""The generic answer-or-call envelope: one JSON object per reply.

``{"tool": "NAME", "arguments": {...}}`` is a call, ``{"answer": "text"}`` a reply in
words, and a JSON list of call objects makes parallel calls; bare or inside a ```json
fence. An answer is speakable content: its span carries the decoded string as ``say``, and
while the string is still arriving the span says the part decoded so far (escapes are
decoded only once complete), so a voice reply can start before the closing ``"}``.
"""

from __future__ import annotations

import re

from .._values import decode_at, normalise_args, scan
from ..base import LINE_START
from ..types import Item, RejectedCall, Span, ToolCall
from .bare import BareJson

_FENCE = r"(?P<fence>```[ \t]*(?:json|JSON)?[ \t]*\r?\n[ \t\r\n]*)?"
_CAND = re.compile(LINE_START + _FENCE + r"(?P<br>[{\[])")
_ANSWER = re.compile(r'\{[ \t\r\n]*"answer"[ \t\r\n]*:[ \t\r\n]*"')
_CALL_HEAD = re.compile(r'\[?[ \t\r\n]*\{[ \t\r\n]*"(?:tool|answer)"')
_TOOL_NAME = re.compile(r'"tool"[ \t\r\n]*:[ \t\r\n]*"((?:[^"\\]|\\.){1,200})"')
_FENCE_CLOSE = re.compile(r"[ \t\r\n]*```")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def decode_json_string(text: str, i: int) -> tuple[str, int | None]:
    """Decode the JSON string body starting at ``text[i]`` (just after the opening quote).

    Returns (decoded text, index after the closing quote) or (decoded prefix, None) when the
    text ends first. An escape is decoded only when complete (a ``\\uD83D`` waits for its low
    surrogate), so every prefix of the input decodes to a prefix of the final string. A bad
    escape is kept verbatim; a raw control character is kept as it is.
    """
    out: list[str] = []
    n = len(text)
    while i < n:
        j = i
        while j < n and text[j] not in '"\\':
            j += 1
        out.append(text[i:j])
        if j >= n:
            return "".join(out), None
        if text[j] == '"':
            return "".join(out), j + 1
        if j + 1 >= n:
            return "".join(out), None
        c = text[j + 1]
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
            i = j + 2
            continue
        if c != "u":
            out.append(text[j:j + 2])
            i = j + 2
            continue
        if j + 6 > n:
            return "".join(out), None
        hexa = text[j + 2:j + 6]
        try:
            cp = int(hexa, 16)
        except ValueError:
            out.append(text[j:j + 6])
            i = j + 6
            continue
        i = j + 6
        if 0xD800 <= cp < 0xDC00:  # a high surrogate: wait for the low one
            if i + 6 > n and text.startswith("\\u"[: n - i], i):
                return "".join(out), None
            low = text[i + 2:i + 6] if text.startswith("\\u", i) else ""
            try:
                lcp = int(low, 16) if len(low) == 4 else -1
            except ValueError:
                lcp = -1
            if 0xDC00 <= lcp < 0xE000:
                out.append(chr(0x10000 + ((cp - 0xD800) << 10) + (lcp - 0xDC00)))
                i += 6
                continue
            out.append("\ufffd")
            continue
        out.append("\ufffd" if 0xDC00 <= cp < 0xE000 else chr(cp))
    return "".join(out), None


class Envelope(BareJson):
    """``{"tool": …, "arguments": …}`` / ``{"answer": …}`` / a list of calls (module docstring).

    Finds candidates like bare JSON (same scan, same pending rule); what a candidate means
    is its own :meth:`_at`."""

    name = "envelope"
    markers = ("```",)
    trigger_chars = "{[`"
    _cand = _CAND
    spans_at_openings = False  # its answers outrank calls: not for a MultiDetector's shortcut

    def lean(self, text: str) -> None:
        """No lean path (yet): the answer objects need the full chain."""
        return None

    # -- one candidate ---------------------------------------------------------------------

    def _at(self, text: str, start: int, i: int, fenced: bool, continuation: bool = False) -> Span | None:
        m = _ANSWER.match(text, i)
        if m is not None:
            return self._answer(text, start, i, m.end(), fenced)
        d = decode_at(text, i)
        if d.truncated:
            head = _CALL_HEAD.match(text, i)
            if head is None:
                return None
            name = _TOOL_NAME.search(text, i)
            pname = name.group(1) if name else None
            reason = d.error or "truncated JSON"
            return Span(start, len(text), [RejectedCall(pname, text[i:], reason)], final=False, pending_name=pname)
        if d.error is not None:
            if _CALL_HEAD.match(text, i) is None:
                return None
            return Span(start, self._close(text, d.end, fenced), [RejectedCall(None, text[i:d.end], d.error)])
        items, say = _items(d.value, text[i:d.end])
        if not items and say is None:
            return None
        return Span(start, self._close(text, d.end, fenced), items, say=say)

    def _answer(self, text: str, start: int, i: int, body: int, fenced: bool) -> Span:
        said, after = decode_json_string(text, body)
        if after is None:  # the answer is still arriving
            return Span(start, len(text), [], final=False, say=said)
        sc = scan(text, i)
        if sc.end is None:
            return Span(start, len(text), [], final=False, say=said)
        return Span(start, self._close(text, sc.end, fenced), [], say=said)

    @staticmethod
    def _close(text: str, end: int, fenced: bool) -> int:
        if fenced:
            f = _FENCE_CLOSE.match(text, end)
            if f:
                return f.end()
        return end


def _items(value: object, raw: str) -> tuple[list[Item], str | None]:
    """Calls (and rejections) in a decoded envelope value, and the answer text if any."""
    objs = value if isinstance(value, list) else [value]
    if not objs or not all(isinstance(o, dict) and ("tool" in o or "answer" in o) for o in objs):
        return [], None
    items: list[Item] = []
    answers: list[str] = []
    for o in objs:
        if "tool" not in o:
            a = o["answer"]
            answers.append(a if isinstance(a, str) else str(a))
            continue
        name = o["tool"]
        if not isinstance(name, str) or not name.strip():
            items.append(RejectedCall(None, raw, "the call has no tool name"))
            continue
        args = normalise_args(o.get("arguments", o.get("parameters", {})))
        if isinstance(args, str):
            items.append(RejectedCall(name.strip(), raw, args))
            continue
        cid = o.get("id")
        items.append(ToolCall(cid if isinstance(cid, str) and cid else None, name.strip(), args))
    return items, (" ".join(answers) if answers else None)
