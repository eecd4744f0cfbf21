"""Wake words on audio made here: detection rate, false activations per hour, CPU.

    .venv/bin/python benchmarks/bench_wake.py                  # the full run (≈ 1 h of speech)
    .venv/bin/python benchmarks/bench_wake.py --quick          # a few minutes of audio, smoke run
    .venv/bin/python benchmarks/bench_wake.py --json out.json  # also write every number

Needs espeak-ng (`apt-get install espeak-ng`; the tests do not) and the `wake` and
`voice` extras (Piper). Nothing is tuned: every model runs at its own cutoff.

Positives: each model's wake phrase ("Okay Nabu", "OK Nabu", "Okay Nabu, turn on the
light", ...) spoken by Piper joe-medium at three speeds (two renditions each: Piper's
noise makes them differ) and by espeak-ng's English voices at three speeds, clean and
mixed with white, pink, babble (five other voices talking) and synthetic music noise at
20, 10 and 5 dB SNR (speech-active RMS against noise RMS). A phrase counts as detected
when its model fires between its start and 1 s after its end.

Negatives (false activations per hour): espeak-ng voices reading assorted English text
quickly (licence texts and the Python standard library's docstrings, sentences naming a
wake word removed), Piper reading the same kind of text, synthetic music, and "TV":
speech over music. Each model runs alone over every stream; a hit is a false activation.

CPU: process time of the detector per second of audio for one and for four models, and
Silero VAD (what an always-listening pipeline runs instead) on the same audio, side by side.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import pkgutil
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgevox.voice.audio import FRAME, SAMPLE_RATE, load_audio, resample  # noqa: E402
from edgevox.voice.wake import WakeWordDetector  # noqa: E402

PHRASES = {
    "okay_nabu": ["Okay Nabu.", "OK, Nabu.", "Okay Nabu, turn on the light."],
    "hey_jarvis": ["Hey Jarvis.", "Hey, Jarvis.", "Hey Jarvis, turn on the light."],
    "alexa": ["Alexa.", "Alexa!", "Alexa, turn on the light."],
    "hey_mycroft": ["Hey Mycroft.", "Hey, Mycroft.", "Hey Mycroft, turn on the light."],
}
WAKE_WORDS_IN_TEXT = re.compile(r"nabu|jarvis|alexa|mycroft", re.I)
ESPEAK_VOICES = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-gb-x-gbclan", "en-029",
                 "en-us-nyc", "en-gb-x-gbcwmd", "en-us+f3", "en-gb+f4", "en-us+m3", "en-us+klatt2"]
ESPEAK_SPEEDS = [130, 175, 230]          # words per minute (espeak's default is 175)
PIPER_SPEEDS = [1.25, 1.0, 0.8]           # length_scale: slower, normal, faster
NOISES = ["white", "pink", "babble", "music"]
SNRS_DB = [20, 10, 5]
RNG_SEED = 17


# --------------------------------------------------------------------------- speech


def espeak(text: str, voice: str, wpm: int, pitch: int = 50) -> np.ndarray:
    with tempfile.NamedTemporaryFile(suffix=".wav") as f, tempfile.NamedTemporaryFile("w", suffix=".txt") as t:
        t.write(text)  # from a file: a sentence starting with "-" is not an option
        t.flush()
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(wpm), "-p", str(pitch), "-w", f.name, "-f", t.name],
                       check=True, capture_output=True, timeout=120)
        return load_audio(f.name)


def working_espeak_voices() -> list[str]:
    ok = []
    for v in ESPEAK_VOICES:
        try:
            if len(espeak("test", v, 175)) > 0:
                ok.append(v)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            pass
    return ok


def assorted_sentences(seed: int = RNG_SEED) -> list[str]:
    """English prose found on any machine: licence texts and stdlib docstrings."""
    chunks: list[str] = []
    lic = Path("/usr/share/common-licenses")
    if lic.is_dir():
        chunks += [p.read_text(errors="ignore") for p in sorted(lic.iterdir()) if p.is_file()]
    names = [m.name for m in pkgutil.iter_modules() if m.module_finder.path.startswith(sys.base_prefix)
             and not m.name.startswith("_") and m.name not in ("antigravity", "this", "idlelib", "turtledemo")]
    for pkg in ("email", "http", "logging", "unittest", "xml", "asyncio", "concurrent", "importlib",
                "multiprocessing", "urllib", "collections", "json", "sqlite3", "wsgiref"):
        names += [m.name for m in pkgutil.walk_packages(__import__(pkg).__path__, pkg + ".")]
    for name in sorted(set(names)):
        if "__main__" in name or "test" in name or "idle" in name:
            continue  # importing these runs them
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod = __import__(name, fromlist=["_"])
        except BaseException:  # noqa: B036 - some stdlib modules exit or fail on import
            continue
        chunks.append(inspect.getdoc(mod) or "")
        for _, obj in inspect.getmembers(mod):
            doc = inspect.getdoc(obj) if (inspect.isclass(obj) or inspect.isfunction(obj)) else None
            if doc:
                chunks.append(doc)
    text = " ".join(chunks)
    out = []
    for s in re.split(r"(?<=[.!?])\s+", re.sub(r"\s+", " ", text)):
        words = s.split()
        if 4 <= len(words) <= 35 and re.fullmatch(r"[A-Za-z ,.;:'!?()-]+", s) and not WAKE_WORDS_IN_TEXT.search(s):
            out.append(s)
    out = sorted(set(out))
    random.Random(seed).shuffle(out)
    return out


# --------------------------------------------------------------------------- noise


def pink(n: int, rng: np.random.Generator) -> np.ndarray:
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.arange(len(spec), dtype=np.float64)
    f[0] = 1.0
    x = np.fft.irfft(spec / np.sqrt(f), n)
    return (x / (np.std(x) + 1e-12)).astype(np.float32)


def music(seconds: float, rng: np.random.Generator) -> np.ndarray:
    """Synthetic pop-like music: chords, bass, a melody, kick and hi-hat, changing tempo and key."""
    sr = SAMPLE_RATE
    out = np.zeros(int((seconds + 40) * sr), np.float32)  # room for the last phrase (≤ 12 bars)
    pos = 0
    while pos < int(seconds * sr):
        bpm = rng.uniform(80, 150)
        beat = int(60 / bpm * sr)
        root = 220 * 2 ** (rng.integers(-5, 7) / 12)
        scale = np.array([0, 2, 4, 5, 7, 9, 11])
        timbre = rng.uniform(0.3, 0.9)  # how bright the harmonics are
        for _bar in range(int(rng.integers(4, 12))):
            degree = int(rng.choice([0, 3, 4, 5]))
            chord = [root * 2 ** (scale[(degree + k) % 7] / 12 + (degree + k) // 7) for k in (0, 2, 4)]
            for b in range(4):
                t = np.arange(beat) / sr
                env = np.exp(-t * rng.uniform(2, 6))
                tone = sum(sum(timbre ** h * np.sin(2 * np.pi * f * (h + 1) * t) for h in range(4)) for f in chord)
                bass = np.sin(2 * np.pi * chord[0] / 2 * t) * 1.5
                mel_f = root * 2 * 2 ** (scale[int(rng.integers(0, 7))] / 12)
                mel = np.sin(2 * np.pi * mel_f * t) * np.exp(-t * 4) * (1.2 if rng.random() < 0.7 else 0)
                kick = np.sin(2 * np.pi * (50 + 100 * np.exp(-t * 30)) * t) * np.exp(-t * 12) * (2.0 if b % 2 == 0 else 0)
                hat = rng.standard_normal(beat) * np.exp(-((t - 60 / bpm / 2).clip(0)) * 60) * (t > 60 / bpm / 2) * 0.3
                seg = (0.25 * tone + 0.4 * bass + 0.5 * mel + kick + hat) * env.clip(0.3)
                end = min(len(out), pos + beat)
                out[pos:end] += seg[:end - pos].astype(np.float32)
                pos += beat
    out = out[:int(seconds * sr)]
    return out / (np.max(np.abs(out)) + 1e-9) * 0.5


def active_rms(x: np.ndarray) -> float:
    """RMS over the frames within 40 dB of the loudest: the level of the speech itself."""
    frames = x[:len(x) // FRAME * FRAME].reshape(-1, FRAME)
    r = np.sqrt((frames.astype(np.float64) ** 2).mean(1))
    act = r[r > r.max() * 0.01]
    return float(np.sqrt((act ** 2).mean())) if len(act) else 0.0


def mix(speech: np.ndarray, noise: np.ndarray, snr_db: float) -> np.ndarray:
    n = noise[:len(speech)]
    gain = active_rms(speech) / (np.sqrt((n.astype(np.float64) ** 2).mean()) + 1e-12) / 10 ** (snr_db / 20)
    y = speech + gain * n
    peak = np.max(np.abs(y))
    return (y / peak * 0.9 if peak > 0.99 else y).astype(np.float32)


# --------------------------------------------------------------------------- corpus


class Corpus:
    """Generated audio, cached on disk (int16 .npy) so a second run starts at once."""

    def __init__(self, cache: Path):
        self.cache = cache
        cache.mkdir(parents=True, exist_ok=True)

    def get(self, key: str, make) -> np.ndarray:
        path = self.cache / (hashlib.sha1(key.encode()).hexdigest()[:16] + ".npy")
        if path.exists():
            return np.load(path).astype(np.float32) / 32767
        x = make()
        np.save(path, (np.clip(x, -1, 1) * 32767).astype(np.int16))
        return x


def positives(corpus: Corpus, model: str, voices: list[str], piper: dict) -> list[tuple[str, np.ndarray]]:
    """(voice label, 16 kHz audio) for every rendition of the model's phrases."""
    out = []
    for phrase in PHRASES[model]:
        for ls, tts in piper.items():
            for rendition in range(2):
                a = corpus.get(f"piper|{phrase}|{ls}|{rendition}",
                               lambda tts=tts, phrase=phrase: resample(tts.synthesize_all(phrase), tts.sample_rate, SAMPLE_RATE))
                out.append((f"piper@{ls}", a))
        for v in voices:
            for wpm in ESPEAK_SPEEDS:
                out.append((f"espeak:{v}@{wpm}", corpus.get(f"espeak|{phrase}|{v}|{wpm}",
                                                            lambda v=v, wpm=wpm, phrase=phrase: espeak(phrase, v, wpm))))
    return out


