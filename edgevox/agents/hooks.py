"""Hooks: small functions that watch or steer the agent loop at named points.

Points and their payloads:

=============  ==============================  =========================================
point          payload                         replace with
=============  ==============================  =========================================
on_run_start   the user text (str)             another text
before_llm     ``LLMRequest``                  an ``LLMRequest`` (other strategy, notes)
after_llm      ``LLMOutput``                   an ``LLMOutput`` (cleaned, retry, …)
before_tool    the ``ToolCall`` about to run   a ``ToolCall``, or a ``ToolResult`` that
                                               answers the call without running the tool
after_tool     the ``ToolResult``              a ``ToolResult``
on_run_end     the ``AgentResult``             an ``AgentResult``
=============  ==============================  =========================================

A hook returns None (continue), ``HookResult.replace(payload)`` or
``HookResult.end(reply)``. Hooks run in ascending ``priority`` (then in the order given);
a replacement is what the next hook sees. A hook that raises is logged and skipped — unless
it is a safety hook (``safety=True``): then the turn fails closed with a safe apology,
because a guard that cannot run must not let the turn through unguarded.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

log = logging.getLogger(__name__)

HOOK_POINTS = ("on_run_start", "before_llm", "after_llm", "before_tool", "after_tool", "on_run_end")


@dataclass(frozen=True)
class HookResult:
    """What a hook decided: ``continue``, ``replace`` the payload, or ``end`` the turn."""

    action: Literal["continue", "replace", "end"] = "continue"
    payload: Any = None
    reply: str | None = None
    reason: str | None = None
    counted: bool = True  # False for follow-up actions of an event already counted

    @staticmethod
    def replace(payload: Any, reason: str | None = None, *, counted: bool = True) -> HookResult:
        return HookResult("replace", payload=payload, reason=reason, counted=counted)

    @staticmethod
    def end(reply: str, reason: str | None = None) -> HookResult:
        if not isinstance(reply, str) or not reply.strip():
            raise ValueError("HookResult.end needs a non-empty reply: a turn never ends in silence")
        return HookResult("end", reply=reply, reason=reason)


CONTINUE = HookResult()


class Hook:
    """Base class: override the methods of the points you want; each gets (ctx, payload).

    ``name`` keys ``agent.hook_stats``; ``priority``: lower runs first; ``safety``: fail
    closed when this hook raises. Hook objects may be shared between agents and threads,
    so keep per-turn state in ``ctx.state(self)``, not on ``self``.
    """

    name: str = ""
    priority: int = 100
    safety: bool = False
    #: this hook's ``after_llm`` never drops or changes a call the model completed, so the
    #: agent may start a call as soon as the stream completes it (before generation ends)
    keeps_calls: bool = False

    def __init__(self, *, name: str | None = None, priority: int | None = None,
                 safety: bool | None = None):
        if name is not None:
            self.name = name
        if priority is not None:
            self.priority = priority
        if safety is not None:
            self.safety = safety
        if not self.name:
            self.name = type(self).__name__

    def points(self) -> tuple[str, ...]:
        """The points this hook implements (methods overridden from ``Hook``)."""
        return tuple(p for p in HOOK_POINTS if getattr(type(self), p, None) is not getattr(Hook, p))

    def call(self, point: str, ctx: TurnContext, payload: Any) -> HookResult | None:
        """Run this hook's method for ``point``."""
        return getattr(self, point)(ctx, payload)

    #: its stream filter runs before the other hooks' (whatever their priority): a filter
    #: that removes markup goes first, so the others judge only what may be spoken
    stream_first: bool = False

    def stream_filter(self, ctx: TurnContext) -> StreamFilter | None:
        """Optional incremental filter for streamed reply text (see ``StreamFilter``)."""
        return None

    def asked_tools(self, ctx: TurnContext) -> set[str] | None:
        """The tools the turn's request plainly asks for, if this hook can tell (None: no
        view). Not a hook point: the own layout (``edgevox.agents.own_layout``) asks it
        before adding calls of tools the envelope did not call."""
        return None

    def story_tools(self, ctx: TurnContext) -> set[str] | None:
        """The tools that look things up which a sentence of a request told in several
        sentences plainly asks for, if this hook can tell (None: no view). Not a hook point:
        the own layout asks it when the first hop answered such a request in words."""
        return None

    # Default implementations: continue. Overridden ones are detected by `points`.
    def on_run_start(self, ctx: TurnContext, text: str) -> HookResult | None:
        return None

    def before_llm(self, ctx: TurnContext, request: Any) -> HookResult | None:
        return None

    def after_llm(self, ctx: TurnContext, output: Any) -> HookResult | None:
        return None

    def before_tool(self, ctx: TurnContext, call: Any) -> HookResult | None:
        return None

    def after_tool(self, ctx: TurnContext, result: Any) -> HookResult | None:
        return None

    def on_run_end(self, ctx: TurnContext, result: Any) -> HookResult | None:
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} priority={self.priority}{' safety' if self.safety else ''}>"


