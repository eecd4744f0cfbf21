"""What writing the calls again in the model's own layout costs a turn, side by side.

    .venv/bin/python benchmarks/bench_own_layout.py            # 2 rounds over the requests
    .venv/bin/python benchmarks/bench_own_layout.py --json

Two agents with the shipped profile over tools with no ``@tool(examples=)`` (the weather,
time and timer dicts of ``edgevox.examples.clock_weather``: their demonstrations are made
up, so the own-layout hop applies), each on its own loaded copy of the default model (so
each keeps its own prompt state), take the same requests in turn:

  envelope   own layout off: the envelope's calls run as decoded
  own        the shipped profile: on an acting first hop the request is decoded again as
             the model's fenced JSON list (edgevox.agents.own_layout)

Per row: the median and p90 of the whole turn (``AgentResult.timings["total_s"]``) for
requests that act and for small talk (which never takes the second generation), then the
ratios own / envelope. Tools answer at once, so the times are the model's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgevox.evals.stats import quantile  # noqa: E402

ACTING = [
    "What's the weather in Paris and in Rome?",
    "What time is it in Tokyo?",
    "Set a timer for 12 minutes for the pasta and another one for 3 minutes for the eggs.",
    "Is it raining in Berlin today?",
]
SMALL_TALK = ["Hello, who are you?", "Thank you, that is all.", "How are you today?"]


def _tools():
    from edgevox.examples.clock_weather import TOOLS
    from edgevox.tools import Tool

    return [Tool.from_schema(t, lambda **_: {"ok": True}) for t in TOOLS]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2, help="passes over the requests")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    args = ap.parse_args()
    from edgevox.agents import LLMAgent, default_slm_hooks
    from edgevox.llm import load_model

    agents = {}
    for name in ("envelope", "own"):
        agent = LLMAgent(tools=_tools(), model=load_model(args.model, n_ctx=4096), hooks=default_slm_hooks(),
                         temperature=0.0, seed=0, max_tokens=160)
        if name == "envelope":
            agent.own_layout = None
        agent.warm(wait=True)
        agents[name] = agent
    times: dict[str, dict[str, list[float]]] = {n: {"acting": [], "small_talk": []} for n in agents}
    rewritten = dict.fromkeys(agents, "")
    for _ in range(args.rounds):
        for kind, requests in (("acting", ACTING), ("small_talk", SMALL_TALK)):
            for text in requests:
                for name, agent in agents.items():  # side by side: same request, one after the other
                    agent.reset()
                    r = agent.run(text)
                    times[name][kind].append(r.timings["total_s"])
    for name, agent in agents.items():
        rewritten[name] = (f"{agent.loop_stats.get('own_layout_calls', 0)} of "
                           f"{agent.loop_stats.get('own_layout_hops', 0)} hops")
    rows = {name: {f"{kind}_{stat}": f(xs) for kind, xs in kinds.items()
                   for stat, f in (("p50_s", statistics.median), ("p90_s", lambda xs: quantile(xs, 0.9)))}
            for name, kinds in times.items()}
    ratio = {k: rows["own"][k] / rows["envelope"][k] for k in rows["own"]}
    if args.json:
        print(json.dumps({"rows": rows, "ratio_own_over_envelope": ratio, "calls_rewritten": rewritten}, indent=2))
        return 0
    print(f"{'row':<9} {'acting p50':>10} {'acting p90':>10} {'talk p50':>9} {'talk p90':>9}  calls rewritten (of own-layout hops)")
    for name, row in rows.items():
        print(f"{name:<9} {row['acting_p50_s']:>9.2f}s {row['acting_p90_s']:>9.2f}s {row['small_talk_p50_s']:>8.2f}s "
              f"{row['small_talk_p90_s']:>8.2f}s  {rewritten[name]}")
    print(f"{'ratio':<9} {ratio['acting_p50_s']:>10.2f} {ratio['acting_p90_s']:>10.2f} "
          f"{ratio['small_talk_p50_s']:>9.2f} {ratio['small_talk_p90_s']:>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
