"""Wyoming server soak and first audio, on loopback, against the real `edgevox wyoming`.

    .venv/bin/python benchmarks/bench_wyoming.py                  # 500 requests, two clients
    .venv/bin/python benchmarks/bench_wyoming.py --requests 60 --json out.json

It starts `edgevox wyoming` as its own process (the server's memory is that process's
resident set, read from /proc), warms it up, then:

1. first audio, side by side: for the same replies, alternately, the time from sending
   `synthesize` to the first `audio-chunk` received through Wyoming, and the local voice
   pipeline's TTS first chunk (`SpeechPlayer`, time from the first sentence to its first
   chunk: `TurnMetrics.tts_first_chunk_s`) on a Piper voice in this process;
2. the soak: two clients, each opening a new connection per request as Home Assistant
   does, send a seeded mix of `handle` (a transcript to the agent; a conversation goes on
   for up to three turns, then a new one starts) and `tts` requests until the total is
   reached or `--max-minutes` pass. An error is a request that raised, timed out, got an
   `error` event, a `not-handled`, or no audio. Memory is sampled after warm-up, when the
   soak begins (after the first-audio requests) and at the end (goal: under 10 % growth).

Loopback only; it stops by itself and stops the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wyoming.asr import Transcript  # noqa: E402
from wyoming.client import AsyncClient  # noqa: E402
from wyoming.info import Describe  # noqa: E402
from wyoming.tts import Synthesize  # noqa: E402

from edgevox.evals.stats import quantile  # noqa: E402

HANDLE = [
    "Turn on the kitchen light.", "Turn off the bedroom light.", "Switch on the office light.",
    "Set the thermostat to twenty two degrees.", "Start a timer for ten minutes.",
    "What time is it?", "Turn off the kitchen light.", "Turn on the living room light.",
    "Hello, who are you?", "Thank you, that is all.",
]
REPLIES = [
    "The kitchen light is on. Anything else?",
    "I set the thermostat to twenty two degrees, which should feel warmer soon.",
    "It is a quarter past seven in the evening. Your pasta timer has four minutes left.",
    "The bedroom light is off. Good night.",
    "Your timer for ten minutes has started.",
    "Sure, the office light is on at fifty percent brightness.",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def request(uri: str, events: list, until: tuple[str, ...], timeout: float) -> tuple[list, float, float | None]:
    """(events received, seconds to the last one, seconds to the first audio-chunk)."""
    t0 = time.perf_counter()
    first = None
    got = []
    async with AsyncClient.from_uri(uri) as c:
        for e in events:
            await c.write_event(e)
        while True:
            ev = await asyncio.wait_for(c.read_event(), timeout)
            if ev is None:
                raise ConnectionError(f"closed after {[e.type for e in got]}")
            got.append(ev)
            if ev.type == "audio-chunk" and first is None:
                first = time.perf_counter() - t0
            if ev.type in until:
                return got, time.perf_counter() - t0, first


async def one(uri: str, kind: str, text: str, cid: str | None, timeout: float) -> tuple[bool, float, str]:
    try:
        if kind == "tts":
            evs, dt, first = await request(uri, [Synthesize(text=text).event()], ("audio-stop",), timeout)
            bad = [e for e in evs if e.type == "error"]
            ok = not bad and first is not None
            return ok, dt, "" if ok else f"tts: {bad[0].data if bad else 'no audio'}"
        ctx = {"conversation_id": cid} if cid else None
        evs, dt, _ = await request(uri, [Transcript(text=text, context=ctx).event()],
                                   ("handled", "not-handled"), timeout)
        last = evs[-1]
        ok = last.type == "handled" and bool(last.data.get("text"))
        return ok, dt, "" if ok else f"handle: {last.type} {last.data.get('text')!r}"
    except Exception as err:  # counted and reported, the soak goes on
        return False, float("nan"), f"{kind}: {type(err).__name__}: {err}"


def first_audio(uri: str, n: int) -> dict:
    """Wyoming tts first audio vs the local pipeline's TTS first chunk, alternating."""
    from edgevox.voice.audio import WavSink
    from edgevox.voice.text import split_sentences
    from edgevox.voice.tts import PiperTTS, SpeechPlayer

    tts = PiperTTS("piper-joe-medium")
    tts.warmup()
    player = SpeechPlayer(tts, WavSink(None, tts.sample_rate), ahead_s=1e9)
    wy, local = [], []
    try:
        for i in range(n):
            text = REPLIES[i % len(REPLIES)]
            for side in (("wy", "local") if i % 2 == 0 else ("local", "wy")):
                if side == "wy":
                    _, _, first = asyncio.run(request(uri, [Synthesize(text=text).event()], ("audio-stop",), 120))
                    wy.append(first)
                else:
                    gen = player.start_turn()
                    for s in split_sentences(text, min_clause_words=6):
                        player.say(gen, s)
                    player.end_turn(gen)
                    player.wait(gen, 60)
                    st = player.stats(gen)
                    local.append(st.first_chunk - st.first_text)
    finally:
        player.close()
    return {"n": n, "wyoming_first_audio_s_p50": quantile(wy, 0.5), "local_tts_first_chunk_s_p50": quantile(local, 0.5),
            "wyoming_first_audio_s_p95": quantile(wy, 0.95), "local_tts_first_chunk_s_p95": quantile(local, 0.95),
            "ratio_p50": round(statistics.median(wy) / statistics.median(local), 2)}


