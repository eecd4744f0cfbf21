"""Triggered grammars and the GBNF surgery behind them (no model: llama.cpp's language is
checked with edgevox's GBNF recogniser, llguidance's form with llguidance's validator)."""

from __future__ import annotations

import pytest

from edgevox.grammars import (
    GbnfMatcher,
    GrammarError,
    json_schema_grammar,
    render_tool_calls,
    reply_or_tool_grammar,
    tool_call_grammar,
    validate_gbnf,
)
from edgevox.llm.constrained import StructuralTag, TriggeredGrammar, lazy_tool_grammar
from edgevox.llm.constrained.gbnf_ops import (
    derive_gbnf,
    gbnf_to_llg,
    has_char_automaton,
    rename_lark,
    rename_rules,
)
from edgevox.llm.presets import all_presets, load_preset_file

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"]}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {
        "type": "object", "properties": {"tz": {"type": "string", "enum": ["UTC", "CET"]}},
        "required": ["tz"]}}},
]
CALL = [{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}]
TWO = [*CALL, {"name": "get_time", "arguments": {"tz": "UTC"}}]


def accepts(gbnf: str, text: str) -> bool:
    return GbnfMatcher(gbnf).matches(text)


# -- derivative ---------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", ["hermes", "mistral", "pythonic", "llama32_json", "gemma"])
def test_derivative_is_the_rest_after_the_prefix(wire):
    g = tool_call_grammar(TOOLS, wire)
    texts = [render_tool_calls(CALL, wire), render_tool_calls(TWO, wire)]
    for prefix_len in (1, 3, 8):
        prefix = texts[0][:prefix_len]
        rest = derive_gbnf(g, prefix)
        validate_gbnf(rest)
        for t in texts:
            assert accepts(rest, t[prefix_len:]) == g.matches(t)
        assert not accepts(rest, texts[0][prefix_len:] + "junk")
        assert not accepts(rest, texts[0])  # the prefix is consumed, not optional


def test_derivative_of_impossible_prefix_is_an_error():
    with pytest.raises(GrammarError, match="begins with"):
        derive_gbnf('root ::= "yes" | "no"', "x")


def test_derivative_keeps_repetitions_and_token_free_text():
    g = 'root ::= "id:" [0-9]{2,4} ("," [a-z]+)*'
    rest = derive_gbnf(g, "id:1")
    for s, ok in [("2", True), ("234", True), ("2345", False), ("", False), ("2,ab,c", True)]:
        assert accepts(rest, s) is ok, s


def test_rename_rules_leaves_literals_classes_and_counts():
    g = 'root ::= "a-b root" item{2,3} [a-z-]\nitem ::= "x" # comment root\n'
    renamed = rename_rules(g, "p-")
    assert "p-root ::=" in renamed and '"a-b root"' in renamed and "{2,3}" in renamed
    assert accepts(renamed.replace("p-root ::=", "root ::="), "a-b rootxxq")


def test_rename_lark_prefixes_rules_and_terminals():
    lark = '%llguidance {}\nstart: foo BAR "start" /start/\nfoo: "x" // c\nBAR: /[a-z]/\n'
    out = rename_lark(lark, "r1_")
    assert "r1_start: r1_foo R1_BAR" in out and '"start"' in out and "/start/" in out
    assert "%llguidance" not in out


# -- triggered grammars: language ----------------------------------------------------------------


@pytest.fixture(scope="module")
def hermes_lazy() -> TriggeredGrammar:
    return lazy_tool_grammar(TOOLS, "qwen25")


def test_prose_is_free_until_the_trigger(hermes_lazy):
    g = hermes_lazy.gbnf
    validate_gbnf(g)
    call = render_tool_calls(CALL, "hermes")
    assert accepts(g, "")
    assert accepts(g, "Hello! It's <b>sunny</b> < tool_call > today.\n")
    assert accepts(g, call)
    assert accepts(g, "Let me check. " + call)
    assert accepts(g, "Let me check. " + render_tool_calls(TWO, "hermes"))
    assert not accepts(g, "Let me check. <tool_call> the weather")  # a trigger commits to a call
    assert not accepts(g, call + " and some prose after")
    assert not accepts(g, "<tool_call>\n" + '{"name": "nope", "arguments": {}}\n</tool_call>')


