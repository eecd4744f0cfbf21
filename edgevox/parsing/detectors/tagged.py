"""JSON between tags: hermes ``<tool_call>{…}</tool_call>``, granite/phi4 ``<|tool_call|>[…]``,
phi4-mini ``functools[…]``.

Tolerates: several calls (repeated tags, a list, or several objects in one tag), any key
order, ``arguments``/``parameters``, arguments as a JSON string, a missing closing tag
after complete JSON, a missing closing brace when a closing tag bounds the region.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate
from typing import ClassVar

from ...formats import functionary, hermes, phi4
from .._values import decode_at, items_from_value, scan, skip_blanks
from ..base import Detector, LeanSpan, resolve_overlaps
from ..lean import read_calls, shallow
from ..types import RejectedCall, Span

_NAME_IN_JSON = re.compile(r'"name"\s*:\s*"((?:[^"\\]|\\.){1,200})"')
_SEP = re.compile(r"[\s,;]*")
_JUNK = re.compile(r"(?:\s*[,;}\]])*")  # stray closers/separators after complete JSON
_WS = re.compile(r"\s*")


def last_json_name(fragment: str) -> str | None:
    """Name of the call whose JSON is still arriving (for ``CallStarted``)."""
    names = _NAME_IN_JSON.findall(fragment)
    return names[-1] if names else None


def json_body(text: str, i: int, bound: int, repair: bool) -> tuple[list, int | None, str | None, bool]:
    """Decode one or more JSON values from ``text[i:bound]``.

    Returns (items, end, error, truncated): ``end`` after the last decoded value.
    """
    raw_start = i
    d = decode_at(text, i, limit=bound, repair=repair)
    if d.error is not None:
        return [], d.end, d.error, d.truncated
    items = items_from_value(d.value, text[raw_start:d.end])
    end = d.end
    while True:  # more objects in the same tag: `{…}\n{…}` or `{…}, {…}`
        m = _SEP.match(text, end, bound)
        j = m.end()
        if j >= bound or text[j] not in "{[":
            break
        d2 = decode_at(text, j, limit=bound, repair=repair)
        if d2.error is not None:
            if d2.truncated and not repair:
                return items, end, d2.error, True
            items.append(RejectedCall(last_json_name(text[j:bound]), text[j:d2.end or bound], d2.error))
            end = d2.end or bound
            break
        items.extend(items_from_value(d2.value, text[j:d2.end]))
        end = d2.end
    return items, end, None, False


def tag_regions(
    text: str,
    open_: str,
    read_region: Callable[[int, int, int], Span],
    body_must_follow: bool = False,
) -> list[Span]:
    """One span per opening tag ``open_`` in ``text``, read by ``read_region(p, b, region_end)``.

    Shared by every detector whose calls follow an opening tag: each region runs from the tag
    at ``p`` (body from ``b``) to the next opening tag or the end of the text, and scanning
    resumes after what the reader consumed. With ``body_must_follow`` the tag counts only
    when ``[`` follows it at once (``functools[``: the bare word may be prose); a tag at the
    very end of the text is then a call that may still be arriving.
    """
    out: list[Span] = []
    n = len(text)
    pos = 0
    while True:
        p = text.find(open_, pos)
        if p < 0:
            return out
        b = p + len(open_)
        if body_must_follow:
            if b >= n:
                out.append(Span(p, n, [], final=False))
                return out
            if text[b] != "[":
                pos = b
                continue
        nxt = text.find(open_, b)
        region_end = nxt if nxt >= 0 else n
        sp = read_region(p, b, region_end)
        out.append(sp)
        pos = max(sp.end, b)


class TaggedJson(Detector):
    """Base for formats that wrap JSON in an opening tag and an optional closing tag.

    ``tags`` lists (open, close) pairs; close None means the format has no closing tag.
    ``strict_open`` opens whose body must follow immediately (``functools[``) and that are
    ignored otherwise (the word may be prose).
    """

    tags: ClassVar[tuple[tuple[str, str | None], ...]] = ()
    strict_open: ClassVar[frozenset[str]] = frozenset()
    #: a body starting with one of these belongs to another format (e.g. Qwen3-Coder XML)
    foreign_bodies: ClassVar[tuple[str, ...]] = (functionary.OPEN, functionary.OPEN[:-1] + " ")
    spans_at_openings = True  # a span starts at its opening tag or is a stray closing tag
    #: the one (open, close) pair :meth:`lean` reads; None: formats it leaves to ``detect``
    _lean_pair: ClassVar[tuple[str, str] | None] = None

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        one = cls.tags[0] if len(cls.tags) == 1 and not cls.strict_open else None
        cls._lean_pair = (one[0], one[1]) if one is not None and one[1] else None

    def detect(self, text: str) -> list[Span]:
        groups = []
        for open_, close in self.tags:
            spans = self._pair(text, open_, close) if open_ in text else []
            if close and close in text:
                spans += orphans(text, (close,), spans)
            groups.append(spans)
        return resolve_overlaps(groups)

    def lean(self, text: str) -> list[LeanSpan] | None:
        """Calls as ``open`` + JSON + ``close`` with only blanks between, and each tag in the
        text one of theirs (no stray closing tag, no tag inside a call): formats with one
        tag pair that closes."""
        pair = self._lean_pair
        if pair is None:
            return None
        open_, close = pair
        lo, lc = len(open_), len(close)
        n = len(text)
        out: list[LeanSpan] = []
        p = text.find(open_)
        if p < 0:
            return None if close in text else []
        flat = shallow(text)
        while p >= 0:
            i = p + lo
            while i < n and text[i] in " \t\r\n":
                i += 1
            r = read_calls(text, i, n, flat) if i < n and text[i] in "{[" else None
            if r is None:
                return None
            q = r[1]
            while q < n and text[q] in " \t\r\n":  # other blanks: the full chain
                q += 1
            if not text.startswith(close, q):
                return None
            out.append((p, q + lc, r[0]))
            p = text.find(open_, q + lc)
        if text.count(open_) != len(out) or text.count(close) != len(out):
            return None  # a tag inside a call (it bounds the region) or a stray closing tag
        return out

    def _pair(self, text: str, open_: str, close: str | None) -> list[Span]:
        return tag_regions(
            text,
            open_,
            lambda p, b, region_end: self._one(text, p, b, region_end, close),
            body_must_follow=open_ in self.strict_open,
        )

    def _one(self, text: str, p: int, b: int, region_end: int, close: str | None) -> Span:
        """One opening tag at ``p`` (body from ``b``, bounded by the next opening tag).

        The first character of the body decides what the region is, so a closing tag that
        arrives later never changes how earlier text was read: JSON is a call (complete,
        malformed, or truncated), a foreign body belongs to another detector, and anything
        else leaves only the tag itself as markup (a later closing tag is then a stray).
        """
        n = len(text)
        at_end = region_end == n
        i = skip_blanks(text, b, region_end)
        if i >= region_end:
            if at_end:
                return Span(p, n, [], final=False)
            return Span(p, b, [RejectedCall(None, text[p:b], "tool-call tag without a call")])
        if close and text.startswith(close, i):
            return Span(p, i + len(close), [RejectedCall(None, text[p:i + len(close)], "empty tool call")])
        rest = text[i:n] if at_end else ""
        if rest and any(f.startswith(rest) and f != rest for f in (*self.foreign_bodies, *((close,) if close else ()))):
            return Span(p, n, [], final=False)
        if text[i] in "{[":
            return self._json(text, p, i, region_end, close)
        if text.startswith(self.foreign_bodies, i):
            return Span(p, b, [])
        return Span(p, b, [RejectedCall(None, text[p:b], "tool-call tag not followed by JSON")])

    def _json(self, text: str, p: int, i: int, region_end: int, close: str | None) -> Span:
        n = len(text)
        items, end, err, trunc = json_body(text, i, region_end, repair=False)
        # complete JSON: a closing tag inside it can only be inside a string
        q = None if err is None else real_close(text, i, close, region_end)
        if q is not None:  # a closing tag bounds it: supply missing closers (`{"a": {…}</tool_call>`)
            items, end, err, _ = json_body(text, i, q, repair=True)
            if err is not None:
                items = [*items, RejectedCall(last_json_name(text[i:q]), text[p:q + len(close)], err)]
            return Span(p, q + len(close), items)
        if err is None or not trunc:
            if err is not None:
                stop = end if end is not None else region_end
                items = [*items, RejectedCall(last_json_name(text[i:stop]), text[p:stop], err)]
                end = stop
            return Span(p, close_after(text, end, region_end, close), items)
        name = last_json_name(text[i:region_end])
        rej = RejectedCall(name, text[p:region_end], err or "truncated JSON")
        return Span(p, region_end, [*items, rej], final=region_end != n, pending_name=name)


def real_close(text: str, i: int, close: str | None, limit: int) -> int | None:
    """The first closing tag that cuts the JSON starting at ``i`` short: outside any JSON
    string and before the value's own end. None when the value ends first (or no tag)."""
    if not close:
        return None
    q = text.find(close, i, limit)
    while q >= 0:
        sj, sp = scan(text, i, limit=q), scan(text, i, python=True, limit=q)
        if sj.end is not None or sp.end is not None:
            return None
        if not (sj.in_string or sp.in_string):
            return q
        q = text.find(close, q + 1, limit)
    return None


def close_after(text: str, end: int, bound: int, close: str | None) -> int:
    """End of a call region whose JSON ended at ``end``: stray ``}`` / ``]`` / ``,`` after it
    belong to the markup, and so does the closing tag when only whitespace precedes it."""
    if close and end < bound:  # the usual `}` + "\n"? + closing tag: no pattern needed
        j = end + 1 if text[end] == "\n" else end
        if text.startswith(close, j):
            return j + len(close)
    k = _JUNK.match(text, end, bound).end()
    if close:
        m = _WS.match(text, k, bound)
        if text.startswith(close, m.end()):
            return m.end() + len(close)
    return k


def orphans(text: str, closers: tuple[str, ...], spans: list[Span]) -> list[Span]:
    """Stray closing tags (a call closed twice, or never opened): markup, never spoken."""
    out = []
    if len(spans) <= 8:  # a reply's few calls: a direct test beats building an index
        for close in closers:
            q = text.find(close)
            while q >= 0:
                if not any(s.start <= q < s.end for s in spans):
                    out.append(Span(q, q + len(close)))
                q = text.find(close, q + len(close))
        return out
    taken = sorted((s.start, s.end) for s in spans if s.end > s.start)
    starts = [a for a, _ in taken]
    reach = list(accumulate((b for _, b in taken), max))  # furthest end among spans so far
    for close in closers:
        pos = 0
        while True:
            q = text.find(close, pos)
            if q < 0:
                break
            i = bisect_right(starts, q)  # the last span starting at or before q
            if not (i and reach[i - 1] > q):
                out.append(Span(q, q + len(close)))
            pos = q + len(close)
    return out


class Hermes(TaggedJson):
    """Hermes / Qwen2.5 / Qwen3 / Granite 4: ``<tool_call>{json}</tool_call>`` per call."""

    name = "hermes"
    tags = ((hermes.OPEN, hermes.CLOSE),)
    markers = (hermes.OPEN, hermes.CLOSE)


class PipeToolCall(TaggedJson):
    """Granite 3.x ``<|tool_call|>[…]`` (no closing tag); Phi-4 adds ``<|/tool_call|>``."""

    name = "pipe_tool_call"
    tags = ((phi4.OPEN, phi4.CLOSE),)
    markers = (phi4.OPEN, phi4.CLOSE)


class Phi4(TaggedJson):
    """Phi-4-mini: ``<|tool_call|>[…]<|/tool_call|>`` (closing tag often missing) and the
    ``functools[…]`` form of its other published template."""

    name = "phi4"
    tags = ((phi4.OPEN, phi4.CLOSE), (phi4.FUNCTOOLS, None))
    strict_open = frozenset({phi4.FUNCTOOLS})
    markers = (phi4.OPEN, phi4.CLOSE, phi4.FUNCTOOLS + "[")
    openings = (phi4.OPEN, phi4.CLOSE, phi4.FUNCTOOLS)  # a bare trailing tag may still grow
