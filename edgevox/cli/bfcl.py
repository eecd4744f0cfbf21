"""``edgevox bfcl …`` sub-commands: ``fetch``, ``run``, ``replay`` and ``report``.

``edgevox.cli`` calls :func:`add_parser` with its sub-parsers action and then runs
``args.func(args)``, which returns the exit status. It lives in the cli stage (not in
``edgevox.bfcl``) so imports flow one way: cli -> bfcl.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from edgevox.cli import say_error

__all__ = ["add_parser", "main"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``bfcl`` and its sub-commands on an argparse sub-parsers action."""
    parser = subparsers.add_parser(
        "bfcl",
        help="BFCL AST regression suite (data, runs, replays)",
        description="Berkeley Function Calling Leaderboard AST regression suite.",
    )
    commands = parser.add_subparsers(dest="bfcl_command", metavar="COMMAND", required=True)
    _add_fetch(commands)
    _add_run(commands)
    _add_replay(commands)
    _add_report(commands)
    return parser


def _add_fetch(commands: Any) -> None:
    from edgevox.bfcl.data import BFCL_VERSION

    fetch = commands.add_parser(
        "fetch",
        help=f"download and unpack the BFCL data (bfcl-eval {BFCL_VERSION})",
        description=(
            f"Download the bfcl-eval {BFCL_VERSION} wheel without its dependencies, check its "
            "sha256 and unpack the data into $EDGEVOX_HOME/bfcl/<version>/ "
            "(default ~/.cache/edgevox). Prints the data directory."
        ),
    )
    source = fetch.add_mutually_exclusive_group()
    source.add_argument("--wheel", metavar="PATH", help="use a local bfcl_eval wheel (offline)")
    source.add_argument(
        "--data", metavar="PATH", help="use a local bfcl_eval/data directory (offline)"
    )
    fetch.add_argument("--dest", metavar="PATH", help="unpack here instead of the cache")
    fetch.add_argument("--force", action="store_true", help="unpack again even if present")
    fetch.add_argument("--json", action="store_true", help="print a JSON object")
    fetch.set_defaults(func=_run_fetch)


def _run_fetch(args: argparse.Namespace) -> int:
    from edgevox.bfcl.data import BFCL_VERSION, BfclDataError, fetch

    try:
        path = fetch(dest=args.dest, wheel=args.wheel or args.data, force=args.force)
    except (BfclDataError, OSError) as exc:
        say_error("bfcl", exc)
        return 1
    if args.json:
        print(json.dumps({"data": str(path), "version": BFCL_VERSION}))
    else:
        print(path)
    return 0


