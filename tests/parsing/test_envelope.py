"""The generic JSON envelope: string decoding, streaming answers, rendering, ids, presets."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from parsing_data import TOOLS

from edgevox.parsing import StreamingParser, TextDelta, parse_tool_calls
from edgevox.parsing.detectors.envelope import decode_json_string


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_every_prefix_decodes_to_a_prefix(s):
    body = json.dumps(s)[1:]  # the string body after the opening quote, closing quote included
    whole, end = decode_json_string(body, 0)
    assert (whole, end) == (s, len(body))
    for k in range(len(body)):
        part, end = decode_json_string(body[:k], 0)
        assert end is None and s.startswith(part), (body[:k], part)


def test_answer_is_spoken_before_the_object_closes():
    text = json.dumps({"answer": "It is sunny. Take \"sunglasses\"\nand water."})
    sp = StreamingParser(("envelope",), tools=TOOLS)
    said, first_at = [], None
    for i, ch in enumerate(text):
        for ev in sp.feed(ch):
            if isinstance(ev, TextDelta):
                said.append(ev.text)
                first_at = i if first_at is None else first_at
    said += [ev.text for ev in sp.close() if isinstance(ev, TextDelta)]
    assert first_at is not None and first_at < len(text) - 20, "the answer waited for its end"
    assert "".join(said) == parse_tool_calls(text, ("envelope",), TOOLS).content
    assert "".join(said) == 'It is sunny. Take "sunglasses"\nand water.'
    assert sp.regressions == 0


def test_calls_lists_and_fences():
    one = parse_tool_calls('```json\n{"tool": "search", "arguments": {"query": "x"}}\n```', "envelope", TOOLS)
    assert [(c.name, c.arguments) for c in one.calls] == [("search", {"query": "x"})] and one.content == ""
    two = parse_tool_calls('[{"tool": "search", "arguments": {}}, {"tool": "get_weather", "arguments": '
                           '{"city": "Oslo"}}]', "envelope", TOOLS)
    assert [c.name for c in two.calls] == ["search", "get_weather"]
    unknown = parse_tool_calls('{"tool": "launch", "arguments": {}}', "envelope", TOOLS)
    assert not unknown.calls and "known tools: get_weather" in unknown.rejected[0].reason.replace(
        "play_music, search, send_message, set_timer, ", "")


def test_rendering_in_envelope_form():
    from edgevox.llm.presets import get_preset
    from edgevox.llm.template import prepare_messages

    preset = get_preset("gemma3+envelope")
    msgs = prepare_messages([
        {"role": "user", "content": "lights?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "set_light", "arguments": '{"on": true}'}},
            {"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_a", "name": "set_light", "content": "ok"},
        {"role": "tool", "tool_call_id": "call_b", "name": "get_time", "content": "5 pm"},
        {"role": "assistant", "content": "Done, it is 5 pm."},
    ], preset)
    assert json.loads(msgs[1]["content"]) == [{"tool": "set_light", "arguments": {"on": True}},
                                              {"tool": "get_time", "arguments": {}}]
    assert "tool_calls" not in msgs[1]
    assert msgs[2]["role"] == "user" and '[{"tool": "set_light", "id": "call_a", "result": "ok"}' in msgs[2]["content"]
    assert json.loads(msgs[3]["content"]) == {"answer": "Done, it is 5 pm."}


def test_stable_ids():
    from edgevox.agents.ids import assign_ids

    calls = [("set_light", {"room": "kitchen"}), ("set_light", {"room": "kitchen"})]
    first = assign_ids([None, None], "stable", set(), calls=calls, seed="turn-1")
    again = assign_ids([None, None], "stable", set(), calls=calls, seed="turn-1")  # a retried hop
    assert first == again and len(set(first)) == 2
    assert all(re.fullmatch(r"call_[0-9a-f]{24}", i) for i in first)
    assert assign_ids([None], "stable", set(), calls=calls[:1], seed="turn-2") != first[:1]


def test_envelope_presets():
    from edgevox.llm.constrained import lazy_tool_grammar
    from edgevox.llm.presets import detect_preset, get_preset

    assert detect_preset("some-new-arch", "<|weird|>{{ messages }}").name == "envelope"
    p = get_preset("qwen25+envelope")
    assert (p.wire_format, p.detectors[0], p.call_ids) == ("envelope", "envelope", "stable")
    assert p.stop == get_preset("qwen25").stop and not p.trigger
    g = lazy_tool_grammar(TOOLS, "envelope")  # not lazy: the first token picks the branch
    assert g.strategy == "reply_or_tool" and g.matches('{"answer": "hi"}')
