"""Constrained decoding speed, side by side in one run on the real Qwen2.5-Coder-0.5B.

    .venv/bin/python benchmarks/bench_constrained.py [--rounds 2] [--threads N] [--json]

(a) decode tokens/s under a JSON-schema grammar relative to free decoding, for
    llama-cpp-python's grammar path, our loop with llama.cpp's grammar (engine B) and our
    loop with llguidance (engine A); fast-forward off, so every token is sampled
    (goal >= 0.9x). Our loop without a grammar is shown too (the loop's own overhead).
(b) wall time from request to complete tool call under ``required`` (hermes grammar,
    llguidance, fast-forward) relative to free decoding of the same request (goal <= 0.6x).
    "warm": the system prompt + tools are already in the KV cache and only the new user
    turn is evaluated (an agent's usual turn); "cold": the whole prompt is evaluated.
    "to dispatch" rows stop the clock when the streaming parser completes the call (the agent
    starts the tool there, while the model finishes), against free decoding until it picks the
    call's last token.
(c) grammar-engine time per token: whole-vocabulary mask and single-token check.

Runs are interleaved (mode after mode, prompt after prompt) and medians reported, so a
busy machine slows all modes alike. OMP_WAIT_POLICY=PASSIVE is set before llama.cpp
loads: with an OpenMP build on an oversubscribed CPU, spinning threads make multi-token
decodes 10-30x slower, which would distort fast-forward's batched decodes.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from edgevox.examples.clock_weather import TOOLS  # noqa: E402

REVIEW = {"type": "object", "properties": {
    "title": {"type": "string"}, "year": {"type": "integer"},
    "summary": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
    "rating": {"type": "integer"}}, "required": ["title", "year", "summary", "tags", "rating"]}
JSON_PROMPTS = [
    "Write a JSON review of the movie Inception: title, year, a two-sentence summary, tags, rating 1-10.",
    "Write a JSON review of the novel Dune: title, year, a two-sentence summary, tags, rating 1-10.",
    "Write a JSON review of the game Tetris: title, year, a two-sentence summary, tags, rating 1-10.",
]
CALL_PROMPTS = ["What's the weather in Paris right now?", "What time is it in Tokyo?",
                "Set a timer for 12 minutes for the pasta.", "Is it raining in Berlin today?"]


def run_lcp_grammar(backend: Any, messages: list, gbnf: str, max_tokens: int) -> tuple[int, float, str]:
    """llama-cpp-python's own grammar path (what the backend did before): tokens, decode s."""
    from llama_cpp import LlamaGrammar

    llm = backend.llm
    tokens = backend.tokenize(backend.render(messages, None))
    params = backend._sampling({"temperature": 0.0})
    out: list[int] = []
    with backend.lock:
        backend._prefill(tokens)
        grammar = LlamaGrammar.from_string(gbnf, verbose=False)
        t_first = None
        for tok in llm.generate(tokens, grammar=grammar, **params):
            if t_first is None:
                t_first = time.perf_counter()
            if backend._is_eog(tok) or len(out) >= max_tokens:
                break
            out.append(tok)
        t_end = time.perf_counter()
    return len(out), t_end - (t_first or t_end), llm.detokenize(out).decode("utf-8", "replace")


def run_our_free(backend: Any, messages: list, max_tokens: int) -> tuple[int, float, str]:
    """Our loop with no grammar: the loop's own cost."""
    from edgevox.llm.constrained import constrained_generate

    llm = backend.llm
    tokens = backend.tokenize(backend.render(messages, None))
    with backend.lock:
        backend._prefill(tokens)
        gen = constrained_generate(backend, tokens, None, backend._sampling({"temperature": 0.0}))
        out, t_first = [], None
        for tok in gen:
            if t_first is None:
                t_first = time.perf_counter()
            if tok in gen.eog or len(out) >= max_tokens:
                break
            out.append(tok)
        t_end = time.perf_counter()
        gen.close()
    return len(out), t_end - (t_first or t_end), llm.detokenize(out).decode("utf-8", "replace")


