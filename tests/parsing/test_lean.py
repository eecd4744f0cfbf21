"""The lean one-shot path (``edgevox/parsing/lean.py``) gives what the full chain gives.

Wherever ``lean_result`` answers, its result must equal ``full_result`` on the same text
and settings: on every fixture reply, on fuzz replies built from real markup, on the
benchmark's replies, and on plain calls with prose around them in the formats it reads.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parsing_data import TOOLS, load_fixtures, parsers_of, tools_of
from parsing_strategies import FRAGMENTS, parser_sets, replies, tool_sets

from edgevox.parsing.chain import DEFAULT_THINK_TAGS, Joiner, full_result, lean_result, make_config
from edgevox.parsing.lean import join_cut

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_parsing  # noqa: E402

LEAN_FORMATS = ("hermes", "qwen25", "llama32", "mistral", "xlam")


def same(text: str, parsers, tools) -> bool:
    """Assert lean == full where lean answers; True when it answered."""
    cfg = make_config(parsers, tools, DEFAULT_THINK_TAGS)
    lean = lean_result(cfg, text)
    if lean is None:
        return False
    assert lean == full_result(cfg, text), (parsers, text)
    return True


def test_fixtures_read_the_same_and_the_lean_path_takes_many():
    taken = 0
    for fmt, case in load_fixtures():
        taken += same(case["text"], parsers_of(fmt, case), tools_of(case))
        for fmts in (LEAN_FORMATS, None):  # the same texts under other settings
            for p in fmts or (None,):
                same(case["text"], (p,) if p else None, tools_of(case))
    assert taken >= 20, taken


@pytest.mark.parametrize("fmt", LEAN_FORMATS)
def test_benchmark_replies_take_the_lean_path(fmt):
    text = bench_parsing.PRE + bench_parsing.REPLIES[fmt] + bench_parsing.POST
    assert same(text, (fmt,), bench_parsing.TOOLS)
    assert same(text, (fmt,), None)
    assert same(text, (fmt,), ["search"]) is False  # unknown names: the full chain words the rejection


CALL_FRAGMENTS = [
    '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}',
    '{"name": "set_timer", "parameters": {"minutes": "5"}, "id": "abc123XYZ"}',
    '{"name": " search ", "arguments": {"query": "a\\n</tool_call> [x] {y}"}}',
    '{"name": "play_music", "arguments": {"songs": [1, [2, {"a": null}]], "options": {}}}',
    '{"name": "turn_on_light"}',
    '[{"name": "search", "arguments": {"limit": "7"}}, {"name": "get_weather", "arguments": {}}]',
    '{"name": "unknown_tool", "arguments": {}}',
    '{"name": "functions.search", "arguments": {"limit": "7"}}',  # a known tool under a prefix
    '{"name": "search", "arguments": "{\\"query\\": \\"x\\"}"}',
]
WRAPS = [
    "<tool_call>{}</tool_call>", "<tool_call>\n{}\n</tool_call>\n", "<tool_call> {} \t</tool_call>",
    "[TOOL_CALLS]{}", "[TOOL_CALLS] {}", "[TOOL_CALLS]get_weather[ARGS]{}", "{}", "{};", "{}, ", "\n{}\n",
    "```json\n{}\n```", "Result: {}", "<|python_tag|>{}<|eom_id|>",
]
PROSE = ["", "Sure.", "Sure:\n", "Checking now.\n\n", " ", "\n", "Done: ok", "x {", "[", "`", "</tool_call>", "<think>"]
calls_in_markup = st.builds(lambda w, c: w.replace("{}", c, 1), st.sampled_from(WRAPS), st.sampled_from(CALL_FRAGMENTS))
plain_replies = st.lists(st.one_of(calls_in_markup, st.sampled_from(PROSE), st.sampled_from(FRAGMENTS)), max_size=8).map("".join)
FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(text=st.one_of(plain_replies, replies), parsers=st.one_of(parser_sets, st.sampled_from(LEAN_FORMATS).map(lambda f: (f,))),
       tools=st.one_of(tool_sets, st.just(TOOLS)))
def test_lean_equals_full(text, parsers, tools):
    same(text, parsers, tools)


def test_plain_calls_take_the_lean_path_in_every_format_it_reads():
    call = CALL_FRAGMENTS[0]
    for fmt, wrap in [("hermes", WRAPS[1]), ("qwen25", WRAPS[6]), ("llama32", WRAPS[7]), ("mistral", WRAPS[5]), ("xlam", WRAPS[10])]:
        body = wrap.replace("{}", json.dumps(json.loads(call)["arguments"]) if fmt == "mistral" else call, 1)
        assert same("Sure:\n" + body + "\nDone.", (fmt,), TOOLS), (fmt, body)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=" \t\n\r\u00a0ab", max_size=6), max_size=6))
def test_join_cut_is_the_joiner_with_a_cut_between_pieces(pieces):
    j = Joiner()
    for k, p in enumerate(pieces):
        if k:
            j.cut()
        j.feed(p)
    assert join_cut(pieces) == j.text
