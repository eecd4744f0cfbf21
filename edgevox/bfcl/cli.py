"""``edgevox bfcl …`` sub-commands (``fetch`` now; ``run`` / ``replay`` join later).

The lead's CLI calls :func:`add_subparser` with its sub-parsers action and then runs
``args.func(args)``, which returns the exit status.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["add_subparser", "main"]


def add_subparser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``bfcl`` and its sub-commands on an argparse sub-parsers action."""
    parser = subparsers.add_parser(
        "bfcl",
        help="BFCL AST regression suite (data, runs, replays)",
        description="Berkeley Function Calling Leaderboard AST regression suite.",
    )
    commands = parser.add_subparsers(dest="bfcl_command", metavar="COMMAND", required=True)
    _add_fetch(commands)
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
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"data": str(path), "version": BFCL_VERSION}))
    else:
        print(path)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point: ``python -m edgevox.bfcl.cli fetch …``."""
    parser = argparse.ArgumentParser(prog="edgevox")
    add_subparser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["bfcl", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
