"""Chain rules: think handling, tool filtering, siblings, prose, registry, limits, safety."""

from __future__ import annotations

import builtins
import json
from dataclasses import dataclass

import pytest
from parsing_data import TOOLS

from edgevox.parsing import (
    DETECTORS,
    MAX_INPUT_CHARS,
    Detector,
    ParseResult,
    RejectedCall,
    Span,
    StreamingParser,
    ToolCall,
    parse_tool_calls,
    register_detector,
)

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
PARIS = ToolCall(None, "get_weather", {"city": "Paris"})


# -- think handling ------------------------------------------------------------------


def test_reasoning_is_separated_and_never_spoken():
    r = parse_tool_calls("<think>\nThe user greets me.\n</think>\nHello! How can I help?", parsers=("hermes",))
    assert r.reasoning == "The user greets me."
    assert r.content == "Hello! How can I help?"
    assert r.calls == [] and r.fallback_mode is False


def test_unclosed_think_is_all_reasoning():
    r = parse_tool_calls("Okay.<think>I should answer politely but the reply was cut", parsers=("hermes",))
    assert r.content == "Okay."
    assert r.reasoning == "I should answer politely but the reply was cut"


def test_call_inside_closed_think_is_found():
    r = parse_tool_calls(f"<think>I need data. {CALL} More thoughts.</think>Fetching.", parsers=("hermes",))
    assert r.calls == [PARIS]
    assert r.reasoning == "I need data. More thoughts."
    assert r.content == "Fetching."


def test_call_start_ends_an_unclosed_think():
    r = parse_tool_calls(f"<think>I need the weather.\n{CALL}\nOne moment.", parsers=("qwen25",))
    assert r.calls == [PARIS]
    assert r.reasoning == "I need the weather."
    assert r.content == "One moment."


def test_a_think_opened_again_after_the_call_that_ended_one_is_reasoning():
    # An unclosed think ends at its first call; a second opener after the call starts a
    # new block (the fuzz found "<think>hmm <call> <think>hmm" spoken as "<think>hmm").
    text = f"<think>I need the weather.\n{CALL}\nOne moment. <think>still unsure"
    r = parse_tool_calls(text, parsers=("qwen25",))
    assert r.calls == [PARIS]
    assert r.content == "One moment."
    assert r.reasoning == "I need the weather.\nstill unsure"
    sp = StreamingParser(parsers=("qwen25",))
    for i in range(0, len(text), 3):
        sp.feed(text[i:i + 3])
    sp.close()
    assert sp.result().content == "One moment." and sp.result().calls == [PARIS]


def test_think_open_when_prompt_opened_the_block():
    text = "The user wants weather.\n</think>\n\n" + CALL
    r = parse_tool_calls(text, parsers=("hermes",), think_open=True)
    assert r.calls == [PARIS] and r.reasoning == "The user wants weather." and r.content == ""
    plain = parse_tool_calls(text, parsers=("hermes",))
    assert plain.content == "The user wants weather." and plain.reasoning is None  # stray </think> cut


def test_call_after_think_without_newline_found_by_second_pass():
    r = parse_tool_calls("<think>plan</think>[get_weather(city='Paris')]", parsers=("pythonic",), tools=TOOLS)
    assert r.calls == [PARIS] and r.content == "" and r.reasoning == "plan"


def test_think_tags_inside_call_arguments_are_not_think():
    text = '<tool_call>{"name": "send_message", "arguments": {"to": "a", "text": "<think>x"}}</tool_call> Sent.'
    r = parse_tool_calls(text, parsers=("hermes",), tools=TOOLS)
    assert r.calls[0].arguments["text"] == "<think>x"
    assert r.content == "Sent." and r.reasoning is None


def test_drafted_call_in_think_is_not_duplicated():
    draft = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
    text = f"<think>\nI will output:\n{draft}\n</think>\n{draft}"
    r = parse_tool_calls(text, parsers=("qwen25",), tools=TOOLS)
    assert r.calls == [PARIS]


def test_custom_think_tags():
    r = parse_tool_calls("<reasoning>hmm</reasoning>Hi", think_tags=(("<reasoning>", "</reasoning>"),))
    assert (r.reasoning, r.content) == ("hmm", "Hi")


def test_empty_think_gives_no_reasoning():
    r = parse_tool_calls("<think>\n\n</think>\n\nHi there.")
    assert r.reasoning is None and r.content == "Hi there."


# -- tools and rejections --------------------------------------------------------------


def test_unknown_tool_is_rejected_with_known_list():
    text = '<tool_call>{"name": "foo", "arguments": {}}</tool_call>'
    r = parse_tool_calls(text, parsers=("hermes",), tools=["a", "b"])
    assert r.calls == []
    assert r.rejected == [RejectedCall("foo", r.rejected[0].raw, "unknown tool 'foo'; known tools: a, b")]
    assert '"foo"' in r.rejected[0].raw