def speech_stream(corpus: Corpus, sentences: list[str], seconds: float, voices: list[str], rng: random.Random,
                  piper: dict | None = None) -> np.ndarray:
    """Sentences read one after another with short pauses, until `seconds` of audio."""
    parts, total, i = [], 0, 0
    while total < seconds * SAMPLE_RATE:
        s = sentences[i % len(sentences)]
        i += 1
        if piper:
            ls = rng.choice(list(piper))
            a = corpus.get(f"pipers|{s}|{ls}", lambda s=s, ls=ls: resample(
                piper[ls].synthesize_all(s), piper[ls].sample_rate, SAMPLE_RATE))
        else:
            v, wpm, pitch = rng.choice(voices), rng.randint(170, 280), rng.randint(30, 70)
            a = corpus.get(f"espeaks|{s}|{v}|{wpm}|{pitch}", lambda s=s, v=v, wpm=wpm, pitch=pitch: espeak(s, v, wpm, pitch))
        parts += [a, np.zeros(int(rng.uniform(0.1, 0.6) * SAMPLE_RATE), np.float32)]
        total += len(a) + len(parts[-1])
    return np.concatenate(parts)[:int(seconds * SAMPLE_RATE)]


# --------------------------------------------------------------------------- measuring


def hits_in(det: WakeWordDetector, audio: np.ndarray, block: int = 16000) -> list:
    det.reset()
    x = (np.clip(audio, -1, 1) * 32767).astype(np.int16)
    hits = []
    for i in range(0, len(x), block):
        hits += det.feed(x[i:i + block])
    return hits


