"""`edgevox wyoming`: serve speech-to-text, text-to-speech, the agent and the wake word to
Home Assistant (or any Wyoming client) over tcp:// or unix://."""

from __future__ import annotations

import argparse
import asyncio
import sys

from edgevox.cli.voice import add_common, build_voice_agent


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("wyoming", help="Wyoming server for Home Assistant: STT, TTS, agent, wake word")
    p.add_argument("--uri", default="tcp://127.0.0.1:10700",
                   help="where to listen: tcp://HOST:PORT or unix://PATH (default tcp://127.0.0.1:10700; tcp://0.0.0.0:10700 for Home Assistant on another machine)")
    add_common(p)
    p.add_argument("--wake", nargs="*", default=None, metavar="NAME",
                   help="wake words to serve (default: every installed one; --wake with no name: off)")
    p.add_argument("--no-stt", action="store_true", help="do not serve speech-to-text")
    p.add_argument("--no-tts", action="store_true", help="do not serve text-to-speech")
    p.add_argument("--no-agent", action="store_true", help="do not serve the conversation agent")
    p.add_argument("--max-conversations", type=int, default=64,
                   help="conversations kept at once (oldest forgotten first)")
    p.add_argument("--conversation-ttl", type=float, default=1800.0,
                   help="seconds a conversation is kept after its last turn")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from edgevox.wyoming import Service, ServiceConfig, serve

    cfg = ServiceConfig(stt=None if args.no_stt else args.stt, language=args.language,
                        voice=None if args.no_tts else args.voice, handle=not args.no_agent,
                        wake=args.wake, max_conversations=args.max_conversations,
                        conversation_ttl_s=args.conversation_ttl)
    agent = None if args.no_agent else (lambda: build_voice_agent(args)[0])
    service = Service(cfg, agent=agent)
    on = [name for name, progs in (("stt", service.info.asr), ("tts", service.info.tts),
                                   ("agent", service.info.handle), ("wake", service.info.wake)) if progs]
    print(f"edgevox wyoming: serving {', '.join(on) or 'nothing'} on {args.uri} "
          "(models load in the background)", file=sys.stderr, flush=True)
    asyncio.run(serve(args.uri, service))
    return 0
