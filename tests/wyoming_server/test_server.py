"""The Wyoming server end to end on loopback: real models, the `wyoming` package's clients."""

from __future__ import annotations

import asyncio
import re

import numpy as np
import pytest
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.handle import Handled, NotHandled
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop
from wyoming.wake import Detect, Detection
from wyoming_helpers import audio_of, pcm_events, talk

from edgevox.voice.audio import SAMPLE_RATE, resample

pytestmark = [pytest.mark.voice, pytest.mark.model]


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def heard(stt, events: list[Event]) -> str:
    audio, rate = audio_of(events)
    return stt.transcribe(resample(audio, rate, SAMPLE_RATE)).text


def test_describe_lists_what_is_served(served):
    uri, service, _ = served
    [ev] = asyncio.run(talk(uri, [Describe().event()], "info"))
    info = Info.from_event(ev)
    assert [p.name for p in info.asr] == ["edgevox-stt"]
    assert info.asr[0].models[0].name == "whisper-tiny.en"
    assert [p.name for p in info.tts] == ["edgevox-tts"]
    assert info.tts[0].supports_synthesize_streaming
    assert [p.name for p in info.handle] == ["edgevox-agent"]
    assert info.handle[0].supports_handled_streaming
    assert [m.name for p in info.wake for m in p.models] == service.wake_words


@pytest.mark.parametrize("rate,width,channels", [(22050, 2, 1), (48000, 3, 2)])
def test_spoken_wav_in_chunks_gives_transcript(served, w_tts, rate, width, channels):
    uri, _, _ = served
    speech = w_tts.synthesize_all("Turn on the bedroom light.")
    audio = resample(speech, w_tts.sample_rate, rate)
    evs = asyncio.run(talk(uri, [Transcribe(language="en").event(),
                                 *pcm_events(audio, rate, width, channels)], "transcript"))
    assert types(evs) == ["transcript-start", "transcript-chunk", "transcript-stop", "transcript"]
    text = Transcript.from_event(evs[-1]).text
    assert "bedroom" in words(text), text
    assert evs[1].data["text"] == text


def test_synthesize_is_heard_back(served, w_stt):
    uri, _, _ = served
    said = "Set the thermostat to twenty one degrees. Then start a pasta timer."
    evs = asyncio.run(talk(uri, [Synthesize(text=said).event()], "audio-stop"))
    assert evs[0].type == "audio-start" and AudioStart.from_event(evs[0]).rate == 22050
    assert sum(e.type == "audio-chunk" for e in evs) > 10
    got = words(heard(w_stt, evs))
    assert len(got & words(said)) >= len(words(said)) - 2, got


def test_streaming_synthesize(served, w_stt):
    uri, _, _ = served
    pieces = ["Switch off", " the office light", ". It is late", "."]
    evs = [SynthesizeStart().event(), *[SynthesizeChunk(text=p).event() for p in pieces],
           Synthesize(text="".join(pieces)).event(),  # the compatibility copy: must not speak twice
           SynthesizeStop().event()]
    out = asyncio.run(talk(uri, evs, "synthesize-stopped"))
    assert types(out)[0] == "audio-start" and types(out)[-2:] == ["audio-stop", "synthesize-stopped"]
    assert types(out).count("audio-start") == 1
    text = heard(w_stt, out)
    assert {"office", "late"} <= words(text), text
    assert len(re.findall("office", text.lower())) == 1, text


def test_handle_switches_a_light(served):
    uri, _, home = served
    home.lights["kitchen"] = False
    ctx = {"conversation_id": "kitchen-1"}
    evs = asyncio.run(talk(uri, [Transcript(text="Turn on the kitchen light.", context=ctx).event()],
                           ("handled", "not-handled")))
    assert evs[-1].type == "handled", evs
    done = Handled.from_event(evs[-1])
    assert done.context["conversation_id"] == "kitchen-1"
    assert home.lights["kitchen"] is True
    assert done.text and words(done.text)
    assert types(evs)[0] == "handled-start" and types(evs)[-2] == "handled-stop"
    streamed = "".join(e.data["text"] for e in evs if e.type == "handled-chunk")
    assert streamed.split() == done.text.split()


