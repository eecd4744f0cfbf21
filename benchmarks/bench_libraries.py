"""Our own code against the well-kept library for the same job, side by side.

    .venv/bin/python benchmarks/bench_libraries.py [--quick]

Three pairs, each measured in one run on the same input: the streaming resampler
(``edgevox.voice.audio.Resampler`` vs ``soxr.ResampleStream``), WAV decoding
(``read_wav`` vs ``soundfile.read``) and the GGUF header (``read_gguf`` vs
``gguf.GGUFReader``). For each: quality against a reference, speed (ratio to ours), the
import cost in a fresh interpreter and the installed size of the library with the
dependencies it adds. The decision for each pair is written in the module that does the
job (its docstring quotes these numbers).
"""

from __future__ import annotations

import importlib.metadata as md
import subprocess
import sys
import tempfile
import time
import timeit
import wave
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgevox.llm.gguf import read_gguf  # noqa: E402
from edgevox.voice.audio import Resampler, read_wav  # noqa: E402


def best(fn, number: int, repeat: int = 5) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def import_ms(stmt: str) -> float:
    """Best wall time of ``stmt`` in a fresh interpreter, minus one that imports numpy
    only (EdgeVox imports numpy anyway)."""

    def run(code: str) -> float:
        out = []
        for _ in range(5):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            out.append(time.perf_counter() - t)
        return min(out)

    return (run("import numpy; " + stmt) - run("import numpy")) * 1e3


def installed_kb(dist: str, seen: set[str] | None = None) -> tuple[float, list[str]]:
    """Size of a distribution's files plus those of its dependencies not already installed
    by EdgeVox itself (``numpy`` and friends count as free)."""
    free = {"numpy", "typing-extensions", "typing_extensions"}
    seen = set() if seen is None else seen
    key = dist.lower().replace("_", "-")
    if key in seen or key in free:
        return 0.0, []
    seen.add(key)
    d = md.distribution(dist)
    total = sum((f.size or 0) for f in (d.files or []))
    names = [dist]
    for req in d.requires or []:
        if ";" in req and "extra ==" in req:
            continue
        name = req.split(";")[0].split("[")[0].strip()
        for sep in "<>=!~ (":
            name = name.split(sep)[0]
        try:
            kb, more = installed_kb(name, seen)
        except md.PackageNotFoundError:
            continue
        total += kb * 1024
        names += more
    return total / 1024, names


def row(name: str, cells: list[str]) -> None:
    print(f"  {name:<34}" + "".join(f"{c:>16}" for c in cells))


def cost_rows(t_ours: float, t_lib: float, ours_needs: str, module: str, dist: str) -> None:
    """Speed ratio, import cost and installed size: the rows every pair shares."""
    kb, deps = installed_kb(dist)
    row("speed (ratio to ours)", ["1.00x", f"{t_ours / t_lib:.2f}x"])
    row("import (ms, fresh process)", [f"0 ({ours_needs})", f"{import_ms(f'import {module}'):.0f}"])
    row("installed size (KB, + deps)", ["0", f"{kb:.0f}"])
    print(f"  {'':<34}library and the packages it adds: {', '.join(deps)}")


# ------------------------------------------------------------------ resampler


def resampler(quick: bool) -> None:
    import soxr

    print("resampler, 48 kHz -> 16 kHz, streamed in 20 ms blocks (10 s of audio)")
    src, dst = 48_000, 16_000
    n = src * 10
    t = np.arange(n) / src
    tones = (300.0, 1_000.0, 3_000.0, 6_000.0)  # speech band, below the new Nyquist: must survive
    x = sum(0.2 * np.sin(2 * np.pi * f * t) for f in tones).astype(np.float32)
    alias = (0.5 * np.sin(2 * np.pi * 11_000.0 * t)).astype(np.float32)  # above it: must vanish
    edge = (0.5 * np.sin(2 * np.pi * 7_500.0 * t)).astype(np.float32)  # near it: what is kept
    m = n * dst // src
    tt = np.arange(m) / dst
    ref = sum(0.2 * np.sin(2 * np.pi * f * tt) for f in tones)
    block = src // 50

    def ours(sig: np.ndarray) -> np.ndarray:
        r = Resampler(src, dst)
        out = [r.process(sig[i:i + block]) for i in range(0, len(sig), block)]
        return np.concatenate([*out, r.flush()])[:m]

    def lib(sig: np.ndarray) -> np.ndarray:
        r = soxr.ResampleStream(src, dst, 1, dtype="float32", quality="HQ")
        out = [r.resample_chunk(sig[i:i + block], last=False) for i in range(0, len(sig), block)]
        out.append(r.resample_chunk(np.zeros(0, np.float32), last=True))
        return np.concatenate(out)[:m]

    def snr_db(y: np.ndarray) -> float:
        # skip the edges (filter start-up) and align by the best lag within ±64 samples
        core = slice(2_000, m - 2_000)
        best_err = min(np.mean((y[core.start + k:core.stop + k] - ref[core]) ** 2) for k in range(-64, 65))
        return 10 * np.log10(np.mean(ref[core] ** 2) / best_err)

    def alias_db(y: np.ndarray) -> float:
        core = y[2_000:m - 2_000]
        return 20 * np.log10(np.sqrt(np.mean(core**2)) / (0.5 / np.sqrt(2)) + 1e-12)

    def held_back_ms(make) -> float:
        """Output a stream owes after 1 s of input in 20 ms blocks (its latency)."""
        r = make()
        got = sum(len(r(x[i:i + block])) for i in range(0, src, block))
        return (dst - got) / dst * 1e3

    def ours_stream():
        r = Resampler(src, dst)
        return r.process

    def lib_stream():
        r = soxr.ResampleStream(src, dst, 1, dtype="float32", quality="HQ")
        return lambda c: r.resample_chunk(c, last=False)

    reps = 1 if quick else 3
    t_ours = best(lambda: ours(x), 1, reps)
    t_lib = best(lambda: lib(x), 1, reps)
    row("", ["ours (numpy)", "soxr HQ"])
    row("SNR vs ideal tones (dB)", [f"{snr_db(ours(x)):.1f}", f"{snr_db(lib(x)):.1f}"])
    row("11 kHz alias left (dB)", [f"{alias_db(ours(alias)):.1f}", f"{alias_db(lib(alias)):.1f}"])
    row("7.5 kHz tone kept (dB)", [f"{alias_db(ours(edge)):.1f}", f"{alias_db(lib(edge)):.1f}"])
    row("latency in a stream (ms)", [f"{held_back_ms(ours_stream):.1f}", f"{held_back_ms(lib_stream):.1f}"])
    row("time for 10 s (ms)", [f"{t_ours * 1e3:.1f}", f"{t_lib * 1e3:.1f}"])
    cost_rows(t_ours, t_lib, "numpy", "soxr", "soxr")


