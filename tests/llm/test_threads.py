"""Thread counts: single-token decode tuned at load, small batches follow it (real model)."""

from __future__ import annotations

from edgevox.llm import load_model, threads
from edgevox.llm.threads import SMALL_BATCH, pick_decode_threads, set_threads, small_batch_threads


def test_decode_threads_are_picked_and_the_context_left_empty(qwen_backend) -> None:
    llm = qwen_backend.llm
    with qwen_backend.lock:
        most = llm.n_threads_batch
        threads._picked.clear()  # time it here, not from the choice made at load
        picked = pick_decode_threads(llm, 2)
        assert picked in (1, 2)
        assert llm.n_tokens == 0  # nothing of the timing run stays in the cache
        llm.eval([llm.token_bos()])
        assert pick_decode_threads(llm, 2) == picked and llm.n_tokens == 1  # remembered, not re-timed
        set_threads(llm, picked, most)
    text = qwen_backend.complete([{"role": "user", "content": "Say hi"}], max_tokens=4, temperature=0).text
    assert text.strip()


def test_small_batches_use_the_single_token_count_and_restore_it(qwen_backend) -> None:
    llm = qwen_backend.llm
    with qwen_backend.lock:
        before = (llm.n_threads, llm.n_threads_batch)
        set_threads(llm, 1, 2)
        try:
            with small_batch_threads(llm, 4):
                assert (llm.n_threads, llm.n_threads_batch) == (1, 1)
            assert (llm.n_threads, llm.n_threads_batch) == (1, 2)
            with small_batch_threads(llm, SMALL_BATCH):  # a prompt-sized batch keeps every core
                assert llm.n_threads_batch == 2
        finally:
            set_threads(llm, *before)


def test_an_explicit_thread_count_is_kept(qwen_path) -> None:
    b = load_model(str(qwen_path), n_threads=2, n_ctx=512)
    try:
        assert (b.llm.n_threads, b.llm.n_threads_batch) == (2, 2)
    finally:
        b.close()
