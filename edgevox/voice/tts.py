"""Text to speech with Piper, and a player that overlaps synthesis with playback.

`PiperTTS` wraps `piper.PiperVoice` (piper-tts 1.8: `PiperVoice.load(onnx)` reads the
`.onnx.json` next to it; `synthesize(text)` yields one `AudioChunk` per sentence with
`audio_float_array` at the voice's rate, 22,050 Hz for joe-medium).

`SpeechPlayer` has two threads joined by a queue: the synth thread turns queued
sentences into audio while the playback thread feeds the sink with the previous one,
so the second sentence is ready before the first has finished playing. `cancel()`
bumps a generation counter (queued work from the old turn is dropped on sight) and
empties the sink, which is what barge-in needs.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from edgevox.voice.audio import AudioSink, write_wav
from edgevox.voice.stt import resolve_model
from edgevox.voice.text import normalize_for_speech, split_sentences

DEFAULT_TTS_VOICE = "piper-joe-medium"
log = logging.getLogger("edgevox.voice")


class PiperTTS:
    """A local Piper voice (an .onnx with its .onnx.json alongside, or a registry name)."""

    def __init__(self, voice: str | Path = DEFAULT_TTS_VOICE, length_scale: float | None = None,
                 volume: float = 0.8, speaker_id: int | None = None,
                 noise_scale: float | None = None, noise_w_scale: float | None = None):
        """`noise_scale`/`noise_w_scale` None = the voice's own; 0 and 0 make the same text
        always give the same audio (reproducible tests and benchmarks)."""
        try:
            from piper import PiperVoice, SynthesisConfig
        except ImportError:
            raise RuntimeError("piper-tts is not installed (it is GPL-3.0, so it is an opt-in "
                               "extra): pip install 'edgevox[voice]'.") from None
        self.voice_path = resolve_model(voice)
        if not Path(f"{self.voice_path}.json").exists():
            raise FileNotFoundError(f"Piper voice config {self.voice_path}.json is missing")
        self._voice = PiperVoice.load(str(self.voice_path))
        self.sample_rate = int(self._voice.config.sample_rate)
        self._cfg = SynthesisConfig(length_scale=length_scale, volume=volume, speaker_id=speaker_id,
                                    noise_scale=noise_scale, noise_w_scale=noise_w_scale)
        self._lock = threading.Lock()

    def synthesize(self, text: str, normalize: bool = True) -> Iterator[np.ndarray]:
        """Float32 audio chunks (one per sentence Piper finds) for speakable text."""
        text = normalize_for_speech(text) if normalize else text
        if not text.strip():
            return
        with self._lock:
            for chunk in self._voice.synthesize(text, syn_config=self._cfg):
                yield np.asarray(chunk.audio_float_array, np.float32)

    def synthesize_all(self, text: str, normalize: bool = True) -> np.ndarray:
        parts = list(self.synthesize(text, normalize))
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)

    def to_wav(self, text: str, path: str | Path) -> np.ndarray:
        """Speak `text` into a WAV at the voice's rate; returns the audio."""
        audio = self.synthesize_all(text)
        write_wav(path, audio, self.sample_rate)
        return audio

    def warmup(self) -> None:
        self.synthesize_all("Ready.")


@dataclass
class SpeechStats:
    """What the player measured for one turn (monotonic times)."""

    first_text: float | None = None
    first_chunk: float | None = None
    first_out: float | None = None
    last_out: float | None = None
    sentences: list[str] = field(default_factory=list)
    audio_s: float = 0.0
    synth_s: float = 0.0
    cancelled: bool = False
    error: str | None = None


_END = object()


