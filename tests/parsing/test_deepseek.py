"""DeepSeek's tool calls (V3/R1 fenced JSON, V3.1 inline JSON), whole and streamed."""

from __future__ import annotations

from edgevox.parsing import parse_tool_calls
from edgevox.parsing.detectors.deepseek import CALL_BEGIN, CALL_END, CALLS_BEGIN, CALLS_END, SEP
from edgevox.parsing.streaming import StreamingParser

V3 = (f"Sure. {CALLS_BEGIN}{CALL_BEGIN}function{SEP}get_weather\n```jsonc\n{{\"city\": \"Paris\"}}\n```{CALL_END}\n"
      f"{CALL_BEGIN}function{SEP}get_time\n```json\n{{}}\n```{CALL_END}{CALLS_END} Done.")


def test_v3_fenced_calls_and_the_spoken_rest():
    r = parse_tool_calls(V3, parsers=("deepseek",))
    assert [(c.name, c.arguments) for c in r.calls] == [("get_weather", {"city": "Paris"}), ("get_time", {})]
    assert r.content == "Sure.\nDone." and not r.rejected


def test_v31_inline_json_and_unknown_names():
    text = f'{CALLS_BEGIN}{CALL_BEGIN}get_time{SEP}{{"tz": "UTC"}}{CALL_END}{CALLS_END}'
    assert [c.arguments for c in parse_tool_calls(text, parsers=("deepseek",)).calls] == [{"tz": "UTC"}]
    r = parse_tool_calls(text, parsers=("deepseek",), tools=["get_weather"])
    assert not r.calls and "unknown tool 'get_time'" in r.rejected[0].reason


def test_malformed_and_cut_off_calls_are_rejected_with_a_reason():
    bad = f'{CALL_BEGIN}function{SEP}f\n```json\n{{"a": }}\n```{CALL_END}'
    r = parse_tool_calls(bad, parsers=("deepseek",))
    assert not r.calls and r.rejected[0].name == "f"
    cut = f'{CALL_BEGIN}function{SEP}f\n```json\n{{"a": 1'
    r = parse_tool_calls(cut, parsers=("deepseek",))
    assert not r.calls and "ended inside the call" in r.rejected[0].reason and r.content == ""


def test_streamed_a_character_at_a_time():
    p = StreamingParser(("deepseek",))
    events = [e for ch in V3 for e in p.feed(ch)] + list(p.close())
    said = "".join(getattr(e, "text", "") for e in events if type(e).__name__ == "TextDelta")
    assert CALL_BEGIN not in said and "｜" not in said and said.startswith("Sure.")
