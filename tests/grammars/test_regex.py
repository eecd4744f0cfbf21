"""Regex mode: the grammar accepts exactly the strings Python's re.fullmatch accepts."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgevox.grammars import GrammarError, regex_grammar

PATTERNS = [
    r"\d{3}-\d{4}",
    r"[A-Z][a-z]+( [A-Z][a-z]+)*",
    r"(yes|no|maybe)",
    r"-?\d+(\.\d{1,2})?",
    r"[^\s@]+@[\w-]+\.(com|org|net)",
    r"(?:ab|a)*b?c{2,}",
    r"^\w{2,5}:\s?[0-9a-fA-F]{1,4}$",
    r"x.y\.z",
    r"\(\d+\)|\[[a-c-]*\]|\{\}",
    r"(?P<word>[a-z]+)\t+\n?",
    r"[\d\s]{0,6}",
    r"a{,2}b{1}",
    r"[^\D5]+",
    r"\x41\u00e9+",
]


@pytest.mark.parametrize("pattern", PATTERNS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_regex_samples_match(pattern, data):
    compiled = re.compile(pattern, re.ASCII)
    g = regex_grammar(pattern)
    s = data.draw(st.from_regex(compiled, fullmatch=True))
    assert g.matches(s), (pattern, s)


@pytest.mark.parametrize("pattern", PATTERNS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(s=st.text(alphabet="ab-c.xyz09 \t\n@AZ()[]{}é", max_size=10))
def test_regex_agrees_with_re_on_random_text(pattern, s):
    g = regex_grammar(pattern)
    assert g.matches(s) == bool(re.fullmatch(pattern, s, re.ASCII)), (pattern, s)


@pytest.mark.parametrize("pattern", [
    r"(a)\1", r"(?=a)a", r"(?!a)b", r"(?<=a)b", r"(?i)abc", r"\bword\b", r"a++", r"a**",
    r"[a-", r"(ab", r"ab)", r"*a", r"a{3,1}", r"a{5000}", r"\p{L}", r"a^b", r"\A",
])
def test_unsupported_or_broken_regex_raises(pattern):
    with pytest.raises(GrammarError):
        regex_grammar(pattern)


def test_regex_grammar_object():
    g = regex_grammar(r"\d+")
    assert g.strategy == "regex" and g.wire_format is None
    assert g.gbnf.startswith("root ::= ")
    assert regex_grammar(r"\d+").key == g.key != regex_grammar(r"\d*").key
