"""The voice loop: audio in → VAD → STT → responder → sentences → TTS → audio out.

The pipeline only needs a *responder*: `responder(text, stop_event)` yields reply text
pieces (and possibly other objects, e.g. tool-call events, which are collected in the
turn report but never spoken). It must stop soon after `stop_event` is set; that is
how barge-in cancels generation. `LLMAgent` streaming plugs in here. A responder may
also have `prepare(text)`: it gets each speculative transcript (see below) and may start
work on it (the agent evaluates the turn's prompt) before the end of speech is confirmed.

Threads: the caller's thread reads audio frames and runs VAD/endpointing (cheap, 0.2 ms
a frame); each turn runs STT + responder on its own thread; `SpeechPlayer` synthesises
and plays on two more. A speculative transcription starts at the first short pause
(`VADConfig.speculate_ms`) so the transcript is usually ready when the endpointer
confirms the end of speech `silence_ms` later.

Barge-in: in duplex mode, speech heard while the assistant talks (after the echo guard)
for `barge_in_ms` stops playback, sets the responder's stop_event, drops pending
sentences, and the interruption becomes the next turn. Half-duplex (default) ignores
the microphone while the assistant speaks and for `echo_tail_ms` after, which is safe
on laptop speakers without echo cancellation; speech while the assistant is still
thinking interrupts in both modes.

Observers: everything a display needs (state, mic level, transcript, tool calls and
results, reply text, the finished turn with its metrics) is published as typed events on
`VoicePipeline.events` (`edgevox.voice.events`). `mute()` and `cancel_turn()` are the
controls a display offers; both are safe from any thread.

Wake word (`PipelineConfig.wake`): while no one has said it, only the wake-word models
run (`WakeGate`). A hit resets VAD and the endpointer, so the request's audio starts
after the wake word and STT never hears it; a cue (chime or a spoken word) answers; the
gate stays open for the request and for a follow-up `follow_up_s` after the reply, then
closes. Audio time, not wall time, so a WAV file behaves like a microphone.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from edgevox.voice.audio import (
    FRAME,
    SAMPLE_RATE,
    AudioSink,
    AudioSource,
    MicSource,
    PacedWavSink,
    SpeakerSink,
    WavSink,
    WavSource,
    rms,
)
from edgevox.voice.events import (
    EventBus,
    MicLevel,
    Observer,
    ReplyDelta,
    State,
    ToolCalled,
    ToolReturned,
    TranscriptReady,
    TurnFinished,
    VoiceEvent,
    WakeWordHeard,
    tool_event,
)
from edgevox.voice.metrics import TurnMetrics
from edgevox.voice.stt import BackgroundTranscriber, Transcript, WhisperSTT
from edgevox.voice.text import SentenceSplitter
from edgevox.voice.tts import PiperTTS, SpeechPlayer
from edgevox.voice.vad import Endpointer, Pause, SileroVAD, SpeechStart, Utterance, VADConfig
from edgevox.voice.wake import WakeConfig, WakeGate, WakeWordDetector, chime

Responder = Callable[[str, threading.Event], Iterable[object]]


def _prefill_with(prepare: Callable[[str], object] | None) -> Callable[[Transcript], None] | None:
    """Hand each speculative transcript to the responder's optional ``prepare(text)``: the
    agent evaluates the turn's prompt while the endpointer still waits for silence. It runs
    on the speculative transcriber's worker, which has nothing else to do until the next
    pause; the turn takes the transcript as soon as it is stored, not after this."""
    if not callable(prepare):
        return None

    def on_result(tr: Transcript) -> None:
        if tr.text:
            prepare(tr.text)

    return on_result


@dataclass
class PipelineConfig:
    vad: VADConfig = field(default_factory=VADConfig)
    duplex: bool = False
    barge_in_ms: int = 128          # user speech (after the echo guard) that interrupts
    duplex_threshold: float = 0.8   # VAD threshold while the assistant is talking
    echo_margin: float = 2.0        # mic must exceed the predicted echo level by this factor
    echo_coupling: float = 0.3      # initial residual-echo/output level ratio; learned while playing
    echo_window_s: float = 0.3      # output this recent may still be echoing
    echo_max_delay_s: float = 0.25  # longest speaker->mic delay the guard searches
    echo_tail_ms: int = 300         # half-duplex: mic stays closed this long after playback
    speculative_stt: bool = True
    min_clause_words: int = 6
    sentence_gap_s: float = 0.12
    turn_timeout_s: float = 120.0
    wake: WakeConfig | None = None  # None: always listening; else a wake word opens the mic


@dataclass
class TurnReport:
    index: int
    transcript: str
    reply_text: str = ""
    spoken: list[str] = field(default_factory=list)
    events: list[object] = field(default_factory=list)
    metrics: TurnMetrics = field(default_factory=TurnMetrics)
    interrupted: bool = False
    barge_in: dict | None = None     # times (s since session start) when interrupted
    stt: Transcript | None = None
    timeline: list[tuple[str, float]] = field(default_factory=list)
    error: str | None = None
    note: str | None = None
    wake: dict | None = None         # the wake word that opened this turn (None: a follow-up)

    def to_dict(self) -> dict:
        return {
            "index": self.index, "transcript": self.transcript, "reply_text": self.reply_text,
            "spoken": list(self.spoken), "interrupted": self.interrupted, "barge_in": self.barge_in,
            "events": [_jsonable(e) for e in self.events],
            "metrics": self.metrics.to_dict(),
            "stt": self.stt.to_dict() if self.stt else None,
            "timeline": [[n, round(t, 4)] for n, t in self.timeline],
            "error": self.error, "note": self.note, "wake": self.wake,
        }


def _jsonable(obj: object) -> object:
    """A responder event as plain JSON data (dataclasses become dicts tagged with their type)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        data = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
        return {"type": type(obj).__name__, **{k: _jsonable(v) for k, v in data.items()}}
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    return repr(obj)


