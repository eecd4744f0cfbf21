"""``<function=name>`` formats.

* functionary / Llama 3.1 custom tools: ``<function=name>{json}</function>``.
* Qwen3-Coder: ``<tool_call><function=name><parameter=k>\\nv\\n</parameter></function></tool_call>``
  (the outer tags optional). Parameter values are JSON when they decode as JSON, else text;
  a parameter the tool schema declares as a string stays a string.

Both tolerate a missing ``</function>`` (and ``</parameter>``) when the next call or the
end of the reply follows.
"""

from __future__ import annotations

import json
import re

from ...formats import functionary, hermes, qwen3_coder
from .._values import decode_at, depth_ok, items_from_value, skip_blanks
from ..base import Detector
from ..types import RejectedCall, Span, ToolCall
from .tagged import close_after, orphans, real_close

_FN, _CLOSE = functionary.OPEN, functionary.CLOSE
_PARAM_OPEN, _PARAM_CLOSE = qwen3_coder.PARAM_OPEN, qwen3_coder.PARAM_CLOSE
_OPEN = re.compile(re.escape(_FN) + r"([A-Za-z_][\w.\-]*)>")
_OPEN_PARTIAL = re.compile(re.escape(_FN) + r"([A-Za-z_][\w.\-]*)?\Z")
_PARAM = re.compile(re.escape(_PARAM_OPEN) + r"([^>\s]{1,200})>")
_OUTER_OPEN = re.compile(re.escape(hermes.OPEN) + r"\s*\Z")
_OUTER_CLOSE = re.compile(r"\s*" + re.escape(hermes.CLOSE))


def _function_spans(text: str, body_kind: str, parse) -> list[Span]:
    out: list[Span] = []
    n = len(text)
    pos = 0
    while True:
        k = text.find(_FN, pos)
        if k < 0:
            return out
        m = _OPEN.match(text, k)
        if m is None:
            pm = _OPEN_PARTIAL.match(text, k)
            if pm is not None:
                out.append(Span(k, n, [], final=False))
                return out
            pos = k + len(_FN)
            continue
        name = m.group(1)
        b = m.end()
        nxt = text.find(_FN, b)
        region_end = nxt if nxt >= 0 else n
        i = skip_blanks(text, b, region_end)
        rest = text[i:region_end]
        if not rest and region_end == n:
            out.append(Span(k, n, [], final=False, pending_name=name))
            return out
        at_end = region_end == n
        mine = (
            rest.startswith(body_kind)
            or rest.startswith(_CLOSE)
            or (at_end and (body_kind.startswith(rest) or _CLOSE.startswith(rest)))
        )
        if not mine:
            pos = b
            continue
        sp = parse(text, k, name, i, region_end)
        out.append(sp)
        pos = max(sp.end, b)


class Functionary(Detector):
    """``<function=name>{json}</function>``."""

    name = "functionary"
    markers = (_FN, _CLOSE)

    def detect(self, text: str) -> list[Span]:
        spans = _function_spans(text, "{", self._parse)
        return spans + orphans(text, (_CLOSE,), spans)

    def _parse(self, text: str, k: int, name: str, i: int, region_end: int) -> Span:
        n = len(text)
        at_end = region_end == n
        if text.startswith(_CLOSE, i):
            return Span(k, i + len(_CLOSE), [ToolCall(None, name, {})])
        if text[i] != "{":  # a partial </function> at the end of the reply
            return Span(k, n, [], final=False, pending_name=name)
        q = real_close(text, i, _CLOSE, region_end)
        if q is not None:
            d2 = decode_at(text, i, limit=q, repair=True)
            if d2.error is None:
                items = items_from_value({"name": name, "arguments": d2.value}, text[k:q])
                return Span(k, q + len(_CLOSE), items)
            return Span(k, q + len(_CLOSE), [RejectedCall(name, text[k:q + len(_CLOSE)], d2.error or "malformed JSON")])
        d = decode_at(text, i, limit=region_end)
        if d.error is None:
            items = items_from_value({"name": name, "arguments": d.value}, text[k:d.end])
            return Span(k, close_after(text, d.end, region_end, _CLOSE), items)
        if not d.truncated:
            stop = d.end if d.end is not None else region_end
            return Span(k, close_after(text, stop, region_end, _CLOSE), [RejectedCall(name, text[k:stop], d.error)])
        rej = RejectedCall(name, text[k:region_end], d.error or "truncated JSON")
        return Span(k, region_end, [rej], final=not at_end, pending_name=name)


