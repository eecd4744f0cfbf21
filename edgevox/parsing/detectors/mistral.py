"""Mistral: ``[TOOL_CALLS] [{"name", "arguments", "id"}]`` (v3 tokenizer, with or without
the space) and ``[TOOL_CALLS]name[ARGS]{…}`` (v11+; v11 may add ``[CALL_ID]id``).

Ids (Mistral's 9 alphanumeric characters) are kept verbatim.
"""

from __future__ import annotations

import re

from ...formats import mistral
from .._values import decode_at, item_from_obj, items_from_value, skip_blanks, split_elements
from ..base import Detector, LeanSpan
from ..lean import decode, read_calls, shallow
from ..types import RejectedCall, Span, ToolCall
from .tagged import last_json_name, tag_regions

MARK, ARGS, CALL_ID = mistral.OPEN, mistral.ARGS, mistral.CALL_ID
_NAMED = re.compile(r"\s*([A-Za-z_][\w.\-]*)\s*(?:" + re.escape(CALL_ID) + r"\s*([A-Za-z0-9_\-]+)\s*)?" + re.escape(ARGS) + r"\s*")
_LEAD_NAME = re.compile(r"\s*([A-Za-z_][\w.\-]*)(.*)\Z", re.S)
_CALL_ID_TAIL = re.compile(re.escape(CALL_ID) + r"\s*[A-Za-z0-9_\-]*\s*(.*)\Z", re.S)


def _partial_named(rest: str) -> tuple[bool, str | None]:
    """Whether ``rest`` (the text after [TOOL_CALLS], at the end of the reply) may still
    grow into ``name[CALL_ID]id[ARGS]``, and the name once it is complete."""
    m = _LEAD_NAME.match(rest)
    if m is None:
        return False, None
    raw_tail = m.group(2)
    tail = raw_tail.lstrip()
    name = m.group(1) if raw_tail else None
    if not tail or ARGS.startswith(tail) or CALL_ID.startswith(tail):
        return True, name
    c = _CALL_ID_TAIL.match(tail)
    if c and ARGS.startswith(c.group(1)):
        return True, name
    return False, None


class Mistral(Detector):
    name = "mistral"
    markers = (MARK, ARGS, CALL_ID)
    spans_at_openings = True  # at [TOOL_CALLS]

    def lean(self, text: str) -> list[LeanSpan] | None:
        """Each ``[TOOL_CALLS]`` followed by a JSON call list or ``name[ARGS]{…}`` whose
        payload ends before the next one."""
        n = len(text)
        flat = shallow(text)
        out: list[LeanSpan] = []
        p = text.find(MARK)
        while p >= 0:
            b = p + len(MARK)
            nxt = text.find(MARK, b)
            region_end = nxt if nxt >= 0 else n
            i = skip_blanks(text, b, region_end)
            if i < region_end and text[i] in "[{":  # a JSON list (or object) of calls
                r = read_calls(text, i, region_end, flat)
            else:  # name[CALL_ID]id[ARGS]{...}
                m = _NAMED.match(text, b, region_end)
                j = m.end() if m is not None else region_end
                d = decode(text, j, region_end, flat) if j < region_end and text[j] == "{" else None
                # (the name and the id are what the pattern allows; the arguments an object)
                r = ([ToolCall(m.group(2), m.group(1), d[0])], d[1], None) if d and m else None
            if r is None:
                return None
            out.append((p, r[1], r[0]))
            p = nxt
        return out

    def detect(self, text: str) -> list[Span]:
        return tag_regions(text, MARK, lambda p, b, end: self._one(text, p, b, end))

    def _one(self, text: str, p: int, b: int, region_end: int) -> Span:
        n = len(text)
        at_end = region_end == n
        i = skip_blanks(text, b, region_end)
        if i >= region_end:
            return Span(p, region_end, [], final=not at_end) if at_end else Span(
                p, region_end, [RejectedCall(None, text[p:region_end], f"{MARK} without a call")]
            )
        if text[i] in "[{":
            d = decode_at(text, i, limit=region_end)
            if d.error is None:
                return Span(p, d.end, items_from_value(d.value, text[i:d.end]))
            if d.truncated:
                name = last_json_name(text[i:region_end])
                items = self._salvage(text, i, region_end)
                items.append(RejectedCall(name, text[p:region_end], d.error))
                return Span(p, region_end, items, final=not at_end, pending_name=name)
            stop = d.end or region_end
            items = self._salvage(text, i, stop) if text[i] == "[" else []
            if not any(not isinstance(x, RejectedCall) for x in items):
                items = [RejectedCall(last_json_name(text[i:stop]), text[p:stop], d.error or "malformed JSON")]
            return Span(p, stop, items)
        m = _NAMED.match(text, b, region_end)
        if m is None:
            partial, name = _partial_named(text[b:]) if at_end else (False, None)
            if partial:
                return Span(p, n, [], final=False, pending_name=name)
            return Span(p, b, [RejectedCall(None, text[p:b], f"{MARK} not followed by a call")])
        name, call_id = m.group(1), m.group(2)
        j = m.end()
        if j >= region_end:
            return Span(p, region_end, [], final=not at_end, pending_name=name)
        if text[j] != "{":
            return Span(p, j, [RejectedCall(name, text[p:j], f"{ARGS} not followed by a JSON object")])
        d = decode_at(text, j, limit=region_end)
        if d.error is not None:
            stop = region_end if d.truncated else (d.end or region_end)
            rej = RejectedCall(name, text[p:stop], d.error)
            return Span(p, stop, [rej], final=not (d.truncated and at_end), pending_name=name)
        item = item_from_obj({"name": name, "arguments": d.value}, text[p:d.end], call_id=call_id)
        return Span(p, d.end, [item])

    def _salvage(self, text: str, i: int, stop: int) -> list:
        """Well-formed elements of a broken list (one bad call must not sink the others)."""
        if text[i] != "[":
            return []
        items = []
        for a, b in split_elements(text, i, stop):
            piece = text[a:b].strip()
            d = decode_at(piece, 0) if piece[:1] == "{" else None
            if d is not None and d.error is None:
                items.append(item_from_obj(d.value, piece))
            elif d is not None and not d.truncated:
                items.append(RejectedCall(last_json_name(piece), piece, d.error or "malformed JSON"))
        return items
