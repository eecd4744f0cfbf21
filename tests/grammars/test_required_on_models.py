"""Issue 4's promise on real models: under `required`, every call parses and validates.

Thirty varied requests on Qwen2.5-Coder-0.5B, and the Gemma 3 270M *base* model (never
trained to call tools) under the same kind of grammar: the grammar alone gives the shape.
"""

from __future__ import annotations

import jsonschema
import pytest
from registry import TOOLS

from edgevox.grammars import GrammarCache, tool_choice_strategy
from edgevox.grammars.choice import grammar_for_strategy
from edgevox.parsing import parse_tool_calls

pytestmark = pytest.mark.model
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}

REQUESTS = [
    "What's the weather in Paris?", "Weather in Tokyo for the next 3 days, in celsius.",
    "Is it cold in Oslo? Use fahrenheit.", "Set a timer for 10 minutes.",
    "Timer for 2.5 minutes called tea, with sound.", "Remind me in 45 minutes to call mom.",
    "Add milk, eggs and bread to my todo list.", "Put 'file taxes' on my todo list, priority 1.",
    "Add buy flowers to the list with priority 3.", "Text Alice that I'm running late.",
    "Send an urgent message to Bob: the meeting moved to 3pm.",
    "Message Carol at 555-0100 saying happy birthday.", "Play some jazz.",
    "Play the album Kind of Blue at volume 40.", "Shuffle my workout playlist.",
    "What time is it?", "Tell me the time please.", "How late is it right now?",
    "I need an umbrella in London tomorrow?", "Start a 30 minute pasta timer.",
    "Play Bohemian Rhapsody, the song, loud.", "Add 'renew passport' to todos.",
    "Tell Dave the package arrived.", "Weather for Berlin this week.",
    "Countdown 5 minutes for eggs.", "Put on some relaxing music, volume 20.",
    "Is it sunny in Madrid?", "Add apples and pears, priority 2.",
    "Let Eve know dinner is ready, it's urgent.", "What's the clock say?",
]


def _check(backend, requests, limit_tokens):
    cache = GrammarCache()
    strategy = tool_choice_strategy("required", "auto", 0)
    grammar = grammar_for_strategy(strategy, TOOLS, backend.preset.wire_format, cache=cache,
                                   parallel_tool_calls=False)
    failures, names = [], set()
    for req in requests:
        c = backend.complete([{"role": "user", "content": req}], TOOLS, grammar=grammar,
                             max_tokens=limit_tokens, temperature=0)
        r = parse_tool_calls(c.text, parsers=backend.preset.detectors, tools=TOOLS)
        if len(r.calls) != 1 or r.rejected:
            failures.append((req, c.text, "no single call parsed"))
            continue
        call = r.calls[0]
        names.add(call.name)
        try:
            jsonschema.validate(call.arguments, SCHEMAS[call.name])
        except jsonschema.ValidationError as exc:
            failures.append((req, c.text, exc.message))
    return failures, names, cache


def test_thirty_required_calls_qwen(qwen_backend):
    assert len(REQUESTS) == 30
    failures, names, cache = _check(qwen_backend, REQUESTS, 96)
    assert failures == []  # 100%: every call parses with the preset's chain and validates
    assert len(names) >= 5  # and the model really chose among the tools
    assert cache.stats()["misses"] == 1


def test_base_model_still_emits_valid_calls(gemma_backend):
    assert gemma_backend.preset.wire_format == "tool_code"
    failures, names, _ = _check(gemma_backend, REQUESTS[::3], 80)
    assert failures == []
    assert names <= set(SCHEMAS)
