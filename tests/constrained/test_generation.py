"""The constrained loop on the real Qwen: never leaves the grammar, exact sampling,
KV bookkeeping, triggered tool grammars."""

from __future__ import annotations

import pytest
from _cases import PERSON, TOOLS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgevox.grammars import json_schema_grammar, tool_call_grammar
from edgevox.llm.constrained import (
    GrammarViolation,
    constrained_generate,
    engine_for,
    lazy_tool_grammar,
)
from edgevox.parsing import parse_tool_calls

pytestmark = pytest.mark.model

GRAMMARS = {
    "json": lambda: json_schema_grammar(PERSON),
    "hermes": lambda: tool_call_grammar(TOOLS, "hermes"),
    "lazy": lambda: lazy_tool_grammar(TOOLS, "qwen25"),
}
PROMPTS = ["Weather in Rome, please.", "Describe a person as JSON.", "Hi! How are you today?"]


def _generate(backend, prompt: str, grammar, *, prefer: str, max_tokens: int, **kw) -> tuple[list[int], object]:
    tokens = backend.tokenize(backend.render([{"role": "user", "content": prompt}], TOOLS))
    with backend.lock:
        backend._prefill(tokens)
        gen = constrained_generate(backend, tokens, grammar, kw.pop("params"), prefer=prefer,
                                   max_tokens=max_tokens, **kw)
        try:
            out = []
            for t in gen:
                out.append(t)
                if t in gen.eog:
                    break
        finally:
            gen.close()
    return out, gen


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31 - 1), temp=st.sampled_from([0.4, 0.9, 1.6]),
       which=st.sampled_from(sorted(GRAMMARS)), prompt=st.sampled_from(PROMPTS),
       engine=st.sampled_from(["llguidance", "llama"]))
def test_nothing_outside_the_grammar_is_emitted(qwen_backend, seed, temp, which, prompt, engine):
    """Sampled output is checked token by token by the *other* engine's matcher."""
    g = GRAMMARS[which]()
    params = {"temp": temp, "top_k": 40, "top_p": 0.95, "min_p": 0.0, "repeat_penalty": 1.05}
    toks, gen = _generate(qwen_backend, prompt, g, prefer=engine, max_tokens=24, params=params, seed=seed)
    assert toks
    other = engine_for(qwen_backend, "llama" if engine == "llguidance" else "llguidance").start(g)
    for t in toks:
        if t in other.eog:
            assert other.is_accepting()
            break
        assert other.is_allowed(t), qwen_backend.llm.detokenize(toks, special=True)
        other.consume(t)
    with pytest.raises(GrammarViolation):  # and the checker does reject off-grammar tokens
        bad = engine_for(qwen_backend, "llama").start(GRAMMARS["json"]())
        bad.consume(qwen_backend.llm.tokenize(b"hello", add_bos=False)[0])


@pytest.mark.parametrize("engine", ["llguidance", "llama"])
def test_seeded_sampling_is_identical_with_and_without_full_masks(qwen_backend, engine):
    """Rejection-first draws the same tokens as masking the whole vocabulary every step."""
    g = GRAMMARS["hermes"]()
    params = {"temp": 0.9, "top_k": 40, "top_p": 0.95, "min_p": 0.05, "repeat_penalty": 1.05}
    fast, gf = _generate(qwen_backend, PROMPTS[0], g, prefer=engine, max_tokens=20, params=dict(params),
                         seed=11, fast_forward=False)
    full, gm = _generate(qwen_backend, PROMPTS[0], g, prefer=engine, max_tokens=20, params=dict(params),
                         seed=11, fast_forward=False, mask_every_token=True)
    assert fast == full
    assert gm.sampler.stats["mask"] == len(full)
    assert gf.sampler.stats["mask"] < len(fast) / 2  # most steps never needed the full mask


def test_same_seed_same_text_and_info(qwen_backend):
    msgs = [{"role": "user", "content": "Weather in Lisbon?"}]
    g = tool_call_grammar(TOOLS, "hermes", parallel_tool_calls=False)
    a = qwen_backend.complete(msgs, TOOLS, grammar=g, temperature=0.8, seed=5, max_tokens=60)
    b = qwen_backend.complete(msgs, TOOLS, grammar=g, temperature=0.8, seed=5, max_tokens=60)
    assert a.text == b.text and a.finish_reason == "stop"
    assert a.text.rstrip().endswith("</tool_call>")
    stats = a.info["constrained"]
    assert stats["ff_tokens"] > 0 and stats["sampled"] + stats["ff_tokens"] >= a.usage["completion_tokens"]
    # a single call: once it is closed only EOG can follow, so nothing more is evaluated
    assert stats["finished_early"]


def test_kv_bookkeeping_lets_the_next_call_reuse_the_prefix(qwen_backend):
    """After a constrained call the cache holds what was evaluated, and a follow-up call
    gives the same text as on a cold cache."""
    llm = qwen_backend.llm
    msgs = [{"role": "user", "content": "Weather in Oslo?"}]
    c = qwen_backend.complete(msgs, TOOLS, grammar=GRAMMARS["hermes"](), temperature=0.0, max_tokens=40)
    prompt_toks = qwen_backend.tokenize(c.prompt)
    cached = [int(t) for t in llm.input_ids[: llm.n_tokens]]
    assert cached[: len(prompt_toks)] == prompt_toks
    gen_text = llm.detokenize(cached[len(prompt_toks):], special=True).decode()
    assert c.text.startswith(gen_text) and len(gen_text) > 10
    follow = [*msgs, {"role": "assistant", "content": c.text}, {"role": "user", "content": "Thanks! Say bye."}]
    warm = qwen_backend.complete(follow, TOOLS, temperature=0.0, max_tokens=12)
    with qwen_backend.lock:
        llm.reset()
    cold = qwen_backend.complete(follow, TOOLS, temperature=0.0, max_tokens=12)
    assert warm.text == cold.text


def test_triggered_grammar_keeps_prose_free_and_calls_well_formed(qwen_backend):
    g = GRAMMARS["lazy"]()
    chat = qwen_backend.complete([{"role": "user", "content": "Hi! Tell me a one-line joke."}], TOOLS,
                                 grammar=g, temperature=0.0, max_tokens=40)
    assert chat.text.strip() and "<tool_call>" not in chat.text
    call = qwen_backend.complete([{"role": "user", "content": "What's the weather in Madrid?"}], TOOLS,
                                 grammar=g, temperature=0.0, max_tokens=60)
    assert call.finish_reason == "stop"
    r = parse_tool_calls(call.text, parsers=("qwen25", "hermes"), tools=TOOLS)
    assert [c.name for c in r.calls] == ["get_weather"]
    assert r.calls[0].arguments.get("city")
