"""What the calling profile costs a voice turn: prompt tokens and first-token latency.

    .venv/bin/python benchmarks/bench_profile.py            # today's vs the shipped profile
    .venv/bin/python benchmarks/bench_profile.py --json

Two agents over the home tools, each on its own loaded copy of the default model (so each
keeps its own prompt prefix warm), take the same requests in turn, side by side:

  today      the qwen25 preset as before: hermes, free decoding, no demonstrations
  profile    the model's shipped calling profile (``edgevox.agents`` defaults)

Per row: prompt-prefix tokens, the cold first-token time (empty KV cache: the whole
prefix is evaluated), and the warm one (prefix cached, a fresh session each request):
median and p90 of ``AgentResult.timings["ttft_s"]`` over the requests; then the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgevox.evals.stats import quantile  # noqa: E402

REQUESTS = [  # a mix like a voice session: small talk and one-call requests
    "Hello, who are you?",
    "Turn on the kitchen light.",
    "Thank you, that is all.",
    "Set the thermostat to twenty one degrees.",
    "How are you today?",
    "Start a timer for ten minutes.",
    "What is the capital of France?",
    "What time is it?",
]


def _agent(backend, today: bool):
    from edgevox.agents import DEFAULT_INSTRUCTIONS, LLMAgent
    from edgevox.examples.home import Home

    extra = dict(demonstrations=False, tool_choice_policy="auto", constrain_auto=False,
                 instructions=DEFAULT_INSTRUCTIONS) if today else {}
    return LLMAgent(tools=Home().tools(), model=backend, temperature=0.0, seed=0, max_tokens=48, **extra)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--rounds", type=int, default=2, help="passes over the requests")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from edgevox.llm import load_model
    from edgevox.models import get_spec

    rows = {}
    agents = {}
    for name, today in (("today", True), ("profile", False)):
        backend = load_model(args.model, preset="qwen25" if today else get_spec(args.model).preset, n_ctx=4096)
        agent = _agent(backend, today)
        prefix = backend.render(agent.prompt_prefix() + [{"role": "user", "content": "x"}], agent.registry.schemas())
        backend.llm.reset()  # cold: nothing of the prefix is cached
        cold = agent.run(REQUESTS[0]).timings["ttft_s"]
        agents[name] = agent
        rows[name] = {"preset": backend.preset.name, "prefix_tokens": len(backend.tokenize(prefix)),
                      "cold_ttft_s": cold, "warm": []}
    for _ in range(args.rounds):
        for text in REQUESTS:
            for name, agent in agents.items():  # side by side: same request, one after the other
                agent.reset()
                r = agent.run(text)
                if r.timings["ttft_s"] is not None:
                    rows[name]["warm"].append(r.timings["ttft_s"])
    for row in rows.values():
        warm = row.pop("warm")
        row["warm_ttft_p50_s"] = statistics.median(warm)
        row["warm_ttft_p90_s"] = quantile(warm, 0.9)
    ratio = {k: rows["profile"][k] / rows["today"][k] for k in ("prefix_tokens", "cold_ttft_s",
                                                                   "warm_ttft_p50_s", "warm_ttft_p90_s")}
    if args.json:
        print(json.dumps({"rows": rows, "ratio_profile_over_today": ratio}, indent=2))
        return 0
    print(f"{'row':<9} {'preset':<16} {'prefix tok':>10} {'cold ttft':>10} {'warm p50':>9} {'warm p90':>9}")
    for name, row in rows.items():
        print(f"{name:<9} {row['preset']:<16} {row['prefix_tokens']:>10} {row['cold_ttft_s']:>9.2f}s "
              f"{row['warm_ttft_p50_s']:>8.2f}s {row['warm_ttft_p90_s']:>8.2f}s")
    print(f"{'ratio':<26} {ratio['prefix_tokens']:>10.2f} {ratio['cold_ttft_s']:>10.2f} "
          f"{ratio['warm_ttft_p50_s']:>9.2f} {ratio['warm_ttft_p90_s']:>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
