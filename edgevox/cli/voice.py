"""`edgevox voice`: speak to the agent — live through the sound card, or WAV in, WAV out."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from edgevox.cli import say_error
from edgevox.grammars.choice import POLICIES

#: the policy `edgevox voice` and `demo` use unless told otherwise: None = the model's
#: calling profile (the preset's ``[profile]``, chosen with `edgevox eval home`; "auto" when it
#: names none). Never a forced first-hop call: under required_first_hop every "good night"
#: becomes an action (issue 14: 91 % of no-tool utterances acted on, 83 % under auto).
VOICE_POLICY: str | None = None


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("voice", help="talk to the agent: live audio, or --input WAV --output WAV")
    add_common(p)
    p.add_argument("--input", type=Path, default=None, help="a WAV file with the request (headless)")
    p.add_argument("--output", type=Path, default=None, help="where to write the reply WAV")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--json", action="store_true", help="print transcript, calls, reply, metrics as JSON")
    view.add_argument("--tui", action="store_true",
                      help="a live terminal face: state, mic level, turns, calls, latency "
                           "(keys: m mute, c cancel the turn, q quit)")
    p.add_argument("--realtime", action="store_true",
                   help="with --input: feed the request at speech pace and play the reply at "
                        "real-time pace into --output, as a live session would")
    p.add_argument("--list-devices", action="store_true", help="list sound devices and exit")
    p.add_argument("--input-device", default=None, help="microphone: index or part of the name")
    p.add_argument("--output-device", default=None, help="speaker: index or part of the name")
    p.add_argument("--duplex", action="store_true",
                   help="listen while speaking (barge-in with an echo guard); default half-duplex")
    p.add_argument("--wake", default=None, metavar="NAME[,NAME]",
                   help="wait for a wake word first (okay_nabu, hey_jarvis, alexa, hey_mycroft, "
                        "or a microWakeWord .json); needs the wake extra")
    p.add_argument("--wake-cue", default="chime", choices=("chime", "speech", "none"),
                   help="what it does when woken (default: chime)")
    p.add_argument("--follow-up", type=float, default=5.0, metavar="SECONDS",
                   help="with --wake: how long after a reply a follow-up needs no wake word")
    p.add_argument("--wake-threshold", type=float, default=None,
                   help="with --wake: score a model must exceed (default: each model's own)")
    p.set_defaults(func=run)


def add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default="qwen2.5-coder-0.5b", help="registered name, GGUF path or URL")
    p.add_argument("--preset", default=None, help="preset name (default: from the model)")
    p.add_argument("--stt", default="whisper-tiny.en", help="speech-to-text model (registry name)")
    p.add_argument("--language", default="en", help="spoken language for multilingual Whisper")
    p.add_argument("--voice", default="piper-joe-medium", help="Piper voice (registry name)")
    p.add_argument("--policy", default=VOICE_POLICY, choices=POLICIES,
                   help="tool_choice policy (default: the model's calling profile, else auto)")
    p.add_argument("--max-tokens", type=int, default=160)


def build_voice_agent(args: argparse.Namespace) -> tuple[Any, Any]:
    """The home-assistant agent used by `voice` and `demo`, and the home it controls."""
    from edgevox.examples.home import home_agent

    return home_agent(args.model, preset=args.preset, policy=args.policy, max_tokens=args.max_tokens)


def build_pipeline(args: argparse.Namespace) -> Any:
    from edgevox.voice import PipelineConfig, PiperTTS, VoicePipeline, WakeConfig, WhisperSTT

    config = PipelineConfig()
    if getattr(args, "wake", None):
        config.wake = WakeConfig(args.wake.split(","), cue=args.wake_cue, follow_up_s=args.follow_up,
                                 threshold=args.wake_threshold)
    pipe = VoicePipeline(WhisperSTT(model=args.stt, language=args.language), PiperTTS(voice=args.voice),
                         config=config)
    if config.wake is not None:
        _ = pipe.wake  # load the wake-word models now: a bad name fails before anything else loads
    return pipe


def start_up(args: argparse.Namespace, pipe: Any = None) -> tuple[Any, Any, Any, dict]:
    """Load STT, TTS and the LLM in parallel and warm them all: the pipeline (unless given)
    in a thread while the agent loads and evaluates (or restores) its prompt prefix.

    Returns (pipeline, agent, home, readiness); ``readiness`` has the seconds it took and
    what the prompt cache did. Publishes ``State.READY`` on the pipeline's observer bus.
    """
    import threading
    import time

    from edgevox.voice import State

    t0 = time.perf_counter()
    box: dict[str, Any] = {"pipe": pipe}

    def voice() -> None:
        try:
            if box["pipe"] is None:
                box["pipe"] = build_pipeline(args)
            box["pipe"].stt.warmup()
            box["pipe"].tts.warmup()
        except BaseException as exc:  # raised again on the main thread
            box["error"] = exc

    loader = threading.Thread(target=voice, name="edgevox-voice-load", daemon=True)
    loader.start()
    agent, home = build_voice_agent(args)
    warm = agent.warm_job.wait() if agent.warm_job is not None else None
    loader.join()
    if "error" in box:
        raise box["error"]
    ready = {"seconds": time.perf_counter() - t0, "prompt_cache": prompt_cache_note(warm)}
    box["pipe"].events.set_state(State.READY)
    return box["pipe"], agent, home, ready


def prompt_cache_note(warm: dict | None) -> str:
    """One phrase for what the warm-up did with the prompt prefix."""
    if not warm:
        return "not used (no prefix warm-up)"
    said = {"disk": "restored", "evaluated": "evaluated and saved", "memory": "already in memory"}
    return f"{said.get(warm['source'], warm['source'])}, {warm['tokens']} tokens in {warm['seconds']:.2f}s"


def responder_for(agent: Any):
    """The agent as the pipeline's responder; ``prepare`` prefills a speculative transcript."""
    def respond(text: str, stop: Any):
        return agent.run_stream(text, stop_event=stop)

    respond.prepare = agent.prefill  # type: ignore[attr-defined]
    return respond


