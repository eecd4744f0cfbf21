"""The whole loop on real models: file round trip, barge-in, echo guard, half-duplex."""

from __future__ import annotations

import json
import re
import threading
import time

import numpy as np
import pytest

from edgevox.voice.audio import SAMPLE_RATE, load_audio, write_wav
from edgevox.voice.pipeline import PipelineConfig, VoicePipeline
from edgevox.voice.simulated import Cue, ScriptedDuplex

pytestmark = pytest.mark.voice

LONG_REPLY = ("Okay, I turned on the kitchen light for you. The kitchen light is now at full "
              "brightness. The living room lights are still off. The thermostat is set to twenty "
              "one degrees. Is there anything else I can do for you today?")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9']+", text.lower()))


class ScriptedResponder:
    """Stands in for LLMAgent: streams a canned reply word by word, like a small LLM.

    `hold_after` words into a reply it waits for its stop event (an LLM still generating
    when the person interrupts) instead of racing the interruption on the wall clock.
    """

    def __init__(self, replies: dict[str, str], default: str, delay_s: float = 0.03,
                 prefix: list[object] | None = None, hold_after: int | None = None):
        self.replies, self.default, self.delay_s = replies, default, delay_s
        self.prefix = prefix or []
        self.hold_after = hold_after
        self.calls: list[dict] = []
        self.prepared: list[str] = []

    def prepare(self, text: str) -> None:
        """The speculative transcripts (an agent evaluates its prompt from them)."""
        self.prepared.append(text)

    def __call__(self, text: str, stop: threading.Event):
        call = {"text": text, "stop": stop, "yielded": 0, "finished": False}
        self.calls.append(call)
        reply = next((r for k, r in self.replies.items() if k in text.lower()), self.default)
        yield from self.prefix
        for i, word in enumerate(reply.split(" ")):
            if i == self.hold_after:
                stop.wait(60.0)
            if stop.is_set():
                return
            time.sleep(self.delay_s)
            call["yielded"] += 1
            yield word + " "
        call["finished"] = True


@pytest.fixture(scope="module")
def pipe(stt, tts, vad):
    return VoicePipeline(stt, tts, vad=vad)


def test_run_file_round_trip(pipe, stt, request_wav, tmp_path):
    tool_event = {"tool": "set_light", "arguments": {"room": "kitchen", "on": True}}
    responder = ScriptedResponder({}, "Done, the kitchen light is on. It is 21°C in there.",
                                  prefix=["<think>The user wants the kitchen light.</think>", tool_event])
    out = tmp_path / "reply.wav"
    rep = pipe.run_file(request_wav, out, responder)
    print("\n" + str(rep.metrics))

    assert {"kitchen", "light"} <= _words(rep.transcript)
    assert responder.calls[0]["text"] == rep.transcript
    assert rep.events == [tool_event]
    assert rep.spoken == ["Done, the kitchen light is on.", "It is 21°C in there."]
    assert "think" not in rep.reply_text.split("</think>")[1]
    assert not rep.interrupted and rep.error is None

    heard = _words(stt.transcribe(load_audio(out)).text)
    assert {"kitchen", "light"} <= heard and heard & {"degree", "degrees", "celsius"}, heard

    m = rep.metrics
    assert m.endpoint_s == pytest.approx(0.5, abs=0.04)
    assert m.stt_s >= m.endpoint_s and m.stt_compute_s > 0
    assert 0 < m.llm_first_token_s <= m.llm_first_sentence_s <= m.llm_total_s
    assert m.tts_first_chunk_s > 0 and m.ttfa_s > m.stt_s and m.total_s >= m.ttfa_s
    assert m.reply_audio_s > 2.0 and m.tts_rtf > 0  # its speed is measured in benchmarks/
    doc = json.loads(json.dumps(rep.to_dict()))
    assert doc["metrics"]["ttfa_s"] == round(m.ttfa_s, 4) and "first audio" in str(m)