def bench_json(backend: Any, rounds: int, max_tokens: int) -> dict:
    from edgevox.grammars import json_schema_grammar

    g = json_schema_grammar(REVIEW)
    rates: dict[str, list[float]] = {}
    texts: dict[str, list[str]] = {}

    def record(name: str, n: int, dt: float, text: str) -> None:
        rates.setdefault(name, []).append(n / dt if dt > 0 else 0.0)
        texts.setdefault(name, []).append(text)

    for _ in range(rounds):
        for prompt in JSON_PROMPTS:
            msgs = [{"role": "user", "content": prompt}]
            c = backend.complete(msgs, temperature=0.0, max_tokens=max_tokens)
            record("free (llama-cpp-python)", c.usage["completion_tokens"], c.timings["decode_s"], c.text)
            record("free (our loop)", *run_our_free(backend, msgs, max_tokens))
            record("grammar: llama-cpp-python", *run_lcp_grammar(backend, msgs, g.gbnf, max_tokens))
            for label, engine, ff in (("grammar: ours, llama.cpp engine", "llama", False),
                                      ("grammar: ours, llguidance", "llguidance", False),
                                      ("grammar: ours, llguidance + ff", "llguidance", True)):
                with backend.decoding_mode(engine, ff):
                    c = backend.complete(msgs, grammar=g, temperature=0.0, max_tokens=max_tokens)
                record(label, c.usage["completion_tokens"], c.timings["decode_s"], c.text)
    base = statistics.median(rates["free (llama-cpp-python)"])
    same = {k: all(a == b for a, b in zip(v, texts["grammar: llama-cpp-python"], strict=True))
            for k, v in texts.items() if k.startswith("grammar")}
    return {k: {"tok_s": statistics.median(v), "ratio": statistics.median(v) / base,
                "same_text_as_lcp_grammar": same.get(k)} for k, v in rates.items()}


def reset_cache(backend: Any, cache: str) -> None:
    """warm: system prompt + tools in the KV cache, only the user turn is new; cold: empty."""
    if cache == "warm":
        backend.complete([{"role": "user", "content": "ok"}], TOOLS, max_tokens=1)
    else:
        with backend.lock:
            backend.llm.reset()


def teacher_forced(backend: Any, messages: list, call_tokens: list[int], *, to_dispatch: bool = False) -> float:
    """Seconds an unconstrained decoder spends to write exactly ``call_tokens``: the prompt,
    then one decode + one greedy pick per token, and the last pick (end of turn).
    ``to_dispatch``: only until the call's last token is picked (when a streaming parser
    could start the tool)."""
    import llama_cpp
    import numpy as np

    llm = backend.llm
    n_vocab = llm.n_vocab()
    t0 = time.perf_counter()
    tokens = backend.tokenize(backend.render(messages, TOOLS))
    with backend.lock:
        backend._prefill(tokens)
        llm.eval([tokens[-1]])
        for i, tok in enumerate([*call_tokens, None]):
            ptr = llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1)
            int(np.argmax(np.ctypeslib.as_array(ptr, shape=(n_vocab,))))
            if to_dispatch and i == len(call_tokens) - 1:
                break
            if tok is not None:
                llm.eval([tok])
    return time.perf_counter() - t0


def to_dispatch(backend: Any, messages: list, grammar: Any) -> tuple[float, Any]:
    """Seconds from the request until the streaming parser completes the call (when the
    agent starts the tool), and the completion of the whole generation."""
    from edgevox.parsing import CallComplete, StreamingParser

    parser = StreamingParser(backend.preset.detectors, tools=TOOLS)
    done: list[Any] = []
    t0 = time.perf_counter()
    t_call = None
    for piece in backend.stream(messages, TOOLS, grammar=grammar, temperature=0.0, max_tokens=96,
                                on_done=done.append):
        if t_call is None and any(isinstance(e, CallComplete) for e in parser.feed(piece)):
            t_call = time.perf_counter() - t0
    end = time.perf_counter() - t0
    return (t_call if t_call is not None else end), done[0]


