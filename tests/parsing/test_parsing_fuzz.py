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


@pytest.mark.parametrize("name", sorted(BUILTIN))
@FUZZ
@given(text=ANY_TEXT)
def test_skipped_detector_would_have_found_nothing(name, text):
    """The chain skips a detector when none of its openings is in the text: that must
    never hide a span (fixture replies and fuzz fragments, cut anywhere)."""
    det = BUILTIN[name](None)
    for cut in (len(text), len(text) // 2, len(text) // 3):
        if not det.could_match(text[:cut]):
            assert det.detect(text[:cut]) == []


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_fixture_replies_contain_an_opening_of_their_detector(name):
    from parsing_data import load_fixtures

    det = BUILTIN[name](None)
    for _fmt, case in load_fixtures():
        text = case["text"]
        if det.detect(text):
            assert det.could_match(text), (name, text)


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
