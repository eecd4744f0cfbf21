"""Greedy output of the fast loop == llama-cpp-python's own grammar path, on the real Qwen.

Reference: ``Llama.generate(tokens, grammar=LlamaGrammar.from_string(gbnf), temp=0, ...)``
with the backend's preset sampling (repeat penalty 1.05) -- exactly what the backend did
before the constrained loop existed. Ours: ``backend.complete(..., grammar=...)`` with each
mask engine, fast-forward off and on.

Without fast-forward the text is identical by construction (same logits, same chain, the
same masks). Fast-forward writes forced text in the tokenizer's canonical tokens, e.g.
``</tool_call>`` as its one marker token where greedy Qwen-0.5B, left alone, spells it
``<`` ``/tool`` ``_call`` ``>`` -- after which it may add a newline before ending the turn.
So with fast-forward the text must match up to trailing whitespace.
"""

from __future__ import annotations

import pytest
from _cases import PERSON, TOOLS

from edgevox.grammars import json_schema_grammar, tool_call_grammar

pytestmark = pytest.mark.model

MAX = 48

ENUM = 'root ::= "positive" | "negative" | "neutral"'
DIGITS = 'root ::= "-"? [0-9]{1,4} ("." [0-9]{1,2})?'

CASES = [
    ("hermes", lambda: tool_call_grammar(TOOLS, "hermes"), "What's the weather like in Paris right now?", True),
    ("hermes", lambda: tool_call_grammar(TOOLS, "hermes"), "What time is it in Tokyo?", True),
    ("json", lambda: json_schema_grammar(PERSON),
     "Extract the person as JSON: Maria Lopez, 34, lives in Valencia.", False),
    ("json", lambda: json_schema_grammar(PERSON), "Give me a JSON object for a fictional person.", False),
    ("enum", lambda: ENUM, "Sentiment of 'I love this phone, best purchase ever!'? One word.", False),
    ("enum", lambda: ENUM, "Classify the sentiment: 'The delivery was late and the box was crushed.'", False),
    ("digits", lambda: DIGITS, "What is 17 * 23? Answer with the number only.", False),
    ("digits", lambda: DIGITS, "How many days are in a leap year? Digits only.", False),
]


def reference(backend, messages, tools, gbnf: str) -> str:
    """The pre-existing path: llama-cpp-python's generate with a LlamaGrammar."""
    from llama_cpp import LlamaGrammar

    llm = backend.llm
    tokens = backend.tokenize(backend.render(messages, tools))
    params = backend._sampling({"temperature": 0.0})
    out: list[int] = []
    with backend.lock:
        backend._prefill(tokens)
        for tok in llm.generate(tokens, grammar=LlamaGrammar.from_string(gbnf, verbose=False), **params):
            if backend._is_eog(tok) or len(out) >= MAX:
                break
            out.append(tok)
    return llm.detokenize(out, special=True).decode("utf-8", errors="replace")


@pytest.mark.parametrize("kind,grammar,prompt,with_tools", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_greedy_equals_llama_cpp_python(qwen_backend, kind, grammar, prompt, with_tools):
    g = grammar()
    gbnf = g if isinstance(g, str) else g.gbnf
    messages = [{"role": "user", "content": prompt}]
    tools = TOOLS if with_tools else None
    ref = reference(qwen_backend, messages, tools, gbnf)
    assert ref  # the reference produced something to compare with
    for name, ff in (("llguidance", False), ("llguidance", True), ("llama", False)):
        with qwen_backend.decoding_mode(name, ff):
            c = qwen_backend.complete(messages, tools, grammar=g, temperature=0.0, max_tokens=MAX)
        if ff:
            assert c.text.rstrip() == ref.rstrip(), f"{name} ff={ff}"
        else:
            assert c.text == ref, f"{name} ff={ff}"
        stats = c.info["constrained"]
        assert stats["engine"].startswith("LLGuidance" if name == "llguidance" else "LlamaGrammar")
        if kind == "hermes" and name == "llguidance" and ff:
            assert stats["ff_tokens"] >= 8  # '<tool_call>\n{"name": "' and the name are forced
