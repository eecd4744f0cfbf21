"""The terminal face of `edgevox voice --tui` and `edgevox chat --tui`.

Built on rich's `Live` display (rich is already a dependency) rather than Textual: the
face only draws one view that changes and reads three keys, so a full application
framework would add a dependency and an event loop for nothing; `Live` redraws a
renderable ten times a second from its own thread and leaves the last frame in the
terminal when it stops, which is exactly what a headless run (`--input FILE.wav`) and a
captured tmux pane need.

`FaceModel` is fed by the voice pipeline's observer bus (`edgevox.voice.events`), from
any thread; `render()` turns its state into one frame. `KeyReader` puts the terminal in
cbreak mode and calls a handler per key press.
"""

from __future__ import annotations

import json
import math
import os
import select
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from edgevox.voice.events import (
    AgentNote,
    MicLevel,
    ReplyDelta,
    State,
    StateChanged,
    ToolCalled,
    ToolReturned,
    TranscriptReady,
    TurnFinished,
    VoiceEvent,
    WakeWordHeard,
    tool_event,
)
from edgevox.voice.metrics import STAGES

MIN_WIDTH, MIN_HEIGHT = 60, 12

STATE_STYLE = {
    State.READY: "bold green", State.WAITING_WAKE: "bold white", State.LISTENING: "bold green",
    State.MUTED: "bold red", State.TRANSCRIBING: "bold cyan", State.THINKING: "bold yellow",
    State.CALLING: "bold magenta", State.SPEAKING: "bold blue", State.STOPPED: "dim",
}
# one glyph and colour per stage, so the bar reads in colour and in a plain-text capture
STAGE_GLYPH = dict(zip(STAGES, "█▓▒░▚", strict=True))
STAGE_STYLE = dict(zip(STAGES, ("grey62", "cyan", "yellow", "green", "blue"), strict=True))


def too_small(width: int, height: int) -> str | None:
    """The one line to print when the terminal cannot hold the face, else None."""
    if width >= MIN_WIDTH and height >= MIN_HEIGHT:
        return None
    return (f"the terminal is {width}x{height}; the face needs at least {MIN_WIDTH}x{MIN_HEIGHT} "
            "(enlarge it or run without --tui)")


@dataclass
class TurnView:
    index: int
    heard: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reply: str = ""
    stages: list[tuple[str, float]] = field(default_factory=list)
    ttfa_s: float | None = None
    total_s: float | None = None
    outcome: str | None = None  # "interrupted", an error, a note; None while running or when fine
    done: bool = False


