"""Backend-neutral result types and errors, shared by the embedded and remote backends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class BackendError(RuntimeError):
    """Generation failed; the message says why in one sentence."""


class ContextOverflow(BackendError):
    """The prompt does not fit the model's context window."""


class GenerationCancelled(BackendError):
    """Raised only where a caller asked for cancellation to be an error."""


@dataclass
class Completion:
    """One generation: the raw text verbatim, OpenAI-named usage, and timings in seconds."""

    text: str
    finish_reason: str = "stop"  # stop | length | cancelled | grammar_dead_end
    usage: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    prompt: str | None = None
    parsed: Any = None
    tool_calls: list[dict] | None = None  # structured calls from a remote server, if any
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def tokens_per_second(self) -> float:
        n = self.usage.get("completion_tokens", 0)
        t = self.timings.get("decode_s", 0.0)
        return n / t if t > 0 else 0.0