class EchoGuard:
    """Tells the person's voice from the assistant's own voice coming back into the mic.

    Not a full echo canceller. For each mic frame it finds the lag (0 to `max_delay_s`)
    at which the recently played audio best matches the frame and removes that scaled
    copy (a one-tap least-squares fit); what is left is the part of the frame the
    speaker cannot explain. The frame counts as the person only if VAD is confident
    (`threshold`) and that residual is `margin` times louder than the residual echo
    learned so far (a high quantile of residual/output on echo-only frames). A plain delay + gain
    echo is removed almost entirely; room reverberation leaves more residual, which the
    learned level absorbs at the cost of needing a louder interruption.
    """

    def __init__(self, threshold: float, margin: float, coupling: float, max_delay_s: float = 0.25):
        self.threshold, self.margin, self.coupling = threshold, margin, coupling
        self.max_lag = int(max_delay_s * SAMPLE_RATE)
        self.quiet = 0.01  # output RMS below -40 dBFS cannot produce an echo worth guarding
        self.noise = 0.001  # mic noise floor: fast to fall, slow to rise
        self.last: dict = {}

    def residual(self, frame: np.ndarray, ref: np.ndarray) -> float:
        """RMS of the frame after removing the best-matching lagged copy of `ref`."""
        n = len(frame)
        self.last = {"aligned": 0.0}
        xx = float(np.dot(frame, frame))
        if xx <= 0 or len(ref) < n:
            return 0.0
        size = 1 << int(np.ceil(np.log2(len(ref) + n)))
        corr = np.fft.irfft(np.fft.rfft(ref, size) * np.conj(np.fft.rfft(frame, size)), size)
        corr = corr[:len(ref) - n + 1]  # corr[k] = sum_j frame[j] * ref[k + j]
        c2 = np.concatenate([[0.0], np.cumsum(ref.astype(np.float64) ** 2)])
        energy = c2[n:] - c2[:-n]
        ncc2 = np.where(energy > 1e-9, corr ** 2 / (np.maximum(energy, 1e-9) * xx), 0.0)
        best = int(np.argmax(ncc2))
        explained = min(1.0, float(ncc2[best]))
        self.last = {"lag_s": (len(ref) - n - best) / SAMPLE_RATE, "explained": explained,
                     "aligned": float(np.sqrt(max(energy[best], 0.0) / n))}
        return float(np.sqrt(xx * (1.0 - explained) / n))

    def is_user(self, frame: np.ndarray, prob: float, ref: np.ndarray) -> bool:
        level = rms(frame)
        self.noise = level if level < self.noise else self.noise * 1.002
        ref_level = rms(ref)
        if ref_level < self.quiet:  # nothing loud went out lately: plain VAD decides
            self.last = {"prob": prob, "ref": ref_level, "user": prob >= self.threshold}
            return prob >= self.threshold
        res = self.residual(frame, ref)
        # the output that lines up with this frame can be much louder than the window's
        # average (a loud syllable after a pause): predict from the larger of the two
        ref_level = max(ref_level, self.last.get("aligned", 0.0))
        loud = res > max(self.margin * self.coupling * ref_level, 4.0 * self.noise)
        user = prob >= self.threshold and loud
        # Track a high quantile (~90th percentile) of residual/output on frames that are
        # not the person: step up 20% when a frame is above it, down 2% when below.
        # Loud speech-like frames are left out: they are usually the person's first
        # syllables (which VAD scores low), and learning them would lock the person out.
        if not user and not (loud and prob >= 0.3):
            up = res / ref_level > self.coupling
            self.coupling = min(4.0, max(1e-3, self.coupling * (1.2 if up else 0.98)))
        self.last.update(prob=prob, residual=res, ref=ref_level, coupling=self.coupling, user=user)
        return user