def test_silent_file_gives_an_empty_report(pipe, tmp_path):
    write_wav(tmp_path / "silence.wav", np.zeros(SAMPLE_RATE, np.float32), SAMPLE_RATE)
    responder = ScriptedResponder({}, "never")
    rep = pipe.run_file(tmp_path / "silence.wav", tmp_path / "out.wav", responder)
    assert rep.transcript == "" and "no speech" in rep.note and responder.calls == []
    assert (tmp_path / "out.wav").exists()


def _scripted(pipe, tts, cues, responder, *, duplex, echo_gain, max_turns):
    dev = ScriptedDuplex(cues, tts.sample_rate, echo_gain=echo_gain, noise=0.002)
    reports = pipe.run(dev.source, dev.sink, responder, duplex=duplex, max_turns=max_turns)
    return dev, reports


def _story(dev, reps) -> str:
    """What happened, for a failure message: cues, playbacks, and each turn's timeline."""
    lines = [f"cues at {dev.cue_starts}, playback starts {[round(t, 2) for t in dev.playback_starts]}"]
    for r in reps:
        lines.append(f"turn {r.index}: {r.transcript!r} note={r.note!r} interrupted={r.interrupted} "
                     f"barge_in={r.barge_in} spoken={r.spoken} "
                     f"timeline={[(n, round(t, 2)) for n, t in r.timeline]}")
    return "\n".join(lines)


def test_barge_in_stops_playback_and_becomes_the_next_turn(pipe, tts, request_wav, stop_wav):
    # The device runs on a virtual clock (edgevox/voice/simulated.py): everything below is
    # in device seconds, and the responder is still generating when the person interrupts
    # because it waits for its stop event after the first sentence, not because of timing.
    responder = ScriptedResponder({"time": "It is ten thirty."}, LONG_REPLY, hold_after=10)
    cues = [Cue(request_wav, at_s=0.3), Cue(stop_wav, after_playback_s=1.2)]
    dev, reps = _scripted(pipe, tts, cues, responder, duplex=True, echo_gain=0.5, max_turns=2)
    story = _story(dev, reps)
    assert len(reps) == 2, story
    first, second = reps
    assert {"kitchen", "light"} <= _words(first.transcript), story
    assert first.interrupted and first.barge_in["while_playing"], story
    assert responder.calls[0]["stop"].is_set() and not responder.calls[0]["finished"]
    assert dev.underruns == 0, story

    # the first reply, then the answer to the second turn; the first stopped soon after
    # the person started to speak (VAD onset + barge_in_ms + one frame, in device time)
    assert len(dev.playback_starts) == 2, story
    spoke_at = dev.cue_starts[1]
    stopped_at = dev.sound_ends_s(before_s=dev.playback_starts[1])
    print(f"\nperson spoke at {spoke_at:.3f}s, playback stopped at {stopped_at:.3f}s "
          f"({stopped_at - spoke_at:+.3f}s device time)")
    assert 0 < stopped_at - spoke_at <= 0.4, story
    first_played = sum(len(b) for t, b in dev.played if t < dev.playback_starts[1]) / tts.sample_rate
    assert first_played < first.metrics.reply_audio_s, story  # cut short

    # what was said became the next turn, which was answered in full
    assert "time" in _words(second.transcript), story
    assert responder.calls[1]["text"] == second.transcript and responder.calls[1]["finished"]
    assert second.spoken == ["It is ten thirty."] and not second.interrupted
    assert second.metrics.ttfa_s is not None


def test_own_voice_does_not_interrupt_in_duplex(pipe, tts, request_wav):
    """Echo as loud as the reply itself reaches the mic; the echo guard keeps it out."""
    reply = "Okay, the kitchen light is on now. It is set to full brightness for you."
    responder = ScriptedResponder({}, reply)
    dev, reps = _scripted(pipe, tts, [Cue(request_wav, at_s=0.3)], responder, duplex=True,
                          echo_gain=1.0, max_turns=1)
    assert len(reps) == 1 and not reps[0].interrupted, reps[0].to_dict()
    assert responder.calls[0]["finished"] and not responder.calls[0]["stop"].is_set()
    played = sum(len(b) for _, b in dev.played) / tts.sample_rate
    assert played == pytest.approx(reps[0].metrics.reply_audio_s, abs=0.6)


