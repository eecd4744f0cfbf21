"""`edgevox bfcl …`: the BFCL AST regression harness (sub-commands live in edgevox.bfcl.cli)."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    from edgevox.bfcl.cli import add_subparser

    add_subparser(sub)