class _VoiceTurn:
    """STT + responder + speech for one utterance, on its own thread."""

    def __init__(self, pipe: VoicePipeline, index: int, utt: Utterance, detect_wall: float,
                 responder: Responder, player: SpeechPlayer, spec: tuple | None,
                 bg: BackgroundTranscriber | None, t0: float):
        self.pipe, self.index, self.utt, self.responder, self.player = pipe, index, utt, responder, player
        self.spec, self.bg, self.t0 = spec, bg, t0
        self.detect_wall = detect_wall
        self.speech_end = detect_wall - (utt.detected_s - utt.end_s)
        self.stop = threading.Event()
        self.gen: int | None = None
        self.report: TurnReport | None = None
        self.finished = threading.Event()
        self.speaking = False
        self.barge_in: dict | None = None
        self.wake: dict | None = None
        self._thread = threading.Thread(target=self._run, name=f"turn-{index}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    def cancel(self, info: dict | None = None) -> None:
        if self.finished.is_set() or self.stop.is_set():
            return
        self.barge_in = info
        self.stop.set()
        if self.gen is not None:
            self.player.cancel(self.gen)

    def _mark(self, tl: list, name: str) -> float:
        now = time.monotonic()
        tl.append((name, now - self.t0))
        return now

    def _run(self) -> None:
        tl: list[tuple[str, float]] = [("speech_end", self.speech_end - self.t0),
                                       ("endpoint", self.detect_wall - self.t0)]
        m = TurnMetrics(speech_s=self.utt.speech_s, endpoint_s=self.utt.detected_s - self.utt.end_s)
        rep = TurnReport(self.index, "", metrics=m, timeline=tl, wake=self.wake)
        try:
            tr = self.bg.get(self.spec) if (self.bg is not None and self.spec is not None) else None
            m.stt_speculative = tr is not None
            if tr is None:
                tr = self.pipe.stt.transcribe(self.utt.audio)
            t_tr = self._mark(tl, "transcript")
            rep.stt, rep.transcript = tr, tr.text
            m.stt_s, m.stt_compute_s = t_tr - self.speech_end, tr.compute_s
            if not tr.text or self.stop.is_set():
                rep.note = f"dropped: {tr.dropped or 'cancelled'}"
                return
            self.pipe.events.publish(TranscriptReady(self.index, tr.text))
            self.pipe.events.set_state(State.THINKING, self.index)
            self.gen = gen = self.player.start_turn()
            if self.stop.is_set():
                self.player.cancel(gen)
            self._respond(rep, tr.text, gen, t_tr, tl)
            self.player.wait(gen, self.pipe.config.turn_timeout_s)
            st = self.player.stats(gen)
            rep.spoken = list(st.sentences)
            if st.first_chunk is not None and st.first_text is not None:
                m.tts_first_chunk_s = st.first_chunk - st.first_text
            if st.first_out is not None:
                m.ttfa_s = st.first_out - self.speech_end
                tl.append(("first_audio", st.first_out - self.t0))
            if st.last_out is not None:
                m.total_s = st.last_out - self.speech_end
                tl.append(("last_audio", st.last_out - self.t0))
            m.reply_audio_s = round(st.audio_s, 3)
            m.tts_rtf = st.synth_s / st.audio_s if st.audio_s else None
        except Exception as err:  # a failing responder must not kill the audio loop
            rep.error = f"{type(err).__name__}: {err}"
        finally:
            rep.interrupted = m.interrupted = self.stop.is_set() and rep.transcript != ""
            rep.barge_in = self.barge_in
            self.report = rep
            self.finished.set()
            self.pipe._turn_done(self, rep)

    def _respond(self, rep: TurnReport, text: str, gen: int, t_tr: float, tl: list) -> None:
        m = rep.metrics
        splitter = SentenceSplitter(min_clause_words=self.pipe.config.min_clause_words)
        pieces: list[str] = []

        events = self.pipe.events

        def say(sentences: list[str]) -> None:
            for s in sentences:
                if m.llm_first_sentence_s is None:
                    m.llm_first_sentence_s = self._mark(tl, "first_sentence") - t_tr
                    events.set_state(State.SPEAKING, self.index)
                self.player.say(gen, s)

        stream = self.responder(text, self.stop)
        try:
            for piece in stream:
                if self.stop.is_set():
                    break
                if isinstance(piece, str):
                    if not piece:
                        continue
                    if m.llm_first_token_s is None:
                        m.llm_first_token_s = self._mark(tl, "first_token") - t_tr
                    pieces.append(piece)
                    events.publish(ReplyDelta(self.index, piece))
                    say(splitter.feed(piece))
                else:
                    rep.events.append(piece)
                    ev = tool_event(self.index, piece)
                    events.publish(ev)
                    if isinstance(ev, ToolCalled):
                        events.set_state(State.CALLING, self.index)
                    elif isinstance(ev, ToolReturned):
                        events.set_state(State.THINKING, self.index)
            if not self.stop.is_set():
                say(splitter.flush())
        finally:
            close = getattr(stream, "close", None)
            if callable(close):  # end a generator (or AgentStream) we stopped reading early
                close()
            rep.reply_text = "".join(pieces)
            m.llm_total_s = self._mark(tl, "reply_done") - t_tr
            self.player.end_turn(gen)


class VoicePipeline:
    """Ties VAD, STT, a responder and TTS together for files and live audio."""

    def __init__(self, stt: WhisperSTT | None = None, tts: PiperTTS | None = None,
                 config: PipelineConfig | None = None, vad: SileroVAD | None = None,
                 observer: Observer | None = None):
        self.config = config or PipelineConfig()
        self._stt, self._tts, self._vad = stt, tts, vad
        self.events = EventBus()
        if observer is not None:
            self.events.subscribe(observer)
        self._muted = threading.Event()
        self._active: _VoiceTurn | None = None
        self.reports: list[TurnReport] = []  # every turn of every session, in order
        self.echo_guard: EchoGuard | None = None  # the last session's (for inspection)
        self.gate: WakeGate | None = None  # the last session's wake-word gate (hits, for inspection)
        self._wake: WakeWordDetector | None = None
        self._lock = threading.Lock()

    # models are loaded on first use so constructing a pipeline is free
    @property
    def stt(self) -> WhisperSTT:
        if self._stt is None:
            self._stt = WhisperSTT()
        return self._stt

    @property
    def tts(self) -> PiperTTS:
        if self._tts is None:
            self._tts = PiperTTS()
        return self._tts

    @property
    def vad(self) -> SileroVAD:
        if self._vad is None:
            self._vad = SileroVAD(energy_floor_dbfs=self.config.vad.energy_floor_dbfs)
        return self._vad

    @property
    def wake(self) -> WakeWordDetector | None:
        """The wake-word detector of `config.wake` (None when always listening)."""
        w = self.config.wake
        if w is not None and self._wake is None:
            self._wake = WakeWordDetector(w.names, refractory_s=w.refractory_s, threshold=w.threshold)
        return self._wake

    def _idle_state(self) -> State:
        if self.muted:
            return State.MUTED
        return State.WAITING_WAKE if self.gate is not None and not self.gate.is_open else State.LISTENING

    def publish(self, event: VoiceEvent) -> None:
        self.events.publish(event)

    # -- controls (any thread) ------------------------------------------------------------
    def mute(self, on: bool = True) -> None:
        """Ignore the microphone (`on`) or listen again; a turn in progress goes on."""
        if on:
            self._muted.set()
            self.events.set_state(State.MUTED)
        else:
            self._muted.clear()
            if self._active is None or self._active.finished.is_set():
                self.events.set_state(self._idle_state())

    @property
    def muted(self) -> bool:
        return self._muted.is_set()

    def cancel_turn(self) -> bool:
        """Stop the current turn now (generation, pending speech, playback); False if none."""
        turn = self._active
        if turn is None or turn.finished.is_set():
            return False
        turn.cancel({"reason": "cancelled by the user"})
        return True

    def _turn_done(self, turn: _VoiceTurn, rep: TurnReport) -> None:
        if rep.transcript:
            with self._lock:
                self.reports.append(rep)
        self.events.publish(TurnFinished(rep.index, rep))
        self.events.set_state(self._idle_state())

    # -- entry points ---------------------------------------------------------------------
    def run_file(self, input_wav: str | Path, output_wav: str | Path | None,
                 responder: Responder, *, realtime: bool = False,
                 stop_event: threading.Event | None = None) -> TurnReport:
        """Headless: one request WAV in, the reply WAV out, the first turn's report back.

        `realtime` feeds the request at speech pace and plays the reply at real-time pace
        into the file (`PacedWavSink`), as a live session would: a display can follow it
        and `cancel_turn()` can cut the reply short.
        """
        source = WavSource(input_wav, realtime=realtime)
        sink = (PacedWavSink if realtime else WavSink)(output_wav, self.tts.sample_rate)
        try:
            reports = self.run(source, sink, responder, duplex=False, stop_event=stop_event)
        finally:
            sink.close()
        if reports:
            return reports[0]
        if self.gate is not None and not self.gate.hits:
            return TurnReport(0, "", note="no wake word heard in the input")
        return TurnReport(0, "", note="no speech found in the input")

    def run_live(self, responder: Responder, input_device: int | str | None = None,
                 output_device: int | str | None = None, duplex: bool = False,
                 max_turns: int | None = None, stop_event: threading.Event | None = None) -> list[TurnReport]:
        """Microphone to speaker until Ctrl-C, `stop_event`, or `max_turns`."""
        tts, _, _ = self.tts, self.stt, self.vad  # load models before the mic queue starts filling
        first = len(self.reports)
        sink = SpeakerSink(tts.sample_rate, output_device)
        try:
            source = MicSource(input_device)
        except Exception:
            sink.close()
            raise
        try:
            return self.run(source, sink, responder, duplex=duplex, max_turns=max_turns,
                            stop_event=stop_event)
        except KeyboardInterrupt:  # Ctrl-C ends a live session normally
            return list(self.reports[first:])
        finally:
            source.close()
            sink.close()

    def _wake_cue(self, player: SpeechPlayer, sink: AudioSink, realtime: bool) -> float:
        """Tell the person it is listening; returns until when a chime may reach the mic."""
        w = self.config.wake
        if w is None or w.cue == "none":
            return 0.0
        if w.cue == "speech":
            gen = player.start_turn()
            player.say(gen, w.cue_text)
            player.end_turn(gen)
            if not realtime:  # a file has no clock: let the cue finish before the request
                player.wait(gen, 10.0)
            return 0.0
        audio = chime(sink.sample_rate)
        sink.write(audio)
        sink.wait(0)  # returns at once; lets a file sink report the reply's own first audio
        return time.monotonic() + len(audio) / sink.sample_rate + 0.05

    def run(self, source: AudioSource, sink: AudioSink, responder: Responder, *,
            duplex: bool | None = None, max_turns: int | None = None,
            stop_event: threading.Event | None = None) -> list[TurnReport]:
        """The loop over any source and sink; returns the reports of this session's turns.

        One session at a time per pipeline (the models are shared, not re-entrant).
        """
        return _Session(self, source, sink, responder, duplex, max_turns, stop_event).run()


class _Session:
    """One run of the audio loop. Each frame goes through the steps in order, and any step
    may end the frame there: the person's mute, our own voice (half duplex), the wake-word
    gate, then voice activity and the endpointer (which start turns), then barge-in."""

    def __init__(self, pipe: VoicePipeline, source: AudioSource, sink: AudioSink, responder: Responder,
                 duplex: bool | None, max_turns: int | None, stop_event: threading.Event | None):
        cfg = self.cfg = pipe.config
        self.pipe, self.source, self.sink, self.responder = pipe, source, sink, responder
        self.duplex = cfg.duplex if duplex is None else duplex
        self.max_turns, self.stop_event = max_turns, stop_event
        self.stt, self.vad = pipe.stt, pipe.vad
        self.player = SpeechPlayer(pipe.tts, sink, gap_s=cfg.sentence_gap_s)
        self.ep = Endpointer(cfg.vad)
        self.vad.reset()
        self.bg = BackgroundTranscriber(self.stt, on_result=_prefill_with(getattr(responder, "prepare", None))) \
            if (cfg.speculative_stt and source.realtime and cfg.vad.speculate_ms) else None
        self.guard = pipe.echo_guard = EchoGuard(cfg.duplex_threshold, cfg.echo_margin, cfg.echo_coupling,
                                                 cfg.echo_max_delay_s)
        self.gate = pipe.gate = WakeGate(pipe.wake, cfg.wake.listen_s, cfg.wake.follow_up_s) if cfg.wake else None
        self.woke: dict | None = None  # the wake word whose request has not started yet
        self.chime_until = 0.0  # a chime (not speech) may be heard until then: the mic stays open
        self.start_count = len(pipe.reports)
        self.t0 = time.monotonic()
        self.active: _VoiceTurn | None = None
        self.utt_id = 0
        self.onset_wall: float | None = None
        self.spec_key: tuple | None = None
        self.deaf_until = 0.0
        self.deaf = False

    def run(self) -> list[TurnReport]:
        pipe = self.pipe
        pipe.events.set_state(pipe._idle_state())
        try:
            for frame in self.source.frames():
                if not self._frame(frame):
                    break
            for ev in self.ep.flush():
                self._start_turn(ev, time.monotonic())
            if self.active is not None:
                self.active.join(self.cfg.turn_timeout_s)
        finally:
            self._close()
        return pipe.reports[self.start_count:]

    def _frame(self, frame: np.ndarray) -> bool:
        """One frame through the steps; False ends the session."""
        now = time.monotonic()
        if self.stop_event is not None and self.stop_event.is_set():
            return False
        self.pipe.events.publish(MicLevel(rms(frame)))
        if self.pipe._muted.is_set():
            self.deaf = True  # on unmute, VAD and endpointer start afresh
            return True
        if self.max_turns is not None and self._turns_done() >= self.max_turns and not self._turn_running():
            return False
        playing = self.player.busy()
        if self._deaf(now, playing) or (self.gate is not None and self._wake_step(frame, now, playing)):
            return True
        for ev in self.ep.update(frame, self._speech_prob(frame, now, playing)):
            if isinstance(ev, SpeechStart):
                self.utt_id += 1
                self.onset_wall = now
            elif isinstance(ev, Pause) and self.bg is not None:
                self.spec_key = (self.utt_id, ev.speech_frames)
                self.bg.submit(self.spec_key, ev.audio)
            elif isinstance(ev, Utterance):
                self._start_turn(ev, now)
        self._barge_in(now, playing)
        return True

    def _turns_done(self) -> int:
        return len(self.pipe.reports) - self.start_count

    def _turn_running(self) -> bool:
        return self.active is not None and not self.active.finished.is_set()

    def _deaf(self, now: float, playing: bool) -> bool:
        """Half duplex: our own voice and its echo tail are not listened to; whatever was
        heard over it is discarded (VAD and endpointer start afresh)."""
        if playing and not self.duplex and now >= self.chime_until:
            self.deaf_until = now + self.cfg.echo_tail_ms / 1000
            self.deaf = True
            return True
        if now < self.deaf_until:
            return True
        if self.deaf:
            self.deaf = False
            self._reset_listening()
        return False

    def _reset_listening(self) -> None:
        self.vad.reset()
        self.ep.reset()

    def _wake_step(self, frame: np.ndarray, now: float, playing: bool) -> bool:
        """The wake-word gate; True while it keeps this frame from the request."""
        gate, active, pipe = self.gate, self.active, self.pipe
        assert gate is not None
        was_open = gate.is_open
        turn_on = self._turn_running()
        hit = gate.update(frame, busy=self.ep.in_speech or turn_on or playing)
        if hit is not None:
            if turn_on and active is not None:  # the wake word interrupts a turn, like any barge-in
                active.cancel({"wake": hit.name, "trigger_s": now - self.t0})
            self.woke = {"name": hit.name, "score": hit.score, "audio_s": round(gate.t_s, 3)}
            pipe.events.publish(WakeWordHeard(hit.name, hit.score, gate.t_s))
            pipe.events.set_state(State.LISTENING)
            self._reset_listening()  # the request starts after the wake word: STT never hears it
            self.chime_until = pipe._wake_cue(self.player, self.sink, self.source.realtime)
            return True
        if not gate.is_open:
            if was_open:  # nobody spoke: back to waiting for the wake word
                self._reset_listening()
                self.woke = None
                pipe.events.set_state(pipe._idle_state())
            return True
        return False

    def _speech_prob(self, frame: np.ndarray, now: float, playing: bool) -> float:
        """Voice activity, with our own voice taken out by the echo guard in duplex mode."""
        prob = self.vad(frame)
        if self.duplex and (playing or self.sink.output_level(self.cfg.echo_window_s) > 1e-4):
            t_end = getattr(self.source, "last_frame_time", 0.0) or now
            ref = self.sink.reference(t_end - FRAME / SAMPLE_RATE - self.guard.max_lag / SAMPLE_RATE, t_end)
            prob = prob if self.guard.is_user(frame, prob, ref) else 0.0
        return prob

    def _barge_in(self, now: float, playing: bool) -> None:
        """Speech long enough while a turn runs cancels it (it becomes the next turn)."""
        active = self.active
        if active is None or active.finished.is_set() or active.stop.is_set():
            return
        if self.ep.in_speech and self.ep.speech_ms >= self.cfg.barge_in_ms:
            active.cancel({"onset_s": (self.onset_wall or now) - self.t0, "trigger_s": now - self.t0,
                           "while_playing": playing})

    def _start_turn(self, utt: Utterance, now: float) -> None:
        active, pipe = self.active, self.pipe
        if active is not None:
            active.cancel(active.barge_in)
            active.join(5.0)
        key = self.spec_key
        use_spec = key if (key and key[0] == self.utt_id and key[1] == utt.speech_frames
                           and utt.reason == "silence") else None
        active = self.active = _VoiceTurn(pipe, len(pipe.reports), utt, now, self.responder, self.player,
                                          use_spec, self.bg, self.t0)
        active.wake, self.woke = self.woke, None
        pipe._active = active
        pipe.events.set_state(State.TRANSCRIBING, active.index)
        active.start()
        if not self.source.realtime:
            active.join(self.cfg.turn_timeout_s)

    def _close(self) -> None:
        active = self.active
        if active is not None and not active.finished.is_set():
            active.cancel()
            active.join(2.0)
        self.player.close()
        if self.bg is not None:
            self.bg.close()
        self.source.close()
        self.pipe.events.set_state(State.STOPPED)
