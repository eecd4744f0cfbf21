"""Structural tags on the real Qwen2.5-Coder-0.5B: the structural-tag guide's examples
(tool calls in the Llama JSON, ``<function=…>`` and Hermes layouts, forced thinking,
thinking then exactly one call in the Llama and DeepSeek styles, thinking switched off)
produce output the description accepts and the matching detector parses; every format
type constrains real decoding; ``response_format`` works through ``stream`` and the agent.

Each request shows the model its tools and one demonstration turn in the layout (what a
user of these layouts would send); the grammar then decides what can be written."""

from __future__ import annotations

import json

import pytest

from edgevox.grammars.structural_tag import structural_tag_grammar, tools_structural_tag
from edgevox.parsing import parse_tool_calls

pytestmark = pytest.mark.model


def _tools() -> list[dict]:
    from edgevox.examples.home import Home

    return [t.openai_schema() for t in Home().tools() if t.name in ("set_light", "start_timer", "get_weather")]


TOOLS = _tools()
PARAMS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
THINK = {"type": "tag", "begin": "<think>", "content": {"type": "any_text"}, "end": "</think>"}
CALLS_BEGIN, CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL_BEGIN, CALL_END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def _tags(begin: str, end: str) -> list[dict]:
    return [{"begin": begin.format(n=n), "content": {"type": "json_schema", "json_schema": p}, "end": end}
            for n, p in PARAMS.items()]


def _triggered(trigger: str, begin: str, end: str, **kw) -> dict:
    return {"type": "triggered_tags", "triggers": [trigger], "tags": _tags(begin, end), **kw}


LLAMA = _triggered('{"name":', '{{"name": "{n}", "parameters": ', "}")
FUNCTION = _triggered("<function=", "<function={n}>", "</function>")
HERMES = _triggered("<tool_call>", '<tool_call>\n{{"name": "{n}", "arguments": ', "}\n</tool_call>")
DEEPSEEK = {"type": "tag_and_text", "triggers": [CALLS_BEGIN], "stop_after_first": True, "tags": [
    {"begin": CALLS_BEGIN, "end": CALLS_END, "content": {
        "type": "tags_with_separator", "separator": "\n", "at_least_one": True, "stop_after_first": True,
        "tags": _tags(CALL_BEGIN + "function" + SEP + "{n}\n```jsonc\n", "\n```" + CALL_END)}}]}

_TIMER = {"llama": '{"name": "start_timer", "parameters": {"minutes": 5}}',
          "function": '<function=start_timer>{"minutes": 5}</function>',
          "hermes": '<tool_call>\n{"name": "start_timer", "arguments": {"minutes": 5}}\n</tool_call>',
          "deepseek": (CALLS_BEGIN + CALL_BEGIN + "function" + SEP + 'start_timer\n```jsonc\n{"minutes": 5}\n```'
                       + CALL_END + CALLS_END)}
_THOUGHT = "<think>The user wants a 5 minute timer.</think>"

# name: (format, detector, demonstration, must call)
EXAMPLES = {
    "llama_json": (LLAMA, "llama32", _TIMER["llama"], False),
    "function_tag": (FUNCTION, "functionary", _TIMER["function"], False),
    "hermes": (HERMES, "hermes", _TIMER["hermes"], False),
    "forced_think": ({"type": "sequence", "elements": [THINK, FUNCTION]}, "functionary",
                     _THOUGHT + _TIMER["function"], False),
    "think_then_one_call_llama": (
        {"type": "sequence", "elements": [THINK, {**FUNCTION, "at_least_one": True, "stop_after_first": True}]},
        "functionary", _THOUGHT + _TIMER["function"], True),
    "think_then_one_call_deepseek": ({"type": "sequence", "elements": [THINK, DEEPSEEK]}, "deepseek",
                                     _THOUGHT + _TIMER["deepseek"], False),
    "thinking_off": ({"type": "sequence", "elements": [{"type": "const_string", "text": "<think></think>"}, HERMES]},
                     "hermes", "<think></think>" + _TIMER["hermes"], False),
}


def _triggers(fmt: dict) -> list[str]:
    if fmt.get("type") in ("triggered_tags", "tag_and_text"):
        return list(fmt["triggers"])
    return [t for e in fmt.get("elements", ()) for t in _triggers(e)]


