"""Streaming: events, hold-back of possible markup, and equality with the one-shot parser."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parsing_data import TOOLS, load_fixtures, parsers_of, tools_of
from parsing_strategies import parser_sets, replies, splits, tool_sets

from edgevox.parsing import MAX_INPUT_CHARS, StreamingParser, ToolCall, parse_tool_calls
from edgevox.parsing.streaming import (
    CallComplete,
    CallRejected,
    CallStarted,
    ReasoningDelta,
    TextDelta,
)

PARIS = ToolCall(None, "get_weather", {"city": "Paris"})


def run(pieces, **kw):
    sp = StreamingParser(**kw)
    events = []
    for p in pieces:
        events += sp.feed(p)
    events += sp.close()
    return events, sp


def spoken(events):
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_first_sentence_is_spoken_before_the_call_finishes():
    text = 'Sure, let me check the weather.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    sp = StreamingParser(parsers=("qwen25",), tools=TOOLS)
    cut = text.index('"city"')
    early = sp.feed(text[:cut])
    assert spoken(early) == "Sure, let me check the weather."
    assert [e.name for e in early if isinstance(e, CallStarted)] == ["get_weather"]
    assert not any(isinstance(e, CallComplete) for e in early)
    late = sp.feed(text[cut:]) + sp.close()
    done = [e for e in late if isinstance(e, CallComplete)]
    assert [(e.call, e.index) for e in done] == [(PARIS, 0)]


def test_partial_markers_are_held_back():
    sp = StreamingParser(parsers=("hermes", "mistral", "gemma"))
    assert spoken(sp.feed("Okay <tool_")) == "Okay"
    assert spoken(sp.feed("c")) == ""
    assert spoken(sp.feed("ar is red")) == " <tool_car is red"
    assert spoken(sp.feed(" [TOOL_")) == ""
    assert spoken(sp.feed("CALLS]get_weather[ARGS]{}")) == ""
    assert spoken(sp.feed(" <thi")) == ""
    events = sp.feed("nk>hidden") + sp.close()
    assert spoken(events) == "" and "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "hidden"


def test_bare_json_at_reply_start_is_held_until_decided():
    sp = StreamingParser(parsers=("qwen25",), tools=TOOLS)
    assert sp.feed('{"name": "get_weather", "argu') == []
    events = sp.feed('ments": {"city": "Paris"}}') + sp.close()
    assert spoken(events) == "" and [e.call for e in events if isinstance(e, CallComplete)] == [PARIS]
    sp = StreamingParser(parsers=("qwen25",), tools=TOOLS)
    assert spoken(sp.feed('{"temp": 21')) == ""
    assert spoken(sp.feed("}\nNice day.") + sp.close()) == '{"temp": 21}\nNice day.'


def test_reasoning_streams_but_is_never_spoken():
    events, _ = run(list("<think>\nLet me think.\n</think>\nHello!"), parsers=("hermes",))
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Let me think."
    assert spoken(events) == "Hello!"


def test_rejections_are_events():
    text = '<tool_call>{"name": "fly", "arguments": {}}</tool_call><tool_call>{"name": "get_weather", "arguments": {"city": "Pa'
    events, sp = run([text[:30], text[30:]], parsers=("hermes",), tools=TOOLS)
    rejected = [e.rejected.reason for e in events if isinstance(e, CallRejected)]
    assert rejected[0].startswith("unknown tool 'fly'") and "truncated" in rejected[1]
    started = [e for e in events if isinstance(e, CallStarted)]
    assert [e.name for e in started] == ["get_weather"]
    last = [e for e in events if isinstance(e, CallRejected)][-1]
    assert last.index == started[0].index  # the started call ends as a rejection
    assert sp.result().calls == [] and len(sp.result().rejected) == 2


def test_close_is_final_and_idempotent():
    sp = StreamingParser(parsers=("hermes",))
    assert spoken(sp.feed("Hi ")) == "Hi"
    assert spoken(sp.feed("<tool_call>")) == ""
    assert sp.result().content == "Hi"  # provisional result before close
    assert spoken(sp.close()) == ""
    assert sp.close() == [] and sp.feed("more") == []
    assert sp.result().content == "Hi"


def test_streamed_input_is_bounded():
    sp = StreamingParser(parsers=("hermes",))
    for _ in range(70):
        sp.feed("x" * 1024)
    events = sp.close()
    assert sp.result().content == "x" * MAX_INPUT_CHARS
    assert any(isinstance(e, CallRejected) and "truncated" in e.rejected.reason for e in events)
    assert sp.result() == parse_tool_calls("x" * 70 * 1024, parsers=("hermes",))


def test_plain_prose_does_not_reparse_every_token():
    sp = StreamingParser(parsers=("qwen25", "hermes"), tools=TOOLS)
    words = ("The quick brown fox jumps over the lazy dog. " * 60).split(" ")
    out = []
    for w in words:
        out += sp.feed(w + " ")
    out += sp.close()
    assert spoken(out) == ("The quick brown fox jumps over the lazy dog. " * 60).strip()
    assert sp.reparses < 10


CASES = load_fixtures()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CASES), st.data())
def test_fixture_texts_in_random_pieces_equal_one_shot(case, data):
    fmt, c = case
    parsers, tools = parsers_of(fmt, c), tools_of(c)
    pieces = data.draw(splits(c["text"]))
    events, sp = run(pieces, parsers=parsers, tools=tools)
    one = parse_tool_calls(c["text"], parsers=parsers, tools=tools)
    assert spoken(events) == one.content
    assert [e.call for e in events if isinstance(e, CallComplete)] == one.calls
    assert sp.result() == one and sp.regressions == 0


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies, parser_sets, tool_sets, st.booleans(), st.data())
def test_random_replies_in_random_pieces_equal_one_shot(text, parsers, tools, think_open, data):
    pieces = data.draw(splits(text))
    events, sp = run(pieces, parsers=parsers, tools=tools, think_open=think_open)
    one = parse_tool_calls(text, parsers=parsers, tools=tools, think_open=think_open)
    assert spoken(events) == one.content
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == (one.reasoning or "")
    assert [e.call for e in events if isinstance(e, CallComplete)] == one.calls
    assert sp.result() == one
    assert sp.regressions == 0
    starts = {e.index for e in events if isinstance(e, CallStarted)}
    assert {e.index for e in events if isinstance(e, CallComplete)} <= starts


def test_long_reply_streams_in_reasonable_time():
    rng = random.Random(0)
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>\n'
    prose = "It is a fine day in the city, and: the forecast {looks} good [really]. "
    text = "".join(rng.choice([prose, prose, call]) for _ in range(60))
    tokens = [text[i:i + 4] for i in range(0, len(text), 4)]
    events, sp = run(tokens, parsers=("qwen25",), tools=TOOLS)
    one = parse_tool_calls(text, parsers=("qwen25",), tools=TOOLS)
    assert spoken(events) == one.content and sp.regressions == 0
    assert sp.reparses < len(tokens)