class FaceModel:
    """Everything the face shows, updated by `observe` (thread-safe), drawn by `render`."""

    def __init__(self, title: str, keys: str, *, max_turns: int = 20, show_mic: bool = True):
        self.title, self.keys, self.max_turns, self.show_mic = title, keys, max_turns, show_mic
        self.state: State | str = "loading models"
        self.level = 0.0
        self.wake = ""  # the last wake word heard
        self.turns: list[TurnView] = []
        self._lock = threading.Lock()

    def _turn(self, index: int) -> TurnView:
        for t in reversed(self.turns):
            if t.index == index:
                return t
        t = TurnView(index)
        self.turns.append(t)
        del self.turns[:-self.max_turns]
        return t

    def observe(self, ev: VoiceEvent) -> None:
        with self._lock:
            if isinstance(ev, MicLevel):
                self.level = max(ev.rms, self.level * 0.7)  # fast attack, ~100 ms release
            elif isinstance(ev, StateChanged):
                self.state = ev.state
            elif isinstance(ev, TranscriptReady):
                self._turn(ev.turn).heard = ev.text
            elif isinstance(ev, ToolCalled):
                self._turn(ev.turn).calls.append({"name": ev.name, "arguments": ev.arguments})
            elif isinstance(ev, ToolReturned):
                calls = self._turn(ev.turn).calls
                slot = next((c for c in calls if c["name"] == ev.name and "ok" not in c), None)
                if slot is None:
                    slot = {"name": ev.name, "arguments": {}}
                    calls.append(slot)
                slot.update(ok=ev.ok, result=ev.result, error=ev.error)
            elif isinstance(ev, ReplyDelta):
                self._turn(ev.turn).reply += ev.text
            elif isinstance(ev, AgentNote):
                self._turn(ev.turn).notes.append(_note_text(ev.payload))
            elif isinstance(ev, TurnFinished):
                self._finish(ev)
            elif isinstance(ev, WakeWordHeard):
                self.wake = f"woke on {ev.name} ({ev.score:.2f})"

    def _finish(self, ev: TurnFinished) -> None:
        rep = ev.report
        if not rep.transcript:  # noise or a dropped utterance: not a turn worth a line
            self.turns = [t for t in self.turns if t.index != ev.turn]
            return
        t = self._turn(ev.turn)
        t.heard = t.heard or rep.transcript
        t.reply = rep.reply_text or t.reply
        t.stages, t.ttfa_s, t.total_s = rep.metrics.stages(), rep.metrics.ttfa_s, rep.metrics.total_s
        t.outcome = (f"error: {rep.error}" if rep.error else
                     "interrupted (turn cancelled)" if rep.interrupted else None)
        t.done = True

    # -- drawing ------------------------------------------------------------------------
    def render(self, width: int = 100, height: int = 30) -> Any:
        from rich.console import Group
        from rich.text import Text

        with self._lock:
            head = self._header(width)
            scale = max([sum(v for _, v in t.stages) for t in self.turns] + [1.0])
            blocks = [self._turn_text(t, width, scale) for t in self.turns]
        room = height - len(head) - 1
        shown: list[Text] = []
        for block in reversed(blocks):  # newest turns first, as many as fit
            lines = sum(max(1, math.ceil(len(line) / max(1, width))) for line in block.plain.split("\n"))
            if shown and lines > room:
                break
            shown.insert(0, block)
            room -= lines
        if not shown:
            hint = "say the wake word…" if self.state is State.WAITING_WAKE else "say something…"
            shown = [Text(f"  {hint}" if self.show_mic else "  type a message…", style="dim")]
        return Group(*head, *shown)

    def _header(self, width: int) -> list[Any]:
        from rich.text import Text

        state = self.state.value if isinstance(self.state, State) else str(self.state)
        line = Text(f" {self.title}  ", style="bold")
        line.append(f"● {state}", style=STATE_STYLE.get(self.state, "bold"))
        if self.show_mic:
            db = 20 * math.log10(max(self.level, 1e-6))
            n = 20
            fill = int(round(n * min(1.0, max(0.0, (db + 60) / 60))))
            line.append("   mic ")
            line.append("█" * fill, style="green" if db < -6 else "red")
            line.append("·" * (n - fill), style="dim")
            line.append(f" {db:5.0f} dBFS" if db > -99 else "   -∞ dBFS")
        if self.wake:
            line.append(f"   {self.wake}", style="dim")
        return [line, Text(f" {self.keys}", style="dim"), Text("─" * min(width, 200), style="dim")]

    def _turn_text(self, t: TurnView, width: int, scale: float) -> Any:
        from rich.text import Text

        out = Text()
        out.append(f" turn {t.index + 1}\n", style="bold")
        out.append("   you   ", style="dim")
        out.append(f"{t.heard or '…'}\n")
        for c in t.calls:
            out.append("   call  ", style="dim")
            out.append(f"{c['name']}({_args(c['arguments'])})", style="magenta")
            if "ok" in c:
                shown = c["result"] if c["ok"] else f"error: {c['error']}"
                out.append(f"  →  {_short(shown, 160)}", style="green" if c["ok"] else "red")
            out.append("\n")
        for n in t.notes:
            out.append("   asks  ", style="dim")
            out.append(f"{n}\n", style="yellow")
        if t.reply.strip() or t.done:
            out.append("   says  ", style="dim")
            out.append(f"{t.reply.strip() or '(nothing)'}{'' if t.done else ' ▌'}\n")
        if t.done:
            out.append("   latency ", style="dim")
            bar_w = max(10, min(60, width - 40))
            for name, v in t.stages:
                out.append(STAGE_GLYPH[name] * max(1, round(bar_w * v / scale)) if v > 0 else "",
                           style=STAGE_STYLE[name])
            first = f"{t.ttfa_s:.2f} s to first audio" if t.ttfa_s is not None else (
                f"{sum(v for _, v in t.stages):.2f} s")
            out.append(f"  {first}" + (f", {t.total_s:.2f} s total" if t.total_s else "") + "\n")
            out.append("           ")
            out.append("  ".join(f"{STAGE_GLYPH[n]} {n} {v:.2f}" for n, v in t.stages) or "-",
                       style="dim")
            out.append("\n")
            if t.outcome:
                out.append(f"   {t.outcome}\n", style="bold red")
        return out


