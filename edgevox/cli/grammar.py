"""`edgevox grammar show`: what the runtime enforces, as a structural tag you can edit.

``--preset NAME --tools FILE`` prints the preset's tool calls under ``--tool-choice`` as a
``response_format`` structural tag (JSON); ``--tag FILE`` reads a structural tag instead.
``--gbnf`` prints the grammar it compiles to. A malformed description is reported with the
field and the reason, exit status 1.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("grammar", help="show the grammar a preset enforces, as a structural tag")
    gsub = p.add_subparsers(dest="grammar_command", metavar="ACTION", required=True)
    show = gsub.add_parser("show", help="print a preset's tool format as a structural tag (or its GBNF)")
    show.add_argument("--preset", help="preset name (its wire format and think tags)")
    show.add_argument("--tools", metavar="FILE",
                      help="JSON file with a list of OpenAI tool objects, or 'home' for the example home registry")
    show.add_argument("--tool-choice", default="auto",
                      help="auto | required | none | a tool name (default auto)")
    show.add_argument("--no-parallel", action="store_true", help="at most one call per reply")
    show.add_argument("--validation", choices=("structural", "schema_aware"), default="schema_aware")
    show.add_argument("--tag", metavar="FILE", help="a structural tag (JSON) to compile instead")
    show.add_argument("--gbnf", action="store_true", help="print the compiled GBNF instead of the JSON")
    show.set_defaults(func=cmd_show)


def _read_json(path: str, what: str) -> Any:
    from edgevox.cli import CommandError

    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise CommandError(f"cannot read {what} {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise CommandError(f"{what} {path} is not JSON: {exc}") from None


def _tools(path: str) -> list:
    from edgevox.cli import CommandError

    if path == "home":
        from edgevox.examples.home import Home

        return [t.openai_schema() for t in Home().tools()]
    data = _read_json(path, "tools file")
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if not isinstance(data, list) or not data:
        raise CommandError(f"tools file {path} must hold a non-empty JSON list of tools")
    return data


def _choice(value: str) -> Any:
    if value in ("auto", "required", "none"):
        return value
    return {"type": "function", "function": {"name": value}}


def cmd_show(args: argparse.Namespace) -> int:
    from edgevox.cli import CommandError
    from edgevox.grammars.structural_tag import structural_tag_grammar, tools_structural_tag

    if args.tag:
        tag = _read_json(args.tag, "structural tag")
    else:
        if not args.preset or not args.tools:
            raise CommandError("give --preset NAME and --tools FILE (or --tag FILE)")
        from edgevox.llm.presets import get_preset

        preset = get_preset(args.preset)
        tag = tools_structural_tag(_tools(args.tools), preset.wire_format, tool_choice=_choice(args.tool_choice),
                                   parallel_tool_calls=not args.no_parallel, think=preset.think,
                                   validation=args.validation)
    grammar = structural_tag_grammar(tag)  # GrammarError names the field that is wrong
    print(grammar.gbnf if args.gbnf else json.dumps(tag, indent=2, ensure_ascii=False))
    return 0
