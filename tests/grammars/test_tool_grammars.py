"""Tool-call grammars for every wire format: they validate, accept every well-formed call
of the registry (property-tested), and refuse malformed ones."""

from __future__ import annotations

import ast
import json

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from registry import TOOLS
from strategies import from_schema

from edgevox.grammars import (
    WIRE_FORMATS,
    GrammarError,
    render_answer,
    render_tool_calls,
    reply_or_tool_grammar,
    single_tool_grammar,
    tool_call_grammar,
    validate_gbnf,
)

FORMATS = sorted(WIRE_FORMATS)
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
_CACHE: dict = {}


def grammar(kind: str, fmt: str, **kw):
    key = (kind, fmt, tuple(sorted(kw.items())))
    if key not in _CACHE:
        builder = {"call": tool_call_grammar, "reply": reply_or_tool_grammar}[kind]
        _CACHE[key] = builder(TOOLS, fmt, **kw)
    return _CACHE[key]


def _renderable(fmt: str, args: dict) -> bool:
    """Strings a format cannot carry (Gemma's delimiter, Qwen3-Coder's closing tag)."""
    def walk(v):
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            for x in v.values():
                yield from walk(x)
        elif isinstance(v, list):
            for x in v:
                yield from walk(x)
    bad = {"gemma": '<|"|>', "qwen3_coder": "\n</parameter>"}.get(fmt)
    return bad is None or all(bad not in s for s in walk(args))


# -- structure -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_builds_a_valid_grammar(fmt):
    for g in (grammar("call", fmt), grammar("call", fmt, parallel_tool_calls=False),
              grammar("reply", fmt), grammar("reply", fmt, think=("<think>", "</think>"))):
        validate_gbnf(g.gbnf)
        assert g.root == "root" and g.wire_format == fmt
        assert g.tool_names == tuple(SCHEMAS)
        hash(g.key)


@pytest.mark.parametrize("fmt", FORMATS)
def test_canonical_examples_match(fmt):
    calls = [("get_weather", {"city": "Paris", "unit": "celsius"}), ("get_time", {})]
    g = grammar("call", fmt)
    assert g.matches(render_tool_calls(calls[:1], fmt))
    assert g.matches(render_tool_calls(calls, fmt))
    single = grammar("call", fmt, parallel_tool_calls=False)
    assert single.matches(render_tool_calls(calls[:1], fmt))
    assert not single.matches(render_tool_calls(calls, fmt)), "parallel_tool_calls=False allows one call"


def test_exact_hermes_text():
    g = grammar("call", "hermes")
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    assert g.matches(text)
    assert g.matches(text + "\n" + text)
    assert g.matches(text + "\n")                   # one newline may end the block ...
    assert not g.matches(text + "\n\n")             # ... nothing else may follow the last call
    assert not g.matches(text + " ")
    assert not g.matches(text.replace("\n{", "{"))  # the format's newlines are fixed
    # spacing is json.dumps's: one space after ":" and ",", none inside the braces
    assert not g.matches(text.replace('"city": "Paris"', '"city":"Paris"'))
    assert not g.matches(text.replace('"city": "Paris"', '"city":  "Paris"'))
    assert not g.matches(text.replace('{"city"', '{ "city"'))
    two = text.replace('"Paris"}', '"Paris", "unit": "celsius"}')
    assert g.matches(two) and not g.matches(two.replace(', "unit"', ',"unit"'))


