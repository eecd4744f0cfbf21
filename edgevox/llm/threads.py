"""How many CPU threads llama.cpp uses: one count for single tokens, one for batches.

Why two: a single-token decode is a short graph of ~600 small operations, each ending in
a thread barrier. With OpenMP's PASSIVE wait policy (which EdgeVox sets, because spinning
threads make everything 10-30x slower on a shared CPU) every barrier is a sleep and a
wake-up, and on some machines two threads decode a token *slower* than one (measured on a
2-core x86 VM: 37 ms vs 23 ms). Batches -- a prompt, forced tool-call text -- have far
more work per barrier and still gain from every core. So at load the backend times a few
single-token decodes with one thread and with all of them and keeps the faster, unless
the caller fixed ``n_threads``; small batches use the single-token count too.
"""

from __future__ import annotations

import logging
import os
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["SMALL_BATCH", "default_threads", "pick_decode_threads", "set_threads", "small_batch_threads"]

#: batches shorter than this run with the single-token thread count (below it, a batch
#: costs about as much per barrier as a single token on the machines measured)
SMALL_BATCH = 16


def default_threads() -> int:
    """All cores, at most 8 (more rarely helps a small model and starves audio threads)."""
    return max(1, min(os.cpu_count() or 1, 8))


def set_threads(llm: Any, n_threads: int, n_threads_batch: int) -> None:
    """Set both counts on a loaded ``Llama`` (takes effect at the next decode)."""
    import llama_cpp

    llama_cpp.llama_set_n_threads(llm._ctx.ctx, int(n_threads), int(n_threads_batch))
    llm.n_threads, llm.n_threads_batch = int(n_threads), int(n_threads_batch)


_picked: dict[tuple[str, int], int] = {}  # (model file, most) -> choice, once per process


def pick_decode_threads(llm: Any, most: int, *, rounds: int = 5) -> int:
    """1 or ``most``: whichever decodes a single token faster here, timed interleaved
    (median of ``rounds`` each, ~0.3 s, once per model file and process). Leaves the
    context empty."""
    if most <= 1:
        return 1
    key = (str(getattr(llm, "model_path", "")), most)
    if key[0] and key in _picked:
        return _picked[key]
    tok = llm.token_bos() if llm.token_bos() >= 0 else 0
    times: dict[int, list[float]] = {1: [], most: []}
    try:
        llm.reset()
        llm.eval([tok] * 8)  # a few cached positions, so each timed decode attends to something
        for _ in range(rounds):
            for n in (1, most):
                set_threads(llm, n, most)
                llm.n_tokens = 8
                t0 = time.perf_counter()
                llm.eval([tok])
                times[n].append(time.perf_counter() - t0)
    finally:
        llm.reset()
        llm._ctx.kv_cache_clear()
    best = _picked[key] = min(times, key=lambda n: statistics.median(times[n]))
    log.info("single-token decode: 1 thread %.1f ms, %d threads %.1f ms -> %d",
             statistics.median(times[1]) * 1e3, most, statistics.median(times[most]) * 1e3, best)
    return best


@contextmanager
def small_batch_threads(llm: Any, n_tokens: int) -> Iterator[None]:
    """Run a batch of ``n_tokens`` (> 1) with the single-token count when it is small."""
    n, nb = getattr(llm, "n_threads", 0), getattr(llm, "n_threads_batch", 0)
    if n_tokens <= 1 or n_tokens >= SMALL_BATCH or not n or n == nb:
        yield
        return
    set_threads(llm, n, n)
    try:
        yield
    finally:
        set_threads(llm, n, nb)
