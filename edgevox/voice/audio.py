"""Audio in and out: WAV files and sound devices, one interface.

Input sources yield float32 mono frames of `FRAME` samples at 16 kHz (what Silero VAD
and Whisper want); output sinks accept float32 chunks at the TTS rate. Files, the sound
card and the scripted test device (`edgevox.voice.simulated`) all look the same to the
pipeline, so everything runs headless. Every failure a user can cause (no PortAudio, no sound card, unreadable WAV,
unusable sample rate) is an `AudioError` whose message is one sentence.

Live streams are resampled by our own windowed-sinc polyphase filter in numpy (Kaiser
window, 32 taps per phase; linear interpolation aliases badly when a 44.1/48 kHz microphone
comes down to 16 kHz); whole files by soxr. See `Resampler` and `resample` for the numbers.
"""

from __future__ import annotations

import math
import queue
import struct
import threading
import time
import wave
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

SAMPLE_RATE = 16_000
"""Rate of every input frame (VAD and STT rate)."""
FRAME = 512
"""Samples per input frame: 32 ms, the window Silero VAD takes at 16 kHz."""
MIN_INPUT_RATE = 8_000


class AudioError(RuntimeError):
    """A sound device or audio file cannot be used; str() is one sentence for the user."""


# --------------------------------------------------------------------------- resampling