def test_half_duplex_ignores_speech_while_speaking(stt, tts, vad, request_wav, stop_wav):
    pipe = VoicePipeline(stt, tts, vad=vad, config=PipelineConfig(duplex=False))
    reply = "Okay, the kitchen light is on now. It is set to full brightness for you."
    responder = ScriptedResponder({"time": "It is ten thirty."}, reply)
    cues = [Cue(request_wav, at_s=0.3), Cue(stop_wav, after_playback_s=0.8)]
    dev, reps = _scripted(pipe, tts, cues, responder, duplex=False, echo_gain=0.5, max_turns=None)
    assert len(reps) == 1 and not reps[0].interrupted
    assert responder.calls[0]["finished"] and len(responder.calls) == 1


class _FakeSoundCard:
    """A sounddevice stand-in: a 48 kHz-only card whose mic plays a WAV, speaker records."""

    RATE = 48_000

    def __init__(self, mic_audio_16k: np.ndarray):
        from edgevox.voice.audio import resample

        self.mic = resample(mic_audio_16k, SAMPLE_RATE, self.RATE)
        self.played: list[np.ndarray] = []
        self.opened: list[tuple[str, int]] = []
        card = self

        class PortAudioError(Exception):
            pass

        class Stream:
            kind = ""

            def __init__(self, device=None, channels=1, samplerate=0, dtype="float32", blocksize=0,
                         callback=None, latency=None):
                if samplerate != card.RATE:
                    raise PortAudioError("Invalid sample rate [PaErrorCode -9997]")
                card.opened.append((self.kind, samplerate))
                self.block, self.callback = blocksize, callback
                self._stop = threading.Event()

            def start(self):
                threading.Thread(target=self._run, daemon=True).start()

            def _run(self):
                t0, i = time.monotonic(), 0
                while not self._stop.is_set():
                    self.tick(i)
                    i += 1
                    delay = t0 + i * self.block / card.RATE - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)

            def stop(self):
                self._stop.set()

            close = stop

        class InputStream(Stream):
            kind = "input"

            def tick(self, i):
                blk = card.mic[i * self.block:(i + 1) * self.block]
                blk = np.pad(blk, (0, self.block - len(blk)))[:, None].astype(np.float32)
                self.callback(blk, self.block, None, None)

        class OutputStream(Stream):
            kind = "output"

            def tick(self, i):
                out = np.zeros((self.block, 1), np.float32)
                self.callback(out, self.block, None, None)
                card.played.append(out[:, 0].copy())

        import types

        sd = types.ModuleType("sounddevice")
        sd.PortAudioError, sd.InputStream, sd.OutputStream = PortAudioError, InputStream, OutputStream
        sd.query_devices = lambda *a, **kw: {"default_samplerate": float(card.RATE)}
        self.module = sd


def test_run_live_through_a_fake_48k_sound_card(pipe, request_wav, monkeypatch):
    import sys

    audio = np.concatenate([np.zeros(SAMPLE_RATE // 2, np.float32), load_audio(request_wav),
                            np.zeros(5 * SAMPLE_RATE, np.float32)])
    card = _FakeSoundCard(audio)
    monkeypatch.setitem(sys.modules, "sounddevice", card.module)
    responder = ScriptedResponder({}, "Okay, the kitchen light is on.")
    reps = pipe.run_live(responder, max_turns=1)
    assert [k for k, _ in card.opened] == ["output", "input"]  # 16/22.05 kHz refused, 48 kHz used
    assert len(reps) == 1 and {"kitchen", "light"} <= _words(reps[0].transcript)
    # live audio: the request was transcribed speculatively in the pause and handed over
    assert responder.prepared and {"kitchen", "light"} <= _words(responder.prepared[-1])
    time.sleep(0.1)
    out = np.concatenate(card.played)
    assert np.max(np.abs(out)) > 0.3  # the reply went out, resampled to the card's rate
    assert reps[0].metrics.ttfa_s is not None and reps[0].metrics.ttfa_s > 0
