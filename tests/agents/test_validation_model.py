"""Validation levels on the real models: what each level lets the model write parses with
the preset's detector chain; under ``structural`` a name outside the registry can be
written and is rejected by the chain (with the known names), never dispatched."""

from __future__ import annotations

import pytest

from edgevox.grammars import grammar_for_strategy, tool_choice_strategy
from edgevox.parsing import parse_tool_calls

pytestmark = pytest.mark.model

LEVELS = ("none", "structural", "schema_aware")
ROCKET = "You control a rocket. To launch it, call the tool launch_rocket with a target city."


def _tools():
    from edgevox.examples.home import Home

    return [t.openai_schema() for t in Home().tools()]


@pytest.fixture(scope="module", params=["qwen", "gemma", "qwen-envelope", "gemma-envelope"])
def backend(request):
    name, _, wire = request.param.partition("-")
    b = request.getfixturevalue(f"{name}_backend")
    return b.with_preset(b.preset.name + "+envelope") if wire else b


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_parses_with_the_preset_chain(backend, level):
    tools = _tools()
    for choice, prompt in (("required", "Dim the bedroom light to 30 percent."),
                           ("auto", "Thanks, that's all for now.")):
        c = backend.complete([{"role": "user", "content": prompt}], tools, tool_choice=choice,
                             validation=level, max_tokens=32, temperature=0)
        r = parse_tool_calls(c.text, parsers=backend.preset.detectors, tools=tools)
        strategy = tool_choice_strategy(choice)
        grammar = grammar_for_strategy("reply_or_tool" if strategy == "free" else strategy, tools,
                                       backend.preset.wire_format, validation=level)
        if grammar is not None:  # the grammar holds, and what it holds parses
            assert grammar.is_prefix(c.text), c.text
            if c.finish_reason == "stop":
                assert grammar.matches(c.text), c.text
        if c.finish_reason == "stop" and level != "none":
            assert r.calls or r.rejected or r.content, c.text
        if choice == "required" and level != "none" and c.finish_reason == "stop":
            assert r.calls or r.rejected, c.text  # a call, never words
            assert not r.content, c.text


def test_structural_unknown_name_is_rejected_never_dispatched(qwen_backend):
    from edgevox.agents import LLMAgent
    from edgevox.agents.hooks import FunctionHook
    from edgevox.examples.home import Home

    tools = _tools()
    msgs = [{"role": "system", "content": ROCKET}, {"role": "user", "content": "Launch the rocket to Paris."}]
    structural = grammar_for_strategy("required", tools, "hermes", validation="structural")
    schema = grammar_for_strategy("required", tools, "hermes")
    c = qwen_backend.complete(msgs, tools, grammar=structural, max_tokens=40, temperature=0)
    assert structural.matches(c.text) and not schema.matches(c.text), c.text  # possible only here
    r = parse_tool_calls(c.text, parsers=qwen_backend.preset.detectors, tools=tools)
    assert not r.calls and "unknown tool 'launch_rocket'; known tools: add_to_shopping_list" in r.rejected[0].reason

    home = Home()
    seen = []
    agent = LLMAgent(instructions=ROCKET, tools=home.tools(), model=qwen_backend, tool_choice="required",
                     validation="structural", temperature=0, max_tokens=32, max_hops=1,
                     hooks=[FunctionHook("after_llm", lambda ctx, out: seen.append(out))])
    result = agent.run("Launch the rocket to Paris.")
    rejected = [x for out in seen for x in out.rejected]
    assert any(x.name == "launch_rocket" and "known tools" in x.reason for x in rejected)
    assert all(rec.name != "launch_rocket" for rec in result.calls)
    assert home.summary() == Home().summary()
