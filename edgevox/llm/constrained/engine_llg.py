"""Mask engine A: llguidance (token masks in microseconds, fast-forward tokens).

GBNF is converted to llguidance's Lark dialect with llguidance's own converter and run
with ``no_forcing``, and the tokenizer is built from the llama.cpp vocabulary so that
llguidance sees every token the way llama.cpp's grammar sampler does: the token's text
with special tokens spelled out (``<tool_call>`` matches a grammar literal), except
end-of-generation tokens (allowed exactly when the grammar is complete) and tokens
llama.cpp's grammar never allows (empty text, or text starting with NUL). The masks then
equal llama.cpp's (tested token by token), with two documented exceptions:

* llguidance rejects lone bytes that can never start UTF-8 (0xF5-0xFF); llama.cpp takes
  them as the start of a 4-byte character. No sane model picks them.
* GBNF ``.`` (any character) is passed on as "any character including newline"; the
  converter alone would drop newlines.
* llguidance lexes greedily, so a GBNF terminal rule that can swallow the literal after
  it (``w ::= [a-z]*`` then ``"x"``) accepts fewer strings, and so does a character-level
  automaton next to a literal sharing its first character (``reply_or_tool_grammar``'s
  prose). Grammars with such automata are handed to llama.cpp's engine (exact, and still
  fast with rejection-first); triggered grammars bring their own llguidance form.

Fast-forward tokens are the grammar's forced bytes, tokenised canonically up to the point
where later text could not change the tokenisation (``tokenize_partial``); marker tokens
such as ``</tool_call>`` are cut out first, since llama.cpp's tokenizer (and so the model)
always writes them as one token.
"""

from __future__ import annotations

import ctypes
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .engine import GbnfSource, GrammarViolation, MaskEngine, Matcher

log = logging.getLogger(__name__)

__all__ = ["LLGuidanceEngine", "LLGuidanceMatcher", "build_tokenizer"]

_SPECIAL = b"\xff"  # llguidance's marker for special tokens (never matched by grammar text)
_OPTIONS = '%llguidance {"no_forcing": true}'


def build_tokenizer(llm: Any, eog: Sequence[int]) -> tuple[Any, np.ndarray]:
    """An ``llguidance.LLTokenizer`` over a llama.cpp vocabulary (about one second), and
    each token's length in bytes."""
    import llama_cpp
    from llguidance import LLTokenizer

    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    n = llama_cpp.llama_vocab_n_tokens(vocab)
    size = 256
    buf = ctypes.create_string_buffer(size)
    eog_set = set(eog)
    pieces: list[bytes] = []
    for tok in range(n):
        k = llama_cpp.llama_token_to_piece(vocab, tok, buf, size, 0, True)
        if k < 0:  # piece longer than the buffer: grow and retry
            size = -k + 1
            buf = ctypes.create_string_buffer(size)
            k = llama_cpp.llama_token_to_piece(vocab, tok, buf, size, 0, True)
        piece = buf.raw[:k]
        if tok in eog_set:
            piece = _SPECIAL + piece
        elif not piece or piece[0] == 0:  # llama.cpp's grammar never allows these
            piece = _SPECIAL + b"<|edgevox_hidden_%d|>" % tok
        pieces.append(piece)
    fptr = ctypes.cast(llama_cpp.llama_cpp._lib.llama_tokenize, ctypes.c_void_p).value
    tokenizer = LLTokenizer.from_llamacpp(tokens=pieces, vocab_ptr=vocab, tokenize_fptr=fptr,
                                          eos_token=sorted(eog_set), slices=None)
    # bytes per token as grammar text; special tokens count as unbounded (never a prefix)
    lengths = np.fromiter((1 << 20 if p[:1] == _SPECIAL else len(p) for p in pieces),
                          dtype=np.int64, count=len(pieces))
    return tokenizer, lengths


def _limits() -> Any:
    """llguidance's limits with a bigger Earley budget per mask: character-level automata
    (prose that must avoid a marker) need ~200k items over a 151k vocabulary (~20 ms)."""
    from llguidance import LLParserLimits

    return LLParserLimits(step_max_items=1_000_000)


def _first_marker(data: bytes, markers: dict[bytes, int]) -> tuple[int, bytes] | None:
    """Earliest (then longest) marker-token text in ``data``."""
    best: tuple[int, bytes] | None = None
    for piece in markers:
        i = data.find(piece)
        if i >= 0 and (best is None or i < best[0] or (i == best[0] and len(piece) > len(best[1]))):
            best = (i, piece)
    return best