def bench_calls(backend: Any, rounds: int) -> dict:
    from edgevox.grammars import tool_call_grammar

    grammars = {"required": tool_call_grammar(TOOLS, "hermes"),
                "required, one call": tool_call_grammar(TOOLS, "hermes", parallel_tool_calls=False)}
    rows = ("same call, free decoding", "required + ff", "required, no ff", "required, one call + ff",
            "free decoding (model's own text)", "same call, free, to dispatch", "required + ff, to dispatch")
    out: dict[str, Any] = {}
    for cache in ("warm", "cold"):
        times: dict[str, list[float]] = {r: [] for r in rows}
        ff_share, free_tokens, call_tokens, decodes = [], [], [], []
        for _ in range(rounds if cache == "warm" else 1):
            for prompt in CALL_PROMPTS:
                msgs = [{"role": "user", "content": prompt}]

                results = {}
                for label, grammar, ff in (("required + ff", grammars["required"], True),
                                           ("required, no ff", grammars["required"], False),
                                           ("required, one call + ff", grammars["required, one call"], True),
                                           ("free decoding (model's own text)", None, True)):
                    reset_cache(backend, cache)
                    with backend.decoding_mode("llguidance", ff):
                        t0 = time.perf_counter()
                        c = backend.complete(msgs, TOOLS, grammar=grammar, temperature=0.0, max_tokens=96)
                        times[label].append(time.perf_counter() - t0)
                    results[label] = c
                reset_cache(backend, cache)
                with backend.decoding_mode("llguidance", True):
                    wall, _ = to_dispatch(backend, msgs, grammars["required"])
                times["required + ff, to dispatch"].append(wall)
                call = results["required + ff"]
                toks = backend.llm.tokenize(call.text.encode(), add_bos=False, special=True)
                reset_cache(backend, cache)
                times["same call, free decoding"].append(teacher_forced(backend, msgs, toks))
                reset_cache(backend, cache)
                times["same call, free, to dispatch"].append(teacher_forced(backend, msgs, toks, to_dispatch=True))
                st = call.info["constrained"]
                ff_share.append(st["ff_tokens"] / max(1, st["ff_tokens"] + st["sampled"]))
                decodes.append(st["decodes"] / (len(toks) + 1))  # free: one decode per token + prompt tail
                free_tokens.append(results["free decoding (model's own text)"].usage["completion_tokens"])
                call_tokens.append(len(toks))
        base = statistics.median(times["same call, free decoding"])
        base_dispatch = statistics.median(times["same call, free, to dispatch"])
        out[cache] = {k: {"wall_s": statistics.median(v),
                          "ratio": statistics.median(v) / (base_dispatch if "dispatch" in k else base)}
                      for k, v in times.items()}
        out[cache]["ff_token_share"] = statistics.median(ff_share)
        out[cache]["call_tokens"] = statistics.median(call_tokens)
        out[cache]["free_tokens"] = statistics.median(free_tokens)
        out[cache]["decode_calls_ratio"] = statistics.median(decodes)
    return out


def bench_masks(backend: Any) -> dict:
    import numpy as np

    from edgevox.grammars import json_schema_grammar
    from edgevox.llm.constrained import engine_for

    g = json_schema_grammar(REVIEW)
    text = ('{"title": "Inception", "year": 2010, "summary": "A thief enters dreams. He plants an idea.", '
            '"tags": ["sci-fi", "heist"], "rating": 9}')
    toks = backend.llm.tokenize(text.encode(), add_bos=False, special=True)
    out = {}
    for name in ("llguidance", "llama"):
        eng = engine_for(backend, name)
        m = eng.start(g)
        full, single = [], []
        for t in toks:
            m._mask_cache = None
            t0 = time.perf_counter()
            m.allowed_mask()
            full.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for _ in range(20):
                m.is_allowed(t)
            single.append((time.perf_counter() - t0) / 20)
            m.consume(t)
        out[name] = {"full_mask_us": float(np.median(full) * 1e6), "single_check_us": float(np.median(single) * 1e6),
                     "tokens": len(toks)}
    return out


