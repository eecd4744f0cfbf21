"""The lean one-shot path: a reply written plainly in one format, read at ``json`` speed.

Most replies are a little prose around well-formed calls in the format the preset names.
For those the full chain (every detector, overlap ranking, think blocks, regions, the
``Joiner``) costs 15–40× a ``json.loads`` of the arguments. A detector's ``lean`` reads
such a reply directly: find the markup, decode each payload once with the C JSON scanner,
build the calls. It answers only when it is sure the full chain would find exactly these
calls and nothing else (no rejections, no repairs, no markup of another kind in the prose);
otherwise it returns None and the full chain decides. Names are checked against the tools
by the caller (``chain.lean_result``), which leaves any reply naming an unknown tool to the
full chain: a detector's ``lean`` may count on it. ``tests/parsing/test_lean.py`` checks
that both give identical results on every fixture, the fuzz replies and the benchmark.
"""

from __future__ import annotations

import json
from typing import Any

from .types import MAX_DEPTH, ToolCall

_SCAN = json.JSONDecoder().scan_once  # (value, end) of the JSON value at an index


def decode(text: str, i: int, limit: int, shallow: bool = False) -> tuple[Any, int] | None:
    """The JSON value at ``text[i]`` when it is well formed, ends by ``limit`` and nests
    shallowly enough that ``decode_at`` would take it as it is (else None). ``shallow``:
    the caller knows the whole text has at most MAX_DEPTH brackets (see :func:`shallow`)."""
    try:
        value, end = _SCAN(text, i)
    except (StopIteration, ValueError, RecursionError):
        return None
    if end > limit or (not shallow and text.count("{", i, end) + text.count("[", i, end) > MAX_DEPTH):
        return None
    return value, end


def read_calls(text: str, i: int, limit: int, shallow: bool = False) -> tuple[list[ToolCall], int, Any] | None:
    """The calls of the payload at ``text[i]`` (an object or a non-empty list of objects,
    decoded by :func:`decode`), where it ends, and the decoded value; None when the payload
    is anything ``item_from_obj`` would not accept unchanged: every object needs a name and
    arguments that are an object (or absent). The hot path of every lean reader, written
    as one loop: on this path a Python call costs a tenth of the ``json`` scan it wraps."""
    d = decode(text, i, limit, shallow)
    if d is None:
        return None
    value, end = d
    if type(value) is dict:
        objs: Any = (value,)
    elif type(value) is list and value:
        objs = value
    else:
        return None
    calls: list[ToolCall] = []
    for obj in objs:
        if type(obj) is not dict or "function" in obj:
            return None  # `{"function": {...}}` and other wrappers: the full chain
        name = obj.get("name")
        if type(name) is not str:
            return None
        name = name.strip()
        if not name:
            return None
        # the first of "arguments", "parameters", "args" present (cheaper than a loop over them)
        args = obj["arguments"] if "arguments" in obj else obj["parameters"] if "parameters" in obj else obj.get("args")
        if args is None:
            args = {}
        elif type(args) is not dict:
            return None
        ident = obj.get("id")
        calls.append(ToolCall(ident if type(ident) is str and ident else None, name, args))
    return calls, end, value


def shallow(text: str) -> bool:
    """True when no value in ``text`` can nest deeper than MAX_DEPTH: one count per reply
    instead of one per call."""
    n = text.count("{")
    return (n if "[" not in text else n + text.count("[")) <= MAX_DEPTH  # ("in" costs less than "count")


def join_cut(pieces: list[str]) -> str:
    """What ``Joiner`` makes of ``pieces`` fed in turn with a cut between each two: the
    non-blank cores, each pair separated by a blank line, a newline or a space as the most
    newlines on one side of a cut between them say."""
    parts: list[str] = []
    nl = 0
    for s in pieces:
        left = s.lstrip()
        core = left.rstrip()
        if not core:
            if parts:
                n = s.count("\n")
                if n > nl:
                    nl = n
            continue
        if parts:
            lead = s.count("\n", 0, len(s) - len(left))
            n = lead if lead > nl else nl
            parts.append("\n\n" if n >= 2 else "\n" if n == 1 else " ")
        parts.append(core)
        nl = left.count("\n", len(core))
    return "".join(parts)
