"""Speech to text with faster-whisper (CTranslate2, int8 on CPU), tuned for short commands.

Why a "short context" fast path: Whisper's encoder is normally fed a 30 s window, so a
2 s command pays for 28 s of padding (≈0.35 s of the ≈0.45 s tiny.en spends on a short
clip here). CTranslate2 accepts a shorter mel window. Measured on 40 Piper-spoken home
commands (tiny.en, two runs): a 10 s window (`min_context_s`) gave 0.9-2.8 % word error
vs 1.8-3.2 % for the 30 s path, 4x faster; a 5 s window made Whisper loop ("Turn off the
garage light. Turn off the garage light.") at 24-38 % WER. So every fast result passes
the usual quality gates (compression ratio, mean log-probability) and falls back to the
full 30 s `transcribe` when it fails them.

Segments that are silence or a known Whisper hallucination on near-silence are dropped:
`Transcript.dropped` says why and `text` is then "".

`BackgroundTranscriber` lets the pipeline transcribe while the person may still be
talking (speculatively, at the first short pause), so the transcript is usually ready
when the endpointer confirms the end of speech.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edgevox.voice.audio import SAMPLE_RATE

log = logging.getLogger(__name__)

DEFAULT_STT_MODEL = "whisper-tiny.en"

# Phrases Whisper emits on silence or noise (subtitle-credit training data).
HALLUCINATIONS = frozenset({
    "thank you", "thank you very much", "thanks for watching", "thank you for watching",
    "thanks for listening", "please subscribe", "subscribe", "you", "bye", "bye bye", "so",
    "okay", "oh", "uh", "um", "hmm", "the end", "i'm sorry", "subtitles by the amaraorg community",
})
_ANNOTATION = re.compile(r"\[[^\]]*\]|\([^)]*\)|\*[^*]*\*|♪+|♫+")


@dataclass
class Transcript:
    text: str                    # "" when dropped
    raw_text: str                # what Whisper produced
    no_speech_prob: float
    avg_logprob: float
    audio_s: float
    compute_s: float
    path: str                    # "fast" | "full"
    dropped: str | None = None   # None | "empty" | "no_speech" | "hallucination"

    def to_dict(self) -> dict:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def resolve_model(model: str | Path) -> Path:
    """A local path as is; otherwise a registry name pulled (once) by `edgevox.models`."""
    p = Path(model).expanduser()
    if p.exists():
        return p
    from edgevox.models import ensure_model

    return Path(ensure_model(str(model)))


def _compression_ratio(text: str) -> float:
    data = text.encode("utf-8")
    return len(data) / max(1, len(zlib.compress(data))) if data else 0.0


def _loudness_dbfs(audio: np.ndarray, win: int = SAMPLE_RATE // 2) -> float:
    """Loudest half-second RMS, in dBFS: tells real speech from near-silence."""
    if not len(audio):
        return -120.0
    best = 0.0
    for i in range(0, max(1, len(audio) - win + 1), win // 2):
        seg = audio[i:i + win].astype(np.float64)
        best = max(best, float(np.sqrt(np.mean(seg * seg))))
    return 20 * np.log10(max(best, 1e-6))


class WhisperSTT:
    """faster-whisper on a local CTranslate2 model directory (or registry name)."""

    def __init__(self, model: str | Path = DEFAULT_STT_MODEL, language: str | None = "en",
                 beam_size: int = 1, compute_type: str = "int8", cpu_threads: int = 0,
                 fast: bool = True, min_context_s: float = 10.0,
                 no_speech_threshold: float = 0.6, logprob_threshold: float = -1.0,
                 compression_ratio_threshold: float = 2.4, lead_pad_s: float = 0.2):
        try:
            from faster_whisper import WhisperModel
            from faster_whisper.tokenizer import Tokenizer
        except ImportError:
            raise RuntimeError("faster-whisper is not installed; install the voice extra: "
                               "pip install 'edgevox[voice]'.") from None
        self.model_dir = resolve_model(model)
        threads = cpu_threads or min(4, os.cpu_count() or 1)
        self._wm = WhisperModel(str(self.model_dir), device="cpu", compute_type=compute_type,
                                cpu_threads=threads)
        self.multilingual = bool(self._wm.model.is_multilingual)
        if language and not self.multilingual and language != "en":
            raise ValueError(f"{self.model_dir.name} is English-only; use a multilingual model "
                             f"(e.g. whisper-base) for language {language!r}")
        self.language = language if self.multilingual else "en"
        self.beam_size = beam_size
        self.lead_pad_s = lead_pad_s
        self.fast, self.min_context_s = fast, min_context_s
        self.no_speech_threshold = no_speech_threshold
        self.logprob_threshold = logprob_threshold
        self.cr_threshold = compression_ratio_threshold
        self._lock = threading.Lock()  # one CTranslate2 call at a time per model
        self._tok = None
        if self.language is not None:
            self._tok = Tokenizer(self._wm.hf_tokenizer, self.multilingual, task="transcribe",
                                  language=self.language)

    # -- decoding paths ---------------------------------------------------------------
    def _fast(self, audio: np.ndarray) -> tuple[str, float, float]:
        import ctranslate2

        feats = self._wm.feature_extractor(audio)
        frames = min(3000, max(int(self.min_context_s * 100), feats.shape[1] + 100))
        f = np.zeros((feats.shape[0], frames), np.float32)  # zero-padded like faster-whisper's
        k = min(frames, feats.shape[1])
        f[:, :k] = feats[:, :k]
        tok = self._tok
        prompt = list(tok.sot_sequence) + [tok.no_timestamps]
        max_len = int(24 + 8 * len(audio) / SAMPLE_RATE)
        res = self._wm.model.generate(
            ctranslate2.StorageView.from_array(f[None]), [prompt], beam_size=self.beam_size,
            max_length=max_len, return_scores=True, return_no_speech_prob=True,
            suppress_blank=True, suppress_tokens=[-1],
        )[0]
        ids = [t for t in res.sequences_ids[0] if t < tok.eot]
        avg = res.scores[0] * len(ids) / (len(ids) + 1) if ids else -10.0
        return tok.decode(ids), float(res.no_speech_prob), float(avg)

    def _full(self, audio: np.ndarray) -> tuple[str, float, float]:
        segs, _ = self._wm.transcribe(audio, language=self.language, beam_size=self.beam_size,
                                      without_timestamps=True, condition_on_previous_text=False,
                                      vad_filter=False)
        segs = list(segs)
        if not segs:
            return "", 1.0, -10.0
        kept = [s for s in segs if not (s.no_speech_prob > self.no_speech_threshold
                                        and s.avg_logprob < self.logprob_threshold)]
        text = " ".join(s.text.strip() for s in kept)
        nsp = min(s.no_speech_prob for s in segs)
        avg = float(np.mean([s.avg_logprob for s in segs]))
        return text, float(nsp), avg

    def transcribe(self, audio: np.ndarray) -> Transcript:
        """Transcribe 16 kHz mono float32 audio; never raises on silence or noise."""
        audio = np.asarray(audio, np.float32)
        t0 = time.perf_counter()
        # Whisper drops a first word that starts at sample 0 ("Turn on…" -> "on…"); a
        # short lead of silence (what a mic pre-roll normally provides) fixes that.
        audio = np.concatenate([np.zeros(int(self.lead_pad_s * SAMPLE_RATE), np.float32), audio])
        with self._lock:
            path = "full"
            text, nsp, avg = "", 1.0, -10.0
            if self.fast and self._tok is not None and len(audio) < 28 * SAMPLE_RATE:
                text, nsp, avg = self._fast(audio)
                path = "fast"
                suspicious = (_compression_ratio(text) > self.cr_threshold
                              or (avg < self.logprob_threshold and nsp < self.no_speech_threshold))
                if suspicious:
                    path = "full"
            if path == "full":
                text, nsp, avg = self._full(audio)
        dt = time.perf_counter() - t0
        return self._judge(text.strip(), nsp, avg, audio, dt, path)

    def _judge(self, raw: str, nsp: float, avg: float, audio: np.ndarray, dt: float,
               path: str) -> Transcript:
        clean = re.sub(r"\s+", " ", _ANNOTATION.sub(" ", raw)).strip()
        key = re.sub(r"[^a-z' ]", "", clean.lower()).strip()
        dropped = None
        if not re.search(r"\w", clean):
            dropped = "empty"
        elif nsp > self.no_speech_threshold and avg < self.logprob_threshold:
            dropped = "no_speech"
        elif key in HALLUCINATIONS and (nsp > 0.3 or _loudness_dbfs(audio) < -40.0):
            dropped = "hallucination"
        return Transcript("" if dropped else clean, raw, nsp, avg, len(audio) / SAMPLE_RATE, dt,
                          path, dropped)

    def warmup(self) -> None:
        """Run once on noise so the first real request does not pay one-time costs."""
        rng = np.random.default_rng(0)
        self.transcribe(rng.normal(0, 0.01, SAMPLE_RATE).astype(np.float32))


class BackgroundTranscriber:
    """One worker thread that transcribes speculatively; results are matched by key."""

    def __init__(self, stt: WhisperSTT, on_result: Callable[[Transcript], None] | None = None):
        self.stt = stt
        #: called (on this worker) with each speculative transcript once it is stored
        self.on_result = on_result
        self._cv = threading.Condition()
        self._job: tuple[object, np.ndarray] | None = None
        self._results: dict[object, Transcript] = {}
        self._running: object | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="stt-speculative", daemon=True)
        self._thread.start()

    def submit(self, key: object, audio: np.ndarray) -> None:
        """Queue a transcription; replaces a queued (not yet started) one."""
        with self._cv:
            self._job = (key, audio)
            self._results.clear()
            self._cv.notify_all()

    def get(self, key: object, timeout: float = 10.0) -> Transcript | None:
        """The result for `key` (waiting if it is queued or running), else None."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while True:
                if key in self._results:
                    return self._results[key]
                pending = self._running == key or (self._job is not None and self._job[0] == key)
                left = deadline - time.monotonic()
                if not pending or left <= 0:
                    return None
                self._cv.wait(left)

    def _loop(self) -> None:
        while True:
            with self._cv:
                while self._job is None and not self._closed:
                    self._cv.wait()
                if self._closed:
                    return
                key, audio = self._job
                self._job, self._running = None, key
            result = self.stt.transcribe(audio)
            with self._cv:
                self._running = None
                self._results[key] = result
                self._cv.notify_all()
            if self.on_result is not None:
                try:
                    self.on_result(result)
                except Exception as exc:  # a speculative helper only costs time
                    log.warning("speculative transcript callback failed: %s", exc)

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._thread.join(timeout=10.0)  # never leave Whisper running into interpreter exit
