"""The constrained generation loop over llama-cpp-python's low-level API.

:class:`ConstrainedGeneration` is a drop-in for ``Llama.generate(tokens, grammar=...)``:
an iterator of token ids over the same ``Llama`` object, so the caller's loop (stop
strings, budget, cancellation, detokenising) does not change. Per step it:

1. reads the last logits with ``llama_get_logits_ith`` (a copy of llama.cpp's buffer),
2. applies the repeat penalty and picks a token rejection-first (:mod:`.sampling`):
   single-token grammar checks on the best few tokens, the whole-vocabulary mask only
   when those cannot decide -- greedy output is the same as masking every token,
3. asks the grammar for forced tokens (fast-forward) and evaluates the sampled token
   and all forced ones in **one** batched decode, instead of one step each. Tokens
   forced at the very start join the prompt's last decode; and once the grammar admits
   nothing but end-of-generation, the loop stops without evaluating what is pending
   (the closing ``"}}\n</tool_call>`` of a single call costs nothing).

Bookkeeping goes through ``Llama.eval``, which keeps ``n_tokens``/``input_ids`` and the
KV cache in step, so llama-cpp-python's prefix reuse works for the next call exactly as
after ``generate``. When nothing is forced, the prompt's last token is evaluated alone
(see ``LlamaBackend._prefill``) and so is each sampled token, so logits -- and greedy
output -- match ``generate`` bit for bit. Forced tokens change that: they are evaluated in
a batch (the opening ones in the same batch as the uncached prompt), and llama.cpp's
batched logits differ from single-token ones in the last bits, so a near-tie later in
free text may break the other way than without fast-forward.

A grammar with no allowed token left ends the iteration with ``finish_reason =
"grammar_dead_end"``; an end-of-generation token is yielded and ends it too.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from edgevox.llm.threads import small_batch_threads

from .engine import Matcher
from .engines import engine_for
from .sampling import Sampler, SamplingParams, apply_penalties

__all__ = ["ConstrainedGeneration", "constrained_generate"]

_LLAMA_DEFAULT_SEED = 0xFFFFFFFF


class ConstrainedGeneration:
    """Iterator of generated token ids under ``matcher`` (None: unconstrained)."""

    def __init__(self, llm: Any, tokens: Sequence[int], matcher: Matcher | None,
                 params: SamplingParams, *, seed: int | None = None, fast_forward: bool = True,
                 mask_every_token: bool = False, max_tokens: int | None = None,
                 eog: frozenset[int] | None = None, decisions: int = 0):
        if not tokens:
            raise ValueError("the prompt must have at least one token")
        self.llm = llm
        self.matcher = matcher
        self.params = params
        self.fast_forward = fast_forward and matcher is not None
        self.mask_every_token = mask_every_token
        self.max_tokens = max_tokens
        if seed is None:
            seed = getattr(llm, "_seed", None)
        self.sampler = Sampler(params, None if seed in (None, _LLAMA_DEFAULT_SEED, -1) else int(seed))
        self.eog = eog if eog is not None else (matcher.eog if matcher is not None else _eog_of(llm))
        self.finish_reason: str | None = None
        #: the first ``decisions`` sampled steps, as (tokens generated before, chosen token,
        #: its log-probability, the best other allowed token, its log-probability)
        self.max_decisions = decisions
        self.decisions: list[tuple[int, int, float, int, float]] = []
        self.stats: dict[str, Any] = {"sampled": 0, "ff_tokens": 0, "ff_batches": 0, "decodes": 0,
                                      "finished_early": False, "decode_s": 0.0, "sample_s": 0.0}
        self._tokens = list(tokens)
        self._gen = self._run()

    # -- iterator protocol ----------------------------------------------------------------------

    def __iter__(self) -> Iterator[int]:
        return self

    def __next__(self) -> int:
        return next(self._gen)

    def close(self) -> None:
        self._gen.close()
        if self.matcher is not None:
            self.matcher.close()

    @property
    def info(self) -> dict[str, Any]:
        """Counters for ``Completion.info``: engine work and fast-forward."""
        m = self.matcher
        info: dict[str, Any] = {"constrained": {
            **self.stats, **self.sampler.stats,
            "engine": type(m).__name__ if m is not None else None,
            "mask_s": getattr(m, "mask_seconds", 0.0),
        }}
        if self.max_decisions:
            info["decisions"] = list(self.decisions)
        return info

    # -- the loop ----------------------------------------------------------------------------

    def _eval(self, toks: list[int]) -> None:
        t0 = time.perf_counter()
        with small_batch_threads(self.llm, len(toks)):  # forced runs: few tokens per barrier
            self.llm.eval(toks)
        self.stats["decode_s"] += time.perf_counter() - t0
        self.stats["decodes"] += 1

    def _prompt_tail(self) -> list[int]:
        """Reuse the cached prefix like ``Llama.generate``; return the tokens still to evaluate."""
        llm, tokens = self.llm, self._tokens
        n = 0
        for a, b in zip(llm.input_ids[: llm.n_tokens], tokens, strict=False):
            if a != b:
                break
            n += 1
        n = min(n, len(tokens) - 1)  # the last prompt token is always (re)evaluated
        if n > 0 and not llm._ctx.kv_cache_seq_rm(-1, n, -1):
            n = 0  # this model's cache cannot be truncated: start over
        llm.n_tokens = n
        return tokens[n:]

    def _logits(self) -> np.ndarray:
        import llama_cpp

        ptr = llama_cpp.llama_get_logits_ith(self.llm._ctx.ctx, -1)
        return np.array(np.ctypeslib.as_array(ptr, shape=(self.llm.n_vocab(),)), dtype=np.float32)

    def _pick(self, logits: np.ndarray) -> int | None:
        m = self.matcher
        if m is None:
            return self.sampler.choose(logits, None, None)
        if self.mask_every_token:
            return self.sampler.choose_masked(logits, m.allowed_tokens())
        return self.sampler.choose(logits, m.allowed_among, m.allowed_mask, m.n_vocab)

    def _run(self) -> Iterator[int]:
        llm, m, p = self.llm, self.matcher, self.params
        n_ctx = llm.n_ctx()
        history: list[int] = []
        pending = self._prompt_tail()  # evaluated together with any forced opening tokens
        n_prompt = len(pending)
        if self.fast_forward:
            yield from self._forced(history, pending)
        if len(pending) == n_prompt > 1:
            # nothing forced: the last prompt token alone, as Llama.generate does (same logits)
            self._eval(pending[:-1])
            pending = pending[-1:]
        while not self.finish_reason:
            if m is not None and (m.is_finished() or m.only_blanks_left()):
                # only end-of-generation (or blanks before it) can follow: nothing left to
                # evaluate or sample
                self.stats["finished_early"] = True
                yield self._eog_token
                return
            if pending:
                if llm.n_tokens + len(pending) > n_ctx:
                    self.finish_reason = "length"
                    return
                self._eval(pending)
                pending = []
            t0 = time.perf_counter()
            logits = self._logits()
            apply_penalties(logits, history, p)
            tok = self._pick(logits)
            if tok is not None and len(self.decisions) < self.max_decisions:
                self._note_decision(logits, tok, len(history))
            self.stats["sample_s"] += time.perf_counter() - t0
            if tok is None:
                self.finish_reason = "grammar_dead_end"
                return
            self.stats["sampled"] += 1
            yield tok
            if tok in self.eog:
                return
            if m is not None:
                m.consume(tok)
            history.append(tok)
            pending.append(tok)
            if self._budget_spent(history):
                return
            if self.fast_forward:
                yield from self._forced(history, pending)

    def _note_decision(self, logits: np.ndarray, tok: int, position: int) -> None:
        """Log-probabilities (temperature 1, after penalties) of the chosen token and of the
        best other token the grammar allows here: the model's own margin at this choice."""
        # log-sum-exp as max + log(sum(exp)): ~0.4 ms over a 151k vocabulary where
        # np.logaddexp.reduce took ~7 ms (a dozen decisions per hop), and summed in float64
        finite = logits[np.isfinite(logits)]
        top = finite.max()
        lse = float(top + np.log(np.exp(finite - top).sum(dtype=np.float64)))
        others = logits.copy()
        if self.matcher is not None:
            allowed = self.matcher.allowed_mask()[: others.shape[-1]]
            others[~allowed] = -np.inf
        others[tok] = -np.inf
        alt = int(np.argmax(others))
        alt_lp = float(others[alt]) - lse if np.isfinite(others[alt]) else float("-inf")
        self.decisions.append((position, int(tok), float(logits[tok]) - lse, alt, alt_lp))

    def _forced(self, history: list[int], pending: list[int]) -> Iterator[int]:
        """Yield the grammar's forced tokens; they join the next batched decode."""
        m = self.matcher
        forced = m.ff_tokens() if m is not None else []
        if forced:
            self.stats["ff_batches"] += 1
        for t in forced:
            yield t
            if t in self.eog:
                self.finish_reason = "stop"
                return
            m.consume(t)  # type: ignore[union-attr]
            self.stats["ff_tokens"] += 1
            history.append(t)
            pending.append(t)
            if self._budget_spent(history):
                return

    @property
    def _eog_token(self) -> int:
        eos = self.llm.token_eos()
        return eos if eos in self.eog else min(self.eog)

    def _budget_spent(self, history: list[int]) -> bool:
        if self.max_tokens is not None and len(history) >= self.max_tokens:
            self.finish_reason = "length"
            return True
        return False


