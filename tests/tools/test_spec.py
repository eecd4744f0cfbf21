"""The one normaliser of tool-like things, and every layer reading tools through it."""

from __future__ import annotations

import pytest

from edgevox.grammars import GrammarError, normalize_tools
from edgevox.llm.remote.messages import as_openai_tool as remote_tool
from edgevox.parsing import ToolIndex
from edgevox.tools import tool
from edgevox.tools.spec import NotATool, ToolSpec, as_openai_tool, tool_spec

PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
OPENAI = {"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": PARAMS}}


@tool
def get_weather(city: str) -> str:
    """Weather.

    Args:
        city: where
    """
    return city


@pytest.mark.parametrize("given", [OPENAI, OPENAI["function"], get_weather], ids=["openai", "bare", "@tool"])
def test_every_form_gives_the_same_spec(given):
    spec = tool_spec(given)
    assert spec.name == "get_weather" and spec.description == "Weather."
    assert spec.parameters["properties"]["city"]["type"] == "string"
    # and every layer sees the same tool
    assert normalize_tools([given])[0][0] == "get_weather"
    assert "get_weather" in ToolIndex([given])
    assert as_openai_tool(given)["function"]["name"] == "get_weather" == remote_tool(given)["function"]["name"]


def test_a_name_alone_is_a_tool_with_unknown_parameters():
    assert tool_spec("ping") == ToolSpec("ping")
    assert normalize_tools("ping") == [("ping", {"type": "object"})]


@pytest.mark.parametrize("bad", [{"description": "no name"}, 42, "", {"function": {"name": 3}}])
def test_what_is_not_a_tool_is_said_once_everywhere(bad):
    with pytest.raises(NotATool):
        tool_spec(bad)
    with pytest.raises(GrammarError):
        normalize_tools([bad])
    assert len(ToolIndex([bad, "ok"])) == 1  # the parser skips it and keeps the rest