def test_tools_none_accepts_any_name():
    r = parse_tool_calls('<tool_call>{"name": "foo", "arguments": {}}</tool_call>', parsers=("hermes",))
    assert r.calls == [ToolCall(None, "foo", {})]


@dataclass
class _ToolObj:
    name: str
    parameters: dict


@pytest.mark.parametrize(
    "tools",
    [
        TOOLS,
        [t["function"] for t in TOOLS],
        [_ToolObj(t["function"]["name"], t["function"]["parameters"]) for t in TOOLS],
        [t["function"]["name"] for t in TOOLS],
        {"type": "function", "function": {"name": "get_weather"}},
    ],
    ids=["openai", "bare-function", "objects", "names", "single-dict"],
)
def test_tool_forms(tools):
    r = parse_tool_calls(CALL, parsers=("hermes",), tools=tools)
    assert r.calls == [PARIS]
    r = parse_tool_calls(CALL.replace("get_weather", "nope"), parsers=("hermes",), tools=tools)
    assert r.calls == [] and "unknown tool 'nope'" in r.rejected[0].reason


def test_tool_registry_is_accepted():
    from edgevox import tools as tools_mod

    @tools_mod.tool
    def get_weather(city: str, days: int = 1) -> str:
        """Weather for a city."""
        return city

    reg = tools_mod.ToolRegistry([get_weather])
    r = parse_tool_calls('{"name": "get_weather", "arguments": {"city": "Paris", "days": "2"}}', parsers=("qwen25",), tools=reg)
    assert r.calls == [ToolCall(None, "get_weather", {"city": "Paris", "days": 2})]


def test_one_malformed_call_keeps_siblings():
    bad = '<tool_call>{"name": "set_timer", "arguments": {"minutes": }}</tool_call>'
    unknown = '<tool_call>{"name": "fly", "arguments": {}}</tool_call>'
    r = parse_tool_calls(f"{CALL}\n{bad}\n{unknown}\n{CALL}", parsers=("hermes",), tools=TOOLS)
    assert r.calls == [PARIS, PARIS]
    assert [x.reason.split(" ")[0] for x in r.rejected] == ["malformed", "unknown"]
    assert r.content == ""


def test_arguments_that_are_not_an_object_are_rejected():
    r = parse_tool_calls('<tool_call>{"name": "get_weather", "arguments": [1, 2]}</tool_call>', parsers=("hermes",))
    assert r.calls == [] and "must be an object" in r.rejected[0].reason


def test_schema_coercion_only_when_type_matches():
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "7", "days": "two"}}</tool_call>'
    r = parse_tool_calls(text, parsers=("hermes",), tools=TOOLS)
    assert r.calls[0].arguments == {"city": "7", "days": "two"}


# -- prose is not a call -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The get_weather tool can tell you the forecast.",
        'You could run get_weather(city="Paris") to see it.',
        "Use [get_weather(city='Paris')] in your own code.",
        'Its JSON looks like {"name": "get_weather", "arguments": {"city": "Paris"}} in the docs.',
        "Lists look like [1, 2, 3].\n[citation needed]",
        "The functools module is handy.",
        "Here is data:\n{\"city\": \"Paris\", \"temp\": 21}",
    ],
)
def test_prose_is_not_a_call(text):
    r = parse_tool_calls(text, tools=TOOLS)  # every built-in detector
    assert r.calls == [] and r.rejected == []
    assert r.content == text


def test_content_keeps_text_around_calls_and_tidies_cuts():
    text = f"Sure thing.\n\n{CALL}\n\nI will tell you when it is back."
    r = parse_tool_calls(text, parsers=("hermes",))
    assert r.content == "Sure thing.\n\nI will tell you when it is back."
    r = parse_tool_calls(f"Checking {CALL} now.", parsers=("hermes",))
    assert r.content == "Checking now."
    r = parse_tool_calls("Line one.\n  indented   spaces kept.", parsers=("hermes",))
    assert r.content == "Line one.\n  indented   spaces kept."


def test_ids_kept_verbatim_or_none():
    r = parse_tool_calls('[TOOL_CALLS] [{"name": "get_weather", "arguments": {}, "id": "Ab3dE6gH9"}]', parsers=("mistral",))
    assert r.calls[0].id == "Ab3dE6gH9"
    assert parse_tool_calls(CALL, parsers=("hermes",)).calls[0].id is None


def test_to_openai():
    call = ToolCall("abc", "get_weather", {"city": "Zürich"})
    assert call.to_openai() == {
        "id": "abc",
        "type": "function",
        "function": {"name": "get_weather", "arguments": json.dumps({"city": "Zürich"}, ensure_ascii=False)},
    }


def test_first_listed_detector_wins_an_overlap():
    text = '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```'
    assert parse_tool_calls(text, parsers=("xlam", "llama32")).calls == [PARIS]
    assert parse_tool_calls(text, parsers=("hermes",)).calls == []


# -- registry ----------------------------------------------------------------------------


