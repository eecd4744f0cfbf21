"""Validation levels and structural tags: grammar build time and decode speed, side by side.

    .venv/bin/python benchmarks/bench_validation.py [--rounds 2] [--max-tokens 48] [--json]

On the real Qwen2.5-Coder-0.5B (preset qwen25, hermes calls), for the home registry
(11 tools) and a 60-tool registry (the home tools plus 49 generated device tools):

(a) grammar build, cold (a fresh build: compile + validate) and cached (GrammarCache hit),
    for the reply-or-call grammar at ``structural`` and ``schema_aware`` and for the same
    tools written as a structural tag (``tools_structural_tag`` -> ``structural_tag_grammar``);
(b) decode tokens/s as ratios to free decoding of the same requests: free, ``structural``,
    ``schema_aware`` (the preset's own grammar) and the structural tag of the preset's
    format (``response_format={"type": "structural_tag", ...}``). The prompt always shows the
    11 home tools (60 would not fit the context); the 60-tool rows constrain with the large
    grammar, which is what a huge schema set costs.

Modes are interleaved request by request and medians reported, so a busy machine slows
all of them alike. Print ``uptime`` next to any absolute number you quote.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

PROMPTS = ["Turn on the kitchen light.", "Set a timer for 12 minutes.", "What's the weather in Paris?",
           "Thanks, that's all for now.", "Put milk on the shopping list.", "Play some jazz."]


def home_tools() -> list[dict]:
    from edgevox.examples.home import Home

    return [t.openai_schema() for t in Home().tools()]


def many_tools(n: int = 60) -> list[dict]:
    """The home tools plus generated device tools with small, varied schemas."""
    tools = home_tools()
    kinds = ("fan", "blind", "vacuum", "heater", "camera", "lock", "sprinkler")
    for i in range(n - len(tools)):
        kind = kinds[i % len(kinds)]
        tools.append({"type": "function", "function": {
            "name": f"set_{kind}_{i}", "description": f"Control {kind} number {i}.",
            "parameters": {"type": "object", "properties": {
                "room": {"type": "string", "enum": ["kitchen", "bedroom", "office", "garage"]},
                "level": {"type": "integer", "minimum": 0, "maximum": 100},
                "mode": {"type": "string"}, "on": {"type": "boolean"}},
                "required": ["room", "on"], "additionalProperties": False}}})
    return tools


def grammars(tools: list[dict]) -> dict[str, Any]:
    """The constraint of each mode for these tools (None: free decoding)."""
    from edgevox.grammars import reply_or_tool_grammar
    from edgevox.grammars.structural_tag import structural_tag_grammar, tools_structural_tag

    return {"free": None,
            "structural": reply_or_tool_grammar(tools, "hermes", validation="structural"),
            "schema_aware": reply_or_tool_grammar(tools, "hermes"),
            "structural_tag": structural_tag_grammar(tools_structural_tag(tools, "hermes", tool_choice="auto"))}


def build_times(tools: list[dict], rounds: int) -> dict[str, dict[str, float]]:
    """Median ms to build each grammar cold (caches cleared) and from a GrammarCache."""
    from edgevox.grammars import GrammarCache, reply_or_tool_grammar
    from edgevox.grammars.structural_tag import (
        _compile,
        structural_tag_grammar,
        tools_structural_tag,
    )

    out: dict[str, dict[str, float]] = {}
    builds = {
        "structural": lambda: reply_or_tool_grammar(tools, "hermes", validation="structural"),
        "schema_aware": lambda: reply_or_tool_grammar(tools, "hermes"),
        "structural_tag": lambda: structural_tag_grammar(tools_structural_tag(tools, "hermes")),
    }
    for name, build in builds.items():
        cold = []
        for _ in range(rounds):
            _compile.cache_clear()
            t0 = time.perf_counter()
            build().parsed()
            cold.append((time.perf_counter() - t0) * 1000)
        out[name] = {"cold_ms": statistics.median(cold)}
    cache = GrammarCache()
    for level in ("structural", "schema_aware"):
        opts = {"validation": "structural"} if level == "structural" else {}
        cache.get("reply_or_tool", tools, "hermes", **opts)
        t0 = time.perf_counter()
        for _ in range(100):
            cache.get("reply_or_tool", tools, "hermes", **opts)
        out[level]["cached_ms"] = (time.perf_counter() - t0) * 10
    tag = tools_structural_tag(tools, "hermes")
    structural_tag_grammar(tag)
    t0 = time.perf_counter()
    for _ in range(100):
        structural_tag_grammar(tag)
    out["structural_tag"]["cached_ms"] = (time.perf_counter() - t0) * 10
    return out


def decode(backend: Any, shown: list[dict], modes: dict[str, Any], rounds: int,
           max_tokens: int) -> dict[str, dict[str, float]]:
    speeds: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(rounds):
        for prompt in PROMPTS:
            msgs = [{"role": "user", "content": prompt}]
            for mode, grammar in modes.items():
                c = backend.complete(msgs, shown, grammar=grammar, max_tokens=max_tokens, temperature=0.0)
                n, seconds = c.usage.get("completion_tokens", 0), c.timings.get("decode_s", 0.0)
                if n >= 4 and seconds > 0:
                    speeds[mode].append(n / seconds)
    free = statistics.median(speeds["free"])
    return {m: {"tok_s": statistics.median(v), "ratio": statistics.median(v) / free, "n": len(v)}
            for m, v in speeds.items() if v}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from edgevox.llm import load_model
    from edgevox.models import ensure_model

    backend = load_model(str(ensure_model("qwen2.5-coder-0.5b")), preset="qwen25", n_ctx=4096)
    shown = home_tools()
    results: dict[str, Any] = {"load": os.getloadavg()[0]}
    for label, tools in (("home (11 tools)", shown), ("60 tools", many_tools())):
        results[label] = {"build": build_times(tools, args.rounds),
                          "decode": decode(backend, shown, grammars(tools), args.rounds, args.max_tokens)}
    backend.close()
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"load average at start: {results['load']:.2f}")
    for label, r in results.items():
        if label == "load":
            continue
        print(f"\n{label}\n| mode | build cold ms | build cached ms | decode tok/s | x free |\n|---|---:|---:|---:|---:|")
        for mode, d in r["decode"].items():
            b = r["build"].get(mode, {})
            cold = f"{b['cold_ms']:.1f}" if b else "-"
            cached = f"{b['cached_ms']:.3f}" if b else "-"
            print(f"| {mode} | {cold} | {cached} | {d['tok_s']:.1f} | {d['ratio']:.2f} |")


if __name__ == "__main__":
    main()
