"""The chain on real output of Qwen2.5-Coder-0.5B (its own template, tools in the prompt).

This model answers tool requests with bare JSON or a ```json fence instead of its
template's <tool_call> tags: the chain must still find the call, speak no markup, and the
streamed events must match the one-shot result.
"""

from __future__ import annotations

import pytest
from parsing_data import TOOLS

from edgevox.parsing import StreamingParser, parse_tool_calls
from edgevox.parsing.streaming import CallComplete, TextDelta

pytestmark = pytest.mark.model

SYSTEM = "You are a helpful voice assistant. Use the tools when they help."


@pytest.mark.parametrize(
    ("question", "tool", "key", "value"),
    [("What's the weather in Paris right now?", "get_weather", "city", "Paris"), ("Set a timer for 5 minutes.", "set_timer", "minutes", 5)],
)
def test_real_qwen_tool_call_is_parsed_streamed_and_one_shot(qwen_backend, question, tool, key, value):
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
    sp = StreamingParser(parsers=("qwen25", "hermes"), tools=TOOLS)
    pieces, events = [], []
    for piece in qwen_backend.stream(messages, TOOLS, max_tokens=80, temperature=0.0, seed=0):
        pieces.append(piece)
        events += sp.feed(piece)
    events += sp.close()
    text = "".join(pieces)
    r = parse_tool_calls(text, parsers=("qwen25", "hermes"), tools=TOOLS)
    assert [c.name for c in r.calls] == [tool], text
    assert r.calls[0].arguments.get(key) == value, text
    for marker in ("{", "```", "<tool_call>", '"name"'):
        assert marker not in r.content
    assert [e.call for e in events if isinstance(e, CallComplete)] == r.calls
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == r.content
    assert sp.result() == r
