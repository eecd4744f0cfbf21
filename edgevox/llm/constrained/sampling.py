"""llama-cpp-python's sampler chain in numpy, with exact rejection-first grammar checks.

The chain is the one ``Llama.generate`` builds (``_init_sampler``)::

    repeat penalty -> grammar mask -> top_k -> top_p -> min_p -> temperature -> draw

``temp == 0`` is greedy (argmax, lowest id on ties, like llama.cpp's greedy sampler);
``temp < 0`` draws from the raw softmax; top_p and min_p are applied before the
temperature, as llama.cpp does. Same parameters, same distribution -- but the random
draw comes from numpy's PCG64, not llama.cpp's mt19937, so a seeded sample differs from
llama-cpp-python's for the same seed (greedy output is identical).

Why not "sample freely, check that token, mask only on rejection"? That is exact for
greedy decoding and for a plain softmax, but not with truncation: top_k/top_p/min_p over
the *masked* logits keep a different set than over the raw ones. What the chain draws
from depends only on the *kept set*: the best allowed tokens down to the top_k/top_p/
min_p cut. So the sampler walks the raw logits from the best down, asks the grammar about
those tokens only (a few single-token checks), and stops as soon as the kept set is
provably the one the full mask would give -- bounding the unseen allowed tokens' mass by
what is left below. Only when that cannot be decided within a small pool does it compute
the whole-vocabulary mask. Both paths then draw with the same uniform number from the
same kept set, so a seeded run gives the same tokens with or without the full mask
(tested). With no truncation at all (``top_k <= 0``, ``top_p >= 1``, ``min_p <= 0``) the
kept set is every allowed token; there the classic scheme -- draw, check, resample from
the masked distribution on rejection -- is used, which is exact in distribution.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["SamplingParams", "Sampler", "apply_penalties", "top_sorted"]

_EPS = 1e-6          # relative safety margin for top_p decisions made with bounds
_POOL_DELTA = 20.0   # pool = tokens within this many logits of the best (e^-20 ~ 2e-9)
_POOL_CAP = 512


@dataclass(frozen=True)
class SamplingParams:
    """Sampler settings with ``Llama.generate``'s defaults and meaning."""

    temp: float = 0.8
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    repeat_penalty: float = 1.0
    penalty_last_n: int = 64

    @classmethod
    def from_kwargs(cls, params: dict, penalty_last_n: int = 64) -> SamplingParams:
        """From the keyword arguments one would pass to ``Llama.generate``."""
        known = {"temp", "top_k", "top_p", "min_p", "repeat_penalty"}
        unknown = set(params) - known
        if unknown:
            raise TypeError(f"sampling option(s) not supported by the constrained loop: "
                            f"{', '.join(sorted(unknown))}")
        kw = {k: v for k, v in params.items() if v is not None}
        p = cls(**{k: (int(v) if k == "top_k" else float(v)) for k, v in kw.items()},
                penalty_last_n=penalty_last_n)
        if p.temp < 0:  # llama-cpp-python: a bare dist sampler, no truncation, no temperature
            p = cls(temp=1.0, top_k=0, top_p=1.0, min_p=0.0, repeat_penalty=p.repeat_penalty,
                    penalty_last_n=penalty_last_n)
        return p

    @property
    def greedy(self) -> bool:
        return self.temp == 0

    @property
    def truncates(self) -> bool:
        return self.top_k > 0 or self.top_p < 1.0 or self.min_p > 0.0


def apply_penalties(logits: np.ndarray, history: Sequence[int], p: SamplingParams) -> None:
    """llama.cpp's repeat penalty, in place, over the last ``penalty_last_n`` generated tokens."""
    if p.repeat_penalty == 1.0 or p.penalty_last_n == 0 or not history:
        return
    recent = np.unique(np.asarray(history[-p.penalty_last_n:], dtype=np.int64))
    v = logits[recent]
    rp = np.float32(p.repeat_penalty)
    logits[recent] = np.where(v <= 0, v * rp, v / rp)


