"""`edgevox demo`: the main job — a spoken request through the whole pipeline, headless.

Piper speaks the request into a WAV; then VAD → Whisper → LLMAgent with the home tools
→ Piper, and the reply is written to a WAV. Prints what was heard, the calls, the home's
state and the latency metrics.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from edgevox.cli.voice import (
    add_common,
    print_report,
    report_dict,
    responder_for,
    start_up,
)

DEFAULT_REQUEST = "Turn on the kitchen light."


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="a spoken request through VAD, STT, the agent and TTS")
    add_common(p)
    p.add_argument("--say", default=DEFAULT_REQUEST, help="the request Piper speaks")
    p.add_argument("--request-wav", type=Path, default=None, help="use this WAV instead of --say")
    p.add_argument("--output", type=Path, default=Path("edgevox-demo-reply.wav"),
                   help="where to write the reply WAV")
    p.add_argument("--json", action="store_true", help="print the turn as one JSON document")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    pipe, agent, home, ready = start_up(args)
    print(f"ready:   in {ready['seconds']:.1f}s (STT, TTS and the LLM loaded in parallel)", file=sys.stderr)
    print(f"prompt cache: {ready['prompt_cache']}", file=sys.stderr)
    request = args.request_wav
    if request is None:
        request = Path(tempfile.mkdtemp(prefix="edgevox-demo-")) / "request.wav"
        pipe.tts.to_wav(args.say, request)
        print(f"said:    {args.say!r} (Piper → {request})", file=sys.stderr)
    print(f"home:    {home.summary()}", file=sys.stderr)
    rep = pipe.run_file(request, args.output, responder_for(agent))
    if args.json:
        data = report_dict(rep, home)
        data["ready"] = ready
        print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        print_report(rep, home)
        print(f"prompt cache: {ready['prompt_cache']}")
        print(f"wrote:   {args.output}")
    return 0 if not rep.error else 1