def detection(det: WakeWordDetector, clips: list[tuple[str, np.ndarray]], noise: np.ndarray | None,
              snr: float | None) -> dict:
    """Clips laid end to end (1 s before, 1.5 s after each, noise throughout); hits per window."""
    lead, tail = SAMPLE_RATE, int(1.5 * SAMPLE_RATE)
    stream, windows, pos = [], [], 0
    for _label, a in clips:
        seg = np.concatenate([np.zeros(lead, np.float32), a, np.zeros(tail, np.float32)])
        if noise is not None:
            start = (pos * 7919) % max(1, len(noise) - len(seg))
            seg = mix(seg, noise[start:start + len(seg)], snr)
        windows.append(((pos + lead) / SAMPLE_RATE, (pos + lead + len(a)) / SAMPLE_RATE + 1.0))
        stream.append(seg)
        pos += len(seg)
    hits = hits_in(det, np.concatenate(stream))
    found = [any(s <= h.t_s <= e for h in hits) for s, e in windows]
    stray = sum(not any(s <= h.t_s <= e for s, e in windows) for h in hits)
    by_voice: dict[str, list[bool]] = {}
    by_speed: dict[str, list[bool]] = {}
    for (label, _), f in zip(clips, found, strict=True):
        family, speed = label.split(":")[0].split("@")[0], label.split("@")[1]
        by_voice.setdefault(family, []).append(f)
        by_speed.setdefault(f"{family}@{speed}", []).append(f)
    return {"n": len(found), "detected": sum(found), "stray_hits": stray,
            **{f"{k}_rate": sum(v) / len(v) for k, v in by_voice.items()}, "rate": sum(found) / len(found),
            "by_speed": {k: round(sum(v) / len(v), 3) for k, v in by_speed.items()}}