def top_sorted(ids: np.ndarray, vals: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` best entries, best first; ties go to the lower id.

    ``ids`` must be ascending. Deterministic, so the fast and the full-mask path pick the
    same tokens even when logits tie at the cut.
    """
    n = len(vals)
    if k <= 0 or k >= n:
        return np.lexsort((ids, -vals))
    v = -np.partition(-vals, k - 1)[k - 1]
    above = np.flatnonzero(vals > v)
    equal = np.flatnonzero(vals == v)[: k - len(above)]
    sel = np.concatenate([above, equal])
    return sel[np.lexsort((ids[sel], -vals[sel]))]


def _kept_size(lg: np.ndarray, p: SamplingParams, *, extra: float, complete: bool,
               minp_closed: bool, eps: float) -> int | None:
    """How many of the best allowed tokens (logits ``lg``, best first) the chain keeps.

    ``complete``: ``lg`` is the whole top_k-cut allowed list. Otherwise unseen allowed
    tokens may follow, each below every entry of ``lg``, with total relative mass at most
    ``extra`` (in units of ``exp(lg[0])``); ``minp_closed`` says they all fail min_p.
    Returns None when the unseen tokens could change the answer.
    """
    j = len(lg)
    beyond = j + 1
    cum = np.cumsum(np.exp(lg.astype(np.float64) - float(lg[0])))
    z = float(cum[-1])
    if p.min_p > 0:
        thr = np.float32(lg[0]) + np.float32(math.log(p.min_p))
        m_minp = int(np.count_nonzero(lg >= thr))
        if m_minp == j and not (complete or minp_closed):
            m_minp = beyond
    else:
        m_minp = j if complete else beyond
    if p.top_p < 1.0:
        lo = np.flatnonzero(cum >= p.top_p * (1 - eps) * z)
        hi = np.flatnonzero(cum >= p.top_p * (1 + eps) * (z + extra))
        m_lo = int(lo[0]) + 1 if len(lo) else beyond
        m_hi = int(hi[0]) + 1 if len(hi) else beyond
    else:
        m_lo = m_hi = beyond
    kcap = p.top_k if p.top_k > 0 else beyond
    s_lo, s_hi = min(m_lo, m_minp, kcap), min(m_hi, m_minp, kcap)
    if complete:
        return max(1, min(s_lo, j))
    if s_lo == s_hi and s_lo <= j:
        return max(1, s_lo)
    return None


class Sampler:
    """Chooses tokens for one generation; ``choose`` returns None at a grammar dead end."""

    def __init__(self, params: SamplingParams, seed: int | None = None):
        self.p = params
        self.rng = np.random.default_rng(seed)
        self.stats = {"fast": 0, "mask": 0, "checks": 0, "rejections": 0}

    # -- the draw -------------------------------------------------------------------------

    def _draw(self, ids: np.ndarray, lg: np.ndarray) -> int:
        """One token from softmax(lg / temp); one uniform number per draw."""
        r = self.rng.random()
        if len(ids) == 1:
            return int(ids[0])
        w = np.exp((lg.astype(np.float64) - float(lg.max())) / self.p.temp)
        cdf = np.cumsum(w)
        i = int(np.searchsorted(cdf, r * cdf[-1], side="right"))
        return int(ids[min(i, len(ids) - 1)])

    # -- full-mask path -----------------------------------------------------------------------

    def choose_masked(self, logits: np.ndarray, allowed: np.ndarray) -> int | None:
        """The reference: the chain over the masked logits (``allowed``: ascending ids)."""
        self.stats["mask"] += 1
        if len(allowed) == 0:
            return None
        vals = logits[allowed]
        if self.p.greedy:
            return int(allowed[int(np.argmax(vals))])
        if not self.p.truncates:  # plain softmax over every allowed token, in id order
            return self._draw(allowed, vals)
        order = top_sorted(allowed, vals, self.p.top_k)
        ids, lg = allowed[order], vals[order]
        s = _kept_size(lg, self.p, extra=0.0, complete=True, minp_closed=True, eps=0.0)
        return self._draw(ids[:s], lg[:s])

    # -- rejection-first path --------------------------------------------------------------

    def choose(self, logits: np.ndarray, check: Callable[[np.ndarray], np.ndarray] | None,
               full_mask: Callable[[], np.ndarray] | None, n_vocab: int | None = None) -> int | None:
        """Pick the next token. ``check(ids) -> bool array`` asks the grammar about a few
        tokens, ``full_mask() -> bool array`` about all; both None means unconstrained."""
        p = self.p
        if check is None:
            if p.greedy:
                return int(np.argmax(logits))
            check = _allow_all
        n_vocab = n_vocab or len(logits)
        if p.greedy:  # the common case: the best token is allowed (argmax: lowest id on ties)
            best = int(np.argmax(logits))
            self.stats["checks"] += 1
            if check(np.asarray([best]))[0]:
                self.stats["fast"] += 1
                return best
        if not p.greedy and not p.truncates:
            return self._classic_rejection(logits, check, full_mask)
        pool, below = _pool(logits)
        found_ids: list[int] = []
        found_l: list[float] = []
        pos, step = 0, 1
        while pos < len(pool):
            batch = pool[pos:pos + step]
            ok = check(batch)
            self.stats["checks"] += len(batch)
            if pos == 0 and not ok[0]:
                self.stats["rejections"] += 1
            hits = batch[ok]
            pos += len(batch)
            step = min(step * 4, 128)
            if len(hits) == 0:
                continue
            if p.greedy:
                self.stats["fast"] += 1
                return int(hits[0])
            found_ids.extend(int(t) for t in hits)
            found_l.extend(float(v) for v in logits[hits])
            u = float(logits[pool[pos]]) if pos < len(pool) else below
            s = self._decide(found_l, u, n_unchecked=n_vocab - pos)
            if s is not None:
                self.stats["fast"] += 1
                return self._draw(np.asarray(found_ids[:s]), np.asarray(found_l[:s], dtype=np.float32))
        if full_mask is None:
            raise RuntimeError("no allowed token in the pool and no full mask to fall back on")
        return self.choose_masked(logits, np.flatnonzero(full_mask()))

    def _decide(self, found_l: list[float], u: float, n_unchecked: int) -> int | None:
        p = self.p
        lg = np.asarray(found_l, dtype=np.float32)
        j = len(lg)
        if p.top_k > 0 and j >= p.top_k:
            return _kept_size(lg[: p.top_k], p, extra=0.0, complete=True, minp_closed=True, eps=0.0)
        unseen = min(p.top_k - j, n_unchecked) if p.top_k > 0 else n_unchecked
        extra = unseen * math.exp(min(u - float(lg[0]), 0.0))
        closed = p.min_p > 0 and u < float(np.float32(lg[0]) + np.float32(math.log(p.min_p)))
        return _kept_size(lg, p, extra=extra, complete=False, minp_closed=closed, eps=_EPS)

    def _classic_rejection(self, logits: np.ndarray, check: Callable[[np.ndarray], np.ndarray],
                           full_mask: Callable[[], np.ndarray] | None) -> int | None:
        """No truncation: draw from the raw softmax, keep it if allowed, else resample masked."""
        tok = self._draw(np.arange(len(logits)), logits)
        self.stats["checks"] += 1
        if check(np.asarray([tok]))[0]:
            self.stats["fast"] += 1
            return tok
        self.stats["rejections"] += 1
        if full_mask is None:
            raise RuntimeError("rejected token and no full mask to fall back on")
        return self.choose_masked(logits, np.flatnonzero(full_mask()))


def _allow_all(ids: np.ndarray) -> np.ndarray:
    return np.ones(len(ids), dtype=bool)


def _pool(logits: np.ndarray) -> tuple[np.ndarray, float]:
    """The best tokens, best first (ties: lower id first), and a bound on every other logit."""
    lmax = float(logits.max())
    ids = np.flatnonzero(logits >= lmax - _POOL_DELTA)
    vals = logits[ids]
    if len(ids) > _POOL_CAP:
        order = top_sorted(ids, vals, _POOL_CAP)
        return ids[order], float(vals[order[-1]])
    return ids[np.lexsort((ids, -vals))], lmax - _POOL_DELTA
