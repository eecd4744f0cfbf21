"""``ToolRegistry``: the set of tools of one agent, and the dispatcher.

Dispatch runs every call in its own *daemon* thread and waits on it with a
timeout. Why not ``ThreadPoolExecutor``: its workers are joined at interpreter
exit, so one hung tool would keep the voice assistant from quitting, and a full
pool would queue later calls behind it. An abandoned daemon thread costs only
its memory.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Union

from .errors import ToolArgumentError, ToolDefinitionError
from .result import ToolResult
from .tool import DEFAULT_TIMEOUT, Tool, _check_timeout

ToolLike = Union[Tool, Callable[..., Any], Mapping[str, Any]]  # noqa: UP007 - runtime alias, py3.10


class _ToolTimeout(Exception):
    """Raised inside the worker when an async tool ran past its deadline."""


class _Pending:
    """One running call: the worker thread fills it, the caller waits on ``done``."""

    __slots__ = ("done", "value", "exc")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.exc: BaseException | None = None


async def _await_with_deadline(awaitable: Any, timeout: float | None) -> Any:
    # Cancel the coroutine ourselves so an async tool that hangs does not keep
    # its event loop (and thread) alive forever.
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({task}, timeout=timeout)
    if not done:
        task.cancel()
        raise _ToolTimeout()
    return task.result()


def _start(tool: Tool, args: tuple, kwargs: dict, timeout: float | None) -> _Pending:
    pending = _Pending()
    fn = tool.fn
    assert fn is not None

    def run() -> None:
        try:
            if tool.is_async:
                pending.value = asyncio.run(_await_with_deadline(fn(*args, **kwargs), timeout))
            else:
                value = fn(*args, **kwargs)
                if inspect.isawaitable(value):
                    value = asyncio.run(_await_with_deadline(value, timeout))
                pending.value = value
        except BaseException as e:  # noqa: BLE001 - a worker must report, not die silently
            pending.exc = e
        finally:
            pending.done.set()

    threading.Thread(target=run, name=f"edgevox-tool-{tool.name}", daemon=True).start()
    return pending


def _call_parts(call: Any) -> tuple[str, Any, str | None]:
    """(name, arguments, id) from a ToolCall-like object, a dict or a tuple."""
    if isinstance(call, Mapping):
        fn = call.get("function")
        if isinstance(fn, Mapping):
            return str(fn.get("name", "")), fn.get("arguments"), call.get("id")
        return str(call.get("name", "")), call.get("arguments"), call.get("id")
    if isinstance(call, tuple) and 1 <= len(call) <= 3:
        name, args, cid = (tuple(call) + (None, None))[:3]
        return str(name), args, cid
    if hasattr(call, "name"):
        return str(call.name), getattr(call, "arguments", None), getattr(call, "id", None)
    raise TypeError(f"cannot read a tool call from {type(call).__name__}")


class ToolRegistry:
    """Named tools, their schemas, a stable fingerprint, and safe dispatch.

    Thread-safe for concurrent add/remove/dispatch. Iteration order is
    registration order; the fingerprint does not depend on it.
    """

    def __init__(self, tools: Iterable[ToolLike] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._fingerprint: str | None = None  # cleared on add/remove
        self._lock = threading.RLock()
        for t in tools:
            self.add(t)

    # ------------------------------------------------------------------ membership

    def add(self, tool: ToolLike, *, replace: bool = False) -> Tool:
        """Register a Tool, a plain function (wrapped with ``@tool``) or an OpenAI/BFCL dict.

        A second tool with the same name raises ``ToolDefinitionError`` unless ``replace``.
        """
        if isinstance(tool, Tool):
            t = tool
        elif isinstance(tool, Mapping):
            t = Tool.from_schema(tool)
        elif callable(tool):
            t = Tool.from_function(tool)
        else:
            raise ToolDefinitionError(f"cannot register {type(tool).__name__} as a tool")
        with self._lock:
            if t.name in self._tools and not replace:
                raise ToolDefinitionError(f"a tool named {t.name!r} is already registered")
            self._tools[t.name] = t
            self._fingerprint = None
        return t

    def remove(self, name: str) -> Tool:
        """Unregister and return the tool; KeyError if unknown."""
        with self._lock:
            self._fingerprint = None
            return self._tools.pop(name)

    def get(self, name: str, default: Tool | None = None) -> Tool | None:
        return self._tools.get(name, default)

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        with self._lock:
            return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        """Tool names in registration order."""
        with self._lock:
            return list(self._tools)

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names()})"

    # ------------------------------------------------------------------ schemas

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI ``tools=[...]`` list (copies), in registration order."""
        return [t.openai_schema() for t in self]

    @property
    def fingerprint(self) -> str:
        """sha256 hex digest of the canonical JSON of the schemas, sorted by name.

        Same tools in any order -> same value; any change in a name, description or
        parameter schema -> a different value. Timeouts and functions do not count:
        they do not change what the model sees. Memoised until the next add/remove,
        because grammar-cache look-ups read it on every turn.
        """
        with self._lock:
            if self._fingerprint is None:
                schemas = sorted(self.schemas(), key=lambda s: s["function"]["name"])
                canonical = json.dumps(
                    schemas, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str
                )
                self._fingerprint = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
            return self._fingerprint

    def validate(self, name: str, arguments: Any) -> dict[str, Any]:
        """Validated arguments of a call (see ``Tool.validate``).

        Raises KeyError for an unknown tool, ToolArgumentError for bad arguments.
        """
        return self[name].validate(arguments)

    # ------------------------------------------------------------------ dispatch

    def dispatch(
        self,
        name: str,
        arguments: Any = None,
        *,
        timeout: float | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """Validate and run one call; every failure comes back as a ``ToolResult``.

        ``arguments``: dict, JSON string or None. They are checked with jsonschema
        (Draft 2020-12). The only coercions: a JSON string that decodes to an
        object/array for an object/array parameter, and an integral float
        (``3.0``) for an integer parameter; a bool is never an integer and a
        string never a number. Defaults are filled; values are converted to the
        pydantic models / Enums the signature wants.

        ``timeout`` (seconds) overrides the tool's own (default 10 s). A tool that
        does not finish in time yields ``error_type="timeout"``; its thread is
        abandoned (daemon) and async tools are cancelled.
        """
        return self.dispatch_many([(name, arguments, call_id)], timeout=timeout)[0]

    def dispatch_many(
        self,
        calls: Iterable[Any],
        *,
        timeout: float | None = None,
        stop: threading.Event | None = None,
    ) -> list[ToolResult]:
        """Run several calls concurrently; results come back in call order.

        Each call is a ToolCall-like object (``.name``, ``.arguments``, ``.id``), a
        dict (``{"name","arguments","id"}`` or OpenAI's ``{"id","function":{...}}``)
        or a tuple ``(name, arguments[, id])``. Each call has its own timeout,
        counted from its own start. When ``stop`` is set, the calls still running
        come back at once as ``error_type="cancelled"`` (their threads are abandoned,
        as on a timeout).
        """
        running = [self.start(call, timeout=timeout) for call in calls]
        return [r.wait(stop) for r in running]

    def start(self, call: Any, *, timeout: float | None = None) -> RunningCall:
        """Validate and start one call (any form ``dispatch_many`` takes); never raises.

        The agent starts each call the moment the model has finished writing it and
        collects the results later with ``RunningCall.wait(stop)``.
        """
        override = _check_timeout(timeout)
        name, arguments, call_id = _call_parts(call)
        t0 = time.perf_counter()
        early, running = self._begin(name, arguments, call_id, override, t0)
        return RunningCall(self, name, arguments, call_id, t0, early, running)

    def _begin(
        self, name: str, arguments: Any, call_id: str | None, override: float | None, t0: float
    ) -> tuple[ToolResult | None, tuple | None]:
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self.names()) or "(none)"
            return (
                ToolResult(
                    name=name,
                    arguments=arguments,
                    ok=False,
                    error=f"unknown tool {name!r}; known tools: {known}",
                    error_type="unknown_tool",
                    duration_s=time.perf_counter() - t0,
                    call_id=call_id,
                ),
                None,
            )
        try:
            filled, args, kwargs = tool.bind(arguments)
        except ToolArgumentError as e:
            return self._fail(
                tool.name, arguments, call_id, t0, "invalid_arguments", str(e), e
            ), None
        except Exception as e:  # a buggy validator/model must not end the turn either
            return self._fail(
                tool.name, arguments, call_id, t0, "invalid_arguments", _describe(e), e
            ), None
        if tool.fn is None:
            msg = f"tool {tool.name!r} has no implementation (schema-only)"
            return self._fail(tool.name, filled, call_id, t0, "exception", msg, None), None
        limit = override if override is not None else tool.timeout
        try:
            pending = _start(tool, args, kwargs, limit)
        except Exception as e:  # e.g. cannot start a new thread
            return self._fail(tool.name, filled, call_id, t0, "exception", _describe(e), e), None
        return None, (tool, filled, pending, limit, t0, call_id)

    def _finish(
        self,
        tool: Tool,
        filled: dict[str, Any],
        pending: _Pending,
        finished: bool,
        limit: float | None,
        t0: float,
        call_id: str | None,
    ) -> ToolResult:
        if not finished or isinstance(pending.exc, _ToolTimeout):
            msg = f"tool {tool.name!r} did not finish within {limit:g} s"
            return self._fail(tool.name, filled, call_id, t0, "timeout", msg, None)
        if pending.exc is not None:
            return self._fail(
                tool.name, filled, call_id, t0, "exception", _describe(pending.exc), pending.exc
            )
        return ToolResult(
            name=tool.name,
            arguments=filled,
            ok=True,
            value=pending.value,
            duration_s=time.perf_counter() - t0,
            call_id=call_id,
        )

    @staticmethod
    def _fail(
        name: str,
        arguments: Any,
        call_id: str | None,
        t0: float,
        error_type: Any,
        message: str,
        exc: BaseException | None,
    ) -> ToolResult:
        return ToolResult(
            name=name,
            arguments=arguments,
            ok=False,
            error=message,
            error_type=error_type,
            duration_s=time.perf_counter() - t0,
            call_id=call_id,
            exception=exc,
        )


