"""The GBNF validator and recogniser: verdicts, messages, and llama.cpp's lowering rules."""

from __future__ import annotations

import pytest
from corpus import INVALID, VALID

from edgevox.grammars import GbnfMatcher, GrammarError, parse_gbnf, validate_gbnf


@pytest.mark.parametrize("text", VALID)
def test_valid_corpus(text):
    parsed = validate_gbnf(text)
    assert parsed.root_id in parsed.rules


@pytest.mark.parametrize("text", INVALID)
def test_invalid_corpus(text):
    with pytest.raises(GrammarError):
        validate_gbnf(text)


@pytest.mark.parametrize("text,line,col,rule,fragment", [
    ('root ::= x\n\nx ::= "a" | foo', 3, 13, "x", "undefined rule 'foo'"),
    ('root ::= "a"\nb ::= "\\q"', 2, 8, "b", "unknown escape"),
    ('root ::= ("a" | "b"', 1, 20, "root", "expecting ')'"),
    ('root ::= [a-z', 1, 10, "root", "unterminated character class"),
    ('root ::= "a"{3,1}', 1, 13, "root", "max < min"),
    ('root ::= "a"\n  | "b"', 2, 3, None, "may not start with '|'"),
    ('root := "a"', 1, 6, "root", "expecting '::='"),
])
def test_error_messages_say_where(text, line, col, rule, fragment):
    with pytest.raises(GrammarError) as info:
        validate_gbnf(text)
    err = info.value
    assert (err.line, err.column, err.rule) == (line, col, rule)
    assert fragment in str(err)
    assert str(err).startswith(f"line {line}, col {col}")


def test_recursion_errors_name_the_rule():
    with pytest.raises(GrammarError, match="left recursion through rule 'expr'") as info:
        validate_gbnf('root ::= expr\nexpr ::= expr "+" term | term\nterm ::= [0-9]')
    assert info.value.rule == "expr"
    with pytest.raises(GrammarError, match="hidden left recursion"):
        validate_gbnf('root ::= c\nc ::= a c "z" | "x"\na ::= b\nb ::= ""')
    with pytest.raises(GrammarError, match="inside rule 'root'"):
        validate_gbnf('root ::= "a"**')


def test_custom_root_and_missing_root():
    validate_gbnf('start ::= "a"', root="start")
    with pytest.raises(GrammarError, match="no 'root' rule"):
        validate_gbnf('start ::= "a"')


def test_token_literals_need_a_vocabulary():
    with pytest.raises(GrammarError, match="needs a vocabulary"):
        validate_gbnf("root ::= <think>")
    vocab = {"<think>": [7], "<two>": [1, 2]}
    parsed = validate_gbnf("root ::= <think> [a-z]", tokenize=lambda t: vocab.get(t, []))
    assert parsed.rules[parsed.root_id][0][0] == ("t", 7, False)
    with pytest.raises(GrammarError, match="not a single token"):
        validate_gbnf("root ::= <two>", tokenize=lambda t: vocab.get(t, []))


def test_not_a_string_and_nul():
    with pytest.raises(GrammarError):
        validate_gbnf(b'root ::= "a"')  # type: ignore[arg-type]
    with pytest.raises(GrammarError, match="NUL"):
        validate_gbnf('root ::= "a"\x00')


def test_deep_nesting_is_refused_not_a_crash():
    validate_gbnf("root ::= " + "(" * 50 + '"a"' + ")" * 50)
    with pytest.raises(GrammarError, match="nested deeper"):
        validate_gbnf("root ::= " + "(" * 5000 + '"a"' + ")" * 5000)


def test_lowering_mirrors_llama_cpp():
    # S{2,4} -> S S S'(2); llama.cpp names helper rules <rule>_<id>
    p = parse_gbnf('root ::= "a"{2,4}')
    assert set(p.symbols) == {"root", "root_1", "root_2"}
    assert len(p.rules[p.root_id][0]) == 3
    # a larger max than 2000 means "no max"
    m = GbnfMatcher('root ::= "a"{0,5000}')
    assert m.matches("a" * 6000)


@pytest.mark.parametrize("grammar,yes,no", [
    ('root ::= "a"{2,4} "b"?', ["aa", "aaab", "aaaa"], ["a", "aaaaa", "aabb", ""]),
    ('root ::= [^a-c]+', ["xyz", "é"], ["a", "xa", ""]),
    ('root ::= . "\\n"', ["x\n", "\n\n"], ["x", "xy\n"]),
    ('root ::= x | x "!"\nx ::= "hi"', ["hi", "hi!"], ["hi!!"]),
    ('root ::= "(" root ")" | ""', ["", "()", "(())"], ["(", "())"]),
    ('root ::= ("a"*)*', ["", "aaa"], ["b"]),
    ('root ::= [z-a]', [], ["a", "z", "m"]),
    ('root ::= [] "a"', ["a"], [""]),
])
def test_matcher(grammar, yes, no):
    m = GbnfMatcher(grammar)
    for s in yes:
        assert m.matches(s), s
    for s in no:
        assert not m.matches(s), s


def test_matcher_prefixes():
    m = GbnfMatcher('root ::= "abc" | "abd"')
    assert m.is_prefix("ab") and not m.matches("ab")
    assert not m.is_prefix("ax")


def test_bundled_llama_cpp_grammars_validate():
    from llama_cpp import llama_grammar

    texts = {n: getattr(llama_grammar, n) for n in dir(llama_grammar) if n.endswith("_GBNF")}
    assert len(texts) >= 5
    for text in texts.values():
        assert validate_gbnf(text).rules
    m = GbnfMatcher(llama_grammar.JSON_GBNF)
    assert m.matches('{"a": [1, 2.5, {"b": null}], "c": "\\u00e9"}')
    assert not m.matches("{a: 1}")
