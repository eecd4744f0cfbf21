"""Pythonic call lists: ``[get_weather(city='Paris'), math.sqrt(x=2)]``.

Used by Llama 3.2 (its pythonic system prompt), Llama 4 and many BFCL fine-tunes. A list
counts only where a reply would start one (start of text or line, or after a colon), so
``name(args)`` inside a sentence is prose. Parsed with ``ast`` as data, never run.
"""

from __future__ import annotations

import re

from .._pythonic import calls_from_list, list_extent
from .._values import scan
from ..base import LINE_START, Detector
from ..types import RejectedCall, Span

_IDENT = r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*"
_CAND = re.compile(LINE_START + r"(\[)\s*" + _IDENT + r"\s*\(")
_PARTIAL = re.compile(LINE_START + r"(\[)\s*(?:" + _IDENT + r"\s*\.?\s*)?\Z")


class Pythonic(Detector):
    name = "pythonic"
    trigger_chars = "["
    spans_at_openings = True  # at the list's `[`

    def detect(self, text: str) -> list[Span]:
        out: list[Span] = []
        pos = 0
        for m in _CAND.finditer(text):
            s = m.start(1)
            if s < pos:
                continue
            end, closed = list_extent(text, s)
            items = calls_from_list(text, s, end)
            if items is None:
                continue
            name = None
            if not closed and items and isinstance(items[-1], RejectedCall):
                name = items[-1].name
            out.append(Span(s, end, items, final=closed, pending_name=name))
            pos = end
        return out

    def pending(self, text: str) -> int | None:
        # a list whose `]` has not come yet: a later quote or bracket can change its extent
        for m in _CAND.finditer(text):
            if scan(text, m.start(1), python=True).end is None:
                return m.start(1)
        m = _PARTIAL.search(text, max(0, len(text) - 300))
        return m.start(1) if m else None