@pytest.mark.parametrize("fmt,text", [
    ("mistral", '[TOOL_CALLS][{"name": "get_time", "arguments": {}}, {"name": "get_time", "arguments": {}}]'),
    ("pythonic", '[get_weather(city="Paris", days=3), get_time()]'),
    ("llama32_json", '{"name": "get_time", "parameters": {}}; {"name": "get_weather", "parameters": {"city": "Oslo"}}'),
    ("xlam", '[{"name": "set_timer", "arguments": {"minutes": 2.5, "sound": true}}]'),
    ("granite", '<|tool_call|>[{"name": "get_time", "arguments": {}}]'),
    ("gemma", '<|tool_call>call:send_message{to:{name:<|"|>Ann<|"|>,phone:null},body:<|"|>hi, "you"<|"|>}<tool_call|>'),
    ("tool_code", '```tool_code\nadd_todo(items=["milk", "eggs"], priority=2)\n```'),
    ("phi4", '<|tool_call|>[{"name": "get_time", "arguments": {}}]<|/tool_call|>'),
    ("functionary", '<function=play_music>{"query": "jazz", "mode": null}</function>'),
    ("json_fenced", '```json\n[{"name": "get_time", "arguments": {}}, {"name": "get_time", "arguments": {}}]\n```'),
    ("qwen3_coder", "<tool_call>\n<function=get_weather>\n<parameter=city>\nNew York\n</parameter>\n"
                    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"),
])
def test_handwritten_calls_match(fmt, text):
    assert grammar("call", fmt).matches(text)


# -- property tests: every valid argument set matches -------------------------------------------


@st.composite
def calls_strategy(draw, fmt):
    n = draw(st.integers(1, 3))
    out = []
    for _ in range(n):
        name = draw(st.sampled_from(sorted(SCHEMAS)))
        args = draw(from_schema(SCHEMAS[name]))
        out.append((name, args))
    return out


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_valid_calls_match(fmt, data):
    calls = data.draw(calls_strategy(fmt))
    for name, args in calls:
        jsonschema.validate(args, SCHEMAS[name])  # the strategy itself is right
    if not all(_renderable(fmt, a) for _, a in calls):
        return
    text = render_tool_calls(calls, fmt)
    assert grammar("call", fmt).matches(text), text
    assert grammar("reply", fmt).matches(text), text
    assert grammar("call", fmt, parallel_tool_calls=False).matches(render_tool_calls(calls[:1], fmt))


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_rendered_values_read_back(data):
    """The canonical renderings really are JSON / Python literals with the same values."""
    name = data.draw(st.sampled_from(sorted(SCHEMAS)))
    args = data.draw(from_schema(SCHEMAS[name]))
    hermes = render_tool_calls([(name, args)], "hermes")
    assert json.loads(hermes.split("\n")[1])["arguments"] == args
    pythonic = render_tool_calls([(name, args)], "pythonic")
    call = ast.parse(pythonic, mode="eval").body.elts[0]
    assert {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords} == args


# -- malformed calls do not match ------------------------------------------------------------------

GOOD = {
    "get_weather": {"city": "Paris", "unit": "celsius", "days": 3},
    "set_timer": {"minutes": 5, "label": "tea", "sound": True},
    "add_todo": {"items": ["milk"], "priority": 1},
    "send_message": {"to": {"name": "Ann", "phone": "123"}, "body": "hi", "urgent": False},
    "play_music": {"query": "jazz", "volume": 40, "shuffle": True, "mode": "album"},
}

BAD = {
    "wrong type: integer given a string": ("get_weather", {"city": "Paris", "days": "3"}),
    "wrong type: integer given a float": ("get_weather", {"city": "Paris", "days": 2.5}),
    "wrong type: number given a string": ("set_timer", {"minutes": "five"}),
    "wrong type: boolean given a number": ("set_timer", {"minutes": 5, "sound": 1}),
    "wrong type: array given a string": ("add_todo", {"items": "milk"}),
    "wrong type: object given a string": ("send_message", {"to": "Ann", "body": "hi"}),
    "wrong type: string given a number": ("get_weather", {"city": 42}),
    "wrong type: nested string given a bool": ("send_message", {"to": {"name": True}, "body": "x"}),
    "negative where minimum is 0": ("play_music", {"volume": -5}),
    "missing required": ("get_weather", {"unit": "celsius"}),
    "missing nested required": ("send_message", {"to": {"phone": "1"}, "body": "hi"}),
    "unknown key": ("get_weather", {"city": "Paris", "country": "FR"}),
    "unknown nested key": ("send_message", {"to": {"name": "A", "email": "a@b"}, "body": "x"}),
    "unknown key on a tool without parameters": ("get_time", {"now": True}),
    "bad enum": ("get_weather", {"city": "Paris", "unit": "kelvin"}),
    "bad integer enum": ("add_todo", {"items": ["a"], "priority": 7}),
    "too few items": ("add_todo", {"items": []}),
    "too many items": ("add_todo", {"items": ["a", "b", "c", "d", "e", "f"]}),
    "unknown tool": ("launch_rocket", {}),
    "properties out of order": ("get_weather", {"unit": "celsius", "city": "Paris"}),
}
# Qwen3-Coder writes strings raw: any text is a valid string there, and the string "3"
# is spelled exactly like the integer 3.
_RAW_STRING_CASES = {"wrong type: string given a number", "wrong type: array given a string",
                     "wrong type: object given a string", "wrong type: integer given a string"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_good_calls_match_and_bad_calls_do_not(fmt):
    g = grammar("call", fmt)
    for name, args in GOOD.items():
        jsonschema.validate(args, SCHEMAS[name])
        assert g.matches(render_tool_calls([(name, args)], fmt)), name
    for why, (name, args) in BAD.items():
        if fmt == "qwen3_coder" and why in _RAW_STRING_CASES:
            continue
        if name in SCHEMAS and why != "properties out of order":
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate(args, SCHEMAS[name])
        text = render_tool_calls([(name, args)], fmt)
        assert not g.matches(text), f"{why}: {text!r}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_truncated_and_garbage_do_not_match(fmt):
    g = grammar("call", fmt)
    text = render_tool_calls([("get_weather", {"city": "Paris"})], fmt)
    for cut in range(0, len(text) - 1, max(1, len(text) // 7)):
        assert not g.matches(text[:cut])
        assert g.is_prefix(text[:cut])  # cut off by max_tokens: a prefix, never a match
    assert not g.matches("Sure! " + text)
    assert not g.is_prefix("Sure! ")
    assert not g.matches("")


# -- reply_or_tool -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_reply_or_tool_accepts_plain_replies_of_any_length(fmt):
    g = grammar("reply", fmt)
    # the envelope writes its reply as {"answer": "..."}: plain text is no reply there
    word = render_answer if fmt == "envelope" else (lambda s: s)
    for reply in ("Hello!", "It is 5 o'clock.\nAnything else?", "x" * 500, "Sure: {a} [b] <c>"):
        assert g.matches(word(reply)), reply
    assert not g.matches(""), "an empty reply is not a reply"
    assert not grammar("call", fmt).matches(word("Hello!"))


def test_envelope_tool_choice_forms():
    """none: the answer alone; auto: calls or answer; required: calls only; named: that one."""
    from edgevox.grammars import grammar_for_strategy, tool_choice_strategy

    call = render_tool_calls([("get_time", {})], "envelope")
    both = render_tool_calls([("get_time", {}), ("get_weather", {"city": "Oslo"})], "envelope")
    answer = render_answer('I said "no".')
    forms = {c: grammar_for_strategy(tool_choice_strategy(c, constrain_auto=True), TOOLS, "envelope")
             for c in ("none", "auto", "required")}
    forms["named"] = grammar_for_strategy(tool_choice_strategy(
        {"type": "function", "function": {"name": "get_time"}}), TOOLS, "envelope")
    assert [forms["none"].matches(t) for t in (answer, call, both)] == [True, False, False]
    assert [forms["auto"].matches(t) for t in (answer, call, both)] == [True, True, True]
    assert [forms["required"].matches(t) for t in (answer, call, both)] == [False, True, True]
    assert [forms["named"].matches(t) for t in (answer, call, both)] == [False, True, False]
    assert not forms["named"].matches(render_tool_calls([("get_weather", {"city": "Oslo"})], "envelope"))
    # key order and spacing are json.dumps's, so every key is forced text
    assert not forms["auto"].matches('{"arguments": {}, "tool": "get_time"}')
    assert not forms["auto"].matches('{"tool":"get_time","arguments":{}}')


@pytest.mark.parametrize("fmt", [f for f, w in WIRE_FORMATS.items() if w.opener])
def test_reply_cannot_open_a_call(fmt):
    opener = WIRE_FORMATS[fmt].opener
    g = grammar("reply", fmt)
    assert not g.matches(opener + " something")          # not at the start
    assert not g.matches("Let me check. " + opener + "x")  # nor later: every call is constrained
    assert g.matches("Let me check. " + opener[:-1])     # a near miss is fine
    for call_shaped in ('{"name": "get_time"}', '[{"name": "get_time"}]', '```json\n{}\n```', "```\nx", " {",
                        "\nHello"):
        assert not g.matches(call_shaped), call_shaped  # a call in another format is no reply
    tb = reply_or_tool_grammar(TOOLS, fmt, text_before_calls=True)
    call = render_tool_calls([("get_time", {})], fmt)
    assert tb.matches("Let me check. " + call)
    assert not tb.matches("Let me check. " + opener + "{oops")


@pytest.mark.parametrize("fmt", ["pythonic", "xlam", "llama32_json"])
def test_bare_format_reply_cannot_start_like_a_call(fmt):
    g = grammar("reply", fmt)
    for bad in ("{not a call", "[also not", " {", "\n[x"):
        assert not g.matches(bad), bad
    assert g.matches("A list: [1, 2] and {x}")


# -- think ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["hermes", "pythonic", "gemma", "qwen3_coder"])
def test_optional_think_block(fmt):
    g = grammar("call", fmt, think=("<think>", "</think>"))
    call = render_tool_calls([("get_time", {})], fmt)
    assert g.matches(call)
    assert g.matches("<think>\nThe user wants the time.\n</think>\n\n" + call)
    assert g.matches("<think></think>" + call)
    assert not g.matches("<think>never closed " + call)
    assert not g.matches("<think>a</think>b</think>" + call)
    assert not grammar("call", fmt).matches("<think>x</think>" + call), "no think block unless asked"
    r = grammar("reply", fmt, think=("<think>", "</think>"))
    assert r.matches("<think>small talk</think>\n\nHi there!")


def test_custom_think_tags():
    g = tool_call_grammar(TOOLS, "hermes", think=("<|thought|>", "<|/thought|>"))
    call = render_tool_calls([("get_time", {})], "hermes")
    assert g.matches("<|thought|>hmm <|/thoug <|/thought|>\n" + call)
    assert not g.matches("<think>x</think>" + call)


# -- single tool ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_single_tool_grammar(fmt):
    tool = TOOLS[0]
    g = single_tool_grammar(tool, fmt)
    assert g.strategy == "single" and g.tool_names == ("get_weather",)
    assert g.matches(render_tool_calls([("get_weather", {"city": "Rome"})], fmt))
    assert not g.matches(render_tool_calls([("get_time", {})], fmt))
    assert not g.matches(render_tool_calls([("get_weather", {"city": "Rome"})] * 2, fmt))


# -- inputs --------------------------------------------------------------------------------------


class FakeTool:
    def __init__(self, name, parameters):
        self.name, self.parameters = name, parameters


class FakeRegistry:
    def __init__(self, tools):
        self._tools = tools
        self.fingerprint = "abc123"

    def __iter__(self):
        return iter(self._tools)


def test_tool_input_shapes_give_the_same_grammar():
    bare = [t["function"] for t in TOOLS]
    objs = [FakeTool(t["name"], t["parameters"]) for t in bare]
    texts = {tool_call_grammar(x, "hermes").gbnf for x in (TOOLS, bare, objs, FakeRegistry(objs))}
    assert len(texts) == 1
    assert tool_call_grammar(FakeRegistry(objs), "hermes").key[2] == "fp:abc123"


def test_real_registry_is_accepted():
    from edgevox import tools

    reg = tools.ToolRegistry(TOOLS)
    g = tool_call_grammar(reg, "hermes")
    assert g.matches(render_tool_calls([("get_time", {})], "hermes"))
    assert g.key[2] == "fp:" + reg.fingerprint


@pytest.mark.parametrize("bad,msg", [
    ([], "no tools"),
    (None, "no tools"),
    ([{"type": "function", "function": {"description": "no name"}}], "no function name"),
    ([TOOLS[0], TOOLS[0]], "duplicate tool name"),
    ([42], "not a tool"),
])
def test_bad_tools_raise_grammar_error(bad, msg):
    with pytest.raises(GrammarError, match=msg):
        tool_call_grammar(bad, "hermes")


def test_unknown_wire_format():
    with pytest.raises(ValueError, match="unknown wire format"):
        tool_call_grammar(TOOLS, "klingon")


@pytest.mark.parametrize("fmt,tool,msg", [
    ("pythonic", {"name": "get-weather", "parameters": {}}, "Python call"),
    ("pythonic", {"name": "f", "parameters": {"type": "object", "properties": {"class": {"type": "string"}}}},
     "keyword argument"),
    ("gemma", {"name": "f", "parameters": {"type": "object", "properties": {"o": {
        "type": "object", "properties": {"a b": {"type": "string"}}}}}}, "written bare"),
    ("hermes", {"name": "f", "parameters": {"type": "string"}}, "type 'object'"),
    ("hermes", {"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "strin"}}}},
     "unknown type"),
    ("hermes", {"name": "f", "parameters": {"type": "object", "properties": {"x": {"$ref": "#/$defs/Nope"}}}},
     "does not resolve"),
    ("hermes", {"name": "f", "parameters": {"type": "object", "properties": {"x": {"enum": []}}}}, "enum"),
])
def test_unwritable_schemas_raise_grammar_error(fmt, tool, msg):
    with pytest.raises(GrammarError, match=msg):
        tool_call_grammar([tool], fmt)


def test_false_property_schema_means_absent():
    tool = {"name": "f", "parameters": {"type": "object", "properties": {
        "a": {"type": "integer"}, "never": False}}}
    g = tool_call_grammar([tool], "hermes")
    assert g.matches(render_tool_calls([("f", {"a": 1})], "hermes"))
    assert not g.matches(render_tool_calls([("f", {"never": 1})], "hermes"))
    tool["parameters"]["required"] = ["never"]
    with pytest.raises(GrammarError, match="schema false"):
        tool_call_grammar([tool], "hermes")


def test_json_formats_accept_any_tool_name_and_key():
    tool = {"name": "weird name/ü", "parameters": {"type": "object", "properties": {
        "a key with \"quotes\"": {"type": "string"}}, "required": ["a key with \"quotes\""]}}
    g = tool_call_grammar([tool], "hermes")
    assert g.matches(render_tool_calls([(tool["name"], {'a key with "quotes"': "v"})], "hermes"))


def test_python_type_names_are_accepted():
    """Some tool sets (BFCL) write "dict", "float", "tuple", "any" instead of JSON Schema types."""
    tool = {"name": "calc", "parameters": {"type": "dict", "properties": {
        "x": {"type": "float"}, "pair": {"type": "tuple", "items": {"type": "integer"}},
        "meta": {"type": "any"}}, "required": ["x"]}}
    for fmt in ("hermes", "pythonic", "gemma"):
        g = tool_call_grammar([tool], fmt)
        assert g.matches(render_tool_calls([("calc", {"x": 1.5, "pair": [1, 2], "meta": None})], fmt))
        assert not g.matches(render_tool_calls([("calc", {"x": "1.5"})], fmt))


def test_gemma_keys_with_dashes():
    tool = {"name": "http_get", "parameters": {"type": "object", "properties": {"headers": {
        "type": "object", "properties": {"Content-Type": {"type": "string"}}}}}}
    g = tool_call_grammar([tool], "gemma")
    assert g.matches('<|tool_call>call:http_get{headers:{Content-Type:<|"|>text/html<|"|>}}<tool_call|>')


def test_json_fenced_takes_one_bare_call_per_line_only_when_parallel():
    """Qwen2.5-Coder writes parallel calls as bare objects one per line in its fence; a
    grammar without that layout cut those answers to one call (4 BFCL cases lost)."""
    one = '{"name": "get_time", "arguments": {}}'
    two = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
    text = f"```json\n{one}\n{two}\n```"
    assert grammar("call", "json_fenced").matches(text)
    assert grammar("call", "json_fenced").matches(f"```json\n{one}\n```")
    assert not grammar("call", "json_fenced").matches(f"```json\n{one}\n\n{two}\n```")
    assert not grammar("call", "json_fenced", parallel_tool_calls=False).matches(text)
    assert grammar("call", "json_fenced", parallel_tool_calls=False).matches(f"```json\n[{one}]\n```")


# -- validation levels -------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_structural_level_enforces_syntax_not_schemas(fmt):
    g = tool_call_grammar(TOOLS, fmt, validation="structural")
    assert g.validation == "structural" and g.tool_names == ()
    unknown = render_tool_calls([("launch_rocket", {"x": [1, "a"], "y": {"z": None}})], fmt)
    for name, args in list(BAD.values()) + list(GOOD.items()):
        if _renderable(fmt, args):
            assert g.matches(render_tool_calls([(name, args)], fmt)), (name, args)  # any name, any args
    assert g.matches(unknown) and not grammar("call", fmt).matches(unknown)
    text = render_tool_calls([("get_time", {})], fmt)
    for cut in range(1, len(text) - 1, max(1, len(text) // 5)):
        assert not g.matches(text[:cut])  # the markup is still enforced
    assert not g.matches("Sure! " + text) and not g.matches("get_time")
    named = single_tool_grammar(TOOLS[5], fmt, validation="structural")
    assert named.matches(render_tool_calls([("get_time", {"any": "thing"})], fmt))
    assert not named.matches(unknown)
    reply = reply_or_tool_grammar(TOOLS, fmt, validation="structural", think=True)
    assert reply.matches("<think>hm</think>" + unknown)
    if fmt != "envelope":
        assert reply.matches("Hello there!")
    if WIRE_FORMATS[fmt].opener:  # prose may come before calls; a broken call may not
        assert reply.matches("Let me check. " + text)
        assert not reply.matches("Let me check. " + WIRE_FORMATS[fmt].opener + "{oops")


def test_raw_grammar_wrapped_for_thinking():
    from edgevox.grammars import gbnf_grammar

    g = gbnf_grammar('root ::= "yes" | "no"', think=True)
    assert g.matches("yes") and g.matches("<think>maybe no</think>\nno")
    assert not g.matches("<think>a</think>b</think>yes") and not g.matches("<think>yes")
    assert not gbnf_grammar('root ::= "yes" | "no"').matches("<think>x</think>yes")
    with pytest.raises(ValueError, match="validation"):
        tool_call_grammar(TOOLS, "hermes", validation="strict")
