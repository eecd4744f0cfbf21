"""`edgevox models list | pull NAME | path NAME`."""

from __future__ import annotations

import argparse
import json
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="list, pull and locate models")
    msub = p.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    ls = msub.add_parser("list", help="show every registered model")
    ls.add_argument("--json", action="store_true", help="machine-readable output")
    ls.set_defaults(func=cmd_list)
    pull = msub.add_parser("pull", help="download and verify a model into the cache")
    pull.add_argument("name")
    pull.add_argument("--force", action="store_true", help="fetch again even if present")
    pull.set_defaults(func=cmd_pull)
    path = msub.add_parser("path", help="print the local path of a model (pulls it if needed)")
    path.add_argument("name")
    path.set_defaults(func=cmd_path)


def cmd_list(args: argparse.Namespace) -> int:
    from edgevox.models import MODELS, is_pulled

    rows = [
        {"name": s.name, "kind": s.kind, "preset": s.preset, "size": s.size,
         "sha256": s.main_file.sha256, "source": s.source, "pulled": is_pulled(s.name),
         "description": s.description}
        for s in MODELS.values()
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="EdgeVox models")
    for col in ("name", "kind", "preset", "size", "pulled", "source"):
        table.add_column(col)
    for r in rows:
        size = f"{r['size'] / 1e6:.0f} MB" if r["size"] else "?"
        table.add_row(r["name"], r["kind"], r["preset"] or "", size,
                      "yes" if r["pulled"] else "", r["source"])
    Console().print(table)
    return 0


def _progress():
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    prog = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                    transient=True, disable=not sys.stderr.isatty())
    tasks: dict[str, int] = {}

    def update(name: str, done: int, total: int | None) -> None:
        if name not in tasks:
            tasks[name] = prog.add_task(name, total=total)
        prog.update(tasks[name], completed=done)

    return prog, update


def cmd_pull(args: argparse.Namespace) -> int:
    from edgevox.models import pull

    prog, update = _progress()
    print(f"pulling {args.name} …", file=sys.stderr)
    with prog:
        path = pull(args.name, progress=update, force=args.force)
    print(path)
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    from edgevox.models import ensure_model

    prog, update = _progress()
    with prog:
        print(ensure_model(args.name, progress=update))
    return 0