def test_at_start_trigger_only_counts_at_the_start():
    g = lazy_tool_grammar(TOOLS, "pythonic").gbnf
    validate_gbnf(g)
    call = render_tool_calls(CALL, "pythonic")
    assert accepts(g, call) and accepts(g, " \n" + call)
    assert accepts(g, "The list [1, 2] is short.")
    assert accepts(g, "")
    assert not accepts(g, "[1, 2] is a list")  # '[' at the start opens a call
    assert not accepts(g, "  [get_weather(town='x')]")


def test_overlapping_and_multiple_triggers():
    tg = TriggeredGrammar(triggers=("aab", "<c>"), tags=(StructuralTag("aab", 'root ::= [0-9]+', ";"),
                                                       StructuralTag("<c>", 'root ::= "x"', "</c>")),
                          separator="")
    g = tg.gbnf
    validate_gbnf(g)
    assert accepts(g, "aaa ab a<b c>")
    assert accepts(g, "aaab12;") and accepts(g, "hi aab7;<c>x</c>")
    assert accepts(g, "hi <c>x</c>")
    assert not accepts(g, "aaab;") and not accepts(g, "x aab12")


@pytest.mark.parametrize("name", sorted(p.name for p in all_presets().values() if p.trigger.get("begin")))
def test_every_preset_trigger_builds(name):
    preset = all_presets()[name]
    tg = lazy_tool_grammar(TOOLS, preset)
    validate_gbnf(tg.gbnf)
    call = render_tool_calls(CALL, preset.wire_format)
    assert accepts(tg.gbnf, call)
    assert accepts(tg.gbnf, "Sure, here you go.") is True
    if not tg.at_start:
        assert accepts(tg.gbnf, "One moment. " + call)
    else:
        assert accepts(tg.gbnf, "\n" + call)


def test_a_new_wire_format_is_a_preset_entry(tmp_path):
    path = tmp_path / "toy.toml"
    path.write_text(
        'name = "toy"\nfamily = "toy"\ndetectors = ["hermes"]\nwire_format = "hermes"\n'
        '[trigger]\nbegin = "<fn>"\nend = "</fn>"\ncontent = "json"\nargs_key = "args"\nseparator = ""\n',
        encoding="utf-8")
    tg = lazy_tool_grammar(TOOLS, load_preset_file(path))
    g = tg.gbnf
    validate_gbnf(g)
    assert accepts(g, 'Ok. <fn>{"name": "get_weather", "args": {"city": "Oslo"}}</fn>')
    assert accepts(g, '<fn>{"name": "get_time", "args": {"tz": "CET"}}</fn><fn>{"name": "get_time", "args": {"tz": "UTC"}}</fn>')
    assert not accepts(g, '<fn>{"name": "get_time", "args": {"tz": "PST"}}</fn>')
    assert not accepts(g, '<fn>{"name": "get_weather", "arguments": {"city": "Oslo"}}</fn>')


def test_preset_without_trigger_is_a_clear_error():
    preset = next(p for p in all_presets().values() if p.trigger.get("begin"))
    from dataclasses import replace

    with pytest.raises(ValueError, match="no \\[trigger\\] begin"):
        lazy_tool_grammar(TOOLS, replace(preset, trigger={}))
    with pytest.raises(ValueError, match="exactly one of"):
        TriggeredGrammar(triggers=("x",))


def test_lark_form_is_valid_for_llguidance(hermes_lazy):
    import llguidance as llg

    for tg in (hermes_lazy, lazy_tool_grammar(TOOLS, "pythonic"), lazy_tool_grammar(TOOLS, "mistral")):
        grammar = llg.LLMatcher.grammar_from_lark(tg.lark())
        assert llg.LLMatcher.validate_grammar(grammar) == ""


def test_char_automata_are_recognised():
    """Grammars that llguidance would lex differently from llama.cpp are spotted."""
    assert has_char_automaton(reply_or_tool_grammar(TOOLS, "hermes").gbnf)
    assert has_char_automaton(lazy_tool_grammar(TOOLS, "qwen25").gbnf)  # its GBNF form; llguidance gets Lark
    assert not has_char_automaton(tool_call_grammar(TOOLS, "hermes").gbnf)
    assert not has_char_automaton(json_schema_grammar({"type": "object"}).gbnf)
    assert not has_char_automaton('root ::= [0-9]* "x" [a-z]{2,5}')


def test_any_char_keeps_newlines_for_llguidance():
    lark = gbnf_to_llg('root ::= "a" . "." [.] "/./"')
    assert "/(?s:.)/" in lark and '"."' in lark and '"/./"' in lark
