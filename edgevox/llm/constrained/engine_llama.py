"""Mask engine B: llama.cpp's own grammar sampler, driven through the low-level C API.

Used when llguidance is not installed (or cannot read a grammar). Its answers are by
definition the ones llama-cpp-python's grammar path gives. Three hazards of the C side
are handled here, because each one kills the process:

* an invalid grammar makes ``llama_sampler_init_grammar`` return NULL (or crash while
  parsing): grammars are validated with ``edgevox.grammars.validate_gbnf`` first (in
  :meth:`MaskEngine.compile`) and NULL is checked;
* accepting a token the grammar rejects throws a C++ exception through the C ABI:
  :meth:`LlamaGrammarMatcher.consume` checks the token first;
* accepting an end-of-generation token before the grammar is complete aborts: EOG tokens
  are never passed to ``llama_sampler_accept``.

The whole-vocabulary mask costs ~45 ms for a 151k vocabulary -- the reason rejection-first
sampling exists; the single-token check costs a few microseconds. No fast-forward.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .engine import GrammarViolation, MaskEngine, Matcher

__all__ = ["LlamaGrammarEngine", "LlamaGrammarMatcher"]

# llama_token_data: {int32 id; float logit; float p}
_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)
_SMALL = 512


class _Sampler:
    """Owns one ``llama_sampler*``; frees it exactly once."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: Any):
        self.ptr = ptr

    def free(self) -> None:
        ptr, self.ptr = self.ptr, None
        if ptr:
            import llama_cpp

            llama_cpp.llama_sampler_free(ptr)

    def __del__(self) -> None:  # pragma: no cover - depends on gc timing
        try:
            self.free()
        except Exception:
            pass


class _Candidates:
    """A numpy-backed ``llama_token_data_array`` of a fixed capacity."""

    def __init__(self, capacity: int):
        import llama_cpp

        self.data = np.zeros(capacity, dtype=_TOKEN_DATA)
        self.c = llama_cpp.llama_token_data_array(
            data=self.data.ctypes.data_as(llama_cpp.llama_token_data_p),
            size=capacity, selected=-1, sorted=False)
        self.ref = ctypes.byref(self.c)


class LlamaGrammarMatcher(Matcher):
    """One generation's llama.cpp grammar sampler."""

    def __init__(self, sampler: _Sampler, n_vocab: int, eog: frozenset[int]):
        import llama_cpp

        self._api = llama_cpp
        self._s = sampler
        self.n_vocab = n_vocab
        self.eog = eog
        self._probe_eog = min(eog) if eog else None
        self._small = _Candidates(_SMALL)
        self._full: _Candidates | None = None
        self._mask_cache: np.ndarray | None = None
        self.mask_seconds = 0.0
        self.n_masks = 0

    def _apply(self, cand: _Candidates, n: int) -> None:
        if self._s.ptr is None:
            raise GrammarViolation("matcher already closed")
        cand.c.size = n
        cand.c.selected = -1
        cand.c.sorted = False
        self._api.llama_sampler_apply(self._s.ptr, cand.ref)

    def is_allowed(self, token: int) -> bool:
        if not 0 <= token < self.n_vocab:
            return False
        d = self._small.data
        d["id"][0] = token
        d["logit"][0] = 0.0
        self._apply(self._small, 1)
        return bool(d["logit"][0] != -np.inf)

    def allowed_among(self, tokens: Sequence[int]) -> np.ndarray:
        toks = np.asarray(tokens, dtype=np.int64)
        out = np.zeros(len(toks), dtype=bool)
        ok = (toks >= 0) & (toks < self.n_vocab)
        for start in range(0, len(toks), _SMALL):
            chunk = toks[start:start + _SMALL]
            valid = ok[start:start + _SMALL]
            d = self._small.data
            n = len(chunk)
            d["id"][:n] = np.where(valid, chunk, 0)
            d["logit"][:n] = 0.0
            self._apply(self._small, n)
            out[start:start + n] = (d["logit"][:n] != -np.inf) & valid
        return out

    def allowed_mask(self) -> np.ndarray:
        if self._mask_cache is None:
            t0 = time.perf_counter()
            if self._full is None:
                self._full = _Candidates(self.n_vocab)
            d = self._full.data
            d["id"] = np.arange(self.n_vocab, dtype=np.int32)
            d["logit"] = 0.0
            self._apply(self._full, self.n_vocab)
            self._mask_cache = d["logit"] != -np.inf
            self.mask_seconds += time.perf_counter() - t0
            self.n_masks += 1
        return self._mask_cache

    def consume(self, token: int) -> None:
        if token in self.eog:  # never hand EOG to llama.cpp: it aborts if incomplete
            if not self.is_accepting():
                raise GrammarViolation(f"end of generation (token {token}) before the grammar is complete")
            return
        if not self.is_allowed(token):  # accepting it would throw through the C ABI
            raise GrammarViolation(f"token {token} is not allowed here")
        self._api.llama_sampler_accept(self._s.ptr, int(token))
        self._mask_cache = None

    def is_accepting(self) -> bool:
        return self._probe_eog is not None and self.is_allowed(self._probe_eog)

    def close(self) -> None:
        self._s.free()


class LlamaGrammarEngine(MaskEngine):
    """llama.cpp grammar samplers over one model's vocabulary."""

    name = "llama"
    supports_ff = False

    def __init__(self, llm: Any):
        import llama_cpp

        self._llm = llm  # keeps the model (and so the vocab the samplers point to) alive
        self._vocab = llama_cpp.llama_model_get_vocab(llm.model)
        n = llama_cpp.llama_vocab_n_tokens(self._vocab)
        super().__init__(n, [t for t in range(n) if llama_cpp.llama_vocab_is_eog(self._vocab, t)])

    def _compile(self, gbnf: str, root: str, source: Any = None) -> Any:
        import llama_cpp

        ptr = llama_cpp.llama_sampler_init_grammar(self._vocab, gbnf.encode("utf-8"),
                                                   root.encode("utf-8"))
        if not ptr:
            from edgevox.grammars import GrammarError

            raise GrammarError("llama.cpp rejected the grammar (llama_sampler_init_grammar returned NULL)")
        return _Sampler(ptr)

    def _start(self, compiled: Any) -> Matcher:
        import llama_cpp

        ptr = llama_cpp.llama_sampler_clone(compiled.ptr)
        if not ptr:
            raise MemoryError("llama_sampler_clone returned NULL")
        return LlamaGrammarMatcher(_Sampler(ptr), self.n_vocab, self.eog)

    def _release(self, compiled: Any) -> None:
        if isinstance(compiled, _Sampler):
            compiled.free()
