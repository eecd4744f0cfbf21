"""What the parts of a running turn hand each other: its stop signal, a hop's outcome
(go on to the next hop, or end the turn), and the two failures that end a turn early
(the context is full, the backend failed). Kept apart so the turn driver, a hop's
generation and the tool dispatch can each import them without importing one another."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

POLL_S = 0.02  # how often a cancelled tool wait checks the stop event


class TurnStop:
    """Stop signal of one turn: set by ``cancel()`` or by the caller's own event."""

    def __init__(self, outer: threading.Event | None):
        self.own = threading.Event()
        self.outer = outer

    def is_set(self) -> bool:
        return self.own.is_set() or (self.outer is not None and self.outer.is_set())

    def set(self) -> None:
        self.own.set()

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                return False
            self.own.wait(POLL_S)
        return True


@dataclass(frozen=True)
class Next:
    """A hop's outcome: the turn goes on to the next hop (with ``note`` when it retries)."""

    note: str | None = None


@dataclass(frozen=True)
class Done:
    """A hop's outcome: the turn ends with ``reply`` (None: the hop's own reply) for ``reason``."""

    reply: str | None
    reason: str


Step = Next | Done


class Overflow(Exception):
    pass


class BackendFailed(Exception):
    pass
