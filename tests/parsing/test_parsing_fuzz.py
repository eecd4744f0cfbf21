"""Any input string gives a result: detectors, the chain and the streaming parser never raise."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parsing_strategies import parser_sets, replies, splits, tool_sets

from edgevox.parsing import BUILTIN, ParseResult, Span, StreamingParser, ToolIndex, parse_tool_calls

ANY_TEXT = st.one_of(replies, st.text(max_size=200))
FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", sorted(BUILTIN))
@FUZZ
@given(text=ANY_TEXT, tools=tool_sets)
def test_detector_never_raises(name, text, tools):
    det = BUILTIN[name](ToolIndex(tools) if tools else None)
    spans = det.detect(text)
    assert isinstance(spans, list)
    for sp in spans:
        assert isinstance(sp, Span) and 0 <= sp.start < sp.end <= len(text)
    p = det.pending(text)
    assert p is None or 0 <= p <= len(text)


@FUZZ
@given(text=ANY_TEXT, parsers=parser_sets, tools=tool_sets, think_open=st.booleans())
def test_chain_never_raises(text, parsers, tools, think_open):
    r = parse_tool_calls(text, parsers=parsers, tools=tools, think_open=think_open)
    assert isinstance(r, ParseResult)
    assert r.fallback_mode is bool(r.calls)
    assert r.content == r.content.strip()
    for c in r.calls:
        assert isinstance(c.arguments, dict)
        c.to_openai()  # always JSON-serialisable
        if tools:
            assert c.name in tools


@FUZZ
@given(text=ANY_TEXT, parsers=parser_sets, data=st.data())
def test_streaming_never_raises(text, parsers, data):
    sp = StreamingParser(parsers=parsers)
    for piece in data.draw(splits(text)):
        sp.feed(piece)
    sp.close()
    assert isinstance(sp.result(), ParseResult)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="[{(\"'<|>:,]})\\", min_size=500, max_size=3000))
def test_bracket_soup_is_fast_and_safe(text):
    parse_tool_calls(text)
