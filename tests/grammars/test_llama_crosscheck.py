"""Our validator's verdict equals llama.cpp's own (asked in a child process, so a crash
cannot take the test run down), and every grammar our builders emit is accepted."""

from __future__ import annotations

import pytest
from corpus import INVALID, VALID
from llama_oracle import llama_accepts, llama_verdicts
from registry import TOOLS

from edgevox.grammars import (
    WIRE_FORMATS,
    GbnfMatcher,
    GrammarError,
    json_schema_grammar,
    regex_grammar,
    render_tool_calls,
    reply_or_tool_grammar,
    single_tool_grammar,
    tool_call_grammar,
    validate_gbnf,
)


def _ours(text: str, **kw) -> bool:
    try:
        validate_gbnf(text, **kw)
        return True
    except GrammarError:
        return False


def test_corpus_verdicts_match_llama_cpp(llama_cpp_module):
    corpus = VALID + [g for g in INVALID if g]  # "" means "no grammar" to llama.cpp
    verdicts = llama_verdicts(corpus)
    mismatches = [(g, v) for g, v in zip(corpus, verdicts, strict=True) if (v == "ok") != _ours(g)]
    assert not mismatches, mismatches
    assert verdicts[:len(VALID)] == ["ok"] * len(VALID)
    # the dangerous ones really are dangerous: they are why we validate first
    hidden = corpus.index('root ::= c\nc ::= a c "z" | "x"\na ::= b\nb ::= ""')
    assert verdicts[hidden] in ("crash", "hang")


def test_builder_output_is_accepted_by_llama_cpp(llama_cpp_module):
    grammars = []
    for fmt in sorted(WIRE_FORMATS):
        grammars.append(tool_call_grammar(TOOLS, fmt).gbnf)
        grammars.append(reply_or_tool_grammar(TOOLS, fmt, think=("<think>", "</think>")).gbnf)
        grammars.append(reply_or_tool_grammar(TOOLS, fmt, think=("[THINK]", "[/THINK]"),
                                              text_before_calls=True, parallel_tool_calls=False).gbnf)
        grammars.append(single_tool_grammar(TOOLS[3], fmt).gbnf)
        grammars.append(reply_or_tool_grammar(TOOLS, fmt, think=True, validation="structural").gbnf)
        grammars.append(single_tool_grammar(TOOLS[3], fmt, validation="structural").gbnf)
    grammars.append(json_schema_grammar({"type": "object", "properties": {
        "a": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 4}}}).gbnf)
    grammars.append(regex_grammar(r"[A-Z]{2}-\d{3,5}(x|y)?").gbnf)
    assert llama_verdicts(grammars) == ["ok"] * len(grammars)


def test_compiled_is_a_memoised_llama_grammar(llama_cpp_module):
    g = tool_call_grammar(TOOLS, "hermes")
    compiled = g.compiled()
    assert isinstance(compiled, llama_cpp_module.LlamaGrammar)
    assert compiled._grammar == g.gbnf and g.compiled() is compiled


@pytest.mark.model
def test_token_literals_with_a_real_vocabulary(llama_cpp_module, qwen_gguf):
    """<token> literals: only a vocabulary knows; with one, we agree with llama.cpp."""
    llm = llama_cpp_module.Llama(str(qwen_gguf), vocab_only=True, verbose=False)

    def tokenize(text: str) -> list[int]:
        return llm.tokenize(text.encode(), add_bos=False, special=True)

    cases = ['root ::= <|im_start|> "x"', 'root ::= <tool_call> [a-z]+ </tool_call>',
             'root ::= <not-a-special-token>', 'root ::= !<|im_end|>* <|im_end|>']
    verdicts = llama_verdicts(cases, model_path=qwen_gguf)
    assert verdicts == ["ok", "ok", "null", "ok"]
    assert [_ours(c, tokenize=tokenize) for c in cases] == [v == "ok" for v in verdicts]


@pytest.mark.model
def test_matcher_agrees_with_llama_cpp_sampler(llama_cpp_module, qwen_gguf):
    """What our recogniser accepts is what llama.cpp's sampler lets the model write (and
    stop after), token by token with the real tokenizer -- valid and malformed calls,
    replies, think blocks, for every wire format."""
    from test_tool_grammars import BAD, GOOD

    jobs = []
    for fmt in sorted(WIRE_FORMATS):
        g = reply_or_tool_grammar(TOOLS, fmt, think=("<think>", "</think>"))
        texts = [render_tool_calls([(n, a)], fmt) for n, a in list(GOOD.items()) + list(BAD.values())]
        call = render_tool_calls([("get_time", {})], fmt)
        texts += [render_tool_calls(list(GOOD.items())[:3], fmt), call + "\n", call + "\n\n",
                  "<think>\nhmm\n</think>\n\n" + call, "<think>x</think>y</think>" + call,
                  "Hello! How can I help?", "{not a call", "", "Let me see " + call, call[:-3]]
        jobs.append((g.gbnf, texts))
    verdicts = llama_accepts(jobs, qwen_gguf)
    for (gbnf, texts), answers in zip(jobs, verdicts, strict=True):
        matcher = GbnfMatcher(gbnf)
        ours = [matcher.matches(t) for t in texts]
        diffs = [(t, a) for t, a, o in zip(texts, answers, ours, strict=True) if a != o]
        assert not diffs, diffs
        assert any(answers) and not all(answers)
