"""The observer bus: its own rules, and what the real pipeline publishes during a turn."""

from __future__ import annotations

import threading
import time

import pytest

from edgevox.agents.types import ToolCallEvent, ToolResultEvent
from edgevox.voice.events import (
    AgentNote,
    EventBus,
    MicLevel,
    ReplyDelta,
    State,
    StateChanged,
    ToolCalled,
    ToolReturned,
    TranscriptReady,
    TurnFinished,
    tool_event,
)
from edgevox.voice.metrics import STAGES, TurnMetrics
from edgevox.voice.pipeline import VoicePipeline


def test_bus_delivers_in_order_survives_a_failing_observer_and_unsubscribes():
    bus = EventBus()
    seen: list = []

    def broken(ev):
        raise RuntimeError("display bug")

    bus.subscribe(broken)
    off = bus.subscribe(seen.append)
    bus.set_state(State.LISTENING)
    bus.set_state(State.LISTENING)  # no change: not published again
    bus.publish(MicLevel(0.1))
    off()
    bus.publish(MicLevel(0.2))
    assert [type(e) for e in seen] == [StateChanged, MicLevel]
    assert seen[0].state is State.LISTENING and bus.state is State.LISTENING


def test_bus_is_safe_to_publish_and_subscribe_from_many_threads():
    bus = EventBus()
    counts = [0]
    lock = threading.Lock()

    def count(ev):
        with lock:
            counts[0] += 1

    bus.subscribe(count)

    def work():
        for _ in range(500):
            bus.publish(MicLevel(0.0))
            bus.subscribe(lambda ev: None)()  # churn the observer list meanwhile

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counts[0] == 2000


def test_responder_items_become_typed_events():
    call = tool_event(3, ToolCallEvent("c1", "set_light", {"room": "kitchen"}, 0))
    res = tool_event(3, ToolResultEvent("c1", "set_light", True, {"on": True}, None, 0.01, 0))
    other = tool_event(3, {"confirm": "Really?"})
    assert call == ToolCalled(3, "set_light", {"room": "kitchen"}, t=call.t)
    assert isinstance(res, ToolReturned) and res.ok and res.result == {"on": True}
    assert isinstance(other, AgentNote) and other.payload == {"confirm": "Really?"}


def test_stages_split_time_to_first_audio():
    m = TurnMetrics(endpoint_s=0.5, stt_s=0.7, llm_first_token_s=0.3, llm_first_sentence_s=0.9,
                    tts_first_chunk_s=0.2)
    assert [n for n, _ in m.stages()] == list(STAGES)
    assert [round(v, 3) for _, v in m.stages()] == [0.5, 0.2, 0.3, 0.6, 0.2]
    assert TurnMetrics(endpoint_s=0.5, stt_s=0.4).stages() == [("end-of-speech wait", 0.5), ("stt", 0.0)]


@pytest.fixture(scope="module")
def pipe(stt, tts, vad):
    return VoicePipeline(stt, tts, vad=vad)


def _agentlike(text: str, stop: threading.Event):
    """What LLMAgent.run_stream yields for a one-call turn (no model needed for the bus)."""
    yield ToolCallEvent("c1", "set_light", {"room": "kitchen", "on": True}, 0)
    yield ToolResultEvent("c1", "set_light", True, {"room": "kitchen", "on": True}, None, 0.001, 0)
    yield from ["The kitchen ", "light is on. ", "Anything else?"]


@pytest.mark.voice
def test_pipeline_publishes_a_whole_turn(pipe, request_wav, tmp_path):
    seen: list = []
    off = pipe.events.subscribe(seen.append)
    try:
        rep = pipe.run_file(request_wav, tmp_path / "reply.wav", _agentlike)
    finally:
        off()
    states = [e.state for e in seen if isinstance(e, StateChanged)]
    assert states == [State.LISTENING, State.TRANSCRIBING, State.THINKING, State.CALLING,
                      State.THINKING, State.SPEAKING, State.LISTENING, State.STOPPED]
    kinds = [type(e) for e in seen if not isinstance(e, StateChanged | MicLevel)]
    assert kinds == [TranscriptReady, ToolCalled, ToolReturned, ReplyDelta, ReplyDelta, ReplyDelta,
                     TurnFinished]
    assert next(e for e in seen if isinstance(e, TranscriptReady)).text == rep.transcript
    assert "".join(e.text for e in seen if isinstance(e, ReplyDelta)) == rep.reply_text
    done = next(e for e in seen if isinstance(e, TurnFinished))
    assert isinstance(done, TurnFinished) and done.report is rep
    assert [n for n, _ in done.metrics.stages()] == list(STAGES)
    levels = [e.rms for e in seen if isinstance(e, MicLevel)]
    assert len(levels) > 50 and max(levels) > 0.01 and min(levels) < 1e-4  # speech and the silent tail


@pytest.mark.voice
def test_cancel_turn_and_mute(pipe, request_wav, tmp_path):
    thinking = threading.Event()

    def watch(ev):
        if isinstance(ev, StateChanged) and ev.state is State.THINKING:
            thinking.set()

    def slow(text: str, stop: threading.Event):
        for _ in range(2000):  # would take a minute: only a cancel ends it early
            if stop.is_set():
                return
            time.sleep(0.03)
            yield "la "

    canceller = threading.Thread(target=lambda: thinking.wait(60) and pipe.cancel_turn())
    canceller.start()
    off = pipe.events.subscribe(watch)
    try:
        rep = pipe.run_file(request_wav, tmp_path / "reply.wav", slow)
    finally:
        off()
        canceller.join()
    assert rep.interrupted and rep.transcript and len(rep.reply_text) < 2000 * 3
    assert pipe.cancel_turn() is False  # nothing left to cancel

    pipe.mute(True)
    try:
        rep = pipe.run_file(request_wav, tmp_path / "muted.wav", slow)
    finally:
        pipe.mute(False)
    assert rep.transcript == "" and "no speech" in rep.note