class RunningCall:
    """A call started by ``ToolRegistry.start``: ``wait`` gives its ``ToolResult``."""

    POLL_S = 0.02  # how often a wait with a stop event looks at it

    def __init__(self, registry: ToolRegistry, name: str, arguments: Any, call_id: str | None,
                 t0: float, early: ToolResult | None, running: tuple | None):
        self._registry = registry
        self.name, self.arguments, self.call_id, self.t0 = name, arguments, call_id, t0
        self._early, self._running = early, running
        self._result: ToolResult | None = early

    def done(self) -> bool:
        return self._result is not None or (self._running is not None and self._running[2].done.is_set())

    def wait(self, stop: threading.Event | None = None) -> ToolResult:
        """The result: on completion, on the call's timeout, or (``error_type="cancelled"``)
        as soon as ``stop`` is set, whichever comes first."""
        if self._result is not None:
            return self._result
        assert self._running is not None
        tool, filled, pending, limit, t0, call_id = self._running
        deadline = None if limit is None else t0 + limit
        while True:
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            step = left if stop is None else (self.POLL_S if left is None else min(left, self.POLL_S))
            finished = pending.done.wait(step)
            if finished or (left is not None and left <= step):
                break
            if stop is not None and stop.is_set():
                return self._registry._fail(tool.name, filled, call_id, t0, "cancelled",
                                            "cancelled before the tool finished", None)
        self._result = self._registry._finish(tool, filled, pending, finished, limit, t0, call_id)
        return self._result


def _describe(exc: BaseException) -> str:
    """``Type: message`` for the model; never the traceback (it leaks paths and wastes context)."""
    try:
        text = str(exc)
    except Exception:
        text = ""
    if len(text) > 500:
        text = text[:497] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = ["ToolRegistry", "RunningCall", "DEFAULT_TIMEOUT"]
