"""`edgevox eval home`: judge the home voice assistant on the home evaluation set.

    edgevox eval home --policy auto --split dev --out runs/home-auto.jsonl

Prints one table row per policy and split (right call, missed, wrong, unwanted actions,
false claims, p50/p90 latency per turn) and writes one JSON line per turn to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

SETS = ("home", "injected")


def add_parser(sub: argparse._SubParsersAction) -> None:
    from edgevox.cli.options import add_agent_options
    from edgevox.evals.data import SPLITS
    from edgevox.grammars import POLICIES

    p = sub.add_parser("eval", help="run an evaluation set through the agent (home)")
    p.add_argument("set", choices=SETS, help="which evaluation: home (the home voice assistant), injected (messages "
                   "that ask the assistant to act: does it?)")
    p.add_argument("--model", default="qwen2.5-coder-0.5b", help="registered name, GGUF path or URL")
    p.add_argument("--preset", default=None, help="preset name (default: from the model)")
    p.add_argument("--policy", action="append", choices=POLICIES, default=None,
                   help="tool_choice policy; repeat to compare several (default: edgevox voice's, "
                        "the model's calling profile)")
    add_agent_options(p)
    p.add_argument("--split", choices=SPLITS, default="dev",
                   help="dev (for tuning), test (held out: never tune on it), all (both), dev2 to dev65 (the "
                        "written tuning sets, evals/home/tuning*.jsonl) (default: dev)")
    p.add_argument("--ids", default=None, help="only these item ids (comma-separated)")
    p.add_argument("--limit", type=int, default=None,
                   help="only the first N items of each split, in a fixed order that mixes every kind")
    p.add_argument("--without-hook", action="append", default=[], metavar="NAME",
                   help="run without this hook of the voice assistant (e.g. false_claim: what the agent says "
                        "unchecked; relevance: no relevance gate)")
    p.add_argument("--data", type=Path, default=None, help="a folder of *.jsonl items instead of the shipped set")
    p.add_argument("--out", type=Path, default=None, help="write one JSON line per turn here")
    p.add_argument("--from", dest="from_rows", type=Path, action="append", default=None,
                   help="tabulate the rows of earlier --out files instead of running (repeatable)")
    p.add_argument("--by-kind", action="store_true",
                   help="one row per kind of item (direct, indirect, no_device, ...) of --split")
    p.add_argument("--json", action="store_true", help="print the summaries as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-turn progress on stderr")
    p.set_defaults(func=run)


def _progress(row: dict[str, Any]) -> None:
    mark = {"right": "+", "ok": ".", "missed": "m", "wrong": "x", "unwanted": "U"}[row["verdict"]]
    calls = "; ".join(f"{c['name']}({', '.join(f'{k}={v!r}' for k, v in c['arguments'].items())})"
                      for c in row["calls"])
    claim = " FALSE-CLAIM" if row["false_claim"] else ""
    print(f"{mark} {row['id']}/{row['turn']} {row['say']!r} -> {calls or '-'} | {row['reply'][:80]!r}{claim}",
          file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from edgevox.cli.voice import VOICE_POLICY
    from edgevox.evals.data import load_set, mixed
    from edgevox.evals.home import run_items
    from edgevox.llm import load_model

    if args.set == "injected":
        return _run_injected(args)
    if args.from_rows:
        rows = [json.loads(line) for f in args.from_rows for line in f.read_text(encoding="utf-8").splitlines()
                if line.strip()]
        return _show(args, rows, "rows from " + ", ".join(str(f) for f in args.from_rows))
    items = load_set(args.set, args.split, root=args.data)
    if args.ids:
        want = {i.strip() for i in args.ids.split(",") if i.strip()}
        items = [it for it in items if it.id in want]
    items = mixed(items)  # dev first (its numbers are ready early), every kind in any prefix
    if args.limit is not None:
        items = [it for split in dict.fromkeys(i.split for i in items) for it in [i for i in items if i.split == split][: args.limit]]
    if not items:
        raise ValueError("no items selected")
    options = _agent_options(args)
    backend = load_model(args.model, preset=args.preset)  # as `edgevox voice` loads it
    out = args.out.open("w", encoding="utf-8") if args.out else None
    rows: list[dict[str, Any]] = []
    try:
        for policy in args.policy or [VOICE_POLICY]:
            def on_row(row: dict[str, Any]) -> None:
                if not args.quiet:
                    _progress(row)
                if out is not None:
                    out.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
                    out.flush()
            rows += run_items(backend, items, policy=policy, agent_options=options, on_row=on_row)
    finally:
        if out is not None:
            out.close()
        backend.close()
    from edgevox.evals.home import options_label

    label = ", ".join(f"{k}={v}" for k, v in options_label(options).items()) or "shipped defaults"
    return _show(args, rows, f"{args.model} · preset {args.preset or 'of the model'} · {label} · {len(items)} items")


def _agent_options(args: argparse.Namespace) -> dict[str, Any]:
    """The agent options of the command line, with the hooks ``--without-hook`` leaves out."""
    from edgevox.cli.options import parse_options

    options = parse_options(args.agent_options)
    if args.without_hook:
        from edgevox.examples.home import home_hooks

        hooks = home_hooks()
        unknown = set(args.without_hook) - {h.name for h in hooks}
        if unknown:
            raise ValueError(f"no default hook named {', '.join(sorted(unknown))}; "
                             f"known: {', '.join(h.name for h in hooks)}")
        options["hooks"] = [h for h in hooks if h.name not in args.without_hook]
    return options


def _run_injected(args: argparse.Namespace) -> int:
    """`edgevox eval injected`: every message of ``evals.injected`` through its dialogues."""
    from edgevox.evals.injected import run_dialogues, table
    from edgevox.llm import load_model

    options = _agent_options(args)
    backend = load_model(args.model, preset=args.preset)
    out = args.out.open("w", encoding="utf-8") if args.out else None

    def on_row(row: dict[str, Any]) -> None:
        if not args.quiet:
            print(f"{'OBEYED' if row['obeyed'] else 'tried' if row['tried'] else 'ok'} m{row['message']}/d{row['dialogue']} "
                  f"{row['lines']} -> {[(c['name'], c['dispatched']) for c in row['calls']]}", file=sys.stderr, flush=True)
        if out is not None:
            out.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            out.flush()
    try:
        rows = run_dialogues(backend, agent_options=options, on_row=on_row)
    finally:
        if out is not None:
            out.close()
        backend.close()
    without = ", ".join(f"without {h}" for h in args.without_hook) or "shipped defaults"
    print(f"injected evaluation · {args.model} · {without}")
    print(table(rows, without))
    return 0


def _show(args: argparse.Namespace, rows: list[dict[str, Any]], title: str) -> int:
    from edgevox.evals.home import table

    if args.by_kind:
        if args.split != "all":
            rows = [r for r in rows if r["split"] == args.split]
        title += f" · by kind, split {args.split}"
    summaries, md = table(rows, by_kind=args.by_kind)
    if args.json:
        print(json.dumps(summaries, indent=2))
    else:
        print(f"home evaluation · {title}")
        print(md)
    return 0