def bench_batch(backend: Any, reps: int = 5) -> dict:
    """What a decode of k tokens costs relative to one token on this machine (fast-forward
    pays off exactly as much as batched decodes are cheaper than single ones)."""
    from edgevox.llm.threads import small_batch_threads

    llm = backend.llm
    toks = llm.tokenize(b"The quick brown fox jumps over the lazy dog. " * 40, add_bos=False)[:300]
    with backend.lock:
        llm.reset()
        llm.eval(toks[:200])
        cost: dict[int, list[float]] = {k: [] for k in (1, 2, 4, 8)}
        for _ in range(reps):
            for k in cost:
                llm.n_tokens = 200
                t0 = time.perf_counter()
                with small_batch_threads(llm, k):  # as the constrained loop runs forced tokens
                    llm.eval(toks[200:200 + k])
                cost[k].append(time.perf_counter() - t0)
        llm.reset()
    one = statistics.median(cost[1])
    return {k: statistics.median(v) / one for k, v in cost.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=None,
                    help="fix llama.cpp's threads (default: the backend's choice, see edgevox.llm.threads)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--parts", default="abc", help="which parts to run, e.g. 'b' (default: abc)")
    args = ap.parse_args()

    from edgevox.llm import load_model
    from edgevox.llm.constrained import engine_for
    from edgevox.models import ensure_model

    load0 = os.getloadavg()[0]
    kw = {"n_threads": args.threads} if args.threads else {}
    backend = load_model(str(ensure_model("qwen2.5-coder-0.5b")), preset="qwen25", n_ctx=4096, **kw)
    t0 = time.perf_counter()
    engine_for(backend, "llguidance")
    tok_build = time.perf_counter() - t0
    engine_for(backend, "llama")
    backend.complete([{"role": "user", "content": "hi"}], max_tokens=2)  # warm-up

    report = {"machine": {"cpus": os.cpu_count(), "threads": getattr(backend.llm, "n_threads", None),
                          "batch_threads": getattr(backend.llm, "n_threads_batch", None),
                          "loadavg_start": load0, "llguidance_tokenizer_build_s": tok_build},
              "a_json_tok_s": bench_json(backend, args.rounds, args.max_tokens) if "a" in args.parts else {},
              "b_tool_call_wall": bench_calls(backend, args.rounds) if "b" in args.parts else {},
              "c_engine_time_per_token": bench_masks(backend) if "c" in args.parts else {},
              "batch_cost_vs_one_token": bench_batch(backend) if "b" in args.parts else {}}
    report["machine"]["loadavg_end"] = os.getloadavg()[0]
    backend.close()
    if args.json:
        print(json.dumps(report, indent=1))
        return
    m = report["machine"]
    print(f"EdgeVox constrained decoding -- Qwen2.5-Coder-0.5B Q4_K_M, {m['threads']} decode / "
          f"{m['batch_threads']} batch threads, "
          f"{m['cpus']} cpus, load avg {m['loadavg_start']:.1f} -> {m['loadavg_end']:.1f}; "
          f"llguidance tokenizer built in {m['llguidance_tokenizer_build_s']:.2f} s")
    print(f"\n(a) decode tokens/s, JSON-schema grammar, greedy, {args.max_tokens} tokens max, "
          f"median of {args.rounds * len(JSON_PROMPTS)} runs (goal >= 0.90x free)")
    for k, v in report["a_json_tok_s"].items():
        same = "" if v["same_text_as_lcp_grammar"] is None else \
            f"   same text as llama-cpp-python grammar: {v['same_text_as_lcp_grammar']}"
        print(f"  {k:34s} {v['tok_s']:6.1f} tok/s   {v['ratio']:.2f}x{same}")
    print("\n(b) wall time, request -> complete tool call (hermes, 3 tools, greedy), relative to "
          "free decoding of the same call (goal <= 0.60x); \"to dispatch\" rows: until the streaming "
          "parser completes the call (the agent starts the tool there), relative to free decoding "
          "until it picks the call's last token")
    for cache, rows in report["b_tool_call_wall"].items():
        print(f"  [{cache}] call: {rows['call_tokens']:.0f} tokens, {rows['ff_token_share']:.0%} of them "
              f"fast-forwarded; decode calls vs free: {rows['decode_calls_ratio']:.2f}x; "
              f"the model's own free text: {rows['free_tokens']:.0f} tokens")
        for k, v in rows.items():
            if isinstance(v, dict):
                print(f"    {k:34s} {v['wall_s']:6.2f} s   {v['ratio']:.2f}x")
    bc = report["batch_cost_vs_one_token"]
    if bc:
        print("  (a decode of k tokens here costs " + ", ".join(f"k={k}: {v:.1f}x" for k, v in bc.items())
              + " one token)")
    print("\n(c) grammar-engine time per token (JSON-schema grammar, median over the steps of a reply)")
    for k, v in report["c_engine_time_per_token"].items():
        print(f"  {k:11s} whole-vocabulary mask {v['full_mask_us']:9.1f} us   "
              f"single-token check {v['single_check_us']:6.1f} us")


if __name__ == "__main__":
    main()
