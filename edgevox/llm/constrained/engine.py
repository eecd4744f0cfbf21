"""The mask-engine interface: one grammar matcher per generation, two implementations.

A :class:`MaskEngine` belongs to one loaded model (it knows the vocabulary) and turns a
grammar into a fresh :class:`Matcher` for every generation. The generation loop only
needs a handful of questions answered, cheapest first:

* ``is_allowed(tok)`` / ``allowed_among(toks)`` -- the single-token check that makes
  rejection-first decoding fast (microseconds);
* ``allowed_mask()`` -- the whole-vocabulary mask, computed only when the cheap check
  failed (llguidance: tens of microseconds; llama.cpp: ~45 ms for a 151k vocabulary);
* ``consume(tok)``, ``ff_tokens()`` (the forced continuation), ``is_accepting()``.

Implementations: :class:`~edgevox.llm.constrained.engine_llg.LLGuidanceEngine`
(llguidance, masks and fast-forward) and
:class:`~edgevox.llm.constrained.engine_llama.LlamaGrammarEngine` (llama.cpp's own grammar
sampler through the low-level API, no fast-forward); both import this module, never the
reverse. :func:`~edgevox.llm.constrained.engines.make_engine` picks one.
"""

from __future__ import annotations

import functools
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["MaskEngine", "Matcher", "GrammarViolation", "GbnfSource", "grammar_source",
           "validated_gbnf", "prepare_grammar"]


class GrammarViolation(RuntimeError):
    """A token the grammar does not allow was fed to a matcher (a bug in the caller)."""


@dataclass(frozen=True)
class GbnfSource:
    """GBNF text plus its root rule: the smallest thing an engine can compile."""

    gbnf: str
    root: str = "root"


def grammar_source(grammar: Any) -> tuple[str, str]:
    """``(gbnf_text, root_rule)`` from GBNF text or any object with ``.gbnf`` (and ``.root``)."""
    if isinstance(grammar, str):
        return grammar, "root"
    text = getattr(grammar, "gbnf", None)
    if callable(text):
        text = text()
    if isinstance(text, str):
        return text, str(getattr(grammar, "root", "root") or "root")
    raise TypeError(f"grammar must be GBNF text or an object with a .gbnf attribute, "
                    f"not {type(grammar).__name__}")


def validated_gbnf(text: str, root: str = "root") -> None:
    """Raise ``edgevox.grammars.GrammarError`` for a grammar llama.cpp would crash or hang on."""
    _validate_cached(text, root)


@functools.lru_cache(maxsize=128)
def _validate_cached(text: str, root: str) -> None:
    # lru_cache does not cache exceptions: a bad grammar is re-checked (and re-raised) each
    # time, which is cheap next to the tokens it saves; good ones are parsed once.
    from edgevox.grammars import validate_gbnf  # lazy: llm must not import grammars at load

    validate_gbnf(text, root)


def prepare_grammar(grammar: Any) -> Any:
    """Check ``grammar`` before anything is evaluated; returns it unchanged (engines compile
    and cache it per model). Raises TypeError for a non-grammar, GrammarError for a bad one."""
    if grammar is None:
        return None
    text, root = grammar_source(grammar)
    validated_gbnf(text, root)
    return grammar


class Matcher(ABC):
    """The grammar state of one generation. Not thread-safe; one per generation."""

    #: every end-of-generation token id of the vocabulary
    eog: frozenset[int]
    n_vocab: int

    @abstractmethod
    def is_allowed(self, token: int) -> bool:
        """May ``token`` come next? (EOG tokens: only when the grammar is complete.)"""

    def allowed_among(self, tokens: Sequence[int]) -> np.ndarray:
        """``is_allowed`` for several alternatives at once (bool array, same order)."""
        return np.fromiter((self.is_allowed(int(t)) for t in tokens), dtype=bool, count=len(tokens))

    @abstractmethod
    def allowed_mask(self) -> np.ndarray:
        """Bool array over the whole vocabulary: which tokens may come next."""

    def allowed_tokens(self) -> np.ndarray:
        """Ids of the tokens that may come next."""
        return np.flatnonzero(self.allowed_mask())

    def mask(self, logits: np.ndarray) -> np.ndarray:
        """Set the logits of disallowed tokens to -inf, in place; returns ``logits``."""
        logits[~self.allowed_mask()[: logits.shape[-1]]] = -np.inf
        return logits

    @abstractmethod
    def consume(self, token: int) -> None:
        """Advance past ``token``; raises :class:`GrammarViolation` if it is not allowed."""

    def consume_many(self, tokens: Sequence[int]) -> None:
        for t in tokens:
            self.consume(int(t))

    def ff_tokens(self) -> list[int]:
        """Tokens the grammar forces next (canonical tokenisation); [] when unknown/none."""
        return []

    def only_blanks_left(self) -> bool:
        """Complete, with nothing but blanks and the end allowed after this point (a
        call block that may end in an optional newline). False when the engine cannot tell."""
        return False

    @abstractmethod
    def is_accepting(self) -> bool:
        """Could generation end here (is an EOG token allowed)?"""

    def is_finished(self) -> bool:
        """Only an end-of-generation token may come next (False when that is not cheap to
        know). The loop then stops without evaluating or sampling anything more."""
        return False

    def is_dead(self) -> bool:
        """No token at all may come next: the grammar reached a dead end."""
        return not self.allowed_mask().any()

    def close(self) -> None:
        """Release native resources early (also done at garbage collection)."""
        return None


class MaskEngine(ABC):
    """Grammar engine for one model's vocabulary; compiles and caches grammars."""

    name: str = "?"
    supports_ff: bool = False

    def __init__(self, n_vocab: int, eog: Sequence[int], cache_size: int = 32):
        self.n_vocab = int(n_vocab)
        self.eog = frozenset(int(t) for t in eog)
        self._cache: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        #: grammars compiled (cache misses), as opposed to taken from the cache
        self.compiled = 0

    def compile(self, grammar: Any) -> Any:
        """Validate and compile ``grammar`` (memoised, failures too); raises ``GrammarError``."""
        key = grammar_source(grammar)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
        if hit is None:
            self.compiled += 1
            try:
                validated_gbnf(*key)
                hit = self._compile(*key, grammar)
            except Exception as exc:  # remember the failure: do not recompile every turn
                hit = _Failure(exc)
            with self._lock:
                self._cache[key] = hit
                while len(self._cache) > self._cache_size:
                    _, old = self._cache.popitem(last=False)
                    self._release(old)
        if isinstance(hit, _Failure):
            raise hit.exc
        return hit

    def start(self, grammar: Any) -> Matcher:
        """A fresh matcher at the start of ``grammar`` (compiled once, then copied)."""
        return self._start(self.compile(grammar))

    @abstractmethod
    def _compile(self, gbnf: str, root: str, source: Any = None) -> Any:
        """Compile validated GBNF; ``source`` is the original grammar object (it may offer
        an engine-specific form, e.g. ``TriggeredGrammar.lark()``)."""

    @abstractmethod
    def _start(self, compiled: Any) -> Matcher: ...

    def _release(self, compiled: Any) -> None:
        """Free a compiled grammar evicted from the cache."""
        return None


class _Failure:
    __slots__ = ("exc",)

    def __init__(self, exc: Exception):
        self.exc = exc