async def soak(uri: str, total: int, clients: int, share: float, seed: int, timeout: float,
               deadline: float, on_progress) -> dict:
    rng = random.Random(seed)
    plan = ["handle" if rng.random() < share else "tts" for _ in range(total)]
    lat: dict[str, list[float]] = {"handle": [], "tts": []}
    errors: list[str] = []
    done = 0
    nxt = 0

    async def client(k: int) -> None:
        nonlocal done, nxt
        conv, turns = None, 0
        while nxt < len(plan) and time.monotonic() < deadline:
            i, nxt = nxt, nxt + 1
            kind = plan[i]
            if kind == "handle":
                if conv is None or turns >= 3:
                    conv, turns = f"soak-{k}-{i}", 0
                turns += 1
                ok, dt, why = await one(uri, kind, HANDLE[rng.randrange(len(HANDLE))], conv, timeout)
            else:
                ok, dt, why = await one(uri, kind, REPLIES[rng.randrange(len(REPLIES))], None, timeout)
            done += 1
            if ok:
                lat[kind].append(dt)
            else:
                errors.append(why)
            on_progress(done, len(errors))

    await asyncio.gather(*(client(k) for k in range(clients)))
    both = lat["handle"] + lat["tts"]
    return {"requests": done, "planned": total, "errors": len(errors), "error_samples": errors[:5],
            "handle": len(lat["handle"]), "tts": len(lat["tts"]),
            "p50_s": quantile(both, 0.5), "p95_s": quantile(both, 0.95),
            "handle_p50_s": quantile(lat["handle"], 0.5), "handle_p95_s": quantile(lat["handle"], 0.95),
            "tts_p50_s": quantile(lat["tts"], 0.5), "tts_p95_s": quantile(lat["tts"], 0.95)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=500)
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--handle-share", type=float, default=0.5)
    ap.add_argument("--first-audio", type=int, default=12, help="replies timed each way")
    ap.add_argument("--warmup", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=300.0, help="per request (s)")
    ap.add_argument("--max-minutes", type=float, default=120.0, help="the soak stops after this")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()

    uri = f"tcp://127.0.0.1:{free_port()}"
    log = open(os.environ.get("BENCH_WYOMING_LOG", os.devnull), "w")  # noqa: SIM115
    server = subprocess.Popen([sys.executable, "-m", "edgevox", "wyoming", "--uri", uri, "--wake"],
                              stdout=log, stderr=log)
    out: dict = {"uri": uri, "load_before": os.getloadavg()}
    try:
        t0 = time.monotonic()
        while True:
            try:
                asyncio.run(request(uri, [Describe().event()], ("info",), 1.0))
                break
            except OSError:
                if server.poll() is not None or time.monotonic() - t0 > 60:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        print(f"server up in {time.monotonic() - t0:.1f} s; warming up", flush=True)
        for i in range(args.warmup):
            kind = ("handle", "tts")[i % 2]
            text = HANDLE[i % len(HANDLE)] if kind == "handle" else REPLIES[i % len(REPLIES)]
            ok, dt, why = asyncio.run(one(uri, kind, text, f"warm-{i}", 600))
            print(f"  warm-up {kind}: {dt:.2f} s {why}", flush=True)
        out["rss_after_warmup_mb"] = round(rss_mb(server.pid), 1)
        out["first_audio"] = first_audio(uri, args.first_audio)
        print("first audio:", json.dumps(out["first_audio"]), flush=True)

        def progress(n: int, errs: int) -> None:
            if n % 25 == 0:
                print(f"  {n} requests, {errs} errors, server {rss_mb(server.pid):.0f} MB, "
                      f"{time.monotonic() - t1:.0f} s", flush=True)

        out["rss_soak_start_mb"] = round(rss_mb(server.pid), 1)  # after the first-audio requests too
        t1 = time.monotonic()
        out["soak"] = asyncio.run(soak(uri, args.requests, args.clients, args.handle_share, args.seed,
                                       args.timeout, t1 + args.max_minutes * 60, progress))
        out["soak"]["wall_s"] = round(time.monotonic() - t1, 1)
        out["rss_end_mb"] = round(rss_mb(server.pid), 1)
        out["rss_growth_pct"] = round(100 * (out["rss_end_mb"] / out["rss_after_warmup_mb"] - 1), 2)
        out["rss_growth_soak_pct"] = round(100 * (out["rss_end_mb"] / out["rss_soak_start_mb"] - 1), 2)
        out["load_after"] = os.getloadavg()
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
    s = out["soak"]
    print(f"\nsoak: {s['requests']}/{s['planned']} requests ({s['handle']} handle, {s['tts']} tts ok) "
          f"in {s['wall_s']} s, {s['errors']} errors; latency p50 {s['p50_s']} s, p95 {s['p95_s']} s "
          f"(handle {s['handle_p50_s']}/{s['handle_p95_s']}, tts {s['tts_p50_s']}/{s['tts_p95_s']})")
    print(f"server memory: {out['rss_after_warmup_mb']} MB after warm-up, {out['rss_end_mb']} MB at the end "
          f"({out['rss_growth_pct']:+.1f} %); {out['rss_soak_start_mb']} MB when the soak began "
          f"({out['rss_growth_soak_pct']:+.1f} % over the soak)")
    fa = out["first_audio"]
    print(f"first audio: Wyoming tts {fa['wyoming_first_audio_s_p50']} s vs local pipeline TTS first chunk "
          f"{fa['local_tts_first_chunk_s_p50']} s (p50 over {fa['n']} replies each; ratio {fa['ratio_p50']})")
    print(f"load: {out['load_before']} before, {out['load_after']} after")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0 if s["errors"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
