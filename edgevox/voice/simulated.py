"""A scripted full-duplex audio device on a virtual clock, for tests and benchmarks.

`ScriptedDuplex` plays the part of a person at a microphone and of the speaker: `source`
yields 16 kHz frames that mix recordings placed on a timeline (cues) with seeded noise
and an echo of what was played; `sink` is a `BufferedSink` drained by a virtual DAC.

Why a virtual clock: the device's time is its sample count, and mic and DAC advance
together, in one step per mic frame, in the thread that reads the frames. So

- the echo in mic frame *k* is exactly the output of the frames before it (no DAC
  thread that can fall behind or race ahead of the mic);
- a barge-in acts at a known device time: the pipeline cancels playback before it asks
  for the next frame, so the DAC is silent from the next step on;
- the DAC never underruns while the `SpeechPlayer` still has audio on its way (text
  waiting for synthesis, synthesis running, audio not yet written: `sink.feeding()`);
  the device holds its clock until that audio arrives, so speech synthesis costs no
  device time and a reply plays without gaps however loaded the machine is. The
  responder (an LLM) and speech recognition do take device time, as they would live.

Frames are paced so device time never runs ahead of the wall clock (threads doing real
work get the time they would get live). When the process stalls or the device holds,
the device does not catch up in a burst: its clock is re-anchored to the wall clock
(`offset`), so the monotonic stamps it hands out (`last_frame_time`, the DAC's pull
times) stay close to `time.monotonic()`, while everything a test asserts on
(`played`, `playback_starts`, `cue_starts`) is in device seconds and reproducible.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edgevox.voice.audio import FRAME, SAMPLE_RATE, BufferedSink, Resampler, load_audio

__all__ = ["Cue", "ScriptedDuplex"]


@dataclass
class Cue:
    """A recording the scripted person says: at a device time, or after a playback starts."""

    audio: np.ndarray | str | Path
    at_s: float | None = None
    after_playback_s: float | None = None
    playback_index: int = 0  # which playback (0 = the first reply) `after_playback_s` refers to
    gain: float = 1.0


class ScriptedDuplex:
    """Mic and speaker of a scripted conversation, advancing one 32 ms frame at a time.

    `echo_gain`/`echo_delay_s`: how much of the output reaches the mic, and how late.
    The source ends after the last cue plus `tail_s` once nothing is playing, after
    `max_duration_s` of device time, or on `close()`. `hold_timeout_s` bounds how long
    (wall time) the device waits for audio the player still owes it; past that it plays
    silence and counts an underrun.
    """

    def __init__(self, cues: Sequence[Cue], out_rate: int, echo_gain: float = 0.0,
                 echo_delay_s: float = 0.03, noise: float = 0.0, tail_s: float = 1.5,
                 max_duration_s: float = 60.0, hold_timeout_s: float = 30.0):
        self.cues = list(cues)
        self._audio = [load_audio(c.audio) if not isinstance(c.audio, np.ndarray)
                       else np.asarray(c.audio, np.float32) for c in self.cues]
        self.out_rate = int(out_rate)
        self.echo_gain, self.echo_delay_s, self.noise = echo_gain, echo_delay_s, noise
        self.tail_s, self.max_duration_s, self.hold_timeout_s = tail_s, max_duration_s, hold_timeout_s
        self.sink = BufferedSink(self.out_rate)
        self.source = _ScriptedSource(self)
        self.t0: float | None = None  # monotonic time of device time 0
        self.offset = 0.0  # seconds the device clock was held or stalled (stamp = t0 + s + offset)
        self.played: list[tuple[float, np.ndarray]] = []  # (device s the block starts, samples)
        self.playback_starts: list[float] = []  # device s
        self.cue_starts: dict[int, float] = {}  # cue index -> device s
        self.underruns = 0
        self._out_n = 0  # output samples the DAC has pulled (its clock, at out_rate)
        self._timeline = np.zeros(int((max_duration_s + 5) * SAMPLE_RATE), np.float32)
        self._echo_rs = Resampler(self.out_rate, SAMPLE_RATE)
        self._echo_pos = int(round(echo_delay_s * SAMPLE_RATE))
        self._stop = threading.Event()
        self._drain: threading.Thread | None = None
        for i, c in enumerate(self.cues):
            if c.at_s is not None:
                self._place(i, c.at_s)

    # -- the script --------------------------------------------------------------------
    def _place(self, i: int, at_s: float) -> None:
        a = self._audio[i] * self.cues[i].gain
        s = int(round(at_s * SAMPLE_RATE))
        e = min(len(self._timeline), s + len(a))
        self._timeline[s:e] += a[:e - s]
        self.cue_starts[i] = at_s

    def done_at_s(self) -> float:
        """Device time after which nothing more will be said."""
        ends = [self.cue_starts[i] + len(self._audio[i]) / SAMPLE_RATE for i in self.cue_starts]
        pending = any(i not in self.cue_starts for i in range(len(self.cues)))
        return math.inf if pending else max(ends, default=0.0) + self.tail_s

    # -- the clock ---------------------------------------------------------------------
    def stamp(self, device_s: float) -> float:
        """The monotonic time a device time is reported as (what the pipeline compares)."""
        assert self.t0 is not None
        return self.t0 + device_s + self.offset

    def _pace(self, device_s: float) -> None:
        """Wait until `device_s` is due; after a stall or hold, re-anchor instead of bursting."""
        if self.t0 is None:
            self.t0 = time.monotonic()
        late = time.monotonic() - self.stamp(device_s)
        if late < 0:
            time.sleep(-late)
        elif late > 0.05:
            self.offset += late

    def _feeding(self) -> bool:
        feeding = getattr(self.sink, "feeding", None)
        return bool(feeding is not None and feeding())

    def _advance(self, device_s: float) -> None:
        """Run the DAC up to `device_s`: pull, record, echo, place cues that follow playback."""
        end = int(round(device_s * self.out_rate))
        n = end - self._out_n
        if n <= 0:
            return
        deadline = time.monotonic() + self.hold_timeout_s
        while (self.sink.pending_s() * self.out_rate < n and self._feeding()
               and not self._stop.is_set()):
            if time.monotonic() > deadline:
                self.underruns += 1
                break
            time.sleep(0.002)
        start_s = self._out_n / self.out_rate
        starts = self.sink.starts
        block = self.sink.pull(n, self.stamp(start_s))
        self._out_n = end
        if np.any(block):
            self.played.append((start_s, block))
        if self.sink.starts != starts:  # the sink went from idle to playing in this pull
            self.playback_starts.append(start_s)
            k = len(self.playback_starts) - 1
            for i, c in enumerate(self.cues):
                if c.after_playback_s is not None and i not in self.cue_starts and c.playback_index == k:
                    self._place(i, start_s + c.after_playback_s)
        if self.echo_gain:
            echo = self._echo_rs.process(block) * self.echo_gain
            s = self._echo_pos
            e = min(len(self._timeline), s + len(echo))
            self._timeline[s:e] += echo[:e - s]
            self._echo_pos += len(echo)

    def _drain_loop(self, device_s: float) -> None:
        """After the script ended: keep the speaker running (a turn may still finish)."""
        step = FRAME / SAMPLE_RATE
        while not self._stop.is_set():
            device_s += step
            self._pace(device_s)
            self._advance(device_s)

    # -- what a test reads -------------------------------------------------------------
    def played_audio(self) -> np.ndarray:
        return np.concatenate([b for _, b in self.played]) if self.played else np.zeros(0, np.float32)

    def sound_ends_s(self, before_s: float = math.inf) -> float | None:
        """Device time the last non-zero output sample before `before_s` ended."""
        for start_s, block in reversed(self.played):
            if start_s < before_s:
                return start_s + (int(np.flatnonzero(block)[-1]) + 1) / self.out_rate
        return None

    def close(self) -> None:
        self._stop.set()
        if self._drain is not None and self._drain is not threading.current_thread():
            self._drain.join(timeout=1.0)


class _ScriptedSource:
    sample_rate = SAMPLE_RATE
    realtime = True

    def __init__(self, dev: ScriptedDuplex):
        self.dev = dev
        self.last_frame_time = 0.0

    def frames(self) -> Iterator[np.ndarray]:
        d = self.dev
        rng = np.random.default_rng(0)
        i = 0
        end_s = 0.0
        while not d._stop.is_set():
            end_s = (i + 1) * FRAME / SAMPLE_RATE
            if end_s > d.max_duration_s or (end_s > d.done_at_s() and not d.sink.is_playing()
                                           and not d._feeding()):
                break
            d._pace(end_s)
            d._advance(end_s)  # output up to the frame's end: its echo is in place
            f = d._timeline[i * FRAME:(i + 1) * FRAME].copy()
            self.last_frame_time = d.stamp(end_s)
            if d.noise:
                f += rng.normal(0.0, d.noise, FRAME).astype(np.float32)
            yield f
            i += 1
        if not d._stop.is_set() and d.t0 is not None:
            d._drain = threading.Thread(target=d._drain_loop, args=(end_s,), name="scripted-dac",
                                        daemon=True)
            d._drain.start()

    def close(self) -> None:
        self.dev.close()