def test_two_clients_at_once_keep_their_audio_apart(served, w_tts):
    uri, _, _ = served

    async def speak(text: str, pause: float) -> str:
        audio = w_tts.synthesize_all(text)
        from wyoming.client import AsyncClient

        async with AsyncClient.from_uri(uri) as c:
            await c.write_event(Transcribe().event())
            for ev in pcm_events(audio, w_tts.sample_rate):
                await c.write_event(ev)
                await asyncio.sleep(pause)  # the two streams interleave on the server
            while True:
                ev = await asyncio.wait_for(c.read_event(), 120)
                if ev.type == "transcript":
                    return Transcript.from_event(ev).text

    async def both():
        return await asyncio.gather(speak("Turn off the bathroom light.", 0.004),
                                    speak("Switch on the living room light.", 0.003),
                                    talk(uri, [Synthesize(text="Good night.").event()], "audio-stop"))

    a, b, tts_events = asyncio.run(both())
    assert "bathroom" in words(a) and "living" not in words(a), a
    assert "living" in words(b) and "bathroom" not in words(b), b
    assert types(tts_events)[-1] == "audio-stop" and "audio-chunk" in types(tts_events)


# -- faults: each answered or dropped, and the next client is served -------------------

def test_unknown_event_is_dropped_and_the_connection_goes_on(served):
    uri, _, _ = served
    evs = asyncio.run(talk(uri, [Event(type="make-coffee", data={"sugar": 2}), Describe().event()], "info"))
    assert types(evs) == ["info"]


def test_unusable_audio_format_gets_an_error_and_an_empty_transcript(served):
    uri, _, _ = served
    bad = [Transcribe().event(), AudioStart(rate=16000, width=5, channels=1).event(),
           AudioChunk(rate=16000, width=5, channels=1, audio=b"\0" * 500).event(), AudioStop().event()]
    evs = asyncio.run(talk(uri, bad, "transcript"))
    assert types(evs) == ["error", "transcript"]
    assert "width" in evs[0].data["text"]
    assert Transcript.from_event(evs[-1]).text == ""
    rate_bad = [Transcribe().event(), AudioChunk(rate=1000, width=2, channels=1, audio=b"\0" * 64).event(),
                AudioStop().event()]
    evs = asyncio.run(talk(uri, rate_bad, "transcript"))
    assert types(evs) == ["error", "transcript"] and "1000 Hz" in evs[0].data["text"]


def test_empty_synthesize_gets_empty_audio(served):
    uri, _, _ = served
    for text in ("", "   ", "**"):
        evs = asyncio.run(talk(uri, [Synthesize(text=text).event()], "audio-stop"))
        assert types(evs) == ["audio-start", "audio-stop"], text


def test_empty_transcript_is_not_handled(served):
    uri, _, home = served
    before = dict(home.lights)
    evs = asyncio.run(talk(uri, [Transcript(text="  ").event()], ("handled", "not-handled")))
    assert types(evs) == ["not-handled"] and NotHandled.from_event(evs[0]).text
    assert home.lights == before


def test_client_gone_mid_stream_then_next_client_served(served, w_tts):
    uri, _, _ = served
    from wyoming.client import AsyncClient

    async def leave_early():
        speech = w_tts.synthesize_all("Turn on the office light.")
        async with AsyncClient.from_uri(uri) as c:
            await c.write_event(Transcribe().event())
            for ev in pcm_events(speech, w_tts.sample_rate)[:8]:
                await c.write_event(ev)
        async with AsyncClient.from_uri(uri) as c:  # gone while the server speaks to it
            await c.write_event(Synthesize(text="A long answer. " * 6).event())
            await c.read_event()

    async def garbage():
        r, w = await asyncio.open_connection(*uri[len("tcp://"):].split(":"))
        w.write(b"this is not json\n")
        await w.drain()
        assert await asyncio.wait_for(r.read(), 10) == b""  # the server closes that connection
        w.close()

    asyncio.run(leave_early())
    asyncio.run(garbage())
    speech = w_tts.synthesize_all("Turn on the office light.")
    evs = asyncio.run(talk(uri, [Transcribe().event(), *pcm_events(speech, w_tts.sample_rate)], "transcript"))
    assert "office" in words(Transcript.from_event(evs[-1]).text)


