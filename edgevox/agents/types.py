"""Result and event types of the agent loop, and the payloads hooks see.

Plain dataclasses, so a hook or a test can build and compare them without a model.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

#: Why a turn ended (``AgentResult.stopped_reason``).
STOP_REPLY = "reply"  # the model answered
STOP_MAX_HOPS = "max_hops"  # hop budget spent: a spoken apology was given instead
STOP_CANCELLED = "cancelled"  # cancel() or the stop event
STOP_HOOK = "hook"  # a hook ended the turn with its own reply
STOP_HOOK_FAILED = "hook_failed"  # a safety hook raised: the turn failed closed
STOP_CONTEXT = "context_overflow"  # the current turn alone does not fit the context window
STOP_ERROR = "error"  # the backend failed
STOP_CONFIRM = "confirm"  # the agent asked before acting; the calls wait for a yes or no

#: The strategy of a hop that may only answer in words but renders the tools like every
#: other hop, so the KV cache keeps the prompt prefix ("none" offers no tools: another
#: prompt from the system message on). Why: after a result the small model's usual mistake
#: is to call again instead of answering, and under the envelope the answer-only grammar
#: forces ``{"answer": "``: tokens evaluated in the prompt's batch, not sampled one by one.
ANSWER = "answer"


@dataclass
class CallRecord:
    """One tool call of a turn, as it happened.

    ``result`` is the tool's return value when it ran successfully, ``error`` the message
    the model saw otherwise. ``dispatched`` is False when a hook answered the call instead
    of the tool (loop guard, placeholder arguments) or the turn was cancelled first.
    """

    name: str
    arguments: dict[str, Any]
    result: Any = None
    error: str | None = None
    duration_s: float = 0.0
    id: str | None = None
    error_type: str | None = None
    hop: int = 0
    dispatched: bool = True
    #: the model's margin when it chose the call (see ``edgevox.agents.confirm``)
    confidence: float | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        from edgevox.tools import to_jsonable

        d = dataclasses.asdict(self)
        d["result"] = to_jsonable(self.result)
        d["arguments"] = to_jsonable(self.arguments)
        return d


@dataclass
class AgentResult:
    """The outcome of one turn.

    ``reply`` is everything the agent said in the turn (text spoken before a call plus the
    final answer), never empty. ``timings``: ``total_s`` wall time, ``llm_s`` time spent
    generating, ``tools_s`` wall time spent waiting for tools, ``ttft_s`` time until the
    first piece of reply text was known (None if the reply came from a fallback).
    """

    reply: str
    calls: list[CallRecord] = field(default_factory=list)
    hops: int = 0
    timings: dict[str, float | None] = field(default_factory=dict)
    stopped_reason: str = STOP_REPLY
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when the model itself produced the reply (no fallback, no cancel)."""
        return self.stopped_reason == STOP_REPLY

    def to_dict(self) -> dict[str, Any]:
        return {
            "reply": self.reply,
            "calls": [c.to_dict() for c in self.calls],
            "hops": self.hops,
            "timings": dict(self.timings),
            "stopped_reason": self.stopped_reason,
            "usage": dict(self.usage),
        }


@dataclass
class ToolCallEvent:
    """Yielded by ``run_stream`` just before a call is dispatched (or answered by a hook)."""

    id: str
    name: str
    arguments: dict[str, Any]
    hop: int


@dataclass
class ToolResultEvent:
    """Yielded by ``run_stream`` when a call's result is known."""

    id: str
    name: str
    ok: bool
    result: Any
    error: str | None
    duration_s: float
    hop: int
    record: CallRecord | None = None


@dataclass
class LLMRequest:
    """``before_llm`` payload: what the next generation will see.

    ``strategy`` is the grammar strategy (see ``edgevox.grammars.tool_choice_strategy``):
    "none" (no tools offered), ``ANSWER`` (words only, tools still rendered), "free",
    "reply_or_tool", "required" or ("single", name).
    ``notes`` are one-off runtime notes to the model for this generation only (retry
    hints); they are never stored in the session. ``allowed`` narrows the tools a call may
    name to these (by the grammar only: the prompt still lists every tool, so the cached
    prefix holds) -- a hook that knows the request is for one of two tools lets the model
    choose between them.
    """

    hop: int
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    strategy: Any
    options: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    allowed: tuple[str, ...] | None = None


@dataclass
class LLMOutput:
    """``after_llm`` payload: one generation, parsed.

    A hook may replace it with a copy whose ``content`` is cleaned, whose ``calls`` are
    filtered, or whose ``retry`` holds a note: then the output is discarded (not stored in
    the session) and the model generates again with that note, if hops remain; otherwise
    ``fallback`` (when set) or the agent's apology is spoken.
    """

    hop: int
    text: str
    content: str
    calls: list[Any]
    rejected: list[Any]
    reasoning: str | None
    finish_reason: str
    strategy: Any = None
    retry: str | None = None
    fallback: str | None = None
    #: the margins of the first sampled tokens (``Completion.info["decisions"]``), if known
    decisions: list[dict[str, Any]] | None = None

    def replace(self, **changes: Any) -> LLMOutput:
        return dataclasses.replace(self, **changes)
