"""Gemma family.

* Gemma 4: ``<|tool_call>call:name{key:<|"|>text<|"|>,n:3}<tool_call|>`` (calls may follow
  each other without separators).
* FunctionGemma (Gemma 3 270M): ``<start_function_call>call:name{k:<escape>v<escape>}<end_function_call>``.
* Gemma 3 (prompted): a fenced ```` ```tool_code ```` block holding ``name(a=1)`` calls.
"""

from __future__ import annotations

import re

from ...formats import gemma
from .._gemma import read_call
from .._pythonic import calls_from_source
from ..base import Detector, resolve_overlaps
from ..types import RejectedCall, Span, ToolCall
from .tagged import json_body, tag_regions

_TAGS = ((gemma.OPEN, gemma.CLOSE), (gemma.FN_OPEN, gemma.FN_CLOSE))
_FENCE = re.compile(re.escape(gemma.FENCE) + r"[ \t]*" + re.escape(gemma.TOOL_CODE[len(gemma.FENCE):]) + r"[ \t]*\r?\n")
_HEAD = re.compile(r"\s*(?:print\s*\(\s*)?\[?\s*([A-Za-z_][\w.]*)\s*\(")


class Gemma(Detector):
    name = "gemma"
    markers = (gemma.OPEN, gemma.CLOSE, gemma.FN_OPEN, gemma.FN_CLOSE, gemma.TOOL_CODE, gemma.FENCE)

    def detect(self, text: str) -> list[Span]:
        groups = [self._tagged(text, o, c) for o, c in _TAGS]
        groups.append(self._fenced(text))
        return resolve_overlaps(groups)

    def _tagged(self, text: str, open_: str, close: str) -> list[Span]:
        return tag_regions(
            text, open_, lambda p, b, region_end: self._region(text, p, b, region_end, close)
        )

    def _region(self, text: str, p: int, b: int, region_end: int, close: str) -> Span:
        """Calls after one opening tag. As for hermes, what follows the tag decides: a
        ``call:`` (or JSON) makes a call region that runs to its closing tag; anything else
        leaves only the tag as markup, whatever comes later."""
        n = len(text)
        at_end = region_end == n
        items: list = []
        j = b
        while True:
            last = j
            while j < region_end and text[j] in " \t\r\n,;":
                j += 1
            if text.startswith(close, j):
                if not items:
                    return Span(p, j + len(close), [RejectedCall(None, text[p:j + len(close)], "empty tool call")])
                return Span(p, j + len(close), items)
            if j >= region_end:
                if at_end:
                    return Span(p, n, items, final=False)
                if not items:
                    return Span(p, b, [RejectedCall(None, text[p:b], "tool-call tag without a call")])
                return Span(p, j, items)
            rest = text[j:n]
            if at_end and any(m.startswith(rest) for m in (close, "call:")):
                return Span(p, n, items, final=False)
            q = text.find(close, j, region_end)
            bound = q if q >= 0 else region_end
            if text[j] in "{[":  # JSON inside Gemma tags: models drift into it
                got, end, err, trunc = json_body(text, j, region_end, repair=False)
                if err is None:
                    items.extend(got)
                    j = end
                    continue
                if trunc and q >= 0:
                    got, end, err2, _ = json_body(text, j, q, repair=True)
                    if err2 is None:
                        return Span(p, q + len(close), [*items, *got])
                name = None
            else:
                name, args, end, err, trunc = read_call(text, j, bound)
                if err is None:
                    items.append(ToolCall(None, name, args))
                    j = end
                    continue
                if name is None and not trunc:  # not a call at all: the tag alone is markup
                    if not items:
                        return Span(p, b, [RejectedCall(None, text[p:b], "tool-call tag not followed by call:name{…}")])
                    return Span(p, last, items)
            # a call started but is cut or malformed: it runs to its closing tag
            if q >= 0:
                return Span(p, q + len(close), [*items, RejectedCall(name, text[p:q + len(close)], err)])
            if at_end:
                return Span(p, n, [*items, RejectedCall(name, text[p:n], err)], final=False, pending_name=name)
            return Span(p, region_end, [*items, RejectedCall(name, text[p:region_end], err)])

    def _fenced(self, text: str) -> list[Span]:
        out: list[Span] = []
        n = len(text)
        for m in _FENCE.finditer(text):
            if out and m.start() < out[-1].end:
                continue
            q = text.find("```", m.end())
            body = text[m.end():q if q >= 0 else n]
            end = q + 3 if q >= 0 else n
            if not body.strip():
                if q < 0:
                    out.append(Span(m.start(), n, [], final=False))
                else:
                    out.append(Span(m.start(), end, [RejectedCall(None, text[m.start():end], "empty tool_code block")]))
                continue
            items = calls_from_source(body)
            head = _HEAD.match(body)
            name = head.group(1) if head else None
            if items is None:
                items = [RejectedCall(name, text[m.start():end], "tool_code block is not a list of name(key=value) calls")]
            out.append(Span(m.start(), end, items, final=q >= 0, pending_name=name if q < 0 else None))
        return out

