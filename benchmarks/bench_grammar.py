"""Grammar build cost: cold build per wire format vs. a GrammarCache hit, side by side.

    .venv/bin/python benchmarks/bench_grammar.py            # builders and cache only
    .venv/bin/python benchmarks/bench_grammar.py --model /tmp/qwen.part   # + llama.cpp side

With --model it also measures llama.cpp's own grammar setup (sampler init) for each
grammar and decoding speed free vs. under the hermes reply_or_tool grammar, runs
interleaved so machine load hits both alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "grammars"))

from registry import TOOLS  # noqa: E402  (the six-tool test registry)

from edgevox.grammars import (  # noqa: E402
    WIRE_FORMATS,
    GrammarCache,
    reply_or_tool_grammar,
    tool_call_grammar,
    validate_gbnf,
)


class _Registry:
    """A registry-like object whose fingerprint is a constant (the cheapest key)."""

    def __init__(self, tools):
        self._tools = tools
        self.fingerprint = "bench"

    def __iter__(self):
        return iter(self._tools)


def _times_us(fn, n: int) -> list[float]:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e6)
    return times


def _median_us(fn, n: int) -> float:
    return statistics.median(_times_us(fn, n))


def bench_builders(repeat: int) -> list[dict]:
    tool_call_grammar(TOOLS, "hermes")  # load the static pieces once
    rows = []
    for fmt in sorted(WIRE_FORMATS):
        g = tool_call_grammar(TOOLS, fmt)
        cold_all = _times_us(lambda f=fmt: tool_call_grammar(TOOLS, f), repeat)
        cold, cold_min = statistics.median(cold_all), min(cold_all)
        cold_rot = _median_us(lambda f=fmt: reply_or_tool_grammar(TOOLS, f, think=True), repeat)
        validate = _median_us(lambda t=g.gbnf: validate_gbnf(t), repeat)
        cache = GrammarCache()
        cache.get("required", TOOLS, fmt)
        hit_list = _median_us(lambda c=cache, f=fmt: c.get("required", TOOLS, f), repeat * 20)
        reg = _Registry(TOOLS)
        cache.get("required", reg, fmt)
        hit_fp = _median_us(lambda c=cache, f=fmt, r=reg: c.get("required", r, f), repeat * 20)
        rows.append({"format": fmt, "gbnf_chars": len(g.gbnf), "rules": len(g.parsed().rules),
                     "cold_us": cold, "cold_min_us": cold_min, "cold_reply_or_tool_think_us": cold_rot, "validate_us": validate,
                     "hit_tool_list_us": hit_list, "hit_fingerprint_us": hit_fp,
                     "ratio_cold_over_hit": cold / hit_list, "ratio_min": cold_min / hit_list})
    return rows


def bench_real_registry(repeat: int) -> dict | None:
    try:
        from edgevox.tools import ToolRegistry
    except Exception:  # noqa: BLE001 - the tools package is optional here
        return None
    reg = ToolRegistry(TOOLS)
    cache = GrammarCache()
    cache.get("required", reg, "hermes")
    hit = _median_us(lambda: cache.get("required", reg, "hermes"), repeat * 20)
    cold = _median_us(lambda: tool_call_grammar(reg, "hermes"), repeat)
    return {"cold_us": cold, "hit_us": hit, "ratio": cold / hit}


def bench_llama(model: str, tokens: int, rounds: int) -> dict:
    import ctypes

    import llama_cpp

    cb = llama_cpp.llama_log_callback(lambda *_: None)
    llama_cpp.llama_log_set(cb, ctypes.c_void_p(0))
    llm = llama_cpp.Llama(model, n_ctx=1024, verbose=False, seed=0, n_threads=2)
    vocab = llm._model.vocab
    init = {}
    for fmt in ("hermes", "pythonic", "gemma"):
        text = tool_call_grammar(TOOLS, fmt).gbnf.encode()

        def make(t=text):
            s = llama_cpp.llama_sampler_init_grammar(vocab, t, b"root")
            llama_cpp.llama_sampler_free(s)

        init[fmt] = _median_us(make, 5)
    grammar = reply_or_tool_grammar(TOOLS, "hermes").compiled()
    prompt = "<|im_start|>user\nTell me a short story about a robot.<|im_end|>\n<|im_start|>assistant\n"
    llm.create_completion(prompt, max_tokens=1)
    speeds: dict[str, list[float]] = {"free": [], "grammar": []}
    for _ in range(rounds):
        for name, g in (("free", None), ("grammar", grammar)):
            t = time.perf_counter()
            out = llm.create_completion(prompt, grammar=g, temperature=0.0, max_tokens=tokens)
            speeds[name].append(out["usage"]["completion_tokens"] / (time.perf_counter() - t))
    free, gram = statistics.median(speeds["free"]), statistics.median(speeds["grammar"])
    return {"sampler_init_us": init, "free_tok_s": free, "grammar_tok_s": gram, "ratio": gram / free}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--model", help="GGUF path: also measure llama.cpp sampler init and tok/s")
    ap.add_argument("--tokens", type=int, default=48)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = {"builders": bench_builders(args.repeat), "tool_registry": bench_real_registry(args.repeat)}
    if args.model:
        result["llama"] = bench_llama(args.model, args.tokens, args.rounds)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print("six-tool registry; medians (min) over runs; cold = build + validate, no cache;")
    print("hit = GrammarCache.get on a tool list (content hash) / on a registry with a fingerprint")
    print(f"{'format':13} {'chars':>6} {'rules':>5} {'cold ms':>13} {'r_o_t+think':>11} "
          f"{'validate':>8} {'hit µs':>7} {'hit(fp)':>7} {'cold/hit':>13}")
    for r in result["builders"]:
        cold = f"{r['cold_us'] / 1000:.2f} ({r['cold_min_us'] / 1000:.2f})"
        ratio = f"{r['ratio_cold_over_hit']:.0f}x ({r['ratio_min']:.0f}x)"
        print(f"{r['format']:13} {r['gbnf_chars']:6d} {r['rules']:5d} {cold:>13} "
              f"{r['cold_reply_or_tool_think_us'] / 1000:11.2f} {r['validate_us'] / 1000:8.2f} "
              f"{r['hit_tool_list_us']:7.1f} {r['hit_fingerprint_us']:7.1f} {ratio:>13}")
    reg = result["tool_registry"]
    if reg:
        print(f"edgevox.tools.ToolRegistry (fingerprint recomputed per access): cold {reg['cold_us'] / 1000:.2f} ms, "
              f"hit {reg['hit_us']:.1f} µs, cold/hit {reg['ratio']:.0f}x")
    if "llama" in result:
        ll = result["llama"]
        inits = ", ".join(f"{k} {v / 1000:.1f} ms" for k, v in ll["sampler_init_us"].items())
        print(f"llama.cpp sampler init (its own parse): {inits}")
        print(f"decode: free {ll['free_tok_s']:.1f} tok/s, reply_or_tool grammar {ll['grammar_tok_s']:.1f} tok/s "
              f"(ratio {ll['ratio']:.2f})")


if __name__ == "__main__":
    main()
