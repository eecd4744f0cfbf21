"""tool_choice + policy -> strategy -> grammar."""

from __future__ import annotations

import pytest
from registry import TOOLS

from edgevox.grammars import GrammarCache, grammar_for_strategy, tool_choice_strategy

NAMED = {"type": "function", "function": {"name": "get_time"}}


@pytest.mark.parametrize("choice,policy,hop,expected", [
    (None, "auto", 0, "free"),
    (None, "auto", 3, "free"),
    (None, "required_first_hop", 0, "required"),
    (None, "required_first_hop", 1, "free"),
    (None, "required_always", 0, "required"),
    (None, "required_always", 5, "required"),
    ("none", "required_always", 0, "none"),          # explicit wins over the policy
    ("auto", "required_always", 0, "free"),
    ("required", "auto", 0, "required"),
    ("required", "required_first_hop", 2, "required"),
    (NAMED, "auto", 0, ("single", "get_time")),
    ({"type": "function", "name": "get_time"}, "auto", 1, ("single", "get_time")),
])
def test_mapping(choice, policy, hop, expected):
    assert tool_choice_strategy(choice, policy, hop) == expected


def test_constrain_auto():
    assert tool_choice_strategy("auto", constrain_auto=True) == "reply_or_tool"
    assert tool_choice_strategy(None, "required_first_hop", 1, constrain_auto=True) == "reply_or_tool"
    assert tool_choice_strategy(None, "required_first_hop", 0, constrain_auto=True) == "required"


@pytest.mark.parametrize("kwargs,msg", [
    ({"tool_choice": "always"}, "none, auto, required"),
    ({"tool_choice": {"type": "function"}}, "bad tool_choice"),
    ({"tool_choice": {"type": "tool", "function": {"name": "x"}}}, "bad tool_choice"),
    ({"tool_choice": 1}, "bad tool_choice"),
    ({"policy": "sometimes"}, "auto, required_first_hop, required_always"),
    ({"hop": -1}, "hop"),
    ({"hop": True}, "hop"),
    ({"tool_choice": NAMED, "tool_names": ["get_weather"]}, "not among the tools"),
])
def test_bad_values(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        tool_choice_strategy(**kwargs)


def test_grammar_for_strategy():
    assert grammar_for_strategy("none", TOOLS) is None
    assert grammar_for_strategy("free", TOOLS) is None
    req = grammar_for_strategy("required", TOOLS, "hermes")
    assert req.strategy == "required" and not req.matches("hello")
    rot = grammar_for_strategy("reply_or_tool", TOOLS, "hermes")
    assert rot.matches("hello")
    single = grammar_for_strategy(("single", "get_time"), TOOLS, "mistral")
    assert single.tool_names == ("get_time",)
    cache = GrammarCache()
    a = grammar_for_strategy("required", TOOLS, "hermes", cache=cache)
    assert grammar_for_strategy("required", TOOLS, "hermes", cache=cache) is a
    assert a.gbnf == req.gbnf
    s = grammar_for_strategy(("single", "get_time"), TOOLS, "mistral", cache=cache)
    assert s.gbnf == single.gbnf
    with pytest.raises(ValueError):
        grammar_for_strategy("sometimes", TOOLS)


def test_end_to_end_policy_per_hop():
    """The agent loop in miniature: hop 0 is forced to call, hop 1 is free."""
    cache = GrammarCache()
    g0 = grammar_for_strategy(tool_choice_strategy(None, "required_first_hop", 0), TOOLS, cache=cache)
    g1 = grammar_for_strategy(tool_choice_strategy(None, "required_first_hop", 1), TOOLS, cache=cache)
    assert g0 is not None and g0.strategy == "required" and g1 is None
