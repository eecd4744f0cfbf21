"""Voice pipeline latency: spoken requests in, time to first audio out, measured per turn.

    .venv/bin/python benchmarks/bench_voice.py            # voice-only rows + the agent rows
    .venv/bin/python benchmarks/bench_voice.py --no-agent # voice stack only (no LLM)
    .venv/bin/python benchmarks/bench_voice.py --json
    .venv/bin/python benchmarks/bench_voice.py --plot bench_voice.png   # + stacked stage bars

Piper speaks each request; the audio is fed at real-time pace (as a microphone would)
through VAD, STT, a responder and TTS into a recording sink. Rows, side by side:

  voice / trivial     a responder that answers at once: the voice stack's own cost
  voice / no specul.  same, transcribing only once the endpointer has decided
  voice / baseline    same, and Whisper's full 30 s window (plain faster-whisper)
  agent / plain       LLMAgent (Qwen2.5-Coder-0.5B, home tools), requests with no tool call
  agent / tool        LLMAgent, requests that need one tool call

Every time is from the end of the person's speech and includes the endpointer's
silence wait (`silence_ms`, 500 ms by default).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgevox.voice.audio import SAMPLE_RATE, ArraySource, WavSink, resample  # noqa: E402
from edgevox.voice.metrics import peak_memory_mb  # noqa: E402
from edgevox.voice.pipeline import PipelineConfig, VoicePipeline  # noqa: E402

TOOL_REQUESTS = [
    "Turn on the kitchen light.",
    "Switch off the light in the bedroom.",
    "Set the thermostat to twenty one degrees.",
    "Start a timer for ten minutes.",
    "What time is it?",
    "Turn on the office light at fifty percent.",
]
PLAIN_REQUESTS = [
    "Hello, who are you?",
    "Tell me a fun fact about cats.",
    "Thank you, that is all.",
    "What is the capital of France?",
    "How are you today?",
    "Say something nice.",
]
METRICS = ["stt_s", "stt_compute_s", "llm_first_token_s", "llm_first_sentence_s",
           "tts_first_chunk_s", "ttfa_s", "total_s"]


def trivial(text: str, stop: threading.Event):
    yield "Okay, done. "
    yield "Anything else?"


def _model(env: str, name: str) -> str:
    if os.environ.get(env):
        return os.environ[env]
    from edgevox.models import ensure_model

    return str(ensure_model(name))


def run_rows(pipe: VoicePipeline, clips: list[tuple[str, object]], responder) -> list[dict]:
    rows = []
    for text, audio in clips:
        sink = WavSink(None, pipe.tts.sample_rate)
        reps = pipe.run(ArraySource(audio, tail_silence_s=1.2, realtime=True), sink, responder,
                        max_turns=1)
        if not reps:
            rows.append({"request": text, "transcript": "", "error": "no turn"})
            continue
        r = reps[0]
        tool = any(type(e).__name__ == "ToolCallEvent" for e in r.events)
        rows.append({"request": text, "transcript": r.transcript, "reply": r.reply_text.strip(),
                     "tool_call": tool, "speculative": r.metrics.stt_speculative,
                     **{k: getattr(r.metrics, k) for k in METRICS},
                     "stages": dict(r.metrics.stages())})
    return rows


def summarize(rows: list[dict]) -> dict:
    out = {"n": len(rows)}
    for k in METRICS:
        vals = sorted(v for v in (r.get(k) for r in rows) if v is not None)
        if vals:
            q = statistics.quantiles(vals, n=10, method="inclusive") if len(vals) >= 2 else [vals[0]] * 9
            out[k] = {"median": statistics.median(vals), "p10": q[0], "p90": q[-1],
                      "min": vals[0], "max": vals[-1]}
    return out


def print_table(summaries: dict[str, dict]) -> None:
    cols = ["stt_s", "stt_compute_s", "llm_first_sentence_s", "tts_first_chunk_s", "ttfa_s", "total_s"]
    names = {"stt_s": "stt", "stt_compute_s": "whisper", "llm_first_sentence_s": "llm 1st sent",
             "tts_first_chunk_s": "tts 1st", "ttfa_s": "first audio", "total_s": "total"}
    print(f"{'row':22} {'n':>3} " + " ".join(f"{names[c]:>19}" for c in cols))
    for row, s in summaries.items():
        cells = []
        for c in cols:
            v = s.get(c)
            cells.append(f"{v['median']:.2f} ({v['p10']:.2f}-{v['p90']:.2f})" if v else "-")
        print(f"{row:22} {s['n']:>3} " + " ".join(f"{x:>19}" for x in cells))
    print("cells: median (p10-p90) seconds")


def stage_medians(rows: dict[str, list[dict]]) -> dict[str, list[tuple[str, float]]]:
    """Row name -> median seconds of each stage of time to first audio (`TurnMetrics.stages`)."""
    from edgevox.voice.metrics import STAGES

    out = {}
    for name, rs in rows.items():
        per = [r["stages"] for r in rs if "stages" in r]
        if per:
            out[name] = [(st, statistics.median(p.get(st, 0.0) for p in per)) for st in STAGES]
    return out


def plot(rows: dict[str, list[dict]], path: str) -> None:
    from edgevox.plot import stacked_bars
    from edgevox.voice.metrics import STAGES

    stacked_bars(path, stage_medians(rows), STAGES, xlabel="seconds from the end of speech (median per row)",
                 title="Voice pipeline: where the time to first audio goes")
    print(f"wrote {path}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-agent", action="store_true", help="only the voice-stack rows")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    ap.add_argument("--plot", metavar="FILE.png", help="draw each row's stage medians as stacked bars "
                    "(needs the plot extra)")
    ap.add_argument("--limit", type=int, default=None, metavar="N",
                    help="only the first N requests of each list (a quick look)")
    args = ap.parse_args()
    if args.plot:
        import edgevox.plot

        edgevox.plot._pyplot()  # fail now, not after the measurements, when matplotlib is missing

    from edgevox.voice.stt import WhisperSTT
    from edgevox.voice.tts import PiperTTS

    t0 = time.perf_counter()
    stt = WhisperSTT(_model("EDGEVOX_TEST_WHISPER", "whisper-tiny.en"))
    tts = PiperTTS(_model("EDGEVOX_TEST_PIPER", "piper-joe-medium"), noise_scale=0.0, noise_w_scale=0.0)
    load_s = time.perf_counter() - t0
    clips = [(t, resample(tts.synthesize_all(t), tts.sample_rate, SAMPLE_RATE))
             for t in TOOL_REQUESTS[:args.limit] + PLAIN_REQUESTS[:args.limit]]
    stt.warmup()
    tts.warmup()
    mem = {"voice_models_loaded": peak_memory_mb()}

    summaries: dict[str, dict] = {}
    rows: dict[str, list] = {}
    pipe = VoicePipeline(stt, tts)
    rows["voice / trivial"] = run_rows(pipe, clips, trivial)
    base = VoicePipeline(stt, tts, config=PipelineConfig(speculative_stt=False))
    rows["voice / no speculation"] = run_rows(base, clips, trivial)
    stt.fast = False
    try:
        rows["voice / baseline"] = run_rows(base, clips, trivial)
    finally:
        stt.fast = True
    mem["after_voice_rows"] = peak_memory_mb()

    if not args.no_agent:
        from edgevox.agents import LLMAgent, default_slm_hooks
        from edgevox.examples.home import Home
        from edgevox.llm import load_model

        backend = load_model(_model("EDGEVOX_TEST_QWEN", "qwen2.5-coder-0.5b"), preset="qwen25", n_ctx=4096)
        home = Home()
        agent = LLMAgent("vox", "home assistant",
                         "You are a voice assistant for a home. Use the tools to control the home. "
                         "Answer in one short sentence.",
                         tools=home.tools(), model=backend, hooks=default_slm_hooks())

        def responder(text: str, stop: threading.Event):
            agent.reset()  # each request on its own, so rows are comparable
            return agent.run_stream(text, stop_event=stop)

        agent.run("Turn on the hallway light.")  # warm-up: first prompt, grammar builds
        agent_rows = run_rows(pipe, clips, responder)
        rows["agent / plain"] = [r for r in agent_rows if not r.get("tool_call")]
        rows["agent / tool"] = [r for r in agent_rows if r.get("tool_call")]
        mem["after_agent_rows"] = peak_memory_mb()
        backend.close()

    for name, rs in rows.items():
        summaries[name] = summarize([r for r in rs if "error" not in r])
    tv, bl = summaries["voice / trivial"], summaries["voice / baseline"]
    ratio = bl["ttfa_s"]["median"] / tv["ttfa_s"]["median"] if "ttfa_s" in tv and "ttfa_s" in bl else None
    doc = {"load_s": load_s, "rows": rows, "summary": summaries, "peak_memory_mb": mem,
           "ttfa_baseline_over_default": ratio, "cpu_count": os.cpu_count(),
           "load_average": os.getloadavg()}
    if args.plot:
        plot(rows, args.plot)
    if args.json:
        print(json.dumps(doc, indent=1, default=str))
        return
    print_table(summaries)
    if ratio:
        print(f"time to first audio, baseline / default: {ratio:.2f}x "
              f"({bl['ttfa_s']['median']:.2f}s vs {tv['ttfa_s']['median']:.2f}s)")
    print("peak memory (MiB): " + ", ".join(f"{k} {v:.0f}" for k, v in mem.items()))
    print(f"load average during run: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    for name, rs in rows.items():
        if name.startswith("agent"):
            for r in rs:
                print(f"  [{name}] {r['transcript']!r} -> {r.get('reply', '')!r} "
                      f"(first audio {r.get('ttfa_s') or float('nan'):.2f}s)")


if __name__ == "__main__":
    main()
