"""Offline wake words: microWakeWord models run by `pymicro-wakeword`.

Why this engine: `pymicro-wakeword` (Apache-2.0) carries four trained models
(`okay_nabu`, `hey_jarvis`, `alexa`, `hey_mycroft`, 50-80 KB each) and the TensorFlow
Lite C library inside its wheel, so nothing is downloaded at run time, and it costs a few
milliseconds of CPU per second of audio. It is the `wake` extra.

How it is used here: one `MicroWakeWordFeatures` front end (40 spectral features every
10 ms) feeds every loaded model, so a second wake word costs one more small model call
per 30 ms, not a second front end. A model fires when the mean of its last few
probabilities (the model's own `sliding_window_size`) exceeds its `probability_cutoff`
(or `threshold` when given). That mean stays above the cutoff for several steps while
the phrase ends, so after a hit every model is silent for `refractory_s`: one spoken
wake phrase gives one `WakeHit`.

    det = WakeWordDetector(["okay_nabu", "hey_jarvis"])
    for hit in det.feed(int16_samples_16k):
        print(hit.name, hit.t_s, hit.score)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edgevox.voice.audio import SAMPLE_RATE

_STEP_S = 0.010     # one feature vector every 10 ms
_WINDOW_S = 0.030   # each computed from a 30 ms window
_INSTALL_HINT = "install the wake extra: pip install 'edgevox[wake]'"


@dataclass(frozen=True)
class WakeHit:
    """A wake word heard: `t_s` is the audio time (s since start or `reset`) it fired at."""

    name: str
    t_s: float
    score: float


def _package():
    try:
        import pymicro_wakeword
    except ImportError:
        raise RuntimeError(f"pymicro-wakeword is not installed; {_INSTALL_HINT}.") from None
    return pymicro_wakeword


def _models_dir() -> Path:
    return Path(_package().__file__).parent / "models"


def available_wake_words() -> list[str]:
    """Names of the wake-word models shipped in the installed `pymicro-wakeword` wheel."""
    return sorted(p.stem for p in _models_dir().glob("*.json"))


def wake_phrase(name: str) -> str:
    """The phrase a model listens for ("okay_nabu" -> "Okay Nabu"), from its config."""
    cfg = _config_path(name)
    try:
        return str(json.loads(cfg.read_text(encoding="utf-8"))["wake_word"])
    except (OSError, ValueError, KeyError):
        return Path(name).stem.replace("_", " ").title()


def _config_path(name: str) -> Path:
    """A built-in name, or the path of a microWakeWord JSON config (its .tflite alongside)."""
    if name.endswith(".json"):
        path = Path(name).expanduser()
        if not path.is_file():
            raise ValueError(f"Wake-word config {path} does not exist.")
        return path
    path = _models_dir() / f"{name}.json"
    if not path.is_file():
        raise ValueError(f"Unknown wake word {name!r}; available: {', '.join(available_wake_words())} "
                         "(or the path of a microWakeWord .json config).")
    return path


class WakeWordDetector:
    """Several wake words over one 16 kHz mono stream, with a shared refractory period.

    `feed` takes any number of samples (int16, or float in [-1, 1]) and returns the hits
    completed inside them; state carries across calls, so a stream can be cut anywhere.
    Not thread-safe: one stream per detector.
    """

    def __init__(self, names: list[str] | str, refractory_s: float = 2.0,
                 threshold: float | None = None):
        if isinstance(names, str):
            names = [n for n in names.split(",") if n.strip()]
        names = [n.strip() for n in names]
        if not names:
            raise ValueError("WakeWordDetector needs at least one wake word name.")
        if len(set(names)) != len(names):
            raise ValueError(f"Wake word listed twice: {names}.")
        if threshold is not None and not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}.")
        pkg = _package()
        configs = [_config_path(n) for n in names]  # every name checked before any model loads
        self.names = names
        self.refractory_s = float(refractory_s)
        self.threshold = threshold
        self._models = [pkg.MicroWakeWord.from_config(c) for c in configs]
        self._features = pkg.MicroWakeWordFeatures()
        self._clear()

    def cutoff(self, i: int) -> float:
        """The score model `i` must exceed to fire."""
        return self.threshold if self.threshold is not None else float(self._models[i].probability_cutoff)

    def reset(self) -> None:
        """Forget all audio: the clock restarts at 0 and the models' streaming state is cleared."""
        self._features.reset()
        for m in self._models:
            m.reset()  # reloads the interpreter: the models keep streaming state inside
        self._clear()

    def _clear(self) -> None:
        self._steps = 0
        self._blocked_until = -1.0
        self.last_scores = [0.0] * len(self._models)  # each model's latest score (for meters)
        self.max_scores = [0.0] * len(self._models)   # highest score since reset (for tuning)

    @property
    def t_s(self) -> float:
        """Audio time consumed so far (s)."""
        return self._steps * _STEP_S

    def feed(self, samples: np.ndarray) -> list[WakeHit]:
        """Push 16 kHz mono samples; return the wake words heard in them (usually none)."""
        x = np.asarray(samples)
        if x.ndim != 1:
            raise ValueError(f"WakeWordDetector.feed takes mono 1-D samples, got shape {x.shape}.")
        if x.dtype != np.int16:
            if not np.issubdtype(x.dtype, np.floating):
                raise ValueError(f"WakeWordDetector.feed takes int16 or float samples, got {x.dtype}.")
            x = (np.clip(x, -1.0, 1.0) * 32767.0).astype(np.int16)
        hits: list[WakeHit] = []
        for feats in self._features.process_streaming(x.tobytes()):
            t = self._steps * _STEP_S + _WINDOW_S  # end of the window this vector describes
            self._steps += 1
            for i, model in enumerate(self._models):
                score = model.process_streaming_prob(feats)
                score = float(score) if score is not None else 0.0
                self.last_scores[i] = score
                self.max_scores[i] = max(self.max_scores[i], score)
                if score > self.cutoff(i) and t >= self._blocked_until:
                    hits.append(WakeHit(self.names[i], round(t, 3), round(score, 4)))
                    self._blocked_until = t + self.refractory_s
        return hits

    def close(self) -> None:
        """Free the TensorFlow Lite interpreters (`reset` loads them again)."""
        for m in self._models:
            m.close()