def _messages(demo: str, request: str) -> list[dict]:
    system = ("You control a home with these tools (JSON schemas):\n"
              + "\n".join(json.dumps(t["function"]) for t in TOOLS)
              + "\nCall a tool the way the example shows.")
    return [{"role": "system", "content": system}, {"role": "user", "content": "Set a timer for 5 minutes."},
            {"role": "assistant", "content": demo}, {"role": "user", "content": request}]


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_guide_examples_on_the_real_model(qwen_backend, name):
    fmt, detector, demo, must_call = EXAMPLES[name]
    grammar = structural_tag_grammar({"type": "structural_tag", "format": fmt})
    assert grammar.matches(demo)  # the demonstration is itself an output the description allows
    c = qwen_backend.complete(_messages(demo, "Turn on the kitchen light."),
                              response_format={"type": "structural_tag", "format": fmt},
                              max_tokens=96, temperature=0)
    assert c.finish_reason == "stop" and grammar.matches(c.text), c.text
    r = parse_tool_calls(c.text, parsers=(detector,), tools=TOOLS)
    assert not r.rejected, (c.text, r.rejected)
    opened = any(t in c.text for t in _triggers(fmt))
    assert (len(r.calls) >= 1) == opened, c.text  # every call the description let through is read
    if must_call:
        assert len(r.calls) == 1 and r.calls[0].name in PARAMS, c.text
    if fmt["type"] == "sequence" and fmt["elements"][0] is THINK:
        assert c.text.startswith("<think>") and r.reasoning is not None
    if name == "thinking_off":
        assert c.text.startswith("<think></think>")


# every format type, on the real model, in three requests
ALL_TYPES = [
    ({"type": "sequence", "elements": [
        {"type": "const_string", "value": "Count: "},
        {"type": "or", "elements": [{"type": "regex", "pattern": "[0-9]{1,3}"},
                                    {"type": "grammar", "grammar": 'root ::= "none" | "many"'}]},
        {"type": "const_string", "value": "\n"},
        {"type": "json_schema", "json_schema": {"type": "object", "properties": {"legs": {"type": "integer"}},
                                                "required": ["legs"]}}]},
     "How many legs has a spider? Answer with a count line, then JSON."),
    ({"type": "sequence", "elements": [
        {"type": "tag", "begin": "<think>", "content": {"type": "any_text", "excludes": ["\n"]}, "end": "</think>"},
        {"type": "tags_with_separator", "separator": "\n", "at_least_one": True, "tags": [
            {"begin": "<function=set_light>", "end": "</function>",
             "content": {"type": "json_schema", "json_schema": PARAMS["set_light"], "style": "qwen_xml"}}]}]},
     "Turn on the kitchen light and the office light."),
    ({"type": "sequence", "elements": [
        {"type": "any_text", "excludes": ["<function="]},
        {"type": "triggered_tags", "triggers": ["<function="], "at_least_one": True, "stop_after_first": True,
         "excludes": ["sorry"], "tags": [{"begin": "<function=get_weather>", "end": "</function>", "content": {
             "type": "qwen_xml_parameter", "json_schema": PARAMS["get_weather"]}}]}]},
     "What's the weather in Paris?"),
]


@pytest.mark.parametrize("fmt,request_text", ALL_TYPES, ids=["leaves", "tags", "triggered"])
def test_every_format_type_constrains_decoding(qwen_backend, fmt, request_text):
    grammar = structural_tag_grammar(fmt)
    c = qwen_backend.complete([{"role": "user", "content": request_text}],
                              response_format={"type": "structural_tag", "format": fmt}, max_tokens=64,
                              temperature=0)
    assert grammar.matches(c.text) if c.finish_reason == "stop" else grammar.is_prefix(c.text), c.text
    assert c.text.strip()


def test_response_format_through_stream_and_the_agent(qwen_backend):
    """The preset's own format as a structural tag, edited to exactly one call: stream()
    and an LLMAgent run under it, and the call is dispatched."""
    from edgevox.agents import LLMAgent
    from edgevox.examples.home import Home

    home = Home()
    tools = [t.openai_schema() for t in home.tools()]
    tag = tools_structural_tag(tools, qwen_backend.preset.wire_format, tool_choice="required",
                               parallel_tool_calls=False)
    grammar = structural_tag_grammar(tag)
    done = []
    msgs = [{"role": "user", "content": "Turn on the kitchen light."}]
    text = "".join(qwen_backend.stream(msgs, tools, on_done=done.append, response_format=tag, max_tokens=64,
                                       temperature=0))
    assert grammar.matches(text) and done[0].text == text
    agent = LLMAgent(tools=home.tools(), model=qwen_backend, response_format=tag, max_hops=2, warm=False)
    r = agent.run("Switch the kitchen light on please.")
    assert len(r.calls) >= 1 and r.calls[0].name in {t["function"]["name"] for t in tools}
    with pytest.raises(Exception, match="format.elements: must not be empty"):
        LLMAgent(tools=home.tools(), model=qwen_backend, warm=False,
                 response_format={"type": "structural_tag", "format": {"type": "or", "elements": []}})
