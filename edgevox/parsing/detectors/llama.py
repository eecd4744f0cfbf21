"""Llama 3.1 / 3.2: ``<|python_tag|>`` followed by JSON or calls, the documented bare
``{"name": …, "parameters": …}`` (several joined by ``;``), and the pythonic list."""

from __future__ import annotations

import re

from ...formats import llama32
from .._pythonic import calls_from_list, calls_from_source, list_extent
from .._values import skip_blanks
from ..base import Detector, LeanSpan, MultiDetector
from ..types import RejectedCall, Span
from .bare import BareJson
from .pythonic import Pythonic
from .tagged import json_body, tag_regions

TAG = llama32.PYTHON_TAG
_ENDS = llama32.ENDS
_END_RE = re.compile(r"\s*(?:" + "|".join(re.escape(e) for e in _ENDS) + ")")
_HEAD = re.compile(r"\s*([A-Za-z_][\w.]*)\s*\(")


class PythonTag(Detector):
    """``<|python_tag|>`` + JSON object(s), a call list, or ``name(k=v)`` lines."""

    name = "python_tag"
    markers = (TAG, *_ENDS)
    spans_at_openings = True  # at the tag

    def lean(self, text: str) -> list[LeanSpan] | None:
        """Nothing to find without the tag; the tag's bodies need the full reader."""
        return None if TAG in text else []

    def detect(self, text: str) -> list[Span]:
        return tag_regions(text, TAG, lambda p, b, end: self._region(text, p, b, end))

    def _region(self, text: str, p: int, b: int, region_end: int) -> Span:
        """The body runs to the first <|eom_id|> / <|eot_id|>, which the span then takes in."""
        stops = [x for x in (text.find(e, b, region_end) for e in _ENDS) if x >= 0]
        bound = min(stops) if stops else region_end
        sp = self._body(text, p, b, bound, at_end=not stops and region_end == len(text))
        e = _END_RE.match(text, sp.end)
        if e is not None and sp.final:
            sp.end = e.end()
        return sp

    def _body(self, text: str, p: int, b: int, bound: int, at_end: bool) -> Span:
        i = skip_blanks(text, b, bound)
        if i >= bound:
            if at_end:
                return Span(p, bound, [], final=False)
            return Span(p, bound, [RejectedCall(None, text[p:bound], f"{TAG} without a call")])
        c = text[i]
        if c == "{":
            items, end, err, trunc = json_body(text, i, bound, repair=not at_end)
            if err is None:
                return Span(p, end, items)
            # the body runs to <|eom_id|> / <|eot_id|>; until one comes it may still grow
            return Span(p, bound, [*items, RejectedCall(None, text[p:bound], err)], final=not at_end)
        if c == "[":
            end, closed = list_extent(text[:bound], i)
            items = calls_from_list(text[:bound], i, end)
            if items is not None:
                return Span(p, end, items, final=closed or not at_end)
        body = text[i:bound]
        items = calls_from_source(body)
        head = _HEAD.match(body)
        name = head.group(1) if head else None
        if items is None:
            items = [RejectedCall(name, text[p:bound], f"{TAG} body is not JSON or name(key=value) calls")]
            return Span(p, bound, items, final=not at_end, pending_name=name if at_end else None)
        return Span(p, bound, items, final=not at_end)


class Llama32(MultiDetector):
    name = "llama32"
    parts = (PythonTag, BareJson, Pythonic)
