"""WAV files: read any PCM or float WAV as float32 mono, write 16-bit PCM."""

from __future__ import annotations

import struct
import wave
from pathlib import Path

import numpy as np

from .signals import MIN_INPUT_RATE, SAMPLE_RATE, AudioError, resample


def decode_pcm(raw: bytes, width: int, fmt: int) -> np.ndarray:
    """Little-endian PCM (8/16/24/32-bit) or float (fmt 3) samples as float32 in [-1, 1]."""
    if fmt == 3:
        if width not in (4, 8):
            raise AudioError(f"Float WAV with {8 * width}-bit samples is not supported (use 32-bit).")
        return np.frombuffer(raw, "<f4" if width == 4 else "<f8").astype(np.float32)
    if width == 1:
        return (np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / 128.0
    if width == 2:
        return np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0
    if width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        v = np.where(v >= 1 << 23, v - (1 << 24), v)
        return v.astype(np.float32) / float(1 << 23)
    if width == 4:
        return np.frombuffer(raw, "<i4").astype(np.float32) / float(1 << 31)
    raise AudioError(f"WAV sample width of {width} bytes is not supported.")


def read_wav(path: str | Path) -> tuple[np.ndarray, int]:
    """Read a PCM or float WAV as float32 mono in [-1, 1] and its sample rate.

    Why our own and not ``soundfile``, measured side by side (``benchmarks/bench_libraries.py``):
    the same samples for 8/16/24/32-bit PCM and float WAV, as fast or faster (a 60 s file in
    about 2 ms), while soundfile would add 4.6 MB (libsndfile, cffi, pycparser) to read the
    one container EdgeVox uses; every failure here is already a one-sentence AudioError.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as err:
        raise AudioError(f"Cannot read WAV file {p}: {err.strerror or err}.") from err
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise AudioError(f"{p} is not a WAV file (no RIFF/WAVE header).")
    pos, fmt_chunk, pcm = 12, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body = data[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            fmt_chunk = body
        elif cid == b"data":
            pcm = body
            break
        pos += 8 + size + (size & 1)
    if fmt_chunk is None or pcm is None or len(fmt_chunk) < 16:
        raise AudioError(f"{p} is a damaged WAV file (missing fmt or data chunk).")
    fmt, channels, rate, _, _, bits = struct.unpack("<HHIIHH", fmt_chunk[:16])
    if fmt == 0xFFFE and len(fmt_chunk) >= 26:
        fmt = struct.unpack("<H", fmt_chunk[24:26])[0]
    if fmt not in (1, 3):
        raise AudioError(f"{p} uses WAV encoding {fmt}; only PCM and float WAV files are supported.")
    if channels < 1:
        raise AudioError(f"{p} declares {channels} channels.")
    width = max(1, bits // 8)
    usable = len(pcm) - len(pcm) % (width * channels)
    x = decode_pcm(pcm[:usable], width, fmt)
    if channels > 1:
        x = x.reshape(-1, channels).mean(axis=1)
    return np.ascontiguousarray(x, np.float32), int(rate)


def load_audio(path: str | Path, rate: int = SAMPLE_RATE) -> np.ndarray:
    """Read a WAV and bring it to `rate` (mono float32); rejects unusably low rates."""
    x, sr = read_wav(path)
    if sr < MIN_INPUT_RATE:
        raise AudioError(
            f"{Path(path).name} is sampled at {sr} Hz; speech input needs at least {MIN_INPUT_RATE} Hz."
        )
    return resample(x, sr, rate) if sr != rate else x


def write_wav(path: str | Path, audio: np.ndarray, rate: int) -> None:
    """Write float32 mono audio as 16-bit PCM."""
    pcm = (np.clip(np.asarray(audio, np.float32), -1.0, 1.0) * 32767.0).astype("<i2")
    try:
        with wave.open(str(path), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(int(rate))
            w.writeframes(pcm.tobytes())
    except OSError as err:
        raise AudioError(f"Cannot write WAV file {path}: {err.strerror or err}.") from err
