"""Tool output is data: keep it from posing as chat markup or instructions.

A tool result goes back inside the template's tool role (or the preset's synthetic
message, which already says "this is data"). What a tool returns is outside our control —
a web page, a file, a device name — and the backend tokenizes prompts with special tokens
enabled, so a result containing ``<|im_start|>system`` or ``[INST]`` would open a real
turn. ``neutralise`` breaks every such marker with a visible, harmless change.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

# <|im_start|>, <|eot_id|>, <|tool_call|>, <|"|> … : break the "<|" and "|>" pairs.
_PIPE_TAG = re.compile(r"<\|([^<>\n]{0,64}?)\|>|<\||\|>")
# XML-ish role/call tags of the common templates, opening or closing.
_ANGLE_TAG = re.compile(
    r"</?(?:tool_call|tool_response|tools|think|start_of_turn|end_of_turn|s|"
    r"start_function_call|end_function_call|function(?:=[^>\n]{0,64})?|parameter(?:=[^>\n]{0,64})?|"
    r"\|?tool_call\|?)>",
    re.IGNORECASE,
)
# Mistral-style control words.
_BRACKET_TAG = re.compile(
    r"\[/?(?:INST|TOOL_CALLS|TOOL_RESULTS|AVAILABLE_TOOLS|SYSTEM_PROMPT|ARGS|CALL_ID|THINK)\]"
)


def neutralise(text: str, extra_markers: tuple[str, ...] = ()) -> str:
    """``text`` with chat/call markup defused (``<|x|>`` -> ``‹|x|›`` and so on).

    ``extra_markers`` are the preset's own stop strings and think tags, defused too.
    Ordinary text, JSON and numbers are unchanged.
    """
    if not text:
        return text
    text = _PIPE_TAG.sub(lambda mt: mt.group(0).replace("<|", "‹|").replace("|>", "|›"), text)
    text = _ANGLE_TAG.sub(lambda mt: "‹" + mt.group(0)[1:-1] + "›", text)
    text = _BRACKET_TAG.sub(lambda mt: "(" + mt.group(0)[1:-1] + ")", text)
    for m in extra_markers:  # anything preset-specific the patterns above missed
        if m and len(m) > 1 and m in text:
            text = text.replace(m, m[0] + "\u200b" + m[1:])
    return text


def leaves(value: Any) -> Iterator[Any]:
    """Every value inside ``value`` that is not a mapping, list or tuple (depth first, in
    order): what a call's arguments or a tool's result say, however they nest. One walk
    for the hooks that look for strings (grounding) and numbers (the claim check)."""
    if isinstance(value, Mapping):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from leaves(v)
    else:
        yield value
