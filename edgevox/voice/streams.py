"""Where frames come from and reply audio goes, without a sound card: the source and sink
interfaces, WAV and in-memory sources, a recording sink, and the buffered sink a clock
pulls from (a sound-card callback or the paced file writer)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

import numpy as np

from .signals import FRAME, SAMPLE_RATE, Resampler, rms
from .wav import load_audio, write_wav


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
