"""`edgevox chat`: a text conversation with the model in the terminal."""

from __future__ import annotations

import argparse
import json
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("chat", help="talk to the model in text (REPL, or one --prompt)")
    p.add_argument("--model", default="qwen2.5-coder-0.5b", help="registered name or GGUF path")
    p.add_argument("--preset", default=None, help="preset name (default: from the model)")
    p.add_argument("--prompt", default=None, help="answer this one message and exit")
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=None)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--json", action="store_true", help="print the completion as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from edgevox.llm import load_model

    backend = load_model(args.model, preset=args.preset)
    history: list[dict] = []
    opts = {"max_tokens": args.max_tokens, "temperature": args.temperature, "seed": args.seed}
    if args.prompt is not None:
        history.append({"role": "user", "content": args.prompt})
        done: list = []
        if args.json:
            c = backend.complete(history, **opts)
            print(json.dumps({"text": c.text, "usage": c.usage, "timings": c.timings}))
            return 0
        for piece in backend.stream(history, on_done=done.append, **opts):
            print(piece, end="", flush=True)
        print()
        return 0
    print("edgevox chat: type a message, empty line or Ctrl-D to quit", file=sys.stderr)
    while True:
        try:
            line = input("> ").strip()
        except EOFError:
            return 0
        if not line:
            return 0
        history.append({"role": "user", "content": line})
        pieces = []
        for piece in backend.stream(history, **opts):
            pieces.append(piece)
            print(piece, end="", flush=True)
        print()
        history.append({"role": "assistant", "content": "".join(pieces)})
