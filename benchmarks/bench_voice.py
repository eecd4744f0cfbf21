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
  agent / plain       the home agent (Qwen2.5-Coder-0.5B, `auto`), requests with no tool call;
                      the prompt is evaluated from the speculative transcript during the
                      silence wait (`LLMAgent.prefill`), as `edgevox voice` does
  agent / plain, no prefill  the same turns without that, interleaved with them
  agent / plain, answer-only off  the same turns without the relevance gate's answer-only
                      first hop (``answer_below=None``), interleaved with them
  agent / tool, say   requests that need one tool call; the tools word the result (one hop)
  agent / tool, no say  the same requests with the tools' `say=` removed (the model words it)
  fresh / ...         the first turn of a fresh process (subprocess: load STT, TTS and the LLM,
                      then one request): `no warm` = the prefix evaluated inside the turn (as
                      before prompt caching), `no cache` = warmed at start-up from an empty
                      prompt cache, `restored` = the prompt cache restored at start-up

Prefill tokens/s: the backend and llama-cpp-python alone on the same 500-token prompt.
Every time is from the end of the person's speech and includes the endpointer's
silence wait (`silence_ms`, 500 ms by default).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
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


FRESH_REQUESTS = ["Turn on the kitchen light.", "Set the thermostat to twenty one degrees."]
FRESH_MODES = ("no warm", "no cache", "restored")


def prefill_rates(backend, agent, n: int = 500) -> dict:
    """Prompt evaluation tokens/s of the backend and of llama-cpp-python alone (its own
    defaults, all cores) on the same prompt: the agent's prefix cut to ``n`` tokens."""
    from llama_cpp import Llama

    toks = agent.prefix_tokens()[:n]
    alone = Llama(model_path=str(backend.path), n_ctx=4096, n_threads=os.cpu_count(), verbose=False)
    times: dict[str, list[float]] = {"backend": [], "alone": []}
    for _ in range(3):
        for name, llm in (("backend", backend.llm), ("alone", alone)):
            with backend.lock:
                llm.reset()
                llm._ctx.kv_cache_clear()
                t0 = time.perf_counter()
                llm.eval(toks)
                times[name].append(time.perf_counter() - t0)
    alone.close()
    return {"tokens": len(toks), "backend_tok_s": len(toks) / statistics.median(times["backend"]),
            "llama_cpp_python_tok_s": len(toks) / statistics.median(times["alone"])}


def fresh_turn(mode: str, text: str, cache_dir: str) -> dict:
    """One request in a new process (see ``fresh_child``); the row, or an error row."""
    cmd = [sys.executable, __file__, "--fresh-turn", mode, text, cache_dir]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError) as exc:
        return {"request": text, "error": f"{type(exc).__name__}: {exc}"}


def fresh_child(mode: str, text: str, cache_dir: str) -> dict:
    """What a person meets after `edgevox voice` starts: STT, TTS and the LLM load in
    parallel (and the prompt prefix is warmed, unless ``mode`` is "no warm"), then the
    first request arrives."""
    from edgevox.examples.home import home_agent
    from edgevox.llm import load_model
    from edgevox.voice.stt import WhisperSTT
    from edgevox.voice.tts import PiperTTS

    t0 = time.perf_counter()
    box: dict = {}

    def voice() -> None:
        box["stt"] = WhisperSTT(_model("EDGEVOX_TEST_WHISPER", "whisper-tiny.en"))
        box["tts"] = PiperTTS(_model("EDGEVOX_TEST_PIPER", "piper-joe-medium"), noise_scale=0.0,
                              noise_w_scale=0.0)
        box["stt"].warmup()
        box["tts"].warmup()

    loader = threading.Thread(target=voice)
    loader.start()
    cache = False if mode == "no warm" else cache_dir
    backend = load_model(_model("EDGEVOX_TEST_QWEN", "qwen2.5-coder-0.5b"), preset=_shipped_profile(), n_ctx=4096,
                         prompt_cache=cache)
    agent, _home = home_agent(backend, warm=mode != "no warm")
    warm = agent.warm_job.wait() if agent.warm_job is not None else None
    loader.join()
    ready_s = time.perf_counter() - t0
    stt, tts = box["stt"], box["tts"]
    audio = resample(tts.synthesize_all(text), tts.sample_rate, SAMPLE_RATE)
    pipe = VoicePipeline(stt, tts)
    from edgevox.cli.voice import responder_for

    row = run_rows(pipe, [(text, audio)], responder_for(agent))[0]
    row.update(ready_s=ready_s, prompt_cache=(warm or {}).get("source", "none"), mode=mode)
    return row


def trivial(text: str, stop: threading.Event):
    yield "Okay, done. "
    yield "Anything else?"


