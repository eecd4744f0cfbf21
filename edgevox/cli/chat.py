"""`edgevox chat`: a text conversation with an LLMAgent in the terminal.

Reply text streams to stdout; tool calls and results are shown on stderr so a pipe gets
only what the assistant says. Ctrl-C during a reply cancels that turn (the conversation
stays consistent); Ctrl-C or an empty line at the prompt quits.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from edgevox.cli import say_error

TOOLSETS = ("none", "home")


def add_parser(sub: argparse._SubParsersAction) -> None:
    from edgevox.grammars.choice import POLICIES  # the one list of tool_choice policies

    p = sub.add_parser("chat", help="talk to the model in text (REPL, or one --prompt)")
    p.add_argument("--model", default="qwen2.5-coder-0.5b", help="registered name, GGUF path or server URL")
    p.add_argument("--preset", default=None, help="preset name (default: from the model)")
    p.add_argument("--prompt", default=None, help="answer this one message and exit")
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=None)
    p.add_argument("--seed", type=int, default=None)
    view = p.add_mutually_exclusive_group()
    view.add_argument("--json", action="store_true", help="print the turn's result as JSON")
    view.add_argument("--tui", action="store_true",
                      help="show each turn as the voice face does: calls, results, reply, latency")
    p.add_argument("--tools", choices=TOOLSETS, default="none",
                   help="tool set: none, or home (lights, thermostat, timers, music, volume, "
                        "shopping list, weather, time)")
    p.add_argument("--policy", default="auto", choices=POLICIES,
                   help="tool_choice policy")
    p.add_argument("--max-hops", type=int, default=4)
    p.add_argument("--instructions", default=None, help="system instructions for the agent")
    p.add_argument("--no-slm-hooks", action="store_true", help="run without the SLM safety hooks")
    p.add_argument("--session", type=Path, default=None,
                   help="JSON file: continue this conversation and save it after every turn")
    p.set_defaults(func=run)


def build_agent(args: argparse.Namespace) -> Any:
    from edgevox.agents import LLMAgent, Session, default_slm_hooks

    tools: list = []
    instructions = args.instructions or "You are a helpful assistant. Answer in one or two short sentences."
    if args.tools == "home":
        from edgevox.examples.home import Home

        tools = Home().tools()
        instructions = args.instructions or (
            "You are a home voice assistant. Use the tools to control the home or to tell the weather "
            "and the time; answer in one short sentence.")
    session = Session.load(args.session) if args.session and args.session.exists() else None
    return LLMAgent("chat", "terminal chat", instructions, tools=tools, model=args.model, preset=args.preset,
                    tool_choice_policy=args.policy, hooks=[] if args.no_slm_hooks else default_slm_hooks(),
                    max_hops=args.max_hops, max_tokens=args.max_tokens, temperature=args.temperature,
                    seed=args.seed, session=session)


def _show_event(item: Any, mid_line: bool) -> None:
    from edgevox.agents import ToolCallEvent

    if isinstance(item, ToolCallEvent):
        args = ", ".join(f"{k}={v!r}" for k, v in item.arguments.items())
        print(f"{chr(10) if mid_line else ''}  [call {item.name}({args})]", file=sys.stderr, flush=True)
    else:
        shown = item.result if item.ok else f"error: {item.error}"
        text = json.dumps(shown, ensure_ascii=False, default=str)
        print(f"  [-> {text[:200]}]", file=sys.stderr, flush=True)


def _turn(agent: Any, text: str, args: argparse.Namespace) -> int:
    if args.json:
        result = agent.run(text)
        print(json.dumps({"text": result.reply, **result.to_dict()}, ensure_ascii=False, default=str))
    else:
        stream = agent.run_stream(text)
        mid_line = False
        try:
            for item in stream:
                if isinstance(item, str):
                    print(item if mid_line else item.lstrip(), end="", flush=True)
                    mid_line = True
                else:
                    _show_event(item, mid_line)
                    mid_line = False
        except KeyboardInterrupt:
            stream.close()  # cancels the turn; the session stays consistent
            print("\n[cancelled]", file=sys.stderr)
        print()
    if args.session:
        agent.session.save(args.session)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.tui:
        return run_tui(args)
    agent = build_agent(args)
    if args.prompt is not None:
        return _turn(agent, args.prompt, args)
    print("edgevox chat: type a message, empty line or Ctrl-D to quit", file=sys.stderr)
    while True:
        try:
            line = input("> ").strip()
        except EOFError:
            return 0
        if not line:
            return 0
        _turn(agent, line, args)


def run_tui(args: argparse.Namespace) -> int:
    """`edgevox chat --tui`: each typed turn drawn live by the voice face's turn view."""
    from edgevox.cli.face import Face, FaceModel, text_turn

    model = FaceModel(f"EdgeVox chat · {Path(str(args.model)).name}",
                      "Ctrl-C cancels the turn · empty line or Ctrl-D quits", max_turns=1, show_mic=False)
    face = Face(model)
    problem = face.problem()
    if problem:
        say_error("chat", problem)
        return 1
    agent = build_agent(args)
    index = 0
    while True:
        if args.prompt is not None:
            line = args.prompt if index == 0 else ""
        else:
            try:
                line = face.console.input("> ").strip()
            except EOFError:
                line = ""
        if not line:
            return 0
        with face:  # the finished turn stays on screen above the next prompt
            text_turn(model.observe, index, line, agent.run_stream(line))
        if args.session:
            agent.session.save(args.session)
        index += 1
