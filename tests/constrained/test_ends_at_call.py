"""A grammar that ends at the call ends decoding there, also when its format allows one
newline after the last call (hermes) and when prose may come first (lazy grammars)."""

from __future__ import annotations

import pytest

from edgevox.examples.clock_weather import TOOLS
from edgevox.grammars import tool_call_grammar
from edgevox.llm.constrained import engine_for, lazy_tool_grammar

CALL = '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n</tool_call>'


@pytest.mark.parametrize("lazy", [True, False])
@pytest.mark.parametrize("parallel", [False, True])
def test_only_blanks_left_after_the_last_possible_call(qwen_backend, lazy, parallel):
    text = ("Sure. " if lazy else "") + CALL
    grammar = (lazy_tool_grammar(TOOLS, qwen_backend.preset, parallel=parallel) if lazy
               else tool_call_grammar(TOOLS, "hermes", parallel_tool_calls=parallel))
    m = engine_for(qwen_backend, "llguidance").start(grammar)
    for tok in qwen_backend.llm.tokenize(text.encode(), add_bos=False, special=True):
        assert not m.only_blanks_left()  # prose, or a call still open
        m.consume(tok)
    assert not m.is_finished()  # the format allows a newline after the call...
    # ...so only a grammar without a further call is over; a parallel one may go on
    assert m.only_blanks_left() is (not parallel)
    assert m.is_allowed(qwen_backend.llm.tokenize(b"\n", add_bos=False)[0])  # state unchanged


def test_decoding_stops_at_a_single_call(qwen_backend):
    msgs = [{"role": "user", "content": "What time is it in Tokyo?"}]
    g = tool_call_grammar(TOOLS, "hermes", parallel_tool_calls=False)
    with qwen_backend.decoding_mode("llguidance", True):
        c = qwen_backend.complete(msgs, TOOLS, grammar=g, temperature=0.0, max_tokens=64)
    assert c.text.endswith("</tool_call>") and c.finish_reason == "stop"
    assert c.info["constrained"]["finished_early"]