def test_client_gone_during_a_turn_or_a_wake_stream(served, w_tts, caplog):
    """A client that leaves while its agent turn runs does not stop the turn half way (the
    tool still acts, the conversation stays usable), one that leaves inside a wake-word
    stream frees its detector; neither logs an error, and the next client is served."""
    import logging
    import time

    from wyoming.client import AsyncClient

    uri, _, home = served
    home.lights["kitchen"] = True
    ctx = {"conversation_id": "left-early"}

    async def leave(events: list[Event]) -> None:
        async with AsyncClient.from_uri(uri) as c:
            for ev in events:
                await c.write_event(ev)

    with caplog.at_level(logging.INFO, logger="edgevox.wyoming"):
        asyncio.run(leave([Transcript(text="Turn off the kitchen light.", context=ctx).event()]))
        nabu = np.concatenate([np.zeros(8000, np.float32), w_tts.synthesize_all("Okay Nabu.")])
        asyncio.run(leave([Detect(names=["okay_nabu"]).event(), *pcm_events(nabu, w_tts.sample_rate)[:6]]))
        deadline = time.monotonic() + 180  # the abandoned turn runs to its end on its own
        while home.lights["kitchen"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert home.lights["kitchen"] is False, home.summary()
        evs = asyncio.run(talk(uri, [Transcript(text="Turn on the kitchen light.", context=ctx).event()],
                               ("handled", "not-handled")))
    assert evs[-1].type == "handled" and home.lights["kitchen"] is True, evs
    assert Handled.from_event(evs[-1]).context["conversation_id"] == "left-early"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_unix_socket_and_describe_while_models_load(tmp_path):
    """Describe is answered at once while a model is still loading; the request that
    needs it waits for it."""
    import threading

    from edgevox.wyoming import ServerThread, Service, ServiceConfig

    release = threading.Event()

    class SlowTTS:
        sample_rate = 16000

        def synthesize_all(self, text: str) -> np.ndarray:
            return np.full(1600, 0.1, np.float32)

    def load_tts():
        release.wait(30)
        return SlowTTS()

    service = Service(ServiceConfig(stt=None, handle=False, wake=[]), tts=load_tts)
    uri = f"unix://{tmp_path / 'w.sock'}"
    server = ServerThread(uri, service).start()
    try:
        async def go():
            info = await asyncio.wait_for(talk(uri, [Describe().event()], "info"), 1.0)
            pending = asyncio.ensure_future(talk(uri, [Synthesize(text="Hello there.").event()], "audio-stop"))
            await asyncio.sleep(0.3)
            assert not pending.done()
            release.set()
            return info, await pending

        [info], evs = asyncio.run(go())
        i = Info.from_event(info)
        assert i.tts and not i.asr and not i.handle
        assert types(evs) == ["audio-start", "audio-chunk", "audio-chunk", "audio-stop"]
    finally:
        release.set()
        server.stop()


def test_wake_word_detected_only_when_said(served, w_tts):
    uri, service, _ = served
    assert "okay_nabu" in service.wake_words
    pad = np.zeros(w_tts.sample_rate // 2, np.float32)

    def detect(text: str) -> list[Event]:
        audio = np.concatenate([pad, w_tts.synthesize_all(text), pad])
        return asyncio.run(talk(uri, [Detect(names=["okay_nabu"], context={"satellite": "kitchen"}).event(),
                                      *pcm_events(audio, w_tts.sample_rate)], ("detection", "not-detected")))

    hit = detect("Okay Nabu.")[-1]
    assert hit.type == "detection" and Detection.from_event(hit).name == "okay_nabu"
    assert Detection.from_event(hit).context == {"satellite": "kitchen"}
    assert types(detect("Turn on the kitchen light.")) == ["not-detected"]
    unknown = asyncio.run(talk(uri, [Detect(names=["hey_siri"]).event()], "error"))
    assert "hey_siri" in unknown[-1].data["text"]


def test_cli_answers_describe_at_once_while_models_load(tmp_path):
    """The real command: `describe` within a second of the port opening, before any model
    has loaded (Home Assistant gives up after about one second)."""
    import os
    import subprocess
    import sys
    import time

    from wyoming_helpers import free_port

    uri = f"tcp://127.0.0.1:{free_port()}"
    proc = subprocess.Popen([sys.executable, "-m", "edgevox", "wyoming", "--uri", uri, "--wake"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        banner = proc.stderr.readline()  # printed just before the socket opens
        assert "serving stt, tts, agent on " + uri in banner, banner
        deadline = time.monotonic() + 30
        while True:
            try:
                [ev] = asyncio.run(talk(uri, [Describe().event()], "info", timeout=1.0))
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
                time.sleep(0.05)
        info = Info.from_event(ev)
        assert info.asr and info.tts and info.handle and not info.wake
    finally:
        proc.terminate()
        proc.wait(30)