def report_dict(rep: Any, home: Any) -> dict:
    data = rep.to_dict()
    data["home"] = home.summary()
    return data


def print_report(rep: Any, home: Any) -> None:
    from edgevox.agents import ToolCallEvent, ToolResultEvent

    if rep.wake:
        print(f"wake:    {rep.wake['name']} (score {rep.wake['score']:.2f})")
    if rep.note:
        print(f"note:    {rep.note}")
    print(f"heard:   {rep.transcript!r}")
    for e in rep.events:
        if isinstance(e, ToolCallEvent):
            print(f"call:    {e.name}({json.dumps(e.arguments, ensure_ascii=False)})")
        elif isinstance(e, ToolResultEvent):
            shown = e.result if e.ok else f"error: {e.error}"
            print(f"result:  {json.dumps(shown, ensure_ascii=False, default=str)}")
    print(f"reply:   {rep.reply_text!r}")
    print(f"home:    {home.summary()}")
    print(f"metrics: {rep.metrics}")


def run(args: argparse.Namespace) -> int:
    from edgevox.voice import AudioError, list_devices

    if args.list_devices:
        try:
            for d in list_devices():
                print(d)
        except AudioError as exc:
            say_error("voice", exc)
            return 1
        return 0
    try:
        # with a wake word or the face, the pipeline first: a bad name fails before the LLM
        # loads, and the face sees every state; otherwise it loads next to the LLM
        pipe = build_pipeline(args) if args.wake or args.tui else None
        if args.tui:
            return run_tui(args, pipe)
        pipe, agent, home, ready = start_up(args, pipe)
    except (ValueError, RuntimeError) as exc:  # an unknown wake word, a missing extra
        say_error("voice", exc)
        return 2
    print(f"ready in {ready['seconds']:.1f}s (prompt cache: {ready['prompt_cache']})", file=sys.stderr)
    if args.input is not None:
        rep = pipe.run_file(args.input, args.output, responder_for(agent), realtime=args.realtime)
        follow_ups = pipe.reports[1:]  # with --wake, turns after the first need no wake word
        if args.json:
            data = report_dict(rep, home)
            if follow_ups:
                data["follow_ups"] = [r.to_dict() for r in follow_ups]
            print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
        else:
            for r in [rep, *follow_ups]:
                print_report(r, home)
        return 0 if not rep.error else 1
    try:
        waiting = f"waiting for {args.wake.replace(',', ' or ')}" if args.wake else "listening"
        print(f"{waiting}… (Ctrl-C to stop)", file=sys.stderr)
        reports = pipe.run_live(responder_for(agent), input_device=args.input_device,
                                output_device=args.output_device, duplex=args.duplex)
    except AudioError as exc:
        say_error("voice", exc)
        return 1
    for rep in reports:
        print_report(rep, home)
    return 0


def run_tui(args: argparse.Namespace, pipe: Any) -> int:
    """`edgevox voice --tui`: the same session with the terminal face (`edgevox.cli.face`)."""
    import threading

    from edgevox.cli.face import Face, FaceModel, KeyReader
    from edgevox.voice import AudioError

    model = FaceModel(f"EdgeVox · {Path(str(args.model)).name}",
                      "keys: m mute · c cancel the turn · q quit")
    face = Face(model)
    try:
        problem = face.problem() or (None if args.input is not None else _check_sound_devices(args))
    except AudioError as exc:
        problem = str(exc)
    if problem:
        say_error("voice", problem)
        return 1
    quit_ = threading.Event()
    with face:
        pipe.events.subscribe(model.observe)
        pipe, agent, _home, _ready = start_up(args, pipe)

        def stop() -> None:
            quit_.set()
            pipe.cancel_turn()

        keys = {"m": lambda: pipe.mute(not pipe.muted), "c": pipe.cancel_turn, "q": stop}
        with KeyReader(keys):
            if args.input is not None:
                rep = pipe.run_file(args.input, args.output, responder_for(agent),
                                    realtime=args.realtime, stop_event=quit_)
                return 0 if not rep.error else 1
            try:
                pipe.run_live(responder_for(agent), input_device=args.input_device,
                              output_device=args.output_device, duplex=args.duplex, stop_event=quit_)
            except AudioError as exc:
                face.erase_on_exit()
                err = exc
            else:
                return 0
    say_error("voice", err)
    return 1


def _check_sound_devices(args: argparse.Namespace) -> None:
    """Fail before the models load (and before the face draws) when there is no sound card."""
    from edgevox.voice.audio import AudioError, list_devices, resolve_device

    devices = list_devices()
    for kind, spec in (("input", args.input_device), ("output", args.output_device)):
        if not any((d.max_input_channels if kind == "input" else d.max_output_channels) > 0
                   for d in devices):
            raise AudioError(f"There is no {kind} sound device; check that a sound card is present, "
                             "or use WAV files with --input/--output.")
        resolve_device(spec, kind)