def test_builtin_registry():
    assert {"hermes", "qwen25", "llama32", "mistral", "pythonic", "xlam", "granite", "gemma", "phi4", "functionary", "qwen3_coder"} <= set(DETECTORS)
    assert all(issubclass(c, Detector) for c in DETECTORS.values())


def test_register_custom_detector():
    class Shout(Detector):
        markers = ("CALL!",)

        def detect(self, text):
            k = text.find("CALL!")
            if k < 0:
                return []
            name = text[k + 5:].split()[0] if text[k + 5:].split() else ""
            end = k + 5 + len(text[k + 5:]) - len(text[k + 5:].lstrip()) + len(name)
            return [Span(k, end, [ToolCall(None, name, {})])]

    register_detector("shout_test", Shout)
    try:
        r = parse_tool_calls("Hi. CALL!get_weather bye", parsers=("shout_test",), tools=TOOLS)
        assert r.calls == [ToolCall(None, "get_weather", {})] and r.content == "Hi. bye"
        with pytest.raises(ValueError):
            register_detector("shout_test", type("Other", (Detector,), {}))
        register_detector("shout_test", Shout)  # same class again is fine
    finally:
        DETECTORS.pop("shout_test", None)


@pytest.mark.parametrize("bad", [object, int, "hermes", None, Detector()])
def test_register_rejects_non_detectors(bad):
    with pytest.raises(TypeError):
        register_detector("bad_one", bad)
    assert "bad_one" not in DETECTORS


def test_register_rejects_bad_names():
    with pytest.raises(ValueError):
        register_detector("", Detector)
    with pytest.raises(ValueError):
        register_detector("has space", Detector)


def test_invalid_settings_raise_clear_errors():
    with pytest.raises(ValueError, match="unknown parser 'nope'"):
        parse_tool_calls("x", parsers=("nope",))
    with pytest.raises(TypeError):
        parse_tool_calls("x", parsers=(42,))
    with pytest.raises(ValueError):
        parse_tool_calls("x", think_tags=(("<t>",),))


def test_broken_custom_detector_does_not_break_the_chain():
    class Boom(Detector):
        markers = ("!",)

        def detect(self, text):
            raise RuntimeError("bug")

    r = parse_tool_calls(f"Hi! {CALL}", parsers=(Boom, "hermes"))  # "!" is its marker: it runs
    assert r.calls == [PARIS] and r.content == "Hi!"
    assert any("Boom failed" in x.reason for x in r.rejected)


# -- limits and safety -------------------------------------------------------------------


def test_oversized_input_is_truncated_with_a_rejection():
    text = "a" * (MAX_INPUT_CHARS + 100) + CALL
    r = parse_tool_calls(text, parsers=("hermes",))
    assert r.calls == [] and len(r.content) == MAX_INPUT_CHARS
    assert "truncated" in r.rejected[-1].reason and str(MAX_INPUT_CHARS + 100 + len(CALL)) in r.rejected[-1].reason


def test_deep_nesting_is_rejected_not_crashed():
    deep = "[" * 5000 + "]" * 5000
    text = '<tool_call>{"name": "get_weather", "arguments": {"x": ' + deep + "}}</tool_call>"
    r = parse_tool_calls(text, parsers=("hermes",))
    assert r.calls == [] and r.rejected
    py = "[get_weather(x=" + "[" * 3000 + "]" * 3000 + ")]"
    r = parse_tool_calls(py, parsers=("pythonic",))
    assert r.calls == [] and r.rejected


def test_non_string_input_does_not_raise():
    assert parse_tool_calls(None) == ParseResult()
    assert parse_tool_calls(12345).content == "12345"


def test_nothing_is_ever_evaluated(monkeypatch):
    """Hostile pythonic/Gemma text must be read as data: eval/exec/import are never reached."""

    def forbidden(*a, **k):
        raise AssertionError("evaluated model text")

    # (compile stays: ast.parse uses it with PyCF_ONLY_AST, which builds a tree and runs nothing)
    for name in ("eval", "exec"):
        monkeypatch.setattr(builtins, name, forbidden)
    hostile = [
        "[get_weather(city=__import__('os').system('echo pwned'))]",
        "[os.system(cmd='rm -rf /')]",
        "[get_weather(city=open('/etc/passwd').read())]",
        "```tool_code\nimport os\nos.system('x')\n```",
        "<|python_tag|>__import__('os').system('x')",
        "[get_weather(city=(lambda: 1)())]",
        "[get_weather(city='a' * 10**9)]",
    ]
    for text in hostile:
        r = parse_tool_calls(text, tools=None)
        for c in r.calls:  # a call to a *name* is data; its arguments are literals only
            assert all(isinstance(v, (str, int, float, bool, list, dict, type(None))) for v in c.arguments.values())
    r = parse_tool_calls(hostile[0], parsers=("pythonic",))
    assert r.calls == [] and "not a literal" in r.rejected[0].reason
