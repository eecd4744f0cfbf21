"""Backend-neutral result types and errors, shared by the embedded and remote backends."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


class BackendError(RuntimeError):
    """Generation failed; the message says why in one sentence."""


class ContextOverflow(BackendError):
    """The prompt does not fit the model's context window."""


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


class TextStream:
    """What ``Backend.stream`` returns: iterate for the text pieces as they are generated;
    ``completion`` is the Completion once generation has ended (None while it runs, or when
    it broke off with an error). ``close()`` stops it and frees the backend at once.

    ``start`` receives the function to call with the Completion and returns the iterator
    of pieces; ``on_done`` (the older callback form) is called with it too.
    """

    def __init__(self, start: Callable[[Callable[[Completion], None]], Iterator[str]],
                 on_done: Callable[[Completion], None] | None = None):
        self.completion: Completion | None = None
        self._on_done = on_done
        self._pieces = start(self._finish)

    def _finish(self, completion: Completion) -> None:
        self.completion = completion
        if self._on_done is not None:
            self._on_done(completion)

    def __iter__(self) -> TextStream:
        return self

    def __next__(self) -> str:
        return next(self._pieces)

    def close(self) -> None:
        close = getattr(self._pieces, "close", None)
        if close is not None:
            close()


@runtime_checkable
class Backend(Protocol):
    """What the agent, structured output and the voice pipeline need from a model backend
    (the embedded ``LlamaBackend`` and the ``RemoteBackend`` both are one)."""

    supports_grammar: bool  # True when ``grammar=`` constrains generation (else it is ignored)

    def complete(self, messages: Sequence[dict] | None = None, tools: Sequence[Any] | None = None,
                 **kwargs: Any) -> Completion: ...

    def stream(self, messages: Sequence[dict] | None = None, tools: Sequence[Any] | None = None,
               **kwargs: Any) -> TextStream: ...

    def render(self, messages: Sequence[dict], tools: Sequence[Any] | None = None) -> str: ...

    def tokenize(self, text: str) -> list[int]: ...

    def close(self) -> None: ...