# ------------------------------------------------------------------ WAV decoding


def wav_decoding(quick: bool) -> None:
    import soundfile

    print("\nWAV decoding (60 s, 16 kHz mono, 16-bit PCM; plus 8/24/32-bit and float for equality)")
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(16_000 * 60) * 0.2).clip(-1, 1).astype(np.float32)
    same = []
    with tempfile.TemporaryDirectory() as tmp:
        for subtype in ("PCM_U8", "PCM_16", "PCM_24", "PCM_32", "FLOAT"):
            p = Path(tmp) / f"{subtype}.wav"
            soundfile.write(p, x[:16_000], 16_000, subtype=subtype)
            a, _ = read_wav(p)
            b, _ = soundfile.read(p, dtype="float32")
            same.append(f"{subtype}:{'=' if np.allclose(a, b, atol=1e-6) else 'DIFF'}")
        p = Path(tmp) / "long.wav"
        with wave.open(str(p), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16_000)
            w.writeframes((x * 32767).astype("<i2").tobytes())
        n = 5 if quick else 20
        t_ours = best(lambda: read_wav(p), n)
        t_lib = best(lambda: soundfile.read(p, dtype="float32"), n)
    row("", ["ours (wave+numpy)", "soundfile"])
    row("same samples as the other", [" ".join(same[:2]), " ".join(same[2:])])
    row("time per 60 s file (ms)", [f"{t_ours * 1e3:.2f}", f"{t_lib * 1e3:.2f}"])
    cost_rows(t_ours, t_lib, "stdlib", "soundfile", "soundfile")


# ------------------------------------------------------------------ GGUF header


def gguf_header(quick: bool) -> None:
    from gguf import GGUFReader

    from edgevox.models import ensure_model

    path = Path(ensure_model("qwen2.5-coder-0.5b"))
    print(f"\nGGUF metadata of {path.name} ({path.stat().st_size / 1e6:.0f} MB)")

    def lib_meta() -> dict:
        r = GGUFReader(path)
        out = {}
        for key, field in r.fields.items():
            if key.startswith("tokenizer.ggml.") or key.startswith("GGUF."):
                continue
            out[key] = field.contents()
        return out

    ours = read_gguf(path).metadata
    theirs = lib_meta()
    keys = [k for k in theirs if not k.startswith("tokenizer.ggml.")]
    agree = sum(1 for k in keys if ours.get(k) == theirs[k] or (isinstance(theirs[k], float) and abs(ours.get(k, 0) - theirs[k]) < 1e-6))
    n = 3 if quick else 10
    t_ours = best(lambda: read_gguf(path), n)
    t_lib = best(lib_meta, max(1, n // 3))
    with tempfile.TemporaryDirectory() as tmp:  # a truncated copy: what does each say?
        cut = Path(tmp) / "cut.gguf"
        with path.open("rb") as f:
            cut.write_bytes(f.read(4_000_000))
        msgs = []
        for fn in (read_gguf, GGUFReader):
            try:
                fn(cut)
                msgs.append("accepted")
            except Exception as e:  # noqa: BLE001 - we print what each one says
                msgs.append(f"{type(e).__name__}: {str(e)[:60]}")
    row("", ["ours (struct)", "gguf.GGUFReader"])
    row("metadata keys that agree", [f"{agree}/{len(keys)}", f"{agree}/{len(keys)}"])
    row("time to read the header (ms)", [f"{t_ours * 1e3:.2f}", f"{t_lib * 1e3:.2f}"])
    cost_rows(t_ours, t_lib, "stdlib", "gguf", "gguf")
    print(f"  truncated file, ours:   {msgs[0]}")
    print(f"  truncated file, gguf:   {msgs[1]}")


def main() -> None:
    quick = "--quick" in sys.argv
    resampler(quick)
    wav_decoding(quick)
    gguf_header(quick)


if __name__ == "__main__":
    main()
