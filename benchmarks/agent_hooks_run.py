"""How often each SLM safety hook fires on real small-model turns, and how many turns end well.

Runs >= 50 varied requests (single tool calls, parallel calls, small talk, ambiguous and
impossible requests) through one LLMAgent with ``default_slm_hooks()`` on the real
Qwen2.5-Coder-0.5B, each in a fresh session, and prints per-hook counts, the share of
turns that ended with the model's own reply, and the other endings.

    .venv/bin/python benchmarks/agent_hooks_run.py [--policy auto] [--limit N] [--record out.json]

``--record`` writes every turn (request, generations, hooks fired, calls, reply) as JSON:
the raw generations are what the hook tests replay as real model outputs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgevox.agents import Hook, LLMAgent, default_slm_hooks  # noqa: E402
from edgevox.examples.home import Home  # noqa: E402
from edgevox.tools import tool  # noqa: E402

REQUESTS: list[tuple[str, str]] = [
    # single tool calls
    ("tool", "Turn on the kitchen light."),
    ("tool", "Switch off the lights in the bedroom."),
    ("tool", "Set the thermostat to 22 degrees."),
    ("tool", "Start a timer for 10 minutes for the pasta."),
    ("tool", "What time is it?"),
    ("tool", "What's the weather in Paris?"),
    ("tool", "Dim the living room light to 30 percent."),
    ("tool", "Make it 19 degrees in here."),
    ("tool", "Set a 5 minute timer."),
    ("tool", "Is it raining in London?"),
    ("tool", "Turn the office light on please."),
    ("tool", "What day is it today?"),
    ("tool", "Set the heating to 35 degrees."),
    ("tool", "Turn on the light in the garage."),
    ("tool", "How warm is it in Tokyo right now?"),
    ("tool", "Start a timer for twenty minutes called tea."),
    ("tool", "Turn off the hallway light."),
    ("tool", "Could you turn the bathroom light on?"),
    ("tool", "What's the temperature in Berlin?"),
    ("tool", "Set the thermostat to 21.5."),
    # parallel calls
    ("parallel", "What's the weather in Paris and in Rome?"),
    ("parallel", "Turn on the kitchen and the living room lights."),
    ("parallel", "Turn off the lights in the bedroom and the office."),
    ("parallel", "What's the weather in Madrid, Lisbon and Athens?"),
    ("parallel", "Set the thermostat to 20 and start a 15 minute timer."),
    ("parallel", "Tell me the time and the weather in Oslo."),
    ("parallel", "Switch on the hallway light and set the heating to 23."),
    ("parallel", "Weather in New York and London please."),
    # small talk
    ("talk", "Hello!"),
    ("talk", "How are you today?"),
    ("talk", "Tell me a joke."),
    ("talk", "Thank you, that's all."),
    ("talk", "What's your name?"),
    ("talk", "What can you do?"),
    ("talk", "Good night."),
    ("talk", "What is the capital of France?"),
    ("talk", "How many legs does a spider have?"),
    ("talk", "Say something nice."),
    # ambiguous or impossible
    ("ambiguous", "Turn it on."),
    ("ambiguous", "Make it warmer."),
    ("ambiguous", "Set a timer."),
    ("ambiguous", "What's the weather like?"),
    ("ambiguous", "Lights."),
    ("ambiguous", "I'm cold."),
    ("ambiguous", "It's too dark in here."),
    ("ambiguous", "Do the thing from before."),
    ("ambiguous", "Turn off everything."),
    ("ambiguous", "How long is left on my timer?"),
    ("ambiguous", "Can you book me a flight to Rome?"),
    ("ambiguous", "Play some music."),
    ("ambiguous", "Order a pizza."),
    ("ambiguous", "Set the lights."),
    ("ambiguous", "Is it hot outside?"),
    ("ambiguous", "Wake me up at 7."),
]

INSTRUCTIONS = ("You are a home voice assistant. Use the tools to control the home, tell the time "
                "or the weather; otherwise answer in one short sentence.")


@tool
def get_weather(city: str) -> dict:
    """Current weather for a city.

    Args:
        city: Name of the city, e.g. Paris.
    """
    return {"city": city, "temp_c": 12 + len(city) % 9, "sky": "cloudy" if len(city) % 2 else "sunny"}


class Recorder(Hook):
    """Keeps every raw generation of the current turn in ``sink`` (observes, never acts)."""

    name = "recorder"
    priority = -1

    def __init__(self, sink: list[str]) -> None:
        super().__init__()
        self.sink = sink

    def after_llm(self, ctx: Any, output: Any) -> None:
        self.sink.append(output.text)


def run_policy(backend: Any, policy: str, requests: list[tuple[str, str]], max_tokens: int,
               verbose: bool = True) -> dict[str, Any]:
    """Every request in a fresh session under one tool_choice policy; counts and rows."""
    texts: list[str] = []
    home = Home()
    agent = LLMAgent("bench", "home assistant", INSTRUCTIONS, tools=[*home.tools(), get_weather], model=backend,
                     tool_choice_policy=policy, hooks=[*default_slm_hooks(), Recorder(texts)],
                     max_hops=4, max_tokens=max_tokens, temperature=0.0, seed=0)
    endings: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    rows = []
    t0 = time.perf_counter()
    for i, (kind, text) in enumerate(requests, 1):
        agent.reset()
        texts.clear()
        before = dict(agent.hook_stats)
        r = agent.run(text)
        fired = {k: v - before.get(k, 0) for k, v in agent.hook_stats.items() if v != before.get(k, 0)}
        endings[r.stopped_reason] += 1
        by_kind.setdefault(kind, Counter())[r.stopped_reason] += 1
        calls = [f"{c.name}({json.dumps(c.arguments, ensure_ascii=False)})" + ("" if c.ok else f"!{c.error_type}")
                 for c in r.calls]
        if verbose:
            print(f"[{policy}] {i:2d} [{kind:9s}] {r.stopped_reason:8s} hops={r.hops} {r.timings['total_s']:5.1f}s "
                  f"{text!r} -> {r.reply[:90]!r} calls={calls} hooks={fired}", flush=True)
        rows.append({"policy": policy, "kind": kind, "request": text, "reply": r.reply,
                     "stopped_reason": r.stopped_reason, "hops": r.hops, "hooks": fired,
                     "generations": list(texts), "calls": [c.to_dict() for c in r.calls], "timings": r.timings})
    return {"policy": policy, "rows": rows, "endings": endings, "by_kind": by_kind, "wall_s": time.perf_counter() - t0,
            "hook_stats": agent.hook_stats, "hook_errors": agent.hook_errors, "loop_stats": dict(agent.loop_stats)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--preset", default="qwen25")
    ap.add_argument("--policies", default="auto,required_first_hop",
                    help="comma-separated tool_choice policies, run side by side")
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--limit", type=int, default=None, help="run only the first N requests")
    ap.add_argument("--pick", default=None, help="run only these request numbers, e.g. 5,9,13")
    ap.add_argument("--quiet", action="store_true", help="no per-turn lines")
    ap.add_argument("--record", type=Path, default=None, help="write every turn as JSON here")
    args = ap.parse_args(argv)

    from edgevox.llm import load_model

    t_load = time.perf_counter()
    backend = load_model(args.model, preset=args.preset, n_ctx=4096)
    print(f"model {args.model} (preset {backend.preset.name}) loaded in {time.perf_counter() - t_load:.1f} s")
    requests = REQUESTS[: args.limit] if args.limit else REQUESTS
    if args.pick:
        requests = [REQUESTS[int(i) - 1] for i in args.pick.split(",")]
    runs = [run_policy(backend, p.strip(), requests, args.max_tokens, not args.quiet)
            for p in args.policies.split(",") if p.strip()]
    n = len(requests)
    kinds = Counter(k for k, _ in requests)
    print()
    print(f"{n} requests per policy ({dict(kinds)}), fresh session each, max_tokens {args.max_tokens}, "
          f"temperature 0, max_hops 4")
    head = f"{'':34s}" + "".join(f"{r['policy']:>22s}" for r in runs)
    print(head)

    def line(label: str, values: list[str]) -> None:
        print(f"{label:34s}" + "".join(f"{v:>22s}" for v in values))

    print("hook fires (turns where it fired):")
    for h in default_slm_hooks():
        line(f"  {h.name}", [f"{r['hook_stats'].get(h.name, 0)} ({sum(1 for x in r['rows'] if h.name in x['hooks'])})"
                             for r in runs])
    line("  hook errors", [str(sum(r["hook_errors"].values())) for r in runs])
    for key in ("retries", "empty_replies", "note_echoes", "grammar_failures"):
        line(f"  loop: {key}", [str(r["loop_stats"].get(key, 0)) for r in runs])
    line("ended with the model's reply", [f"{r['endings'].get('reply', 0)}/{n} = {r['endings'].get('reply', 0) / n:.0%}"
                                          for r in runs])
    line("ended with words (any ending)", [f"{sum(1 for x in r['rows'] if x['reply'].strip())}/{n}" for r in runs])
    for reason in ("hook", "max_hops", "hook_failed", "error", "context_overflow", "cancelled"):
        if any(r["endings"].get(reason) for r in runs):
            line(f"  ended by {reason}", [str(r["endings"].get(reason, 0)) for r in runs])
    for kind in kinds:
        line(f"  {kind}: model replies", [f"{r['by_kind'].get(kind, Counter()).get('reply', 0)}/{kinds[kind]}"
                                          for r in runs])
    line("turns with >= 1 tool call", [str(sum(1 for x in r["rows"] if x["calls"])) for r in runs])
    line("mean hops per turn", [f"{sum(x['hops'] for x in r['rows']) / n:.2f}" for r in runs])
    line("wall time", [f"{r['wall_s']:.0f} s" for r in runs])
    if args.record:
        rows = [row for r in runs for row in r["rows"]]
        args.record.write_text(json.dumps(rows, ensure_ascii=False, indent=1, default=str))
        print(f"turns written to {args.record}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
