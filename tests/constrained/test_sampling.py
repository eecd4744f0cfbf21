"""The numpy sampler chain: exactness of rejection-first, and llama.cpp's own semantics.

No model needed: llama.cpp's stand-alone samplers (top_k, top_p, min_p, penalties) run on
a hand-made candidate array, which checks our chain against the real implementation.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgevox.llm.constrained.sampling import Sampler, SamplingParams, apply_penalties, top_sorted

VOCAB = 3000


def _logits(seed: int, peaky: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lg = rng.normal(0, 3 if peaky else 1, VOCAB).astype(np.float32)
    if peaky:  # a few dominant tokens, as in real decoding
        lg[rng.choice(VOCAB, 3, replace=False)] += np.float32(12)
    return lg


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), peaky=st.booleans(),
       density=st.sampled_from([0.0005, 0.01, 0.3, 0.97, 1.0]),
       temp=st.sampled_from([0.0, 0.2, 0.8, 1.5]), top_k=st.sampled_from([0, 1, 5, 40]),
       top_p=st.sampled_from([1.0, 0.95, 0.5]), min_p=st.sampled_from([0.0, 0.05, 0.3]))
def test_rejection_first_equals_full_mask(seed, peaky, density, temp, top_k, top_p, min_p):
    """Same seed: the walk over single-token checks picks exactly the full-mask token."""
    params = SamplingParams(temp=temp, top_k=top_k, top_p=top_p, min_p=min_p)
    if temp > 0 and not params.truncates:
        return  # plain softmax: the classic scheme is exact in distribution, not per draw
    logits = _logits(seed, peaky)
    allowed = np.random.default_rng(seed + 1).random(VOCAB) < density
    allowed[seed % VOCAB] = True  # never empty (dead ends are tested below)
    checked: list[int] = []

    def check(ids: np.ndarray) -> np.ndarray:
        checked.extend(int(i) for i in ids)
        return allowed[ids]

    fast = Sampler(params, seed).choose(logits.copy(), check, lambda: allowed)
    full = Sampler(params, seed).choose_masked(logits.copy(), np.flatnonzero(allowed))
    assert fast == full
    assert allowed[fast]


def test_fast_path_asks_about_few_tokens():
    """With the best token allowed, greedy needs one check and sampling a handful."""
    logits = _logits(7, peaky=True)
    allowed = np.ones(VOCAB, dtype=bool)
    for params in (SamplingParams(temp=0), SamplingParams(temp=0.7, top_k=40, top_p=0.95, min_p=0.05)):
        s = Sampler(params, 1)
        tok = s.choose(logits, lambda ids: allowed[ids], lambda: pytest.fail("full mask computed"))
        assert tok is not None and s.stats["mask"] == 0 and s.stats["checks"] <= 25


def test_greedy_ties_pick_lowest_id_like_llama_cpp():
    logits = np.zeros(10, dtype=np.float32)
    logits[[3, 7]] = 5.0
    allowed = np.ones(10, dtype=bool)
    s = Sampler(SamplingParams(temp=0), 0)
    assert s.choose(logits, lambda ids: allowed[ids], lambda: allowed) == 3
    allowed[3] = False
    assert s.choose(logits, lambda ids: allowed[ids], lambda: allowed) == 7


@pytest.mark.parametrize("temp", [0.0, 0.8])
def test_dead_end_returns_none(temp):
    logits = _logits(3, peaky=True)
    nothing = np.zeros(VOCAB, dtype=bool)
    s = Sampler(SamplingParams(temp=temp), 0)
    assert s.choose(logits, lambda ids: nothing[ids], lambda: nothing) is None


def test_plain_softmax_rejection_is_exact_in_distribution():
    """No truncation: draw, check, resample masked on rejection == the masked softmax."""
    logits = np.log(np.array([0.4, 0.3, 0.2, 0.1], dtype=np.float32))
    allowed = np.array([False, True, True, True])
    s = Sampler(SamplingParams(temp=1.0, top_k=0, top_p=1.0, min_p=0.0), 123)
    n = 6000
    counts = np.bincount([s.choose(logits, lambda ids: allowed[ids], lambda: allowed) for _ in range(n)],
                         minlength=4)
    expected = np.array([0, 0.5, 1 / 3, 1 / 6]) * n
    assert counts[0] == 0
    assert np.all(np.abs(counts - expected) < 4 * np.sqrt(expected + 1))
    assert s.stats["rejections"] > 0.3 * n  # token 0 (p=0.4) was drawn and rejected


def test_top_sorted_ties_and_order():
    ids = np.arange(6)
    vals = np.array([1, 3, 3, 2, 3, 0], dtype=np.float32)
    assert list(ids[top_sorted(ids, vals, 2)]) == [1, 2]
    assert list(ids[top_sorted(ids, vals, 4)]) == [1, 2, 4, 3]
    assert list(ids[top_sorted(ids, vals, 0)]) == [1, 2, 4, 3, 0, 5]


def test_from_kwargs_matches_generate_defaults():
    p = SamplingParams.from_kwargs({"temp": 0.2, "top_p": 0.9, "top_k": 40, "repeat_penalty": 1.05})
    assert (p.temp, p.top_k, p.top_p, p.min_p, p.repeat_penalty) == (0.2, 40, 0.9, 0.05, 1.05)
    assert SamplingParams.from_kwargs({"temp": -1}).truncates is False
    with pytest.raises(TypeError, match="mirostat"):
        SamplingParams.from_kwargs({"mirostat_mode": 2})


# -- against llama.cpp's own samplers ---------------------------------------------------------


@pytest.fixture(scope="module")
def llama_cpp():
    import llama_cpp

    return llama_cpp


def _apply(llama_cpp, sampler, logits: np.ndarray) -> np.ndarray:
    n = len(logits)
    arr = (llama_cpp.llama_token_data * n)()
    for i, v in enumerate(logits):
        arr[i].id, arr[i].logit, arr[i].p = i, float(v), 0.0
    cur = llama_cpp.llama_token_data_array(data=arr, size=n, selected=-1, sorted=False)
    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(cur))
    out = np.full(n, -np.inf, dtype=np.float32)
    for i in range(cur.size):
        out[cur.data[i].id] = cur.data[i].logit
    return out


@pytest.mark.parametrize("seed", range(12))
def test_kept_set_matches_llama_cpp_chain(llama_cpp, seed):
    """top_k -> top_p -> min_p keep the same tokens as llama.cpp's samplers in that order."""
    rng = np.random.default_rng(seed)
    logits = (rng.normal(0, 2, 400) + (rng.random(400) < 0.01) * 8).astype(np.float32)
    top_k, top_p, min_p = [(40, 0.95, 0.05), (10, 0.5, 0.0), (0, 0.9, 0.1), (5, 1.0, 0.2)][seed % 4]
    chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
    for smpl in (llama_cpp.llama_sampler_init_top_k(top_k), llama_cpp.llama_sampler_init_top_p(top_p, 1),
                 llama_cpp.llama_sampler_init_min_p(min_p, 1)):
        llama_cpp.llama_sampler_chain_add(chain, smpl)
    try:
        kept_cpp = set(np.flatnonzero(np.isfinite(_apply(llama_cpp, chain, logits))))
    finally:
        llama_cpp.llama_sampler_free(chain)
    p = SamplingParams(temp=1.0, top_k=top_k, top_p=top_p, min_p=min_p)
    ours: set[int] = set()

    class Spy(Sampler):
        def _draw(self, ids, lg):
            ours.update(int(i) for i in ids)
            return int(ids[0])

    Spy(p, 0).choose_masked(logits, np.arange(len(logits)))
    assert ours == kept_cpp


def test_repeat_penalty_matches_llama_cpp(llama_cpp):
    logits = np.array([2.0, -1.5, 0.0, 3.25, -0.5, 1.0], dtype=np.float32)
    history = [0, 1, 1, 2, 5]
    smpl = llama_cpp.llama_sampler_init_penalties(len(logits), 64, 1.3, 0.0, 0.0)
    try:
        for t in history:
            llama_cpp.llama_sampler_accept(smpl, t)
        expected = _apply(llama_cpp, smpl, logits)
    finally:
        llama_cpp.llama_sampler_free(smpl)
    ours = logits.copy()
    apply_penalties(ours, history, SamplingParams(repeat_penalty=1.3))
    assert np.array_equal(ours, expected)
