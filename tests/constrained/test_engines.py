"""Both mask engines on the real Qwen vocabulary: same masks, fast-forward, errors, dead ends."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from _cases import PERSON, TOOLS

from edgevox.grammars import (
    GrammarError,
    json_schema_grammar,
    reply_or_tool_grammar,
    tool_call_grammar,
)
from edgevox.llm.constrained import engine_for, lazy_tool_grammar
from edgevox.llm.constrained.engine_llama import LlamaGrammarMatcher

pytestmark = pytest.mark.model

# bytes that can never start UTF-8: llguidance rejects them, llama.cpp takes them as the
# start of a 4-byte character (documented difference; no model picks them)
_BAD_UTF8_LEAD = set(range(0xF5, 0x100))


@pytest.fixture(scope="module")
def engines(qwen_backend):
    return engine_for(qwen_backend, "llguidance"), engine_for(qwen_backend, "llama")


def _invalid_utf8_tokens(backend) -> set[int]:
    out = set()
    for t in range(backend.llm.n_vocab()):
        piece = backend.llm.detokenize([t], special=True)
        if len(piece) == 1 and piece[0] in _BAD_UTF8_LEAD:
            out.add(t)
    return out


MASK_CASES = [
    ("hermes", lambda: tool_call_grammar(TOOLS, "hermes"),
     '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>'),
    ("json", lambda: json_schema_grammar(PERSON), '{"name": "Ana \\"Li\\" \\u00e9", "age": 3, "city": "Köln"}'),
    ("lazy-hermes", lambda: lazy_tool_grammar(TOOLS, "qwen25"),
     'Sure! <b>One</b> moment. <tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n</tool_call>'),
    ("lazy-pythonic", lambda: lazy_tool_grammar(TOOLS, "pythonic"), ' [get_time(timezone="Asia/Tokyo")]'),
    ("lazy-prose", lambda: lazy_tool_grammar(TOOLS, "pythonic"), "Lists like [1, 2] are fine in prose."),
    ("digits", lambda: 'root ::= [0-9]{1,4} ("-" [0-9]{2})?', "1234-56"),
    ("any-char", lambda: 'root ::= "a" .*', "a\nb c.\n\tz"),  # llama.cpp's '.' includes newline
    ("reply-or-tool", lambda: reply_or_tool_grammar(TOOLS, "hermes"), "Hello!\nA second line."),
]


@pytest.mark.parametrize("name,grammar,text", MASK_CASES, ids=[c[0] for c in MASK_CASES])
def test_engines_give_the_same_mask_at_every_step(qwen_backend, engines, name, grammar, text):
    a_eng, b_eng = engines
    g = grammar()
    skip = _invalid_utf8_tokens(qwen_backend)
    toks = qwen_backend.llm.tokenize(text.encode(), add_bos=False, special=True)
    a, b = a_eng.start(g), b_eng.start(g)
    assert isinstance(b, LlamaGrammarMatcher)
    # a character-level prose automaton in plain GBNF is routed to llama.cpp's engine
    assert isinstance(a, LlamaGrammarMatcher) == (name == "reply-or-tool")
    for i, tok in enumerate([*toks, None]):
        ma, mb = a.allowed_mask(), b.allowed_mask()
        diff = {int(t) for t in np.flatnonzero(ma != mb)} - skip
        assert not diff, f"step {i}: masks differ on {sorted(diff)[:10]}"
        assert ma.any()
        if tok is None:
            break
        assert a.is_allowed(tok) and b.is_allowed(tok)
        a.consume(tok)
        b.consume(tok)
    assert a.is_accepting() and b.is_accepting()


def test_fast_forward_is_the_canonical_forced_text(qwen_backend, engines):
    a_eng, _ = engines
    m = a_eng.start(tool_call_grammar(TOOLS[:1], "hermes"))
    ff = m.ff_tokens()
    text = qwen_backend.llm.detokenize(ff, special=True).decode()
    assert text.startswith('<tool_call>\n{"name": "get_weather", "arguments":')
    # canonical: the model's own tokenizer splits the forced text the same way
    assert ff == qwen_backend.llm.tokenize(text.encode(), add_bos=False, special=True)
    m.consume_many(ff)
    assert not m.is_dead()


def test_invalid_grammars_raise_before_generation(qwen_backend, engines):
    for eng in engines:
        for bad in ("root ::= foo", "root ::= [", 'root ::= "a"{3,1}', "x ::= x \"a\"\nroot ::= x"):
            with pytest.raises(GrammarError):
                eng.start(bad)
    n_before = qwen_backend.llm.n_tokens
    with pytest.raises(GrammarError):
        qwen_backend.complete([{"role": "user", "content": "hi"}], grammar="root ::= (", max_tokens=4)
    assert qwen_backend.llm.n_tokens == n_before  # nothing was evaluated
    with pytest.raises(TypeError, match="grammar"):
        qwen_backend.complete([{"role": "user", "content": "hi"}], grammar=42, max_tokens=4)


@pytest.mark.parametrize("engine", ["llguidance", "llama"])
def test_dead_end_ends_cleanly(qwen_backend, engine):
    """After "x" the grammar wants a NUL character, which no token can give."""
    with qwen_backend.decoding_mode(engine):
        c = qwen_backend.complete([{"role": "user", "content": "Say x."}], grammar='root ::= "x" "\\x00"',
                                  temperature=0.0, max_tokens=8)
    assert c.finish_reason == "grammar_dead_end"
    assert c.text == "x"
    assert c.usage["completion_tokens"] == 1


def test_grammar_llguidance_cannot_read_falls_back_to_llama_cpp(engines, caplog):
    a_eng, _ = engines
    # valid GBNF whose rule names collide after llguidance's snake_case renaming
    g = 'root ::= fooBar foo-bar\nfooBar ::= "a"\nfoo-bar ::= "b"\n'
    with caplog.at_level(logging.WARNING):
        m = a_eng.start(g)
    assert isinstance(m, LlamaGrammarMatcher)
    assert "llguidance cannot compile" in caplog.text


def test_without_llguidance_the_llama_cpp_engine_is_used(qwen_backend, monkeypatch):
    from edgevox.llm.constrained import engines as engine_mod
    from edgevox.llm.constrained.engine_llama import LlamaGrammarEngine

    monkeypatch.setattr(engine_mod, "_llguidance_available", lambda: False)
    eng = engine_mod.make_engine(qwen_backend, prefer="llguidance")
    assert isinstance(eng, LlamaGrammarEngine) and eng.supports_ff is False
    m = eng.start('root ::= "ok"')
    assert m.ff_tokens() == [] and not m.is_finished()
    with pytest.raises(ValueError, match="unknown mask engine"):
        engine_mod.make_engine(qwen_backend, prefer="xgrammar")


def test_a_fallback_grammar_survives_eviction_from_the_llama_cache(qwen_backend):
    """llguidance hands char-automaton grammars to llama.cpp. Its cache entry must not
    point at a sampler the llama.cpp engine's smaller cache already freed (seen in a long
    BFCL run as `llama_sampler_clone returned NULL`, i.e. a use after free)."""
    from edgevox.llm.constrained import engines as engine_mod

    eng = engine_mod.make_engine(qwen_backend, prefer="llguidance")
    first = reply_or_tool_grammar(TOOLS, "hermes")
    eng.start(first).close()
    fallback = eng._fallback_engine()
    fallback._cache_size = 2
    for name in ("alpha", "beta", "gamma"):  # evicts (and frees) `first` in llama.cpp's cache
        other = {**TOOLS[1], "function": {**TOOLS[1]["function"], "name": f"{name}_time"}}
        eng.start(reply_or_tool_grammar([TOOLS[0], other], "hermes")).close()
    assert len(fallback._cache) == 2
    m = eng.start(first)  # still cached by llguidance's engine: must start cleanly
    assert isinstance(m, LlamaGrammarMatcher) and m.allowed_mask().any()
