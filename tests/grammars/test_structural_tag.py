"""Structural tags compiled to GBNF: every format type accepts what the published
description accepts and rejects the rest; malformed descriptions are refused with the
field and the reason; a preset's tool format under each tool_choice reads back as a
structural tag that accepts the calls the preset writes. (The model runs these in
test_structural_tag_model.py.)"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgevox.grammars import GrammarError, render_answer, render_tool_calls
from edgevox.grammars.structural_tag import (
    FORMAT_TYPES,
    structural_tag_grammar,
    tools_structural_tag,
)

PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"]}


def _fn(name: str) -> dict:
    return {"begin": f"<function={name}>", "content": {"type": "json_schema", "json_schema": PERSON},
            "end": "</function>"}


JOHN = '{"name": "John", "age": 30}'
JANE = '{"name": "Jane", "age": 25}'

# (format, accepted texts, rejected texts): one row per format type at least
CASES = [
    ({"type": "const_string", "value": "Let's think step by step"}, ["Let's think step by step"],
     ["Let's think", "Let us think step by step"]),
    ({"type": "json_schema", "json_schema": PERSON}, [JOHN, '{"name":"J","age":1}'],
     ['{"name": "John"}', '{"name": "John", "age": "30"}']),
    ({"type": "json_schema", "json_schema": PERSON, "style": "qwen_xml"},
     ["<parameter=name>Bob</parameter><parameter=age>\t100\n</parameter>",
      "<parameter=name>Bob</parameter>\t\n<parameter=age>\t100\n</parameter>",
      '<parameter=name>"Bob&lt;"</parameter><parameter=age>100</parameter>'],
     ["<parameter=name>Bob</parameter>", "<parameter=age>100</parameter><parameter=name>Bob</parameter>"]),
    ({"type": "qwen_xml_parameter", "json_schema": {"type": "object", "properties": {"address": {
        "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        "required": ["street", "city"]}}, "required": ["address"]}},
     ['<parameter=address>{"street": "Main St", "city": "No more xml escape&<>"}</parameter>'],
     ["<parameter=address><parameter=street>Main St</parameter><parameter=city>NY</parameter></parameter>"]),
    ({"type": "grammar", "grammar": 'root ::= "yes" | "no" ws\nws ::= " "?'}, ["yes", "no "], ["maybe", "yes "]),
    ({"type": "regex", "pattern": "[0-9]{3}-[a-z]+"}, ["123-abc"], ["12-abc", "123-"]),
    ({"type": "sequence", "elements": [{"type": "const_string", "value": "A:"}, {"type": "regex", "pattern": "[0-9]+"}]},
     ["A:42"], ["A:", "42"]),
    ({"type": "or", "elements": [{"type": "const_string", "value": "yes"}, {"type": "json_schema", "json_schema": PERSON}]},
     ["yes", JOHN], ["no"]),
    ({"type": "tag", "begin": "<think>", "content": {"type": "any_text"}, "end": "</think>"},
     ["<think>a < b, so</think>", "<think></think>"], ["<think>a</think>b</think>", "<think>open"]),
    ({"type": "tag", "begin": "<a>", "content": {"type": "any_text", "excludes": ["NO", "never"]}, "end": "</a>"},
     ["<a>yes N o</a>"], ["<a>say NO</a>", "<a>never</a>"]),
    ({"type": "any_text", "excludes": ["<tool_call>"]}, ["anything at all", ""], ["x <tool_call> y"]),
    ({"type": "triggered_tags", "triggers": ["<function="], "tags": [_fn("func1"), _fn("func2")],
      "at_least_one": False, "stop_after_first": False},
     [f"<function=func1>{JOHN}</function>", f"<function=func2>{JANE}</function>",
      f"any_text<function=func1>{JOHN}</function>any_text1<function=func2>{JANE}</function>any_text2", "just text"],
     [f"<function=func3>{JOHN}</function>", f"<function=func1>{JANE[:-1]}</function>"]),
    ({"type": "triggered_tags", "triggers": ["<function="], "tags": [_fn("func1")], "at_least_one": True,
      "stop_after_first": True}, [f"<function=func1>{JOHN}</function>"],
     ["no call", f"x<function=func1>{JOHN}</function>", f"<function=func1>{JOHN}</function> more"]),
    ({"type": "triggered_tags", "triggers": ["<f"], "tags": [_fn("func1")], "excludes": ["STOP"]},
     ["ok", f"ok <function=func1>{JOHN}</function>"], ["STOP here"]),
    ({"type": "tags_with_separator", "tags": [{"type": "tag", **_fn("func1")}, _fn("func2")], "separator": ","},
     ["", f"<function=func1>{JOHN}</function>",
      f"<function=func1>{JOHN}</function>,<function=func2>{JANE}</function>,<function=func1>{JOHN}</function>"],
     [f"<function=func1>{JOHN}</function> <function=func2>{JANE}</function>", "text"]),
    ({"type": "tags_with_separator", "tags": [_fn("func1")], "separator": ",", "at_least_one": True,
      "stop_after_first": True}, [f"<function=func1>{JOHN}</function>"],
     ["", f"<function=func1>{JOHN}</function>,<function=func1>{JOHN}</function>"]),
    ({"type": "tag_and_text", "triggers": ["<function="], "tags": [_fn("func1")], "stop_after_first": True},
     [f"hm <function=func1>{JOHN}</function>"], [f"<function=func1>{JOHN}</function><function=func1>{JOHN}</function>"]),
]


@pytest.mark.parametrize("fmt,good,bad", CASES, ids=[f"{i}-{c[0]['type']}" for i, c in enumerate(CASES)])
def test_each_format_type(fmt, good, bad):
    g = structural_tag_grammar({"type": "structural_tag", "format": fmt})
    for text in good:
        assert g.matches(text), text
    for text in bad:
        assert not g.matches(text), text


def test_every_type_has_a_case():
    assert {c[0]["type"] for c in CASES} == set(FORMAT_TYPES)


def test_the_guide_example_5_spelling_and_the_bare_format_object():
    spec = {"type": "sequence", "elements": [{"type": "const_string", "text": "<think></think>"},
                                             {"type": "any_text"}]}
    assert structural_tag_grammar(spec).matches("<think></think>Hello")


@pytest.mark.parametrize("fmt,where", [
    ({"type": "structural_tag"}, "'format' is missing"),
    ({"type": "nope"}, "format.type: unknown format type 'nope'"),
    ({"type": "sequence", "elements": []}, "format.elements: must not be empty"),
    ({"type": "or", "elements": [{"type": "const_string"}]}, "format.elements[0].value: missing"),
    ({"type": "tag", "begin": "<a>", "content": "x", "end": "</a>"}, "format.content: must be a dict"),
    ({"type": "tag", "begin": 1, "content": {"type": "any_text"}, "end": ""}, "format.begin: must be a str"),
    ({"type": "json_schema", "json_schema": {"type": "object", "properties": {"a": {"$ref": "#/nope"}}}},
     "format.json_schema: schema at"),
    ({"type": "json_schema", "json_schema": PERSON, "style": "yaml"}, "format.style: unknown style 'yaml'"),
    ({"type": "grammar", "grammar": "root ::= undefined-rule"}, "format.grammar: "),
    ({"type": "grammar", "grammar": "root ::= x{3,1}"}, "format.grammar: "),
    ({"type": "regex", "pattern": "(unclosed"}, "format.pattern: "),
    ({"type": "triggered_tags", "triggers": ["<a"], "tags": [_fn("f")]},
     "format.tags[0].begin: '<function=f>' must begin with exactly one trigger"),
    ({"type": "triggered_tags", "triggers": [], "tags": [_fn("f")]}, "format.triggers: must not be empty"),
    ({"type": "triggered_tags", "triggers": [""], "tags": [_fn("f")]}, "format.triggers[0]: must be a non-empty"),
    ({"type": "tags_with_separator", "tags": [{"type": "or", "elements": []}], "separator": ","},
     "format.tags[0]: must be a tag object"),
    ({"type": "tags_with_separator", "tags": [_fn("f")], "separator": ",", "at_least_one": "yes"},
     "format.at_least_one: must be a bool"),
    ({"type": "sequence", "elements": [{"type": "any_text"}, 7]}, "format.elements[1]: must be a format object"),
])
def test_malformed_descriptions_say_which_field_and_why(fmt, where):
    with pytest.raises(GrammarError) as err:
        structural_tag_grammar(fmt)
    assert where in str(err.value)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(
    ["", "a", "<f>", "root ::= x", "[0-9", "json", "tag", "or", "sequence", "any_text", "triggered_tags"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
        ["type", "value", "elements", "begin", "end", "content", "tags", "triggers", "excludes", "json_schema",
         "grammar", "pattern", "separator", "style", "at_least_one", "stop_after_first"]), inner, max_size=4),
    max_leaves=12)


def _mutate(node, path: list, value):
    """``node`` with the item at ``path`` (keys / indices, as far as they lead) replaced."""
    if not path or not isinstance(node, (dict, list)):
        return value
    key, rest = path[0], path[1:]
    if isinstance(node, dict):
        key = sorted(node)[key % len(node)] if node else "type"
        return {**node, key: _mutate(node.get(key), rest, value)}
    if not node:
        return [value]
    i = key % len(node)
    return [*node[:i], _mutate(node[i], rest, value), *node[i + 1:]]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CASES), st.lists(st.integers(0, 5), max_size=4), JSON)
def test_any_damaged_description_is_a_grammar_error_or_a_grammar(case, path, value):
    """Bad input gets a GrammarError naming where; it never crashes with anything else."""
    spec = _mutate(case[0], path, value)
    try:
        g = structural_tag_grammar({"type": "structural_tag", "format": spec})
    except GrammarError as exc:
        assert str(exc).startswith("structural tag"), exc
    else:
        g.parsed()


def _home_tools() -> list[dict]:
    from edgevox.examples.home import Home

    return [t.openai_schema() for t in Home().tools()]


CALLS = [{"name": "set_light", "arguments": {"room": "kitchen", "on": True}},
         {"name": "get_time", "arguments": {}}]
JSON_FORMATS = ("hermes", "functionary", "qwen3_coder", "llama32_json", "phi4", "granite", "mistral", "xlam",
                "json_fenced", "envelope")


@pytest.mark.parametrize("wire", [*JSON_FORMATS, "pythonic", "gemma", "tool_code"])
def test_a_preset_format_as_a_structural_tag(wire):
    """What the runtime enforces, written as a structural tag, accepts the calls the wire
    format writes: one or several under auto/required, only the named tool under a named
    choice, no call under none (the envelope: only its answer)."""
    tools = _home_tools()
    one, two = render_tool_calls(CALLS[:1], wire), render_tool_calls(CALLS, wire)
    reply = render_answer("Sure.") if wire == "envelope" else "Sure."

    def grammar(choice, **kw):
        tag = tools_structural_tag(tools, wire, tool_choice=choice, **kw)
        assert json.loads(json.dumps(tag)) == tag and tag["type"] == "structural_tag"
        if wire in JSON_FORMATS:  # the calls are tags the user can read and edit
            assert "grammar" not in json.dumps(tag) or choice == "none"
        return structural_tag_grammar(tag)

    auto, required = grammar("auto"), grammar("required")
    assert auto.matches(one) and auto.matches(two) and auto.matches(reply)
    assert required.matches(one) and required.matches(two) and not required.matches(reply)
    assert not grammar("auto", parallel_tool_calls=False).matches(two)
    named = grammar({"type": "function", "function": {"name": "set_light"}})
    assert named.matches(one) and not named.matches(render_tool_calls(CALLS[1:], wire))
    none = grammar("none")
    assert none.matches(reply) and (wire in ("llama32_json", "xlam", "pythonic") or not none.matches(one))
    think = structural_tag_grammar(tools_structural_tag(tools, wire, tool_choice="required", think=True))
    assert think.matches("<think>the kitchen</think>\n" + one) and think.matches(one)


def test_structural_level_and_unknown_names():
    tools = _home_tools()
    tag = tools_structural_tag(tools, "hermes", tool_choice="required", validation="structural")
    g = structural_tag_grammar(tag)
    assert g.matches(render_tool_calls([{"name": "launch_rocket", "arguments": {"x": 1}}], "hermes"))
    with pytest.raises(ValueError, match="not among the tools"):
        tools_structural_tag(tools, "hermes", tool_choice={"type": "function", "function": {"name": "nope"}})


def _cli(*argv: str) -> tuple[int, str, str]:
    from edgevox.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def test_grammar_show_cli(tmp_path):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(_home_tools()[:3]))
    rc, out, _ = _cli("grammar", "show", "--preset", "qwen25", "--tools", str(tools), "--tool-choice", "required")
    assert rc == 0
    tag = json.loads(out)
    assert tag == tools_structural_tag(_home_tools()[:3], "hermes", tool_choice="required")
    edited = tmp_path / "tag.json"
    tag["format"]["stop_after_first"] = True  # the user edits it and compiles it back
    edited.write_text(json.dumps(tag))
    rc, out, _ = _cli("grammar", "show", "--tag", str(edited), "--gbnf")
    assert rc == 0 and out.startswith("root ::=")
    assert not structural_tag_grammar(tag).matches(render_tool_calls(CALLS[:1] * 2, "hermes"))
    edited.write_text(json.dumps({"type": "structural_tag", "format": {"type": "or", "elements": []}}))
    rc, _, err = _cli("grammar", "show", "--tag", str(edited))
    assert rc == 1 and "format.elements: must not be empty" in err
    rc, _, err = _cli("grammar", "show", "--preset", "qwen25")
    assert rc == 1 and "--tools" in err
