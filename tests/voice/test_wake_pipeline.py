"""`edgevox voice --wake`: the pipeline only answers what follows its wake word (real models)."""

from __future__ import annotations

import json
import re
import threading

import numpy as np
import pytest

from edgevox.voice.audio import SAMPLE_RATE, ArraySource, WavSink, load_audio, resample, write_wav
from edgevox.voice.events import State, StateChanged, WakeWordHeard
from edgevox.voice.pipeline import PipelineConfig, VoicePipeline
from edgevox.voice.wake import WakeConfig, chime

pytestmark = pytest.mark.voice

REQUEST = "Turn on the kitchen light."


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def _silence(s: float) -> np.ndarray:
    return np.zeros(int(s * SAMPLE_RATE), np.float32)


@pytest.fixture(scope="module")
def said(tts) -> dict[str, np.ndarray]:
    def say(text: str) -> np.ndarray:
        return resample(tts.synthesize_all(text), tts.sample_rate, SAMPLE_RATE)
    return {"nabu": say("Okay Nabu."), "request": say(REQUEST),
            "follow_up": say("What time is it?"), "timer": say("Set a timer for ten minutes."),
            "stop": say("Stop, what time is it?")}


class Spy:
    """A responder that records what it was asked, and an STT wrapper that records its input."""

    def __init__(self, stt):
        self.stt, self.asked, self.heard_audio = stt, [], []

    def __call__(self, text: str, stop: threading.Event):
        self.asked.append(text)
        yield "Done."

    def transcribe(self, audio):
        self.heard_audio.append(len(audio))
        return self.stt.transcribe(audio)


def _pipe(stt, tts, vad, spy: Spy, **wake) -> VoicePipeline:
    pipe = VoicePipeline(stt, tts, vad=vad, config=PipelineConfig(wake=WakeConfig(["okay_nabu"], **wake)))
    pipe._stt = spy  # every piece of audio that reaches STT goes through the spy
    return pipe


def test_wake_word_then_request_then_follow_up_then_asleep(stt, tts, vad, said):
    spy = Spy(stt)
    pipe = _pipe(stt, tts, vad, spy, follow_up_s=3.0)
    events: list = []
    pipe.events.subscribe(lambda ev: events.append(ev) if isinstance(ev, StateChanged | WakeWordHeard) else None)
    audio = np.concatenate([_silence(0.5), said["nabu"], _silence(0.4), said["request"], _silence(1.5),
                            said["follow_up"], _silence(6.0), said["timer"]])
    sink = WavSink(None, tts.sample_rate)
    reps = pipe.run(ArraySource(audio), sink, spy)

    # the request and its follow-up were answered; the request after 6 s of silence was not
    assert len(reps) == 2, [r.to_dict() for r in reps]
    first, follow = reps
    assert {"kitchen", "light"} <= _words(first.transcript)
    assert first.wake["name"] == "okay_nabu" and first.wake["score"] > 0.5
    assert "time" in _words(follow.transcript) and follow.wake is None
    assert len(spy.asked) == 2 and not any("timer" in _words(t) for t in spy.asked)

    # the wake word never reached STT: no transcript has it, and STT only ever got audio
    # from after the hit (plus Whisper's own short lead of silence)
    hit_at = pipe.gate.hits[0].t_s
    assert len(pipe.gate.hits) == 1 and hit_at <= (0.5 * SAMPLE_RATE + len(said["nabu"])) / SAMPLE_RATE + 0.3
    assert not any(_words(r.transcript) & {"nabu", "okay", "ok"} for r in reps)
    lead = int(stt.lead_pad_s * SAMPLE_RATE)
    assert all(n - lead <= len(audio) + SAMPLE_RATE - hit_at * SAMPLE_RATE for n in spy.heard_audio)

    # observers saw it wait, wake, listen, and go back to waiting
    states = [ev.state for ev in events if isinstance(ev, StateChanged)]
    assert states[0] is State.WAITING_WAKE and states[-1] is State.STOPPED
    assert State.WAITING_WAKE in states[states.index(State.LISTENING):]
    assert [ev.name for ev in events if isinstance(ev, WakeWordHeard)] == ["okay_nabu"]

    # the chime went out before the first reply
    out = sink.audio()
    ding = chime(tts.sample_rate)
    assert len(out) > len(ding) and np.allclose(out[:len(ding)], ding)


def test_the_same_request_without_the_wake_word_is_ignored(stt, tts, vad, said, tmp_path):
    spy = Spy(stt)
    pipe = _pipe(stt, tts, vad, spy)
    write_wav(tmp_path / "request.wav", np.concatenate([_silence(0.5), said["request"]]), SAMPLE_RATE)
    rep = pipe.run_file(tmp_path / "request.wav", tmp_path / "reply.wav", spy)
    assert rep.transcript == "" and rep.note == "no wake word heard in the input"
    assert spy.asked == [] and spy.heard_audio == [] and pipe.reports == []
    assert len(load_audio(tmp_path / "reply.wav")) == 0