class Qwen3Coder(Detector):
    """Qwen3-Coder XML calls (see module docstring)."""

    name = "qwen3_coder"
    markers = (hermes.OPEN, hermes.CLOSE, _FN, _CLOSE, _PARAM_OPEN, _PARAM_CLOSE)

    def pending(self, text: str) -> int | None:
        # "<tool_call>" + whitespace (+ the start of "<function=") may still become our call
        k = text.rfind(hermes.OPEN)
        if k >= 0 and _FN.startswith(text[k + len(hermes.OPEN):].lstrip()):
            return k
        return None

    def detect(self, text: str) -> list[Span]:
        spans = _function_spans(text, _PARAM_OPEN, self._parse)
        for sp in spans:  # widen to the optional <tool_call> … </tool_call> wrapper
            lead = _OUTER_OPEN.search(text, max(0, sp.start - 40), sp.start)
            if lead is not None and not any(o.start < lead.start() < o.end for o in spans if o is not sp):
                sp.start = lead.start()
            if sp.final:
                c = _OUTER_CLOSE.match(text, sp.end)
                if c is not None:
                    sp.end = c.end()
        return spans + orphans(text, (_CLOSE, _PARAM_CLOSE), spans)

    def _parse(self, text: str, k: int, name: str, i: int, region_end: int) -> Span:
        n = len(text)
        at_end = region_end == n
        props = self.tools.param_types(name) if self.tools is not None else {}
        args: dict = {}
        j = i
        while True:
            j = skip_blanks(text, j, region_end)
            if text.startswith(_CLOSE, j):
                return Span(k, j + len(_CLOSE), [ToolCall(None, name, args)])
            if j >= region_end:
                # no </function>: complete if the reply went on to another call or ended
                return Span(k, j, [ToolCall(None, name, args)], final=not at_end, pending_name=name)
            pm = _PARAM.match(text, j)
            if pm is None:
                tail = text[j:n]
                if at_end and (
                    _PARAM_OPEN.startswith(tail)
                    or _CLOSE.startswith(tail)
                    or (tail.startswith(_PARAM_OPEN) and ">" not in tail)
                ):
                    return Span(k, n, [], final=False, pending_name=name)
                # unexpected text: the call ends here
                return Span(k, j, [ToolCall(None, name, args)], final=True)
            key = pm.group(1)
            v0 = pm.end()
            stops = [x for x in (text.find(_PARAM_CLOSE, v0, region_end), text.find(_PARAM_OPEN, v0, region_end), text.find(_CLOSE, v0, region_end)) if x >= 0]
            if not stops:
                raw = text[k:n]
                return Span(k, region_end, [RejectedCall(name, raw, "parameter value not terminated")], final=not at_end, pending_name=name)
            v1 = min(stops)
            args[key] = self._value(text[v0:v1], props.get(key))
            j = v1 + len(_PARAM_CLOSE) if text.startswith(_PARAM_CLOSE, v1) else v1

    @staticmethod
    def _value(raw: str, spec: object) -> object:
        v = raw[1:] if raw.startswith("\n") else raw
        v = v[:-1] if v.endswith("\n") else v
        want = spec.get("type") if isinstance(spec, dict) else None
        if want == "string" or (isinstance(want, list) and "string" in want):
            return v
        try:
            dec = json.loads(v)
        except (ValueError, RecursionError):
            return v
        return dec if depth_ok(dec) else v