def cpu_per_audio_s(fn, audio: np.ndarray) -> float:
    t0 = time.process_time()
    fn(audio)
    return (time.process_time() - t0) / (len(audio) / SAMPLE_RATE)


def vad_pass(audio: np.ndarray) -> None:
    from edgevox.voice.vad import SileroVAD

    vad = vad_pass.vad = getattr(vad_pass, "vad", None) or SileroVAD(energy_floor_dbfs=None)
    vad.reset()
    for i in range(0, len(audio) - FRAME + 1, FRAME):
        vad(audio[i:i + FRAME])


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few minutes of audio (smoke run)")
    ap.add_argument("--speech-hours", type=float, default=1.0, help="espeak-ng speech without a wake word")
    ap.add_argument("--piper-minutes", type=float, default=10.0, help="Piper speech without a wake word")
    ap.add_argument("--music-minutes", type=float, default=20.0)
    ap.add_argument("--tv-minutes", type=float, default=20.0, help="speech over music")
    ap.add_argument("--models", default="okay_nabu,hey_jarvis,alexa,hey_mycroft")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "edgevox-bench-wake")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if shutil.which("espeak-ng") is None:
        print("bench_wake needs espeak-ng: sudo apt-get install espeak-ng", file=sys.stderr)
        return 2
    if args.quick:
        args.speech_hours, args.piper_minutes, args.music_minutes, args.tv_minutes = 0.05, 1.0, 2.0, 2.0
    models = args.models.split(",")
    from edgevox.voice.tts import PiperTTS

    corpus = Corpus(args.cache)
    voices = working_espeak_voices()
    voices = voices[:4] if args.quick else voices
    piper = {ls: PiperTTS(length_scale=ls) for ls in PIPER_SPEEDS}
    # one generator per use, so the noise is the same whether or not the music was cached
    rng, nrng = random.Random(RNG_SEED), np.random.default_rng(RNG_SEED + 1)
    sentences = assorted_sentences()
    log = lambda *a: print(*a, file=sys.stderr, flush=True)  # noqa: E731
    log(f"{len(sentences)} sentences, espeak voices: {', '.join(voices)}")

    # negatives first: the babble noise is made of them
    t = time.time()
    speech = speech_stream(corpus, sentences, args.speech_hours * 3600, voices, rng)
    log(f"espeak speech {len(speech) / 3600 / SAMPLE_RATE:.2f} h ({time.time() - t:.0f} s)")
    piper_speech = speech_stream(corpus, sentences[::-1], args.piper_minutes * 60, voices, rng, piper=piper)
    log(f"piper speech {len(piper_speech) / 60 / SAMPLE_RATE:.1f} min ({time.time() - t:.0f} s)")
    tunes = corpus.get(f"music|{args.music_minutes}|{RNG_SEED}", lambda: music(args.music_minutes * 60, np.random.default_rng(RNG_SEED)))
    tv_speech = np.concatenate([piper_speech, speech])[:int(args.tv_minutes * 60 * SAMPLE_RATE)]
    tv = mix(tv_speech, np.resize(tunes, len(tv_speech)), 5.0)  # speech 5 dB over the music
    noise_len = 120 * SAMPLE_RATE
    babble_src = speech[:noise_len * 5]
    noises = {
        "white": nrng.standard_normal(noise_len).astype(np.float32),
        "pink": pink(noise_len, nrng),
        "babble": sum(np.roll(np.resize(babble_src, noise_len), k * 11 * SAMPLE_RATE) for k in range(5)).astype(np.float32),
        "music": np.resize(tunes[SAMPLE_RATE * 30:], noise_len),
    }

    result: dict = {"uptime": os.getloadavg(), "voices": {"espeak": voices, "piper": PIPER_SPEEDS},
                    "detection": {}, "false_activations": {}, "cpu": {}}
    for model in models:
        det = WakeWordDetector([model])
        clips = positives(corpus, model, voices, piper)
        rows = {"clean": detection(det, clips, None, None)}
        for kind in NOISES:
            for snr in SNRS_DB:
                rows[f"{kind} {snr} dB"] = detection(det, clips, noises[kind], snr)
        result["detection"][model] = rows
        log(f"{model}: " + ", ".join(f"{k} {v['rate']:.0%}" for k, v in rows.items()))
        fa = {}
        for name, audio in (("espeak speech", speech), ("piper speech", piper_speech),
                            ("music", tunes), ("TV (speech over music)", tv)):
            n = len(hits_in(det, audio))
            hours = len(audio) / SAMPLE_RATE / 3600
            fa[name] = {"hits": n, "hours": round(hours, 3), "per_hour": round(n / hours, 2)}
        result["false_activations"][model] = fa
        log(f"{model} false activations: {fa}")

    # CPU per second of audio, side by side on the same 5 minutes of speech
    sample = speech[:300 * SAMPLE_RATE]
    one, four = WakeWordDetector([models[0]]), WakeWordDetector(models)
    result["cpu"] = {
        "audio_s": len(sample) / SAMPLE_RATE,
        f"wake ({models[0]})": cpu_per_audio_s(lambda a: hits_in(one, a), sample),
        f"wake ({len(models)} models)": cpu_per_audio_s(lambda a: hits_in(four, a), sample),
        "silero VAD (always-on pipeline)": cpu_per_audio_s(vad_pass, sample),
    }
    result["uptime_end"] = os.getloadavg()
    print(render(result, models))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


