"""Command-line options shared by sub-commands that build an ``LLMAgent``."""

from __future__ import annotations

import argparse
from typing import Any

_WORDS = {"true": True, "false": False, "none": None, "null": None}


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``["max_hops=2", "demonstrations=false"]`` -> ``{"max_hops": 2, "demonstrations": False}``.

    Values are Python literals (``ast.literal_eval``), the words true/false/none, or else
    taken as a plain string; a pair without ``=`` is a clear error.
    """
    import ast

    out: dict[str, Any] = {}
    for pair in pairs:
        key, eq, raw = pair.partition("=")
        if not eq or not key.strip().isidentifier():
            raise ValueError(f"--set expects KEY=VALUE with KEY a Python name, got {pair!r}")
        raw = raw.strip()
        if raw.lower() in _WORDS:
            out[key.strip()] = _WORDS[raw.lower()]
            continue
        try:
            out[key.strip()] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            out[key.strip()] = raw
    return out


def add_agent_options(p: argparse.ArgumentParser) -> None:
    """``--set KEY=VALUE`` (repeatable): ``LLMAgent`` options over the shipped defaults."""
    p.add_argument("--set", dest="agent_options", action="append", default=[], metavar="KEY=VALUE",
                   help="an LLMAgent option over the shipped defaults (the preset's calling profile), e.g. "
                        "max_hops=2; VALUE is a Python literal (true/false/none also work); repeatable")