class Resampler:
    """Streaming rational resampler (polyphase windowed sinc); state spans `process` calls.

    Why our own for streams, measured against soxr's streaming resampler side by side
    (`benchmarks/bench_libraries.py`, 48 -> 16 kHz in 20 ms blocks): soxr HQ holds back
    about 21 ms of output (340 samples at 16 kHz; 2-30 ms over its quality settings) where
    this filter holds back 1 ms, and that delay would sit in every turn's time to the end
    of speech and shift the echo guard's playback reference. Ours is good enough for speech
    (86 dB SNR on speech-band tones, aliases at -96 dB) and costs 2-3 % of a core at 48 kHz.
    Whole signals, where latency does not matter, go through soxr (`resample`).
    """

    def __init__(self, src_rate: int, dst_rate: int, taps_per_phase: int = 32, beta: float = 8.0):
        if src_rate <= 0 or dst_rate <= 0:
            raise AudioError(f"Sample rates must be positive, got {src_rate} Hz and {dst_rate} Hz.")
        g = math.gcd(int(src_rate), int(dst_rate))
        self.up, self.down = int(dst_rate) // g, int(src_rate) // g
        self.src_rate, self.dst_rate = int(src_rate), int(dst_rate)
        # the filter must span `taps_per_phase` periods of the lower rate, hence the scaling
        k = int(math.ceil(taps_per_phase * max(1.0, self.down / self.up)))
        k += k % 2  # even, so the filter delay is a whole number of upsampled samples
        n = k * self.up + 1
        cutoff = 0.5 / max(self.up, self.down) * 0.92  # cycles per upsampled sample
        t = np.arange(n) - (n - 1) / 2
        h = 2 * cutoff * np.sinc(2 * cutoff * t) * np.kaiser(n, beta) * self.up
        h = np.concatenate([h, np.zeros((k + 1) * self.up - n)])
        # poly[p, j] multiplies x[base - j] for outputs whose upsampled phase is p
        self._poly = h.reshape(k + 1, self.up).T.astype(np.float64)
        self._taps = k + 1
        self._delay = k * self.up // 2
        self._buf = np.zeros(0, np.float64)
        self._buf_start = 0  # absolute index of _buf[0]
        self._m = 0  # next output index
        self._n_in = 0

    def _outputs_until(self, m_end: int) -> np.ndarray:
        if m_end <= self._m:
            return np.zeros(0, np.float32)
        outs = []
        for m0 in range(self._m, m_end, 8192):
            m = np.arange(m0, min(m_end, m0 + 8192), dtype=np.int64)
            q = m * self.down + self._delay
            phase, base = q % self.up, q // self.up
            idx = base[:, None] - np.arange(self._taps)[None, :] - self._buf_start
            if len(self._buf):
                ok = (idx >= 0) & (idx < len(self._buf))
                x = np.where(ok, self._buf[np.clip(idx, 0, len(self._buf) - 1)], 0.0)
            else:
                x = np.zeros(idx.shape)
            outs.append(np.einsum("ij,ij->i", self._poly[phase], x))
        self._m = m_end
        keep_from = (self._m * self.down + self._delay) // self.up - self._taps
        drop = max(0, min(len(self._buf), keep_from - self._buf_start))
        self._buf, self._buf_start = self._buf[drop:], self._buf_start + drop
        return np.concatenate(outs).astype(np.float32)

    def process(self, chunk: np.ndarray) -> np.ndarray:
        """Feed input samples; return every output sample that is now fully determined."""
        if self.up == self.down:
            return np.asarray(chunk, np.float32)
        self._buf = np.concatenate([self._buf, np.asarray(chunk, np.float64)])
        self._n_in += len(chunk)
        total = self._buf_start + len(self._buf)
        m_end = (total * self.up - 1 - self._delay) // self.down + 1
        return self._outputs_until(max(m_end, 0))

    def flush(self) -> np.ndarray:
        """Return the remaining outputs (input treated as followed by silence)."""
        if self.up == self.down:
            return np.zeros(0, np.float32)
        want = -(-self._n_in * self.up // self.down)
        return self._outputs_until(want)


def resample(x: np.ndarray, src_rate: int, dst_rate: int) -> np.ndarray:
    """Resample a whole mono signal with soxr (HQ); output length is ceil(len * dst / src).

    For a whole signal latency does not matter, and soxr is better on every other count
    (`benchmarks/bench_libraries.py`: 137 vs 86 dB SNR on speech-band tones, a 7.5 kHz tone
    kept at -0.4 vs -8.4 dB when going to 16 kHz, 20-80x faster, 11 ms import, 0.5 MB).
    """
    x = np.ascontiguousarray(x, np.float32).reshape(-1)
    if src_rate <= 0 or dst_rate <= 0:
        raise AudioError(f"Sample rates must be positive, got {src_rate} Hz and {dst_rate} Hz.")
    if src_rate == dst_rate:
        return x.copy()
    import soxr

    want = -(-len(x) * int(dst_rate) // int(src_rate))
    y = np.asarray(soxr.resample(x, int(src_rate), int(dst_rate), quality="HQ"), np.float32)[:want]
    return y if len(y) == want else np.concatenate([y, np.zeros(want - len(y), np.float32)])


# --------------------------------------------------------------------------- WAV files


def _decode_pcm(raw: bytes, width: int, fmt: int) -> np.ndarray:
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
    x = _decode_pcm(pcm[:usable], width, fmt)
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


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0


# --------------------------------------------------------------------------- interfaces


class AudioSource(Protocol):
    """Yields float32 mono frames of FRAME samples at SAMPLE_RATE."""

    sample_rate: int
    realtime: bool  # True when frames arrive at the pace of speech (mic, scripted device)
    last_frame_time: float  # monotonic time the last yielded frame ended (capture clock)

    def frames(self) -> Iterator[np.ndarray]: ...

    def close(self) -> None: ...


class AudioSink(Protocol):
    """Accepts float32 mono chunks at `sample_rate` and plays (or records) them."""

    sample_rate: int
    on_start: Callable[[float], None] | None  # called with monotonic time of first sample out

    def write(self, chunk: np.ndarray) -> None: ...

    def stop(self) -> None: ...

    def wait(self, timeout: float | None = None) -> bool: ...

    def is_playing(self) -> bool: ...

    def pending_s(self) -> float: ...

    def output_level(self, window_s: float = 0.25) -> float: ...

    def reference(self, t_from: float, t_to: float) -> np.ndarray: ...

    def close(self) -> None: ...


def _frames_of(x: np.ndarray, frame: int = FRAME) -> Iterator[np.ndarray]:
    for i in range(0, len(x), frame):
        f = x[i:i + frame]
        if len(f) < frame:
            f = np.concatenate([f, np.zeros(frame - len(f), np.float32)])
        yield f


class WavSource:
    """Frames from a WAV file (any rate, any channel count), resampled to 16 kHz.

    `tail_silence_s` appends silence so the endpointer sees the speaker stop even when
    the file ends right after the last word. `realtime=True` paces frames like a mic.
    """

    sample_rate = SAMPLE_RATE

    def __init__(self, path: str | Path, tail_silence_s: float = 1.0, realtime: bool = False):
        self.path = Path(path)
        self.audio = load_audio(self.path)
        self.audio = np.concatenate([self.audio, np.zeros(int(tail_silence_s * SAMPLE_RATE), np.float32)])
        self.realtime = realtime

    last_frame_time = 0.0

    def frames(self) -> Iterator[np.ndarray]:
        t0 = time.monotonic()
        for i, f in enumerate(_frames_of(self.audio)):
            if self.realtime:
                delay = t0 + (i + 1) * FRAME / SAMPLE_RATE - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                self.last_frame_time = t0 + (i + 1) * FRAME / SAMPLE_RATE
            else:
                self.last_frame_time = time.monotonic()
            yield f

    def close(self) -> None:
        pass


class ArraySource(WavSource):
    """Frames from an in-memory 16 kHz signal (benchmarks, tests)."""

    def __init__(self, audio: np.ndarray, tail_silence_s: float = 1.0, realtime: bool = False):
        self.path = Path("<array>")
        self.audio = np.concatenate([np.asarray(audio, np.float32),
                                     np.zeros(int(tail_silence_s * SAMPLE_RATE), np.float32)])
        self.realtime = realtime


class WavSink:
    """Records reply audio; written to `path` on close. Output is 'played' on write."""

    def __init__(self, path: str | Path | None, sample_rate: int):
        self.path = Path(path) if path is not None else None
        self.sample_rate = int(sample_rate)
        self.on_start: Callable[[float], None] | None = None
        self.chunks: list[np.ndarray] = []
        self.writes: list[tuple[float, int]] = []  # (monotonic time, samples)
        self._idle = True

    def write(self, chunk: np.ndarray) -> None:
        now = time.monotonic()
        if self._idle and self.on_start is not None:
            self.on_start(now)
        self._idle = False
        self.chunks.append(np.asarray(chunk, np.float32))
        self.writes.append((now, len(chunk)))

    def audio(self) -> np.ndarray:
        return np.concatenate(self.chunks) if self.chunks else np.zeros(0, np.float32)

    def stop(self) -> None:
        self._idle = True

    def wait(self, timeout: float | None = None) -> bool:
        self._idle = True
        return True

    def is_playing(self) -> bool:
        return False

    def pending_s(self) -> float:
        return 0.0

    def output_level(self, window_s: float = 0.25) -> float:
        return 0.0

    def reference(self, t_from: float, t_to: float) -> np.ndarray:
        return np.zeros(max(0, int(round((t_to - t_from) * SAMPLE_RATE))), np.float32)

    def close(self) -> None:
        if self.path is not None:
            write_wav(self.path, self.audio(), self.sample_rate)


class BufferedSink:
    """Audio waiting to be played, pulled by a clock (sound-card callback or virtual DAC).

    `stop()` drops everything not yet pulled, which is what makes barge-in quick.
    """

    def __init__(self, sample_rate: int):
        self.sample_rate = int(sample_rate)
        self.on_start: Callable[[float], None] | None = None
        # Set by the writer (SpeechPlayer): True while it still has audio of the current
        # reply on its way. A virtual device waits for that audio instead of underrunning.
        self.feeding: Callable[[], bool] | None = None
        self.starts = 0  # times a pull found audio after the sink had been idle
        self._chunks: deque[np.ndarray] = deque()
        self._pending = 0
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._was_idle = True
        self._levels: deque[tuple[float, float]] = deque(maxlen=400)
        # What went out, at 16 kHz, as one contiguous stream (the echo guard's reference).
        # Its clock is the sample count, anchored to wall time at the first pull and
        # re-anchored only when the pulls drift (a stalled device), so block jitter does
        # not smear the waveform.
        self._ref_rs = Resampler(self.sample_rate, SAMPLE_RATE)
        self._ref = np.zeros(4 * SAMPLE_RATE, np.float32)
        self._ref_n = 0
        self._ref_anchor: tuple[float, int] | None = None
        self._ref_lock = threading.Lock()

    def write(self, chunk: np.ndarray) -> None:
        chunk = np.asarray(chunk, np.float32)
        if not len(chunk):
            return
        with self._lock:
            self._chunks.append(chunk)
            self._pending += len(chunk)
            self._idle.clear()

    def pull(self, n: int, t: float | None = None) -> np.ndarray:
        """Take the next n samples (zeros when nothing is queued); call from the clock.

        `t` is when these samples go out (monotonic); default now.
        """
        out = np.zeros(n, np.float32)
        got = 0
        with self._lock:
            while got < n and self._chunks:
                c = self._chunks[0]
                take = min(n - got, len(c))
                out[got:got + take] = c[:take]
                got += take
                if take == len(c):
                    self._chunks.popleft()
                else:
                    self._chunks[0] = c[take:]
            self._pending -= got
            started = got > 0 and self._was_idle
            self._was_idle = got == 0
            self.starts += started
            if not self._chunks:
                self._idle.set()
        now = time.monotonic() if t is None else t
        self._levels.append((now, rms(out)))
        self._record_reference(now, self._ref_rs.process(out))
        if started and self.on_start is not None:
            self.on_start(now)
        return out

    def stop(self) -> None:
        with self._lock:
            self._chunks.clear()
            self._pending = 0
            self._idle.set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._idle.wait(timeout)

    def is_playing(self) -> bool:
        return not self._idle.is_set()

    def pending_s(self) -> float:
        return self._pending / self.sample_rate

    def output_level(self, window_s: float = 0.25) -> float:
        """Loudest block RMS played within the last window (echo-guard reference)."""
        cutoff = time.monotonic() - window_s
        return max((lv for t, lv in list(self._levels) if t >= cutoff), default=0.0)

    def _record_reference(self, t: float, blk: np.ndarray) -> None:
        with self._ref_lock:
            if self._ref_anchor is None or abs(
                    self._ref_anchor[0] + (self._ref_n - self._ref_anchor[1]) / SAMPLE_RATE - t) > 0.02:
                self._ref_anchor = (t, self._ref_n)
            size = len(self._ref)
            blk = blk[-size:]
            idx = (self._ref_n + np.arange(len(blk))) % size
            self._ref[idx] = blk
            self._ref_n += len(blk)

    def reference(self, t_from: float, t_to: float) -> np.ndarray:
        """Output played between two monotonic times, resampled to 16 kHz (zeros if none)."""
        n = max(0, int(round((t_to - t_from) * SAMPLE_RATE)))
        out = np.zeros(n, np.float32)
        with self._ref_lock:
            if self._ref_anchor is None:
                return out
            t_a, m_a = self._ref_anchor
            m0 = m_a + int(round((t_from - t_a) * SAMPLE_RATE))
            lo, hi = max(m0, self._ref_n - len(self._ref), 0), min(m0 + n, self._ref_n)
            if hi > lo:
                out[lo - m0:hi - m0] = self._ref[np.arange(lo, hi) % len(self._ref)]
        return out

    def close(self) -> None:
        self.stop()


class PacedWavSink(BufferedSink):
    """A speaker made of a clock and a WAV file: plays at real-time pace, records what played.

    What `edgevox voice --input X --realtime` writes to: a reply takes as long to "play" as
    it would on a speaker, so a person (or a test) can watch and interrupt it, and a cancel
    leaves only what was heard in the file.
    """

    def __init__(self, path: str | Path | None, sample_rate: int, block_s: float = 0.02):
        super().__init__(sample_rate)
        self.path = Path(path) if path is not None else None
        self.played: list[np.ndarray] = []
        self._block = max(1, int(block_s * self.sample_rate))
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._clock, name="paced-wav-sink", daemon=True)
        self._thread.start()

    def _clock(self) -> None:
        step = self._block / self.sample_rate
        tick = time.monotonic()
        while not self._closed.is_set():
            playing = self.is_playing()
            out = self.pull(self._block, tick)
            if playing:
                self.played.append(out)
            tick += step
            self._closed.wait(max(0.0, tick - time.monotonic()))

    def audio(self) -> np.ndarray:
        return np.concatenate(self.played) if self.played else np.zeros(0, np.float32)

    def close(self) -> None:
        if self._closed.is_set():
            return
        self.wait(60.0)
        self._closed.set()
        self._thread.join()
        self.stop()
        if self.path is not None:
            write_wav(self.path, self.audio(), self.sample_rate)


# --------------------------------------------------------------------------- sound devices


@dataclass(frozen=True)
class DeviceInfo:
    index: int
    name: str
    max_input_channels: int
    max_output_channels: int
    default_samplerate: float
    is_default_input: bool = False
    is_default_output: bool = False


def _sounddevice():
    """Import sounddevice, turning a missing package or PortAudio into one sentence."""
    try:
        import sounddevice as sd
    except OSError:
        raise AudioError(
            "The PortAudio library is not installed (on Debian/Ubuntu: sudo apt install "
            "libportaudio2); use WAV files with --input/--output instead."
        ) from None
    except ImportError:
        raise AudioError(
            "The sounddevice package is not installed; install the voice extra: "
            "pip install 'edgevox[voice]'."
        ) from None
    return sd


def _device_error(kind: str, err: Exception) -> AudioError:
    text = str(err).strip().rstrip(".") or type(err).__name__
    return AudioError(
        f"Cannot open the {kind} sound device ({text}); check that a sound card is present, "
        "or use WAV files with --input/--output."
    )


def list_devices() -> list[DeviceInfo]:
    """Every sound device PortAudio sees, with the default input and output flagged."""
    sd = _sounddevice()
    try:
        devs = sd.query_devices()
        d_in, d_out = sd.default.device
    except Exception as err:  # PortAudioError and friends: no audio subsystem
        raise _device_error("list of", err) from err
    return [
        DeviceInfo(i, d["name"], d["max_input_channels"], d["max_output_channels"],
                   float(d["default_samplerate"]), i == d_in, i == d_out)
        for i, d in enumerate(devs)
    ]


def resolve_device(spec: int | str | None, kind: str) -> int | None:
    """Pick a device by index or by (case-insensitive) part of its name; None = default."""
    if spec is None:
        return None
    if isinstance(spec, str) and spec.strip().isdigit():
        spec = int(spec)
    devices = list_devices()
    chans = (lambda d: d.max_input_channels) if kind == "input" else (lambda d: d.max_output_channels)
    usable = [d for d in devices if chans(d) > 0]
    if isinstance(spec, int):
        if any(d.index == spec for d in usable):
            return spec
        raise AudioError(f"There is no {kind} device with index {spec}; run `edgevox voice --list-devices`.")
    hits = [d for d in usable if spec.lower() in d.name.lower()]
    if not hits:
        names = ", ".join(repr(d.name) for d in usable) or "none"
        raise AudioError(f"No {kind} device matches {spec!r}; available: {names}.")
    return hits[0].index


class MicSource:
    """Live microphone frames at 16 kHz; opens at 16 kHz or resamples from the device rate."""

    sample_rate = SAMPLE_RATE
    realtime = True

    def __init__(self, device: int | str | None = None, block_s: float = 0.032):
        sd = _sounddevice()
        self._dev = resolve_device(device, "input")
        self._q: queue.Queue[tuple[float, np.ndarray]] = queue.Queue(maxsize=2000)
        self.last_frame_time = 0.0
        self._closed = threading.Event()
        self.overflows = 0

        def callback(indata, frames, t, status):
            if status:
                self.overflows += 1
            try:
                self._q.put_nowait((time.monotonic(), indata[:, 0].copy()))
            except queue.Full:
                self.overflows += 1

        self._stream = None
        errors = []
        for rate in self._candidate_rates(sd):
            try:
                stream = sd.InputStream(device=self._dev, channels=1, samplerate=rate, dtype="float32",
                                        blocksize=int(rate * block_s), callback=callback,
                                        latency="low")
                stream.start()
            except Exception as err:  # PortAudioError: rate unsupported or no device
                errors.append(err)
                continue
            self._stream, self.device_rate = stream, int(rate)
            break
        if self._stream is None:
            raise _device_error("input", errors[-1] if errors else RuntimeError("no usable rate"))
        self._rs = Resampler(self.device_rate, SAMPLE_RATE)

    def _candidate_rates(self, sd) -> list[int]:
        try:
            default = int(sd.query_devices(self._dev, "input")["default_samplerate"])
        except Exception:
            default = 48_000
        return list(dict.fromkeys([SAMPLE_RATE, default, 48_000, 44_100]))

    def frames(self) -> Iterator[np.ndarray]:
        buf = np.zeros(0, np.float32)
        while not self._closed.is_set():
            try:
                t_block, block = self._q.get(timeout=0.2)
            except queue.Empty:
                continue
            buf = np.concatenate([buf, self._rs.process(block)])
            while len(buf) >= FRAME:
                # the frame ended this long before the end of the block that completed it
                self.last_frame_time = t_block - (len(buf) - FRAME) / SAMPLE_RATE
                yield buf[:FRAME]
                buf = buf[FRAME:]

    def close(self) -> None:
        self._closed.set()
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()
            stream.close()


class SpeakerSink(BufferedSink):
    """Live playback through sounddevice; the device callback pulls from the buffer."""

    def __init__(self, sample_rate: int, device: int | str | None = None, block_s: float = 0.02):
        super().__init__(sample_rate)
        sd = _sounddevice()
        dev = resolve_device(device, "output")
        try:
            default = int(sd.query_devices(dev, "output")["default_samplerate"])
        except Exception:
            default = 48_000
        self._stream, errors = None, []
        for rate in dict.fromkeys([self.sample_rate, default, 48_000, 44_100]):
            rs = Resampler(self.sample_rate, rate) if rate != self.sample_rate else None
            spill = np.zeros(0, np.float32)

            def callback(outdata, frames, t, status, rs=rs):
                nonlocal spill
                if rs is None:
                    outdata[:, 0] = self.pull(frames)
                    return
                while len(spill) < frames:
                    need = int(math.ceil((frames - len(spill)) * self.sample_rate / rs.dst_rate)) + 1
                    spill = np.concatenate([spill, rs.process(self.pull(need))])
                outdata[:, 0], spill = spill[:frames], spill[frames:]

            try:
                # low latency: what is already in the device buffer still plays after a barge-in
                stream = sd.OutputStream(device=dev, channels=1, samplerate=rate, dtype="float32",
                                         blocksize=int(rate * block_s), callback=callback,
                                         latency="low")
                stream.start()
            except Exception as err:  # PortAudioError
                errors.append(err)
                continue
            self._stream, self.device_rate = stream, int(rate)
            break
        if self._stream is None:
            raise _device_error("output", errors[-1] if errors else RuntimeError("no usable rate"))

    def close(self) -> None:
        super().close()
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()
            stream.close()