def _add_run(commands: Any) -> None:
    from edgevox.bfcl.runner import RUN_POLICIES, SYSTEM_PROMPTS
    from edgevox.cli.options import add_agent_options

    run = commands.add_parser(
        "run",
        help="run BFCL cases through a model and score them",
        description=(
            "Run each case single-turn: the model's own chat template with the case's tools, "
            "the grammar of --policy, the preset's parser chain, then the AST checker. "
            "Appends one JSON line per case to --out and skips ids already there (resumable); "
            "writes <out>.summary.json and <out>.summary.md."
        ),
    )
    run.add_argument(
        "--model",
        default="qwen2.5-coder-0.5b",
        help="registered model name or GGUF path (default: qwen2.5-coder-0.5b)",
    )
    run.add_argument("--preset", help="preset name (default: the model's registered preset)")
    run.add_argument(
        "--categories",
        default="simple_python,multiple,parallel,parallel_multiple,irrelevance",
        help="comma-separated BFCL categories",
    )
    run.add_argument(
        "--policy",
        choices=RUN_POLICIES,
        help="(default reply_or_tool) auto = no grammar; reply_or_tool = reply text or well-formed calls; "
        "required = calls only",
    )
    run.add_argument("--limit", type=int, help="first N cases of each category")
    run.add_argument("--start", type=int, default=0,
                     help="skip the first N cases of each category (--start 100 --limit 100: cases 100-199)")
    run.add_argument("--ids", help="comma-separated case ids (within the categories)")
    run.add_argument("--out", required=True, metavar="FILE.jsonl", help="records file (appended)")
    run.add_argument(
        "--system",
        metavar="NAME|TEXT",
        help=f"system prompt: one of {', '.join(SYSTEM_PROMPTS)} or literal text "
        "(default: the template's own)",
    )
    run.add_argument(
        "--wire-format",
        metavar="FORMAT",
        help="write the grammar in this call format instead of the preset's (e.g. json_fenced: "
        "a fenced JSON list of calls, what small models write when asked for a JSON list); "
        "the preset's parser chain still reads the output",
    )
    run.add_argument(
        "--validation",
        choices=("none", "structural", "schema_aware"),
        default="schema_aware",
        help="grammar level: schema_aware = tool names and argument schemas (default); "
        "structural = the call format's markup and syntax only (any name, any arguments "
        "object; with --policy auto: reply text or structurally well-formed calls); none = no grammar",
    )
    run.add_argument(
        "--reuse",
        metavar="AUTO.jsonl",
        help="with a grammar policy: keep outputs of this policy-auto run (same model, preset, "
        "system, max tokens) that the grammar accepts and generate only the rejected ones; at "
        "temperature 0 a kept output is what token-by-token grammar decoding writes, and equals "
        "EdgeVox's fast-forward grammar path only up to trailing whitespace (bfcl/README.md)",
    )
    run.add_argument(
        "--abstain",
        action="store_true",
        help="offer an extra no_function_fits tool (its calls count as no call)",
    )
    run.add_argument("--max-tokens", type=int, default=320)
    run.add_argument("--n-ctx", type=int, default=4096)
    run.add_argument(
        "--threads", type=int, help="llama.cpp threads (default: all cores, at most 8)"
    )
    run.add_argument(
        "--peer",
        choices=("llama-cpp-python",),
        help="answer with llama-cpp-python's own tool calling instead of EdgeVox",
    )
    run.add_argument(
        "--engine",
        choices=("edgevox", "agent"),
        default="edgevox",
        help="edgevox: one generation under --policy/--system/--wire-format; agent: each case "
        "through LLMAgent with its shipped defaults (the preset's calling profile, the SLM "
        "hooks), which --policy/--system/--wire-format/--abstain/--reuse do not apply to",
    )
    add_agent_options(run)
    run.add_argument("--data", metavar="PATH", help="BFCL data directory (default: the cache)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.set_defaults(func=_run_run)


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def _run_run(args: argparse.Namespace) -> int:
    from edgevox.bfcl.data import BfclDataError, load_cases
    from edgevox.bfcl.report import read_records
    from edgevox.bfcl.runner import EdgeVoxEngine, PeerEngine, RunConfigError, run_cases

    agent = args.engine == "agent"
    if agent and (args.peer or args.policy or args.system or args.wire_format or args.abstain or args.reuse):
        say_error("bfcl", "--engine agent runs LLMAgent's shipped defaults; change them with --set KEY=VALUE, "
                  "not --peer/--policy/--system/--wire-format/--abstain/--reuse")
        return 2
    if args.agent_options and not agent:
        say_error("bfcl", "--set applies to --engine agent only")
        return 2
    if args.peer and args.policy not in (None, "auto"):
        say_error("bfcl", "--peer runs llama-cpp-python's own tool calling; --policy does not apply")
        return 2
    ids = _split(args.ids) or None
    try:
        per_cat = [
            load_cases(cat, data_dir=args.data, limit=None if args.limit is None else args.start + args.limit,
                       ids=ids)[args.start:]
            for cat in _split(args.categories)
        ]
    except (BfclDataError, KeyError, ValueError) as exc:
        say_error("bfcl", exc)
        return 1
    # round-robin over categories: a run stopped early still covers every category evenly
    cases = [c for group in itertools.zip_longest(*per_cat) for c in group if c is not None]
    if not cases:
        say_error("bfcl", "no cases selected")
        return 1
    existing = {r["id"]: r for r in read_records(args.out)}
    if all(c.id in existing for c in cases) and not agent:  # resume with nothing left: no model needed
        wanted = {
            "engine": "llama-cpp-python" if args.peer else "edgevox",
            "model": args.model,
            "policy": "auto" if args.peer else (args.policy or "reply_or_tool"),
            "system": args.system,
        }
        if args.preset:
            wanted["preset"] = args.preset
        if not args.peer:
            wanted["abstain"] = args.abstain
            wanted["wire_format"] = args.wire_format
            wanted["validation"] = args.validation if args.validation != "schema_aware" else None
        clash = [
            k
            for r in existing.values()
            for k, v in wanted.items()
            if (r.get(k) or None) != (v or None)
        ]
        if clash:
            say_error("bfcl", f"{args.out} holds records of another run "
                      f"({', '.join(sorted(set(clash)))} differ); use a new --out file")
            return 2
        _write_and_print_summary([existing[c.id] for c in cases], args)
        return 0
    reuse = None
    if args.reuse:
        reuse = {
            r["id"]: r
            for r in read_records(args.reuse)
            if r.get("engine") == "edgevox"
            and r.get("policy") == "auto"
            and r.get("system") == args.system
            and r.get("max_tokens") == args.max_tokens
            and r.get("model") == args.model
            and bool(r.get("abstain")) == args.abstain
        }
    engine: Any = None
    try:
        if agent:
            from edgevox.bfcl.agent_engine import AgentEngine
            from edgevox.cli.options import parse_options

            engine = AgentEngine(args.model, args.preset, max_tokens=args.max_tokens, n_ctx=args.n_ctx,
                                 threads=args.threads, agent_options=parse_options(args.agent_options))
        elif args.peer:
            engine = PeerEngine(
                args.model,
                system=args.system,
                max_tokens=args.max_tokens,
                n_ctx=args.n_ctx,
                threads=args.threads,
            )
        else:
            engine = EdgeVoxEngine(
                args.model,
                args.preset,
                policy=args.policy or "reply_or_tool",
                system=args.system,
                max_tokens=args.max_tokens,
                n_ctx=args.n_ctx,
                reuse=reuse,
                threads=args.threads,
                abstain=args.abstain,
                wire_format=args.wire_format,
                validation=args.validation,
            )
            engine.reuse = {
                k: v for k, v in engine.reuse.items() if v.get("preset") == engine.preset.name
            }
        records = run_cases(cases, engine, args.out, progress=not args.no_progress)
    except RunConfigError as exc:
        say_error("bfcl", exc)
        return 2
    finally:
        if engine is not None:
            engine.close()
    desc = engine.describe()
    title = f"{desc['model']} · {desc['engine']} · {desc['preset']} · policy {desc['policy']}"
    _write_and_print_summary(records, args, title)
    return 0


def _write_and_print_summary(
    records: Sequence[Mapping[str, Any]], args: argparse.Namespace, title: str | None = None
) -> None:
    """Write ``<out>.summary.{json,md}`` and print the summary (JSON with ``--json``).

    One ending for ``run``, whether it generated records or only resumed a finished file.
    """
    from edgevox.bfcl.report import markdown_table, summarize, write_summary

    write_summary(records, args.out, title)
    summary = summarize(records)
    print(json.dumps(summary, indent=2) if args.json else markdown_table(summary, title))


def _add_replay(commands: Any) -> None:
    replay = commands.add_parser(
        "replay",
        help="re-parse and re-score recorded outputs with the current code (no model)",
        description=(
            "Re-parse recorded raw model text with the current parser chain and re-check it. "
            "With no FILES, replays the pinned set in bfcl/pinned/ and compares it with "
            "bfcl/baseline.json case by case: exit status 1 when any case that was right is "
            "now wrong, unless bfcl/allowlist.toml lists it with a reason."
        ),
    )
    replay.add_argument("files", nargs="*", metavar="FILE.jsonl")
    replay.add_argument("--data", metavar="PATH", help="BFCL data directory (default: the cache)")
    replay.add_argument(
        "--baseline",
        metavar="PATH",
        help="compare with this baseline (default for the pinned set: bfcl/baseline.json)",
    )
    replay.add_argument(
        "--update-baseline",
        action="store_true",
        help="write the replayed verdicts (correct ids per cell) as the new baseline",
    )
    replay.add_argument("--changes", action="store_true", help="list ids whose verdict changed")
    replay.add_argument("--json", action="store_true", help="print a JSON object")
    replay.set_defaults(func=_run_replay)


def _run_replay(args: argparse.Namespace) -> int:
    from edgevox.bfcl.baseline import (
        BASELINE_PATH,
        compare,
        load_allowlist,
        load_baseline,
        make_baseline,
        save_baseline,
    )
    from edgevox.bfcl.data import BfclDataError
    from edgevox.bfcl.replay import by_group, pinned_files, replay_file
    from edgevox.bfcl.report import markdown_table, summarize

    files = [Path(f) for f in args.files] or pinned_files()
    if not files:
        say_error("bfcl", "no files given and no pinned set in bfcl/pinned/")
        return 1
    baseline_path = args.baseline or (None if args.files else BASELINE_PATH)
    t0 = time.perf_counter()
    records: list[dict[str, Any]] = []
    fixed: list[str] = []
    broken: list[str] = []
    try:
        for f in files:
            res = replay_file(f, data_dir=args.data)
            records += res.records
            fixed += [f"{f.name}:{i}" for i in res.fixed]
            broken += [f"{f.name}:{i}" for i in res.broken]
    except (BfclDataError, OSError, ValueError) as exc:
        say_error("bfcl", exc)
        return 1
    elapsed = time.perf_counter() - t0
    groups = {g: summarize(rows) for g, rows in by_group(records).items()}
    problems: list[str] = []
    if args.update_baseline:
        path = save_baseline(make_baseline(records), args.baseline or BASELINE_PATH)
        print(f"baseline written: {path}", file=sys.stderr)
    elif baseline_path is not None and Path(baseline_path).is_file():
        try:
            allow = load_allowlist()
        except ValueError as exc:
            say_error("bfcl", exc)
            return 1
        problems = compare(make_baseline(records), load_baseline(baseline_path), allow)
    if args.json:
        print(
            json.dumps(
                {
                    "files": [str(f) for f in files],
                    "seconds": round(elapsed, 3),
                    "groups": groups,
                    "fixed": fixed,
                    "broken": broken,
                    "regressions": problems,
                },
                indent=2,
            )
        )
    else:
        for group, summary in groups.items():
            print(markdown_table(summary, group))
        print(
            f"replayed {len(records)} records from {len(files)} file(s) in {elapsed:.2f} s; "
            f"{len(fixed)} fixed, {len(broken)} broken vs the recording"
        )
        if args.changes:
            for i in fixed:
                print(f"  fixed  {i}")
            for i in broken:
                print(f"  broken {i}")
        for p in problems:
            print(f"REGRESSION {p}")
    return 1 if problems else 0


def _add_report(commands: Any) -> None:
    from edgevox.bfcl.replay import PINNED_DIR

    report = commands.add_parser(
        "report",
        help="compare runs per category: a Markdown table and a PNG chart",
        description=(
            "Summarise run files (their recorded verdicts) per category next to published "
            "leaderboard rows, and write <out>.md and <out>.png. With no --run, the runs and "
            "rows listed in bfcl/report.json (the pinned runs) are used."
        ),
    )
    report.add_argument("--spec", metavar="FILE.json", default=str(PINNED_DIR.parent / "report.json"),
                        help="runs and reference rows (default: bfcl/report.json)")
    report.add_argument("--run", action="append", default=[], metavar="LABEL=FILE[,FILE]",
                        help="a run to compare (repeatable); replaces the spec's runs")
    report.add_argument("--no-reference", action="store_true", help="leave out the published rows")
    report.add_argument("--out", metavar="PATH", default=str(PINNED_DIR.parent / "report"),
                        help="writes PATH.md and PATH.png (default: bfcl/report)")
    report.add_argument("--no-plot", action="store_true", help="only the Markdown table")
    report.add_argument("--json", action="store_true", help="print the comparison as JSON")
    report.set_defaults(func=_run_report)


def _run_report(args: argparse.Namespace) -> int:
    from edgevox.bfcl.report import compare_runs, comparison_table, plot_comparison
    from edgevox.plot import PlotUnavailable

    try:
        spec = json.loads(Path(args.spec).read_text(encoding="utf-8")) if Path(args.spec).is_file() else {}
        base = Path(args.spec).parent
        if args.run:
            runs = {}
            for item in args.run:
                label, sep, files = item.partition("=")
                if not sep or not label.strip() or not files.strip():
                    raise ValueError(f"--run {item!r}: expected LABEL=FILE[,FILE]")
                runs[label.strip()] = [Path(f.strip()) for f in files.split(",") if f.strip()]
        else:
            runs = {r["label"]: [base / f for f in r["files"]] for r in spec.get("runs", [])}
        if not runs:
            raise ValueError(f"no runs: give --run LABEL=FILE or a spec with runs ({args.spec})")
        refs = {} if args.no_reference else {r["label"]: r["accuracy"] for r in spec.get("reference", [])}
        cmp = compare_runs(runs, refs, spec.get("title", "BFCL AST accuracy per category"))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        say_error("bfcl", exc)
        return 1
    out = Path(args.out)
    md = out.with_name(out.name + ".md")
    md.parent.mkdir(parents=True, exist_ok=True)
    md.write_text(comparison_table(cmp), encoding="utf-8")
    if args.json:
        print(json.dumps({"categories": cmp.categories, "series": cmp.series,
                          "reference": cmp.reference}, indent=2))
    else:
        print(comparison_table(cmp))
    if args.no_plot:
        print(f"wrote {md}", file=sys.stderr)
        return 0
    try:
        png = plot_comparison(cmp, out.with_name(out.name + ".png"))
    except PlotUnavailable as exc:
        say_error("bfcl", f"wrote {md} but no chart: {exc}")
        return 1
    print(f"wrote {md} and {png}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point: ``python -m edgevox.cli.bfcl fetch …``."""
    parser = argparse.ArgumentParser(prog="edgevox")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["bfcl", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
