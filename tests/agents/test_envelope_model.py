"""The JSON envelope on the real models: every tool_choice form gives output in its own
branch that the envelope detector reads; "none" never calls; answers stream early."""

from __future__ import annotations

import pytest

from edgevox.grammars import grammar_for_strategy, tool_choice_strategy
from edgevox.parsing import StreamingParser, TextDelta, parse_tool_calls

pytestmark = pytest.mark.model

CHOICES = ("none", "auto", "required", {"type": "function", "function": {"name": "set_light"}})
PROMPTS = ("Turn on the kitchen light.", "Hi! How are you today?")


def _home_tools():
    from edgevox.examples.home import Home

    return [t.openai_schema() for t in Home().tools()]


@pytest.fixture(scope="module", params=["qwen", "gemma"])
def envelope_backend(request):
    backend = request.getfixturevalue(f"{request.param}_backend")
    return backend.with_preset(backend.preset.name + "+envelope")


@pytest.mark.parametrize("choice", CHOICES, ids=["none", "auto", "required", "named"])
def test_every_tool_choice_form(envelope_backend, choice):
    tools = _home_tools()
    strategy = tool_choice_strategy(choice, constrain_auto=True)
    grammar = grammar_for_strategy(strategy, tools, "envelope")
    for prompt in PROMPTS if choice == "auto" else PROMPTS[CHOICES.index(choice) % 2:][:1]:
        c = envelope_backend.complete([{"role": "user", "content": prompt}],
                                      tools if choice != "none" else None,
                                      grammar=grammar, max_tokens=32, temperature=0)
        assert grammar.is_prefix(c.text), c.text
        r = parse_tool_calls(c.text, parsers=envelope_backend.preset.detectors, tools=tools)
        if c.finish_reason == "stop":
            assert grammar.matches(c.text), c.text
            assert bool(r.calls) or bool(r.content), c.text  # a call or an answer, nothing else
        if choice == "none":
            assert not r.calls and not r.rejected and c.text.startswith('{"answer": "')
        if choice == "required" or isinstance(choice, dict):
            assert c.text.startswith(('{"tool": "', '[{"tool": "')), c.text
        if isinstance(choice, dict) and c.finish_reason == "stop":
            assert [x.name for x in r.calls] == ["set_light"]


def test_none_never_calls_through_the_agent(envelope_backend):
    from edgevox.agents import LLMAgent, ToolCallEvent
    from edgevox.examples.home import Home

    home = Home()
    agent = LLMAgent(tools=home.tools(), model=envelope_backend, tool_choice="none",
                     temperature=0, max_tokens=32, seed=0)
    for prompt in PROMPTS:
        stream = agent.run_stream(prompt)
        events = list(stream)
        assert not any(isinstance(e, ToolCallEvent) for e in events)
        assert stream.result.calls == [] and stream.result.reply.strip()
        assert not stream.result.reply.lstrip().startswith("{")  # the markup is never spoken
    assert not any(home.lights.values())


def test_answer_streams_before_it_is_complete(qwen_backend):
    backend = qwen_backend.with_preset("qwen25+envelope")
    grammar = grammar_for_strategy("none", None, "envelope")
    parser = StreamingParser(backend.preset.detectors)
    pieces, first = [], None
    for piece in backend.stream([{"role": "user", "content": "Tell me a fun fact about the moon."}],
                                grammar=grammar, max_tokens=40, temperature=0):
        pieces.append(piece)
        if any(isinstance(e, TextDelta) for e in parser.feed(piece)) and first is None:
            first = len(pieces)
    parser.close()
    assert first is not None and first < len(pieces) - 3, (first, len(pieces))
    assert parser.result().content and not parser.result().calls
