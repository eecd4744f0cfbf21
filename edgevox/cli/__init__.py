"""The `edgevox` command: one entry point, one sub-command per job.

Each sub-command lives in its own module and imports its heavy parts only when run,
so `edgevox --help` and `edgevox models list` answer instantly.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from edgevox import __version__

# sub-command name -> module that defines add_parser(subparsers)
COMMANDS = {
    "demo": "edgevox.cli.demo",
    "chat": "edgevox.cli.chat",
    "voice": "edgevox.cli.voice",
    "models": "edgevox.cli.models",
    "bfcl": "edgevox.cli.bfcl",
    "eval": "edgevox.cli.evals",
    "wyoming": "edgevox.cli.wyoming",
    "grammar": "edgevox.cli.grammar",
}


class CommandError(Exception):
    """An expected failure: printed as one sentence, exit status 1, no traceback."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="edgevox", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"edgevox {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS.values():
        importlib.import_module(module).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # every expected error type carries a one-sentence message
        if args.verbose:
            raise
        say_error(args.command, exc)
        return 1


def say_error(command: str, problem: object) -> None:
    """The one error style of every sub-command: ``edgevox COMMAND: one line`` on stderr."""
    print(f"edgevox {command}: {_one_line(problem)}", file=sys.stderr)


def _one_line(problem: object) -> str:
    text = str(problem).strip() or type(problem).__name__
    return text.splitlines()[0]
