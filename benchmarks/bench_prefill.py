"""Prompt evaluation (prefill) speed of the default model under llama.cpp settings.

    .venv/bin/python benchmarks/bench_prefill.py [--tokens 500] [--rounds 3] [--json]

Evaluates the same prompt (the home agent's real prompt prefix, cut to ``--tokens``) from an
empty context with each configuration -- threads, n_batch/n_ubatch, flash attention, KV
cache type -- and prints tokens/s relative to llama-cpp-python's defaults with all cores.
Configurations are loaded once and measured interleaved (round after round), medians
reported, so a busy machine slows all of them alike. Also prints what the build offers
(``llama_print_system_info``: AVX2, AVX-512, FMA, OpenMP, ...).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

GGML_TYPE_F16, GGML_TYPE_Q8_0 = 1, 8


def configs(cores: int) -> dict[str, dict[str, Any]]:
    base = {"n_threads": cores, "n_threads_batch": cores}
    return {
        "llama-cpp-python defaults": {**base},
        "1 thread": {"n_threads": 1, "n_threads_batch": 1},
        "n_batch 256 (backend)": {**base, "n_batch": 256, "n_ubatch": 256},
        "n_batch 128": {**base, "n_batch": 128, "n_ubatch": 128},
        "n_batch 64": {**base, "n_batch": 64, "n_ubatch": 64},
        "flash attention": {**base, "flash_attn": True},
        "KV q8_0 + flash": {**base, "flash_attn": True, "type_k": GGML_TYPE_Q8_0, "type_v": GGML_TYPE_Q8_0},
    }


def prompt_tokens(n: int) -> tuple[list[int], str]:
    from edgevox.examples.home import home_agent
    from edgevox.llm import load_model
    from edgevox.models import ensure_model

    path = str(ensure_model("qwen2.5-coder-0.5b"))
    backend = load_model(path, preset="qwen25", prompt_cache=False)
    agent, _ = home_agent(backend, warm=False)
    toks = agent.prefix_tokens()[:n]
    backend.close()
    return toks, path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default=None, help="comma-separated configuration names")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import llama_cpp
    from llama_cpp import Llama

    cores = os.cpu_count() or 1
    toks, path = prompt_tokens(args.tokens)
    chosen = configs(cores)
    if args.only:
        chosen = {k: v for k, v in chosen.items() if k in args.only.split(",")}
    models = {name: Llama(model_path=path, n_ctx=2048, verbose=False, **kw) for name, kw in chosen.items()}
    times: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(args.rounds):
        for name, llm in models.items():
            llm.reset()
            llm._ctx.kv_cache_clear()
            t0 = time.perf_counter()
            llm.eval(toks)
            times[name].append(time.perf_counter() - t0)
    base = statistics.median(times["llama-cpp-python defaults"]) if "llama-cpp-python defaults" in times else None
    rows = {name: {"tok_s": len(toks) / statistics.median(ts),
                   "vs_defaults": (base / statistics.median(ts)) if base else None}
            for name, ts in times.items()}
    doc = {"tokens": len(toks), "rows": rows, "cores": cores, "load_average": os.getloadavg(),
           "system_info": llama_cpp.llama_print_system_info().decode()}
    if args.json:
        print(json.dumps(doc, indent=1))
        return
    print(f"prefill of {len(toks)} tokens, median of {args.rounds} interleaved rounds:")
    for name, r in rows.items():
        vs = f"{r['vs_defaults']:.2f}x" if r["vs_defaults"] else "-"
        print(f"  {name:28} {r['tok_s']:7.1f} tok/s  {vs}")
    print(f"build: {doc['system_info']}")
    print(f"load average: {', '.join(f'{x:.1f}' for x in doc['load_average'])} on {cores} cores")


if __name__ == "__main__":
    main()
