"""The first turn of a fresh process against its second, with and without the warm-up
preparing decoding (the mask engine and the hops' grammars, `LLMAgent.prepare_decoding`).

    .venv/bin/python benchmarks/bench_first_turn.py            # 3 rounds, default request
    .venv/bin/python benchmarks/bench_first_turn.py --rounds 5 --text "Hello, who are you?"

Each run is a new process: load the default model with its shipped profile, restore the
prompt prefix from a prompt cache (filled once beforehand), then the same request twice,
the KV cache put back to the prefix before each, timed from the request to the first
sentence (LLM only, no audio). "unprepared" runs the warm-up as it was before decoding was
prepared in it (the first turn builds llguidance's tokenizer, compiles its grammars and
makes the first single-token decode at the prefix's length).
The two modes alternate, so load changes hit both alike; the ratios are the result.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def child(text: str, cache_dir: str, prepared: bool) -> dict:
    from edgevox.agents import LLMAgent
    from edgevox.examples.home import home_agent
    from edgevox.llm import load_model
    from edgevox.models import ensure_model
    from edgevox.models.registry import DEFAULT_LLM, get_spec
    from edgevox.voice.text import SentenceSplitter

    if not prepared:
        from edgevox.llm.llama_backend import LlamaBackend

        LLMAgent.prepare_decoding = lambda self: []  # type: ignore[method-assign]
        del LlamaBackend.rehearse
    t0 = time.perf_counter()
    backend = load_model(str(ensure_model(DEFAULT_LLM)), preset=get_spec(DEFAULT_LLM).preset, n_ctx=4096,
                         prompt_cache=cache_dir)
    agent, _home = home_agent(backend)
    warm = agent.warm_job.wait() or {}
    ready = time.perf_counter() - t0
    times = []
    for _ in range(2):
        agent.reset()
        agent.warm(wait=True)  # back to the prefix alone: both turns evaluate the request
        splitter, t = SentenceSplitter(), time.perf_counter()
        first = None
        for piece in agent.run_stream(text):
            if isinstance(piece, str) and piece and splitter.feed(piece) and first is None:
                first = time.perf_counter() - t
        if first is None:
            splitter.flush()
            first = time.perf_counter() - t
        times.append(first)
    backend.close()
    return {"first": times[0], "second": times[1], "ready_s": ready, "source": warm.get("source")}


def run_child(text: str, cache_dir: str, prepared: bool) -> dict:
    cmd = [sys.executable, __file__, "--child", text, cache_dir, "1" if prepared else "0"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--text", default="Set the thermostat to 21 degrees.")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        text, cache_dir, prepared = args.child
        print(json.dumps(child(text, cache_dir, prepared == "1")))
        return
    with tempfile.TemporaryDirectory(prefix="edgevox-bench-first-turn-") as cache_dir:
        run_child(args.text, cache_dir, True)  # fills the prompt cache: every timed run restores
        rows: dict[str, list[dict]] = {"prepared": [], "unprepared": []}
        for _ in range(args.rounds):
            for mode in rows:
                rows[mode].append(run_child(args.text, cache_dir, mode == "prepared"))
    print(f"request {args.text!r}, {args.rounds} fresh processes per mode, first sentence (s):")
    for mode, rs in rows.items():
        first = statistics.median(r["first"] for r in rs)
        second = statistics.median(r["second"] for r in rs)
        ready = statistics.median(r["ready_s"] for r in rs)
        ratio = statistics.median(r["first"] / r["second"] for r in rs)
        print(f"  {mode:10}  first turn {first:.2f}  second {second:.2f}  first/second {ratio:.2f}x  "
              f"ready after {ready:.1f}s  (prompt cache: {', '.join(sorted({str(r['source']) for r in rs}))})")
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
