"""What the voice pipeline is doing, as typed events on one small observer bus.

Displays (the terminal face), loggers, tests and other parts of the runtime (the wake
word gate, model warm-up) need to follow a session live: which state it is in, how loud
the microphone is, what was heard, which tools ran, the reply as it streams and where a
turn's latency went. They all subscribe to one `EventBus`; the pipeline publishes.

    from edgevox.voice import VoicePipeline, StateChanged

    def show(ev):
        if isinstance(ev, StateChanged):
            print(ev.state.value)

    pipe = VoicePipeline(observer=show)       # or pipe.events.subscribe(show)

Rules that keep it safe to use from anywhere:
- Events are frozen dataclasses (plain values), so an observer may keep them.
- `publish` may be called from any thread; observers run synchronously on the
  publishing thread, outside the bus lock, in subscription order. An observer must be
  quick (hand work to its own thread if not): the audio loop publishes `MicLevel` for
  every 32 ms frame.
- An observer that raises is logged once and otherwise ignored: a display can never
  break the audio loop.
- `TurnFinished` carries the turn's `TurnMetrics`; the per-stage split of its latency
  is `TurnMetrics.stages()`, so every view shows the same numbers as the one-line report.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

log = logging.getLogger(__name__)


class State(str, Enum):
    """What the assistant is doing; the value is what a display shows."""

    READY = "ready"                        # models loaded, warm, about to listen
    WAITING_WAKE = "waiting for wake word"
    LISTENING = "listening"                # mic open, no turn in progress
    MUTED = "muted"                        # mic ignored on request
    TRANSCRIBING = "transcribing"          # end of speech detected, Whisper running
    THINKING = "thinking"                  # the responder (LLM) is generating
    CALLING = "calling a tool"
    SPEAKING = "speaking"                  # reply text has reached TTS / the speaker
    STOPPED = "stopped"                    # the session ended


@dataclass(frozen=True)
class VoiceEvent:
    """Base of every event; `t` is `time.monotonic()` when it was published."""

    t: float = field(default_factory=time.monotonic, kw_only=True)


@dataclass(frozen=True)
class StateChanged(VoiceEvent):
    state: State
    turn: int | None = None


@dataclass(frozen=True)
class MicLevel(VoiceEvent):
    """One microphone frame's loudness (RMS of the 32 ms frame, linear, full scale = 1)."""

    rms: float


@dataclass(frozen=True)
class WakeWordHeard(VoiceEvent):
    """A wake word opened the microphone; `audio_s` is when it fired in the session's audio."""

    name: str
    score: float
    audio_s: float


@dataclass(frozen=True)
class TranscriptReady(VoiceEvent):
    turn: int
    text: str


@dataclass(frozen=True)
class ToolCalled(VoiceEvent):
    turn: int
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolReturned(VoiceEvent):
    turn: int
    name: str
    ok: bool
    result: Any = None
    error: str | None = None


@dataclass(frozen=True)
class ReplyDelta(VoiceEvent):
    """A piece of the reply text as the responder streams it (not yet split into sentences)."""

    turn: int
    text: str


@dataclass(frozen=True)
class AgentNote(VoiceEvent):
    """Any other object the responder yielded (e.g. a confirmation request), passed through."""

    turn: int
    payload: Any


@dataclass(frozen=True)
class TurnFinished(VoiceEvent):
    """A turn ended (answered, cancelled or failed); `report` is its `TurnReport`."""

    turn: int
    report: Any

    @property
    def metrics(self) -> Any:
        return self.report.metrics


Observer = Callable[[VoiceEvent], None]


class EventBus:
    """Thread-safe publish/subscribe for `VoiceEvent`s."""

    def __init__(self) -> None:
        self._observers: tuple[Observer, ...] = ()
        self._lock = threading.Lock()
        self._failed: set[int] = set()
        self.state: State | None = None  # the last published state

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Add an observer; returns a function that removes it again."""
        with self._lock:
            self._observers = (*self._observers, observer)

        def unsubscribe() -> None:
            with self._lock:
                self._observers = tuple(o for o in self._observers if o is not observer)

        return unsubscribe

    def publish(self, event: VoiceEvent) -> None:
        if isinstance(event, StateChanged):
            self.state = event.state
        for obs in self._observers:  # a tuple snapshot: subscribing meanwhile is safe
            try:
                obs(event)
            except Exception:
                if id(obs) not in self._failed:
                    self._failed.add(id(obs))
                    log.exception("voice observer %r failed; its later errors are not logged", obs)

    def set_state(self, state: State, turn: int | None = None) -> None:
        """Publish a `StateChanged` unless `state` is already the current one."""
        if state is not self.state:
            self.publish(StateChanged(state, turn))


def tool_event(turn: int, piece: object) -> VoiceEvent:
    """A responder's non-text item as an event: tool calls and results by shape, else a note.

    Duck-typed on the agent's `ToolCallEvent` (`name`, `arguments`) and `ToolResultEvent`
    (`name`, `ok`, `result`, `error`) so `edgevox.voice` stays free of agent imports.
    """
    name = getattr(piece, "name", None)
    if isinstance(name, str) and isinstance(getattr(piece, "arguments", None), dict):
        return ToolCalled(turn, name, dict(piece.arguments))  # type: ignore[attr-defined]
    if isinstance(name, str) and isinstance(getattr(piece, "ok", None), bool):
        return ToolReturned(turn, name, piece.ok, getattr(piece, "result", None),  # type: ignore[attr-defined]
                            getattr(piece, "error", None))
    return AgentNote(turn, piece)