class SpeechPlayer:
    """Sentences in, audio out: synth thread + playback thread, cancellable per turn."""

    def __init__(self, tts: PiperTTS, sink: AudioSink, gap_s: float = 0.12, ahead_s: float = 0.3,
                 block_s: float = 0.05, clock: Callable[[], float] = time.monotonic):
        if sink.sample_rate != tts.sample_rate:
            raise ValueError(f"sink rate {sink.sample_rate} Hz != voice rate {tts.sample_rate} Hz")
        self.tts, self.sink = tts, sink
        self.gap_s, self.ahead_s, self.block_s, self.clock = gap_s, ahead_s, block_s, clock
        self._gen = 0
        self._text_q: queue.Queue = queue.Queue()
        self._audio_q: queue.Queue = queue.Queue()
        self._stats: dict[int, SpeechStats] = {}
        self._done: dict[int, threading.Event] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._owed = 0  # texts and audio chunks taken in and not yet synthesised/written
        sink.on_start = self._on_start
        sink.feeding = self.feeding
        self._threads = [threading.Thread(target=self._synth_loop, name="tts-synth", daemon=True),
                         threading.Thread(target=self._play_loop, name="tts-play", daemon=True)]
        for t in self._threads:
            t.start()

    # -- turn control -----------------------------------------------------------------
    def start_turn(self) -> int:
        with self._lock:
            self._gen += 1
            gen = self._gen
            self._stats[gen] = SpeechStats()
            self._done[gen] = threading.Event()
            for old in [g for g in self._stats if g < gen - 8]:
                self._stats.pop(old, None)
                self._done.pop(old, None)
        return gen

    def say(self, gen: int, text: str) -> None:
        st = self._stats.get(gen)
        if st is None or gen != self._gen:
            return
        if st.first_text is None:
            st.first_text = self.clock()
        st.sentences.append(text)
        self._owe(1)
        self._text_q.put((gen, text))

    def end_turn(self, gen: int) -> None:
        self._text_q.put((gen, _END))

    def cancel(self, gen: int | None = None) -> None:
        """Stop speaking now: drop queued sentences and audio, empty the sink."""
        with self._lock:
            if gen is not None and gen != self._gen:
                return
            cur = self._gen
            self._gen += 1  # everything queued for `cur` is now stale
            st = self._stats.get(cur)
            self.sink.stop()  # under the lock: no stale block can be written after this
        if st is not None:
            st.cancelled = True
            if st.first_out is not None and st.last_out is None:
                st.last_out = self.clock()
        ev = self._done.get(cur)
        if ev is not None:
            ev.set()

    def stats(self, gen: int) -> SpeechStats:
        return self._stats.get(gen, SpeechStats())

    def wait(self, gen: int, timeout: float | None = None) -> bool:
        ev = self._done.get(gen)
        return True if ev is None else ev.wait(timeout)

    def feeding(self) -> bool:
        """True while audio is on its way to the sink: text waiting for or in synthesis,
        or synthesised audio not yet written (a simulated device waits for it)."""
        return self._owed > 0 and not self._closed

    def _owe(self, n: int) -> None:
        with self._lock:
            self._owed += n

    def busy(self) -> bool:
        """True while the current turn has audio queued or playing."""
        st = self._stats.get(self._gen)
        ev = self._done.get(self._gen)
        return bool(st and st.sentences and ev and not ev.is_set()) or self.sink.is_playing()

    def close(self) -> None:
        self._closed = True
        self.cancel()
        self._text_q.put((None, _END))
        self._audio_q.put((None, _END))
        for t in self._threads:  # let a synthesis in progress finish before exit
            t.join(timeout=5.0)

    # -- threads ----------------------------------------------------------------------
    def _on_start(self, t: float) -> None:
        st = self._stats.get(self._gen)
        if st is not None and st.first_out is None and st.sentences:
            st.first_out = t

    def _synth_loop(self) -> None:
        while not self._closed:
            gen, item = self._text_q.get()
            if gen is None or item is _END:
                if gen is not None and gen == self._gen:
                    self._audio_q.put((gen, _END))
                continue
            try:
                self._synthesize(gen, item)
            finally:
                self._owe(-1)

    def _synthesize(self, gen: int, item: str) -> None:
        st = self._stats.get(gen)
        if gen != self._gen or st is None:
            return
        need_gap = st.first_chunk is not None  # a pause between sentences, not before the first
        t0 = time.perf_counter()
        try:
            for chunk in self.tts.synthesize(item):
                if gen != self._gen:
                    break
                if st.first_chunk is None:
                    st.first_chunk = self.clock()
                if need_gap and self.gap_s:
                    self._owe(1)
                    self._audio_q.put((gen, np.zeros(int(self.gap_s * self.sink.sample_rate), np.float32)))
                need_gap = False
                self._owe(1)
                self._audio_q.put((gen, chunk))
                st.audio_s += len(chunk) / self.sink.sample_rate
        except Exception as err:  # one unspeakable sentence must not silence the rest
            st.error = f"{type(err).__name__}: {err}"
            log.warning("TTS failed on %r: %s", item, st.error)
        st.synth_s += time.perf_counter() - t0

    def _play_loop(self) -> None:
        block = max(1, int(self.block_s * self.sink.sample_rate))
        while not self._closed:
            gen, item = self._audio_q.get()
            if gen is None or (gen != self._gen and item is _END):
                continue
            if item is _END:
                while gen == self._gen and not self.sink.wait(0.02):
                    pass
                st = self._stats.get(gen)
                if gen == self._gen and st is not None:
                    st.last_out = self.clock()
                    self._done[gen].set()
                continue
            try:
                self._write(gen, item, block)
            finally:
                self._owe(-1)

    def _write(self, gen: int, audio: np.ndarray, block: int) -> None:
        try:
            for i in range(0, len(audio), block):
                while gen == self._gen and self.sink.pending_s() > self.ahead_s:
                    time.sleep(0.005)
                with self._lock:
                    if gen != self._gen:
                        return
                    self.sink.write(audio[i:i + block])
        except Exception as err:  # a broken device: report, keep the thread alive
            st = self._stats.get(gen)
            if st is not None:
                st.error = f"{type(err).__name__}: {err}"
            log.warning("audio output failed: %s", err)


def speakable(text: str) -> str:
    """What the speaker would say for a whole reply: no markup, no markdown, normalised."""
    return " ".join(normalize_for_speech(s) for s in split_sentences(text))
