"""Streaming voice activity detection and endpointing.

`SileroVAD` runs the Silero ONNX model that ships inside faster-whisper one 512-sample
frame (32 ms at 16 kHz) at a time, carrying the recurrent state and the 64-sample
context across calls, so the live stream and a file give the same probabilities.
An optional energy gate skips the model on frames that are plainly silent (cheap on a
Raspberry Pi, where every millisecond of CPU is shared with the LLM).

`Endpointer` turns per-frame speech probabilities into utterances: speech starts after
`start_ms` of frames above `threshold`, ends after `silence_ms` below `neg_threshold`
(hysteresis stops flicker at word gaps), keeps `preroll_ms` of audio from before the
start so the first consonant is not clipped, and cuts at `max_utterance_s`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from edgevox.voice.audio import FRAME, SAMPLE_RATE, rms

_CONTEXT = 64  # samples of the previous frame Silero v5/v6 expect in front of each frame


def silero_model_path() -> Path:
    """The Silero VAD ONNX file bundled with faster-whisper."""
    try:
        import faster_whisper
    except ImportError:
        raise RuntimeError("faster-whisper is not installed; install the voice extra: "
                           "pip install 'edgevox[voice]'.") from None
    assets = Path(faster_whisper.__file__).parent / "assets"
    found = sorted(assets.glob("silero_vad*.onnx"))
    if not found:
        raise RuntimeError(f"No Silero VAD model found in {assets}.")
    return found[-1]


class SileroVAD:
    """Speech probability per 512-sample 16 kHz frame, state carried between calls."""

    def __init__(self, model_path: str | Path | None = None, energy_floor_dbfs: float | None = -60.0):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # one frame is tiny: threads cost more than they save
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 4
        self._sess = ort.InferenceSession(str(model_path or silero_model_path()), opts,
                                          providers=["CPUExecutionProvider"])
        self.energy_floor = None if energy_floor_dbfs is None else 10 ** (energy_floor_dbfs / 20)
        self.skipped = 0
        self.reset()

    def reset(self) -> None:
        self._h = np.zeros((1, 1, 128), np.float32)
        self._c = np.zeros((1, 1, 128), np.float32)
        self._ctx = np.zeros(_CONTEXT, np.float32)

    def __call__(self, frame: np.ndarray) -> float:
        frame = np.asarray(frame, np.float32)
        if frame.shape != (FRAME,):
            raise ValueError(f"SileroVAD takes frames of {FRAME} samples at {SAMPLE_RATE} Hz, got {frame.shape}")
        if self.energy_floor is not None and rms(frame) < self.energy_floor:
            self.skipped += 1
            self._ctx = frame[-_CONTEXT:].copy()
            return 0.0
        x = np.concatenate([self._ctx, frame])[None, :]
        prob, self._h, self._c = self._sess.run(None, {"input": x, "h": self._h, "c": self._c})
        self._ctx = frame[-_CONTEXT:].copy()
        return float(np.asarray(prob).reshape(-1)[0])


@dataclass
class VADConfig:
    threshold: float = 0.5           # probability that counts as speech
    neg_threshold: float | None = None  # below this counts as silence (default threshold - 0.15)
    start_ms: int = 64               # speech needed before an utterance starts
    silence_ms: int = 500            # trailing silence that ends an utterance
    preroll_ms: int = 256            # audio kept from before the start
    max_utterance_s: float = 15.0    # hard cut
    min_speech_ms: int = 200         # shorter bursts (clicks, coughs) are dropped
    speculate_ms: int = 160          # trailing silence at which a `Pause` event is emitted (0 = off)
    energy_floor_dbfs: float | None = -60.0  # frames quieter than this skip the model

    @property
    def off_threshold(self) -> float:
        return self.neg_threshold if self.neg_threshold is not None else max(0.05, self.threshold - 0.15)


@dataclass
class SpeechStart:
    t: float  # audio time (s) of the first speech frame


@dataclass
class Pause:
    """Trailing silence reached `speculate_ms`: the utterance may be over (speculate)."""

    t: float
    audio: np.ndarray
    speech_frames: int  # identifies the utterance content at this point


@dataclass
class Utterance:
    audio: np.ndarray
    start_s: float         # audio time of the first speech frame
    end_s: float           # audio time of the end of the last speech frame
    detected_s: float      # audio time the end was decided
    reason: str            # "silence" | "max_length" | "eof"
    speech_frames: int
    meta: dict = field(default_factory=dict)

    @property
    def speech_s(self) -> float:
        return self.end_s - self.start_s


class Endpointer:
    """Frames + probabilities in, `SpeechStart`/`Pause`/`Utterance` events out."""

    def __init__(self, config: VADConfig | None = None):
        self.cfg = config or VADConfig()
        ms = FRAME * 1000 / SAMPLE_RATE
        self._start_n = max(1, round(self.cfg.start_ms / ms))
        self._end_n = max(1, round(self.cfg.silence_ms / ms))
        self._pre_n = max(0, round(self.cfg.preroll_ms / ms))
        self._max_n = max(1, round(self.cfg.max_utterance_s * 1000 / ms))
        self._min_n = max(1, round(self.cfg.min_speech_ms / ms))
        self._spec_n = round(self.cfg.speculate_ms / ms) if self.cfg.speculate_ms else 0
        self.reset()

    def reset(self) -> None:
        self.n = 0                      # frames seen
        self.in_speech = False
        self._pre: list[np.ndarray] = []
        self._cand: list[np.ndarray] = []  # frames of a possible start
        self._utt: list[np.ndarray] = []
        self._silence = 0
        self._speech = 0
        self._first = 0
        self._last_speech_end = 0

    @property
    def speech_ms(self) -> float:
        """Speech heard in the current utterance (0 when idle)."""
        return self._speech * FRAME * 1000 / SAMPLE_RATE if self.in_speech else 0.0

    def _t(self, frames: int) -> float:
        return frames * FRAME / SAMPLE_RATE

    def update(self, frame: np.ndarray, prob: float) -> list:
        events: list = []
        cfg = self.cfg
        self.n += 1
        if not self.in_speech:
            if prob >= cfg.threshold:
                self._cand.append(frame)
                if len(self._cand) >= self._start_n:
                    self.in_speech = True
                    self._first = self.n - len(self._cand)
                    self._utt = self._pre[-self._pre_n:] if self._pre_n else []
                    self._utt = self._utt + self._cand
                    self._speech = len(self._cand)
                    self._silence = 0
                    self._last_speech_end = self.n
                    self._cand, self._pre = [], []
                    events.append(SpeechStart(self._t(self._first)))
            else:
                # a broken start: the candidate frames become pre-roll
                self._pre.extend(self._cand)
                self._cand = []
                self._pre.append(frame)
                if len(self._pre) > self._pre_n + 8:
                    self._pre = self._pre[-self._pre_n:] if self._pre_n else []
            return events

        self._utt.append(frame)
        if prob >= cfg.threshold or (prob >= cfg.off_threshold and self._silence == 0):
            self._speech += 1
            self._silence = 0
            self._last_speech_end = self.n
        else:
            self._silence += 1
            if self._spec_n and self._silence == self._spec_n and self._silence < self._end_n:
                events.append(Pause(self._t(self.n), np.concatenate(self._utt), self._speech))
        if self._silence >= self._end_n:
            events.extend(self._finish("silence"))
        elif len(self._utt) >= self._max_n:
            events.extend(self._finish("max_length"))
        return events

    def flush(self) -> list:
        """End of input: close an utterance in progress."""
        return self._finish("eof") if self.in_speech else []

    def _finish(self, reason: str) -> list:
        audio = np.concatenate(self._utt) if self._utt else np.zeros(0, np.float32)
        utt = Utterance(audio, self._t(self._first), self._t(self._last_speech_end), self._t(self.n),
                        reason, self._speech)
        enough = self._speech >= self._min_n
        self.in_speech = False
        self._utt, self._cand, self._pre = [], [], []
        self._silence = self._speech = 0
        return [utt] if enough else []


def find_utterances(audio: np.ndarray, vad: SileroVAD, config: VADConfig | None = None) -> list[Utterance]:
    """Run VAD + endpointing over a whole 16 kHz signal (offline helper for tests, tools)."""
    ep = Endpointer(config)
    vad.reset()
    out: list[Utterance] = []
    for i in range(0, len(audio) - len(audio) % FRAME, FRAME):
        f = np.asarray(audio[i:i + FRAME], np.float32)
        out.extend(e for e in ep.update(f, vad(f)) if isinstance(e, Utterance))
    out.extend(ep.flush())
    return out