# --------------------------------------------------------------------------- the pipeline's gate

CUES = ("chime", "speech", "none")


@dataclass
class WakeConfig:
    """`edgevox voice --wake`: which words wake it, and how long it stays awake."""

    names: list[str]
    refractory_s: float = 2.0     # one wake phrase, one hit
    threshold: float | None = None  # None: each model's own cutoff
    listen_s: float = 5.0         # after the wake word: time for the request to start
    follow_up_s: float = 5.0      # after a reply: a follow-up needs no wake word this long
    cue: str = "chime"            # what it does when woken: "chime" | "speech" | "none"
    cue_text: str = "Yes?"        # what it says for cue="speech"

    def __post_init__(self) -> None:
        if self.cue not in CUES:
            raise ValueError(f"wake cue must be one of {', '.join(CUES)}, got {self.cue!r}.")
        if self.listen_s <= 0 or self.follow_up_s < 0:
            raise ValueError("listen_s must be > 0 and follow_up_s >= 0.")


class WakeGate:
    """Opens the pipeline's ears on a wake word and closes them after a quiet spell.

    Time is audio time (frames fed), so a WAV file behaves like a microphone however fast
    it is read. Closed: only the wake-word models run (no VAD, no STT). A hit opens the
    gate for `listen_s`; while anything of a request is going on (speech, a turn, the
    reply playing) the gate stays open until `follow_up_s` after it.
    """

    def __init__(self, detector: WakeWordDetector, listen_s: float = 5.0, follow_up_s: float = 5.0):
        self.detector, self.listen_s, self.follow_up_s = detector, listen_s, follow_up_s
        self.reset()

    def reset(self) -> None:
        self.detector.reset()
        self.t_s = 0.0
        self._open_until = 0.0
        self.hits: list[WakeHit] = []

    @property
    def is_open(self) -> bool:
        return self.t_s < self._open_until

    def update(self, frame: np.ndarray, busy: bool) -> WakeHit | None:
        """One 16 kHz input frame; `busy` = a request is under way. Returns a new wake hit."""
        hits = self.detector.feed(frame)
        self.t_s += len(frame) / SAMPLE_RATE
        if hits:
            self.hits.extend(hits)
            self._open_until = self.t_s + self.listen_s
            return hits[0]
        if busy and self.is_open:
            self._open_until = max(self._open_until, self.t_s + self.follow_up_s)
        return None


def chime(rate: int, volume: float = 0.3) -> np.ndarray:
    """A short rising two-note chime (≈ 0.25 s): clearly not speech, so VAD ignores it."""
    out = []
    for freq, dur in ((880.0, 0.11), (1318.5, 0.14)):
        t = np.arange(int(dur * rate)) / rate
        env = np.minimum(1.0, t / 0.01) * np.exp(-t * 18.0)  # 10 ms attack, bell-like decay
        out.append(np.sin(2 * np.pi * freq * t) * env)
    return (np.concatenate(out) * volume).astype(np.float32)