def _args(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in arguments.items())


def _short(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _note_text(payload: Any) -> str:
    """What the agent asks or says besides its reply (a confirmation question, say)."""
    for attr in ("question", "prompt", "text", "message"):
        value = getattr(payload, attr, None)
        if isinstance(value, str) and value:
            return value
    if isinstance(payload, dict):
        for key in ("question", "prompt", "text", "message"):
            if isinstance(payload.get(key), str):
                return payload[key]
    return _short(payload if isinstance(payload, str) else repr(payload), 200)


class KeyReader:
    """Single key presses from a terminal (cbreak mode) on a thread; no-op when not a tty."""

    def __init__(self, handlers: dict[str, Callable[[], None]]):
        self.handlers = handlers
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._saved: Any = None

    def __enter__(self) -> KeyReader:
        if not sys.stdin.isatty():
            return self
        import termios
        import tty

        fd = sys.stdin.fileno()
        self._saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)
        self._thread = threading.Thread(target=self._loop, args=(fd,), name="face-keys", daemon=True)
        self._thread.start()
        return self

    def _loop(self, fd: int) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                continue
            key = os.read(fd, 1).decode("utf-8", "replace").lower()
            handler = self.handlers.get(key)
            if handler is not None:
                handler()

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(1.0)
        if self._saved is not None:
            import termios

            termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, self._saved)


class Face:
    """A `FaceModel` drawn live in the terminal for as long as the `with` block runs."""

    def __init__(self, model: FaceModel):
        from rich.console import Console

        self.model = model
        self.console = Console()
        self._live: Any = None

    def problem(self) -> str | None:
        w, h = self.console.size
        return too_small(w, h)

    def __enter__(self) -> Face:
        from rich.live import Live

        def frame() -> Any:
            w, h = self.console.size
            return self.model.render(w, h)

        self._live = Live(get_renderable=frame, console=self.console, refresh_per_second=10,
                          vertical_overflow="crop")
        self._live.start()
        return self

    def erase_on_exit(self) -> None:
        """Leave nothing behind (when a one-line error follows instead of a frame)."""
        if self._live is not None:
            self._live.transient = True

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.refresh()
            self._live.stop()


def text_turn(observe: Callable[[VoiceEvent], None], index: int, text: str,
              stream: Iterable[object]) -> None:
    """Drive one typed turn (`edgevox chat --tui`), publishing what a voice turn publishes.

    Latency stages for typed input: LLM first token and first sentence (no audio).
    """
    from edgevox.voice.metrics import TurnMetrics
    from edgevox.voice.pipeline import TurnReport
    from edgevox.voice.text import SentenceSplitter

    m = TurnMetrics()
    rep = TurnReport(index, text, metrics=m)
    observe(TranscriptReady(index, text))
    observe(StateChanged(State.THINKING, index))
    splitter = SentenceSplitter()
    t0 = time.monotonic()
    try:
        for piece in stream:
            if isinstance(piece, str):
                if not piece:
                    continue
                now = time.monotonic() - t0
                if m.llm_first_token_s is None:
                    m.llm_first_token_s = now
                if m.llm_first_sentence_s is None and splitter.feed(piece):
                    m.llm_first_sentence_s = now
                rep.reply_text += piece
                observe(ReplyDelta(index, piece))
            else:
                rep.events.append(piece)
                ev = tool_event(index, piece)
                observe(ev)
                observe(StateChanged(State.CALLING if isinstance(ev, ToolCalled) else State.THINKING, index))
        if m.llm_first_sentence_s is None and m.llm_first_token_s is not None:
            m.llm_first_sentence_s = time.monotonic() - t0
    except KeyboardInterrupt:
        close = getattr(stream, "close", None)
        if callable(close):
            close()  # cancels the agent's turn; its session stays consistent
        rep.interrupted = m.interrupted = True
    except Exception as err:
        rep.error = f"{type(err).__name__}: {err}"
    m.llm_total_s = time.monotonic() - t0
    observe(TurnFinished(index, rep))
    observe(StateChanged(State.READY))