def _shipped_profile() -> str:
    """The default model's calling profile as the registry names it, which `edgevox voice`
    and the demo ship (a GGUF path alone would be detected as plain hermes without
    demonstrations)."""
    from edgevox.models.registry import DEFAULT_LLM, get_spec

    return get_spec(DEFAULT_LLM).preset


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
    ap.add_argument("--no-fresh", action="store_true", help="skip the fresh-process rows")
    ap.add_argument("--fresh-turn", nargs=3, metavar=("MODE", "TEXT", "CACHE_DIR"),
                    help=argparse.SUPPRESS)  # one fresh-process row (run as a subprocess)
    ap.add_argument("--limit", type=int, default=None, metavar="N",
                    help="only the first N requests of each list (a quick look)")
    args = ap.parse_args()
    if args.fresh_turn:
        print(json.dumps(fresh_child(*args.fresh_turn), default=str))
        return
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

    prefill = None
    if not args.no_agent:
        from edgevox.examples.home import home_agent
        from edgevox.llm import load_model

        backend = load_model(_model("EDGEVOX_TEST_QWEN", "qwen2.5-coder-0.5b"), preset=_shipped_profile(), n_ctx=4096)
        agent, _home = home_agent(backend)
        # the model words every result (a second hop): its own loaded copy of the model, since
        # its prefix differs (whole rounds are shown when a tool has no say=) and each agent
        # keeps its prefix warm in its own KV cache
        bare, _home2 = home_agent(load_model(_model("EDGEVOX_TEST_QWEN", "qwen2.5-coder-0.5b"),
                                             preset=_shipped_profile(), n_ctx=4096), warm=False)
        for t in bare.registry:
            t.say = None
        bare.warm(wait=True)

        def responder_of(a, prefill: bool = True):
            def respond(text: str, stop: threading.Event):
                a.reset()  # each request on its own, so rows are comparable
                return a.run_stream(text, stop_event=stop)

            def prepare(text: str) -> None:  # the speculative transcript, during the silence wait
                a.reset()
                a.prefill(text)
            if prefill:
                respond.prepare = prepare
            return respond

        # the same agent without the relevance gate's answer-only first hop (same prefix, same model)
        from edgevox.agents.slm.relevance import RelevanceGate
        from edgevox.examples.home import home_hooks

        free, _home3 = home_agent(backend, hooks=[RelevanceGate(answer_below=None) if h.name == "relevance" else h
                                                  for h in home_hooks()])
        agent.run("Turn on the hallway light.")  # warm-up: first prompt, grammar builds
        plain_clips = [c for c in clips if c[0] in PLAIN_REQUESTS]
        tool_clips = [c for c in clips if c[0] in TOOL_REQUESTS]
        plain, unprepared, answer_free = [], [], []
        for clip in plain_clips:  # interleaved, so load changes hit all alike
            plain += run_rows(pipe, [clip], responder_of(agent))
            unprepared += run_rows(pipe, [clip], responder_of(agent, prefill=False))
            answer_free += run_rows(pipe, [clip], responder_of(free))
        rows["agent / plain"] = plain
        rows["agent / plain, no prefill"] = unprepared
        rows["agent / plain, answer-only off"] = answer_free
        with_say, without = [], []
        for clip in tool_clips:  # interleaved, so load changes hit both alike
            with_say += run_rows(pipe, [clip], responder_of(agent))
            without += run_rows(pipe, [clip], responder_of(bare))
        rows["agent / tool, say"] = with_say
        rows["agent / tool, no say"] = without
        mem["after_agent_rows"] = peak_memory_mb()
        prefill = prefill_rates(backend, agent)
        backend.close()
        bare.backend.close()
        if not args.no_fresh:
            for mode in FRESH_MODES:
                rows[f"fresh / {mode}"] = []
            for text in FRESH_REQUESTS[:args.limit]:
                # an empty cache for each "no cache" run; "restored" reads what it wrote
                cache_dir = tempfile.mkdtemp(prefix="edgevox-bench-prompt-cache-")
                for mode in FRESH_MODES:
                    rows[f"fresh / {mode}"].append(fresh_turn(mode, text, cache_dir))
                shutil.rmtree(cache_dir, ignore_errors=True)

    for name, rs in rows.items():
        summaries[name] = summarize([r for r in rs if "error" not in r])
    tv, bl = summaries["voice / trivial"], summaries["voice / baseline"]
    ratio = bl["ttfa_s"]["median"] / tv["ttfa_s"]["median"] if "ttfa_s" in tv and "ttfa_s" in bl else None
    doc = {"load_s": load_s, "rows": rows, "summary": summaries, "peak_memory_mb": mem, "prefill": prefill,
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
    if prefill:
        print(f"prefill ({prefill['tokens']} tokens): backend {prefill['backend_tok_s']:.0f} tok/s, "
              f"llama-cpp-python alone {prefill['llama_cpp_python_tok_s']:.0f} tok/s "
              f"({prefill['backend_tok_s'] / prefill['llama_cpp_python_tok_s']:.2f}x)")
    for name in (n for n in rows if n.startswith("fresh")):
        ready = [r["ready_s"] for r in rows[name] if r.get("ready_s") is not None]
        used = sorted({r.get("prompt_cache", "?") for r in rows[name]})
        if ready:
            print(f"{name}: ready after {statistics.median(ready):.1f}s (median), prompt cache: {', '.join(used)}")
    print("peak memory (MiB): " + ", ".join(f"{k} {v:.0f}" for k, v in mem.items()))
    print(f"load average during run: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    for name, rs in rows.items():
        if name.startswith(("agent", "fresh")):
            for r in rs:
                print(f"  [{name}] {r['transcript']!r} -> {r.get('reply', '')!r} "
                      f"(first audio {r.get('ttfa_s') or float('nan'):.2f}s)")


if __name__ == "__main__":
    main()