def _eog_of(llm: Any) -> frozenset[int]:
    """Every end-of-generation token id of the model (cached on the Llama object)."""
    cached = getattr(llm, "_edgevox_eog", None)
    if cached is None:
        import llama_cpp

        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        n = llama_cpp.llama_vocab_n_tokens(vocab)
        cached = frozenset(t for t in range(n) if llama_cpp.llama_vocab_is_eog(vocab, t))
        llm._edgevox_eog = cached
    return cached


def constrained_generate(backend: Any, tokens: Sequence[int], grammar: Any, params: dict | SamplingParams,
                         *, prefer: str = "llguidance", **kwargs: Any) -> ConstrainedGeneration:
    """Start a constrained generation on ``backend`` (a LlamaBackend or a ``Llama``).

    ``grammar``: GBNF text, an ``edgevox.grammars.Grammar``, a :class:`TriggeredGrammar`,
    or None for unconstrained decoding through the same loop. ``params``: ``Llama.generate``
    keyword arguments (temp, top_k, top_p, min_p, repeat_penalty) or SamplingParams.
    Raises ``GrammarError`` for an invalid grammar before anything is evaluated.
    """
    llm = getattr(backend, "llm", backend)
    if not isinstance(params, SamplingParams):
        params = SamplingParams.from_kwargs(params, getattr(llm, "last_n_tokens_size", 64))
    matcher = engine_for(backend, prefer).start(grammar) if grammar is not None else None
    return ConstrainedGeneration(llm, tokens, matcher, params, **kwargs)
