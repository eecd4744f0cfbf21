"""The home-assistant evaluation: the voice assistant's agent against the ``home`` set.

Each item runs in a fresh simulated ``Home`` with a fresh conversation, through the agent
`edgevox voice` builds (``edgevox.examples.home.home_agent``: same instructions, hooks,
token budget, greedy decoding), turn after turn. What is judged is what happened: the
calls the agent dispatched (and the home they changed) and the reply it spoke. Rows are
plain dicts, one per turn, written as JSONL; ``summarise`` turns them into the table.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable
from typing import Any

from edgevox.evals.data import NAMED_SPLITS, Item
from edgevox.evals.judge import judge_turn
from edgevox.evals.stats import quantile

#: the fixed clock of every simulated home (a Tuesday evening)
CLOCK = dt.datetime(2026, 3, 3, 18, 30)


def run_items(backend: Any, items: Iterable[Item], *, policy: str | None = None, agent_options: dict[str, Any] | None = None,
              on_row: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run every item through a fresh home agent on ``backend``; one row per turn.
    ``policy`` None: the agent's own (the preset's calling profile); rows name the one used."""
    from edgevox.examples.home import Home, home_agent
    from edgevox.grammars import GrammarCache

    opts = dict(agent_options or {})
    opts.setdefault("grammar_cache", GrammarCache())  # one per run: grammars build once
    rows = []
    for item in items:
        home = Home(now=CLOCK)
        agent, _ = home_agent(backend, home=home, policy=policy, **opts)
        for n, turn in enumerate(item.turns):
            before = dict(agent.hook_stats)
            t0 = time.perf_counter()
            result = agent.run(turn.say)
            latency = time.perf_counter() - t0
            verdict = judge_turn(turn.expect, result.calls, result.reply, agent.registry)
            row = {
                "id": item.id, "turn": n, "split": item.split, "kind": item.kind,
                "policy": agent.tool_choice_policy,
                "options": options_label(agent_options),
                "say": turn.say, "expect": turn.expect if turn.expect is not None else "none",
                "calls": [{"name": c.name, "arguments": c.arguments, "ok": c.ok, "dispatched": c.dispatched,
                           "error": c.error, "hop": c.hop, "confidence": c.confidence} for c in result.calls],
                "reply": result.reply, **verdict,
                "latency_s": round(latency, 3), "hops": result.hops, "stopped": result.stopped_reason,
                "hooks": {k: v - before.get(k, 0) for k, v in agent.hook_stats.items() if v > before.get(k, 0)},
                "preset": agent.preset.name, "home": home.summary(),
            }
            rows.append(row)
            if on_row is not None:
                on_row(row)
    return rows


def options_label(options: dict[str, Any] | None) -> dict[str, Any]:
    """The agent options of a row, as JSON: hooks by name (what a table tells apart)."""
    out = {k: v for k, v in (options or {}).items() if k not in ("grammar_cache", "hooks")}
    if options and "hooks" in options:
        from edgevox.examples.home import home_hooks

        given, default = [h.name for h in options["hooks"]], [h.name for h in home_hooks()]
        out["hooks"] = ",".join([f"-{n}" for n in default if n not in given] + [f"+{n}" for n in given
                                                                              if n not in default]) or "default"
    return out


def _pct(n: int, d: int) -> float | None:
    return round(100.0 * n / d, 1) if d else None


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The metrics of a set of rows (turns).

    Requests: right / missed / wrong in % of request turns. No tool fits: unwanted in % of
    those turns, and the number of calls that ran there. False claims: turns whose final
    reply still claims what no call did; claims caught: turns where the ``false_claim`` hook
    acted (retried or rephrased). Made-up readings: turns whose reply states a time or the
    weather no call read ("–" for rows written before they were judged). Latency: p50/p90 of
    the wall time per turn, in seconds.
    """
    req = [r for r in rows if r["expect"] != "none"]
    none = [r for r in rows if r["expect"] == "none"]
    count = lambda rs, v: sum(1 for r in rs if r["verdict"] == v)  # noqa: E731
    lat = [r["latency_s"] for r in rows]
    return {
        "turns": len(rows), "requests": len(req), "no_tool": len(none),
        "right_pct": _pct(count(req, "right"), len(req)), "missed_pct": _pct(count(req, "missed"), len(req)),
        "wrong_pct": _pct(count(req, "wrong"), len(req)),
        "unwanted_pct": _pct(count(none, "unwanted"), len(none)),
        "unwanted_calls": sum(r["ran"] for r in none),
        "false_claims": sum(1 for r in rows if r["false_claim"]),
        "claims_caught": sum(1 for r in rows if (r.get("hooks") or {}).get("false_claim")),
        "made_up": sum(1 for r in rows if r.get("made_up")) if any("made_up" in r for r in rows) else None,
        "p50_s": quantile(lat, 0.5), "p90_s": quantile(lat, 0.9),
    }


COLUMNS = [("policy", "setup"), ("split", "split"), ("turns", "turns"), ("right_pct", "right %"),
           ("missed_pct", "missed %"), ("wrong_pct", "wrong %"), ("unwanted_pct", "unwanted %"),
           ("unwanted_calls", "unwanted calls"), ("false_claims", "false claims"),
           ("claims_caught", "claims caught"), ("made_up", "made-up readings"), ("p50_s", "p50 s"),
           ("p90_s", "p90 s")]


def setup_of(row: dict[str, Any]) -> str:
    """What a row was run with: the policy, then any agent options over the defaults."""
    opts = row.get("options") or {}
    head = [row["preset"]] if row.get("preset") else []
    return " ".join([*head, row["policy"], *(f"{k}={v}" for k, v in sorted(opts.items()))])


def table(rows: list[dict[str, Any]], by_kind: bool = False) -> tuple[list[dict[str, Any]], str]:
    """Summaries per setup and split (dev, test, all) and a Markdown table of them; with
    ``by_kind``, per setup and kind of item instead (over the rows given: pass one split)."""
    out = []
    for setup in dict.fromkeys(setup_of(r) for r in rows):
        mine = [r for r in rows if setup_of(r) == setup]
        if by_kind:
            for kind in sorted({r["kind"] for r in mine}):
                out.append({"policy": setup, "split": kind, **summarise([r for r in mine if r["kind"] == kind])})
            continue
        for split in ("dev", *NAMED_SPLITS, "test", "all"):
            part = [r for r in mine if r["split"] == split or (split == "all" and r["split"] in ("dev", "test"))]
            if part:
                out.append({"policy": setup, "split": split, **summarise(part)})
    cols = [(k, "kind" if by_kind and k == "split" else h) for k, h in COLUMNS]
    head = "| " + " | ".join(h for _, h in cols) + " |"
    rule = "|" + "|".join("---" for _ in cols) + "|"
    lines = [head, rule] + ["| " + " | ".join("–" if s[k] is None else str(s[k]) for k, _ in cols) + " |"
                            for s in out]
    return out, "\n".join(lines)