def render(r: dict, models: list[str]) -> str:
    lines = ["Detection rate (Piper joe-medium / espeak-ng voices); each cell: share of phrases heard", "",
             "| condition | " + " | ".join(models) + " |", "|---|" + "---|" * len(models)]
    for cond in r["detection"][models[0]]:
        cells = []
        for m in models:
            d = r["detection"][m][cond]
            cells.append(f"{d['rate']:.0%} ({d.get('piper_rate', 0):.0%} / {d.get('espeak_rate', 0):.0%})")
        lines.append(f"| {cond} | " + " | ".join(cells) + " |")
    n = r["detection"][models[0]]["clean"]["n"]
    lines += ["", f"{n} phrases per model and condition.", "",
              "Clean detection rate by voice and speed (Piper: length scale, >1 slower; espeak-ng: words "
              "per minute, all its voices)", "",
              "| voice @ speed | " + " | ".join(models) + " |", "|---|" + "---|" * len(models)]
    for speed in r["detection"][models[0]]["clean"]["by_speed"]:
        cells = [f"{r['detection'][m]['clean']['by_speed'][speed]:.0%}" for m in models]
        lines.append(f"| {speed} | " + " | ".join(cells) + " |")
    lines += ["",
              "False activations per hour (hits / hours of audio)", "",
              "| audio without the wake word | " + " | ".join(models) + " |", "|---|" + "---|" * len(models)]
    for name in r["false_activations"][models[0]]:
        cells = [f"{r['false_activations'][m][name]['per_hour']:g} ({r['false_activations'][m][name]['hits']} in "
                 f"{r['false_activations'][m][name]['hours']:g} h)" for m in models]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "CPU per second of audio (process time; one core = 1000 ms/s)", "",
              "| what runs | ms CPU / s audio | % of one core |", "|---|---|---|"]
    for k, v in r["cpu"].items():
        if k != "audio_s":
            lines.append(f"| {k} | {v * 1000:.2f} | {v * 100:.2f} % |")
    lines.append(f"\nload average at start {r['uptime'][0]:.1f}, at end {r['uptime_end'][0]:.1f} (2 cores)")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