class FunctionHook(Hook):
    """A hook made from one function ``fn(ctx, payload) -> HookResult | None``."""

    def __init__(self, point: str, fn: Callable[[TurnContext, Any], HookResult | None], *,
                 name: str | None = None, priority: int = 100, safety: bool = False):
        if point not in HOOK_POINTS:
            raise ValueError(f"unknown hook point {point!r}; points: {', '.join(HOOK_POINTS)}")
        if not callable(fn):
            raise TypeError("a hook function must be callable")
        super().__init__(name=name or getattr(fn, "__name__", "hook"), priority=priority, safety=safety)
        self.point = point
        self.fn = fn

    def points(self) -> tuple[str, ...]:
        return (self.point,)

    def call(self, point: str, ctx: TurnContext, payload: Any) -> HookResult | None:
        return self.fn(ctx, payload)


def hook(point: str, *, name: str | None = None, priority: int = 100,
         safety: bool = False) -> Callable[[Callable[..., Any]], FunctionHook]:
    """Decorator: ``@hook("before_tool", priority=10)`` turns a function into a hook."""

    def wrap(fn: Callable[..., Any]) -> FunctionHook:
        return FunctionHook(point, fn, name=name, priority=priority, safety=safety)

    return wrap


class StreamFilter:
    """Incremental text filter for ``run_stream``: may hold text back, never invents it.

    ``feed`` returns the text that may be spoken now. At the end of a generation the
    agent does not flush filters: it speaks whatever the final, hook-processed reply adds
    beyond what was already spoken.
    """

    def feed(self, text: str) -> str:
        return text


@dataclass
class TurnContext:
    """What a hook can see about the running turn."""

    agent: Any
    session: Any
    text: str
    hop: int = 0
    records: list[Any] = field(default_factory=list)
    results: list[Any] = field(default_factory=list)  # ToolResults fed back this turn
    stop_event: threading.Event | None = None
    #: a note for one more hop after calls that all succeeded and word their own results: set
    #: by a hook that finds part of the request still undone (``slm.remainder``); the tools'
    #: sentences are said and the turn goes on with this note instead of ending
    more: str | None = None
    _state: dict[str, dict[str, Any]] = field(default_factory=dict)

    def state(self, hook: Hook | str) -> dict[str, Any]:
        """Scratch space for one hook, for this turn only."""
        key = hook if isinstance(hook, str) else hook.name
        return self._state.setdefault(key, {})

    def successes(self) -> list[Any]:
        """CallRecords of this turn whose tool really ran and succeeded (hook answers excluded)."""
        return [r for r in self.records if r.dispatched and r.error is None]

    @property
    def registry(self) -> Any:
        return self.agent.registry

    @property
    def hops_left(self) -> int:
        return self.agent.max_hops - self.hop - 1


class HookFailed(Exception):
    """A safety hook raised: the turn must fail closed."""

    def __init__(self, hook: Hook, point: str, exc: BaseException):
        self.hook, self.point, self.exc = hook, point, exc
        super().__init__(f"safety hook {hook.name!r} failed at {point}: {type(exc).__name__}: {exc}")


@dataclass
class Outcome:
    """Result of running all hooks of one point."""

    payload: Any
    end_reply: str | None = None
    fired: list[str] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        return self.end_reply is not None


class HookRunner:
    """Runs hooks in priority order and counts how often each one acted."""

    def __init__(self, hooks: Iterable[Hook | Callable[..., Any]] = ()):
        self.hooks: list[Hook] = []
        self.stats: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self._lock = threading.Lock()
        for h in hooks:
            self.add(h)

    def add(self, h: Hook) -> Hook:
        if not isinstance(h, Hook):
            raise TypeError(f"hooks must be Hook objects (use @hook(point) for functions), got {h!r}")
        self.hooks.append(h)
        # stable sort: equal priorities keep insertion order
        self.hooks.sort(key=lambda x: x.priority)
        return h

    def for_point(self, point: str) -> list[Hook]:
        return [h for h in self.hooks if point in h.points()]

    def run(self, point: str, ctx: TurnContext, payload: Any,
            settled: Callable[[Any], bool] | None = None) -> Outcome:
        """Run every hook of ``point``; raises HookFailed when a safety hook raises.

        ``settled(payload)`` True stops the chain early: e.g. once a before_tool hook has
        answered a call with a result, later hooks have no call left to inspect.
        """
        out = Outcome(payload)
        for h in self.for_point(point):
            if settled is not None and settled(out.payload):
                break
            try:
                res = h.call(point, ctx, out.payload)
                if res is None:
                    continue
                if not isinstance(res, HookResult):
                    raise TypeError(f"hook returned {type(res).__name__}, expected HookResult or None")
            except Exception as exc:  # a broken hook must not break the turn (unless safety)
                with self._lock:
                    self.errors[h.name] += 1
                if h.safety:
                    raise HookFailed(h, point, exc) from exc
                log.warning("hook %r failed at %s (ignored): %s: %s", h.name, point,
                            type(exc).__name__, exc, exc_info=log.isEnabledFor(logging.DEBUG))
                continue
            if res.action == "continue":
                continue
            if res.counted:
                with self._lock:
                    self.stats[h.name] += 1
                out.fired.append(h.name)
            log.debug("hook %r at %s: %s (%s)", h.name, point, res.action, res.reason or "")
            if res.action == "replace":
                out.payload = res.payload
            elif res.action == "end":
                out.end_reply = res.reply
                return out
        return out