def marker_tokens(llm: Any, eog: frozenset[int]) -> dict[bytes, int]:
    """Text of the vocabulary's marker tokens (``<tool_call>``, ``[TOOL_CALLS]``, ...) -> id.

    llama.cpp's tokenizer matches them before any other text, so a forced ``</tool_call>``
    is that one token -- what the model writes -- not ``</``, ``tool``, ``_call``, ``>``.
    """
    import llama_cpp

    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    out: dict[bytes, int] = {}
    kinds = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
    for tok in range(llama_cpp.llama_vocab_n_tokens(vocab)):
        if tok in eog or not llama_cpp.llama_vocab_get_attr(vocab, tok) & kinds:
            continue
        piece = llm.detokenize([tok], special=True)
        if len(piece) >= 3 and piece[:1] in (b"<", b"[") and piece[-1:] in (b">", b"]"):
            out.setdefault(piece, tok)
    return out


class LLGuidanceMatcher(Matcher):
    """One generation's llguidance matcher.

    If llguidance ever gives up on a grammar (its Earley budget, e.g. on a character-level
    automaton), the matcher hands over to ``fallback`` -- llama.cpp's grammar, replayed
    with the tokens so far -- instead of reporting a dead end that is not there.
    """

    def __init__(self, matcher: Any, n_vocab: int, eog: frozenset[int], tokenizer: Any = None,
                 markers: dict[bytes, int] | None = None,
                 fallback: Callable[[], Matcher] | None = None,
                 token_lengths: np.ndarray | None = None):
        self._m = matcher
        self._lengths = token_lengths
        self._markers = markers or {}
        self.n_vocab = n_vocab
        self.eog = eog
        self._eog_ids = np.fromiter(sorted(eog), dtype=np.int64, count=len(eog))
        self._tokenizer = tokenizer
        self._fallback = fallback
        self._delegate: Matcher | None = None
        self._history: list[int] = []
        self._bits = np.zeros((n_vocab + 31) // 32, dtype=np.int32)
        self._mask_cache: np.ndarray | None = None
        self.mask_seconds = 0.0
        self.n_masks = 0

    def _gave_up(self) -> bool:
        """llguidance is in an error state (never from a bad token: consume checks first);
        switch to the fallback if there is one. True when the delegate now answers."""
        if self._delegate is not None:
            return True
        if not self._m.is_error() or self._fallback is None:
            return False
        log.warning("llguidance gave up on this grammar (%s); continuing with llama.cpp's grammar",
                    self._m.get_error().splitlines()[0][:160])
        delegate = self._fallback()
        delegate.consume_many(self._history)
        self._delegate = delegate
        return True

    def is_allowed(self, token: int) -> bool:
        if self._delegate is not None:
            return self._delegate.is_allowed(token)
        if token in self.eog:
            return bool(self._m.is_accepting())
        if not 0 <= token < self.n_vocab:
            return False
        ok = self._m.validate_tokens([token]) == 1
        if not ok and self._gave_up():
            return self._delegate.is_allowed(token)  # type: ignore[union-attr]
        return ok

    def allowed_among(self, tokens: Sequence[int]) -> np.ndarray:
        if self._delegate is not None:
            return self._delegate.allowed_among(tokens)
        return super().allowed_among(tokens)

    def allowed_mask(self) -> np.ndarray:
        if self._delegate is not None:
            return self._delegate.allowed_mask()
        if self._mask_cache is None:
            t0 = time.perf_counter()
            raw = self._raw_mask()
            if self._gave_up():
                return self._delegate.allowed_mask()  # type: ignore[union-attr]
            mask = raw.astype(bool)
            if self._m.is_error():  # a dead end: llguidance would still offer EOS
                mask[:] = False
            elif len(self._eog_ids):  # EOG exactly when complete, as in llama.cpp
                mask[self._eog_ids] = bool(self._m.is_accepting())
            self._mask_cache = mask
            self.mask_seconds += time.perf_counter() - t0
            self.n_masks += 1
        return self._mask_cache

    def _raw_mask(self) -> np.ndarray:
        """llguidance's mask for the current state, one 0/1 per token (no EOG rule, no cache)."""
        self._m.unsafe_compute_mask_ptr(self._bits.ctypes.data, self._bits.nbytes)
        return np.unpackbits(self._bits.view(np.uint8), bitorder="little")[: self.n_vocab]

    def consume(self, token: int) -> None:
        if self._delegate is not None:
            self._delegate.consume(token)
            self._history.append(token)
            return
        if token in self.eog:
            if not self.is_accepting():
                raise GrammarViolation(f"end of generation (token {token}) before the grammar is complete")
            return
        if self._m.validate_tokens([token]) != 1 or not self._m.consume_token(token):
            if self._gave_up():
                return self.consume(token)
            raise GrammarViolation(f"token {token} is not allowed here: {self._m.get_error()[:300]}")
        self._mask_cache = None
        self._history.append(token)

    def ff_tokens(self) -> list[int]:
        """The forced bytes, tokenised canonically up to where the tokenisation is certain.

        Grammars run with llguidance's ``no_forcing`` (masks then equal llama.cpp's, which
        lets the model spell forced text any way), so the forced tokens are computed here
        from the forced bytes, the way llguidance itself does when forcing is on.
        """
        if self._delegate is not None or self._m.is_error() or self._tokenizer is None:
            return []
        forced = self._m.compute_ff_bytes()
        if not forced:
            return []
        toks: list[int] = []
        rest = forced
        while True:  # marker tokens (<tool_call>, </tool_call>, ...) bound the tokenisation
            hit = _first_marker(rest, self._markers)
            if hit is None:
                break
            pos, piece = hit
            if pos:
                toks.extend(int(t) for t in self._tokenizer.tokenize_bytes(rest[:pos]))
            toks.append(self._markers[piece])
            rest = rest[pos + len(piece):]
        if rest:
            recent = (self._history + toks)[-8:]
            tail, held = self._tokenizer.tokenize_partial(rest, recent_tokens=recent)
            toks.extend(int(t) for t in tail)
            if held and self._m.validate_tokens(toks) == len(toks):
                return toks + self._held_tokens(toks, bytes(held))
        return toks[: self._m.validate_tokens(toks)] if toks else []

    def _held_tokens(self, ahead: list[int], held: bytes) -> list[int]:
        """Tokens for forced bytes that ``tokenize_partial`` held back because later text
        could merge with them (`` "`` before a name, `` {"`` before a key).

        The grammar knows what may follow: when no token it allows at this point is longer
        than the held bytes, no token can cross their end, so the model's next tokens spell
        exactly them -- taken one token at a time, each re-checked the same way.
        """
        if self._lengths is None or not held:
            return []
        m, out = self._m, []
        if ahead and not m.consume_tokens(ahead):
            return []
        try:
            while held:
                raw = self._raw_mask()
                if m.is_error():
                    break
                allowed = np.flatnonzero(raw)
                if not len(allowed) or (self._lengths[allowed] > len(held)).any():
                    break
                first = int(self._tokenizer.tokenize_bytes(held)[0])
                piece = self._tokenizer.decode_bytes([first])
                if not held.startswith(piece) or m.validate_tokens([first]) != 1 or not m.consume_token(first):
                    break
                out.append(first)
                held = held[len(piece):]
        finally:
            m.rollback(len(ahead) + len(out))
        return out

    def is_accepting(self) -> bool:
        if self._delegate is not None:
            return self._delegate.is_accepting()
        return bool(self._m.is_accepting())

    def is_finished(self) -> bool:
        if self._delegate is not None:
            return self._delegate.is_finished()
        m = self._m
        return bool(m.is_stopped()) and not m.is_error() and bool(m.is_accepting())

    def only_blanks_left(self, depth: int = 3) -> bool:
        """Complete, and nothing but blank tokens (then the end) may follow.

        Why: newline-separated call formats allow one newline after the last call, so
        ``is_finished`` stays False once a call is closed although nothing of substance can
        follow; a grammar that ends at the call should end decoding there. Looks ahead
        through the blank tokens (``depth`` deep) and rolls back: a blank that may lead to
        another call (a parallel call's separator) means not finished.
        """
        m = self._m
        if self._delegate is not None or self._tokenizer is None or m.is_error() or not m.is_accepting():
            return False
        return self._blank_tail(depth, self.allowed_mask())  # cached: sampling may reuse it

    def _blank_tail(self, depth: int, mask: np.ndarray | None = None) -> bool:
        allowed = np.flatnonzero(self._raw_mask() if mask is None else mask)
        allowed = allowed[~np.isin(allowed, self._eog_ids)]
        if len(allowed) > 16 or any(self._tokenizer.decode_bytes([int(t)]).strip() for t in allowed):
            return False
        for t in allowed if depth > 0 else ():
            if self._m.validate_tokens([int(t)]) != 1 or not self._m.consume_token(int(t)):
                return False
            try:
                if not self._blank_tail(depth - 1):
                    return False
            finally:
                self._m.rollback(1)
        return True

    def is_dead(self) -> bool:
        return not self.allowed_mask().any()

    def close(self) -> None:
        if self._delegate is not None:
            self._delegate.close()


class LLGuidanceEngine(MaskEngine):
    """llguidance masks over one model's vocabulary; llama.cpp's grammar for what it cannot read."""

    name = "llguidance"
    supports_ff = True

    def __init__(self, llm: Any, *, fallback: Callable[[], MaskEngine] | None = None):
        import llama_cpp

        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        n = llama_cpp.llama_vocab_n_tokens(vocab)
        eog = [t for t in range(n) if llama_cpp.llama_vocab_is_eog(vocab, t)]
        super().__init__(n, eog)
        t0 = time.perf_counter()
        self.tokenizer, self.token_lengths = build_tokenizer(llm, eog)
        self.markers = marker_tokens(llm, self.eog)
        self.tokenizer_seconds = time.perf_counter() - t0
        self._fallback_factory = fallback
        self._fallback: MaskEngine | None = None

    def _compile(self, gbnf: str, root: str, source: Any = None) -> Any:
        from llguidance import LLMatcher

        from .gbnf_ops import gbnf_to_llg, has_char_automaton

        native = getattr(source, "lark", None)
        if not callable(native) and self._fallback_factory is not None and has_char_automaton(gbnf, root):
            log.info("grammar has a character-level automaton: llama.cpp's grammar runs it exactly")
            return self._to_fallback(GbnfSource(gbnf, root))
        try:
            if callable(native):  # e.g. TriggeredGrammar: a lazy lexeme instead of an automaton
                lark = native()
            else:
                text = gbnf if root == "root" else f"root ::= {root}\n{gbnf}"
                lark = gbnf_to_llg(text)
                # no_forcing: every spelling of forced text stays allowed, as in llama.cpp
                lark = lark.replace("%llguidance {}", _OPTIONS, 1) if lark.startswith("%llguidance {}") \
                    else f"{_OPTIONS}\n{lark}"
            grammar = LLMatcher.grammar_from_lark(lark)
            err = LLMatcher.validate_grammar(grammar, self.tokenizer)
            if err and not err.startswith("WARNING"):
                raise ValueError(err.strip())
            pristine = LLMatcher(self.tokenizer, grammar, log_level=0, limits=_limits())
            if pristine.is_error():
                raise ValueError(pristine.get_error().strip())
        except Exception as exc:  # a valid GBNF llguidance cannot read: use llama.cpp's
            if self._fallback_factory is None:
                from edgevox.grammars import GrammarError

                raise GrammarError(f"llguidance cannot compile this grammar: {exc}") from None
            log.warning("llguidance cannot compile this grammar (%s); using llama.cpp's grammar "
                        "sampler for it", str(exc)[:200])
            return self._to_fallback(GbnfSource(gbnf, root))
        return ("llg", pristine, GbnfSource(gbnf, root))

    def _to_fallback(self, source: GbnfSource) -> tuple[str, GbnfSource]:
        """Compile for llama.cpp now (errors surface here), but keep only the source: the
        compiled sampler belongs to the fallback engine's cache, which may free it on
        eviction while this cache still holds the entry."""
        self._fallback_engine().compile(source)
        return ("fallback", source)

    def _fallback_engine(self) -> MaskEngine:
        if self._fallback is None:
            assert self._fallback_factory is not None
            self._fallback = self._fallback_factory()
        return self._fallback

    def _start(self, compiled: Any) -> Matcher:
        kind, obj, *rest = compiled
        if kind == "fallback":
            return self._fallback_engine().start(obj)  # recompiled there if it was evicted
        source = rest[0]
        fallback = None
        if self._fallback_factory is not None:
            def fallback() -> Matcher:
                return self._fallback_engine().start(source)
        return LLGuidanceMatcher(obj.deep_copy(), self.n_vocab, self.eog, self.tokenizer, self.markers,
                                 fallback, self.token_lengths)