def test_spoken_cue(stt, tts, vad, said):
    spy = Spy(stt)
    pipe = _pipe(stt, tts, vad, spy, cue="speech", cue_text="Yes?")
    sink = WavSink(None, tts.sample_rate)
    audio = np.concatenate([_silence(0.5), said["nabu"], _silence(0.5), said["request"]])
    reps = pipe.run(ArraySource(audio), sink, spy)
    assert len(reps) == 1 and {"kitchen", "light"} <= _words(reps[0].transcript)
    cue = sink.audio()[:int(0.8 * tts.sample_rate)]  # "Yes?" comes first, then "Done."
    assert "yes" in _words(stt.transcribe(resample(cue, tts.sample_rate, SAMPLE_RATE)).text)


def test_bad_wake_settings_are_clear_errors():
    with pytest.raises(ValueError, match="cue"):
        WakeConfig(["okay_nabu"], cue="gong")
    with pytest.raises(ValueError, match="Unknown wake word"):
        _ = VoicePipeline(config=PipelineConfig(wake=WakeConfig(["okay_nobody"]))).wake


@pytest.mark.model
def test_cli_headless_wake_then_request(qwen_path, said, tmp_path, capsys):
    """`edgevox voice --wake okay_nabu --input ... --output ...` end to end on the real agent."""
    from edgevox.cli import main

    wake_wav, plain_wav = tmp_path / "wake_then_request.wav", tmp_path / "request.wav"
    write_wav(wake_wav, np.concatenate([_silence(0.5), said["nabu"], _silence(0.4), said["request"]]),
              SAMPLE_RATE)
    write_wav(plain_wav, np.concatenate([_silence(0.5), said["request"]]), SAMPLE_RATE)
    base = ["voice", "--model", str(qwen_path), "--wake", "okay_nabu", "--json"]

    assert main([*base, "--input", str(wake_wav), "--output", str(tmp_path / "reply.wav")]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["wake"]["name"] == "okay_nabu" and "kitchen" in _words(rep["transcript"])
    assert not _words(rep["transcript"]) & {"nabu", "okay", "ok"}
    calls = [e for e in rep["events"] if e["type"] == "ToolCallEvent"]
    assert calls and calls[0]["name"] == "set_light" and calls[0]["arguments"]["room"] == "kitchen"
    assert "kitchen" in rep["home"] and rep["reply_text"]
    assert len(load_audio(tmp_path / "reply.wav")) > SAMPLE_RATE  # the chime and a spoken reply

    assert main([*base, "--input", str(plain_wav), "--output", str(tmp_path / "none.wav")]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["transcript"] == "" and rep["note"] == "no wake word heard in the input"
    assert rep["events"] == [] and "lights on: none" in rep["home"]

    assert main(["voice", "--wake", "okay_nobody", "--input", str(plain_wav)]) == 2
    assert "Unknown wake word" in capsys.readouterr().err


def test_barge_in_still_works_after_waking(stt, tts, vad, said):
    """Duplex on a scripted device (echo at half the reply's level): once woken, speech over
    a long reply stops it and becomes the next turn, without a second wake word."""
    from edgevox.voice import Cue, ScriptedDuplex

    long_reply = ("Okay, the kitchen light is on now. It is set to full brightness. The living room "
                  "lights are still off. The thermostat is at twenty one degrees. Anything else for you?")
    asked: list[str] = []

    def responder(text: str, stop: threading.Event):
        asked.append(text)
        yield "It is ten thirty." if "time" in _words(text) else long_reply

    pipe = VoicePipeline(stt, tts, vad=vad, config=PipelineConfig(wake=WakeConfig(["okay_nabu"], cue="none")))
    first = np.concatenate([said["nabu"], _silence(0.4), said["request"]])
    dev = ScriptedDuplex([Cue(first, at_s=0.3), Cue(said["stop"], after_playback_s=1.5)], tts.sample_rate,
                         echo_gain=0.5, noise=0.002)
    reps = pipe.run(dev.source, dev.sink, responder, duplex=True, max_turns=2)
    story = [(r.transcript, r.interrupted, r.barge_in, r.wake) for r in reps]
    assert len(reps) == 2, story
    assert {"kitchen", "light"} <= _words(reps[0].transcript) and reps[0].wake["name"] == "okay_nabu", story
    assert reps[0].interrupted and reps[0].barge_in["while_playing"], story
    assert "time" in _words(reps[1].transcript) and reps[1].wake is None, story
    assert [h.name for h in pipe.gate.hits] == ["okay_nabu"]
    assert reps[1].spoken == ["It is ten thirty."] and len(asked) == 2
