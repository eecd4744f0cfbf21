"""A conversation: OpenAI-style messages, saved as JSON, trimmed to fit the context.

The system message is not part of the trimmed history: it is the agent's instructions
(or ``Session.system`` when a session brings its own) and is always kept. Trimming drops
the oldest whole exchanges — a user message and everything up to the next user message —
so an assistant ``tool_calls`` message is never separated from its tool results.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

FORMAT = "edgevox.session"
VERSION = 1
_ROLES = ("user", "assistant", "tool")


class SessionError(ValueError):
    """A session file or message list is malformed; the message says where."""


class Session:
    """Conversation state of one user with one (or several) agents. Thread-safe."""

    def __init__(self, messages: Sequence[dict[str, Any]] = (), system: str | None = None,
                 meta: dict[str, Any] | None = None):
        msgs = [dict(m) for m in messages]
        if msgs and msgs[0].get("role") == "system":
            system = system if system is not None else str(msgs[0].get("content") or "")
            msgs = msgs[1:]
        for i, m in enumerate(msgs):
            _check_message(m, f"message {i}")
        self.messages: list[dict[str, Any]] = msgs
        self.system = system
        self.meta: dict[str, Any] = dict(meta or {})
        self.dropped = 0  # messages trimmed away so far
        self.lock = threading.RLock()

    # -- state --------------------------------------------------------------------

    def reset(self) -> None:
        """Forget the conversation (the system message and meta stay)."""
        with self.lock:
            self.messages.clear()
            self.dropped = 0

    def append(self, message: dict[str, Any]) -> None:
        _check_message(message, "new message")
        with self.lock:
            self.messages.append(dict(message))

    def extend(self, messages: Sequence[dict[str, Any]]) -> None:
        for m in messages:
            _check_message(m, "new message")
        with self.lock:
            self.messages.extend(dict(m) for m in messages)

    def truncate(self, length: int) -> None:
        """Roll back to the first ``length`` messages (undo a partial turn)."""
        with self.lock:
            del self.messages[length:]

    def __len__(self) -> int:
        return len(self.messages)

    def with_system(self, system: str | None) -> list[dict[str, Any]]:
        """The full message list to render: system first (if any), then the history."""
        sys_text = self.system if self.system is not None else system
        head = [{"role": "system", "content": sys_text}] if sys_text else []
        with self.lock:
            return head + [dict(m) for m in self.messages]

    # -- trimming -------------------------------------------------------------------

    def exchanges(self) -> list[tuple[int, int]]:
        """(start, end) index ranges of whole exchanges, oldest first.

        An exchange starts at a user message; messages before the first user message
        (a loaded transcript may begin with an assistant greeting) form their own group.
        """
        with self.lock:
            starts = [i for i, m in enumerate(self.messages) if m.get("role") == "user"]
            n = len(self.messages)
        if not n:
            return []
        if not starts or starts[0] != 0:
            starts = [0, *starts]
        return [(s, e) for s, e in zip(starts, [*starts[1:], n], strict=True)]

    def trim_to_fit(self, count_tokens: Any, budget: int, keep_from: int | None = None) -> int:
        """Drop the oldest exchanges until ``count_tokens(messages) <= budget``.

        ``count_tokens`` takes this session's message list (without system) and returns a
        token count of the whole rendered prompt. Messages at or after ``keep_from`` (the
        running turn) are never dropped. Returns how many messages were dropped; the caller
        decides what to do if it still does not fit.
        """
        dropped = 0
        with self.lock:
            while count_tokens(self.messages) > budget:
                groups = self.exchanges()
                limit = len(self.messages) if keep_from is None else keep_from
                if len(groups) < 2 or groups[0][1] > limit:
                    break
                n = groups[0][1]
                del self.messages[:n]
                if keep_from is not None:
                    keep_from -= n
                dropped += n
            self.dropped += dropped
        return dropped

    # -- persistence ----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        with self.lock:
            return {"format": FORMAT, "version": VERSION, "saved_at": time.time(),
                    "system": self.system, "meta": self.meta, "messages": [dict(m) for m in self.messages]}

    def save(self, path: str | Path) -> Path:
        """Write the session as JSON, atomically (a crash never leaves half a file)."""
        p = Path(path)
        data = json.dumps(self.to_dict(), ensure_ascii=False, indent=1, default=_jsonable)
        fd, tmp = tempfile.mkstemp(dir=p.parent if str(p.parent) else ".", prefix=f".{p.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(data)
            os.replace(tmp, p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return p

    @classmethod
    def from_dict(cls, data: Any, where: str = "session") -> Session:
        if isinstance(data, list):  # a bare OpenAI message list
            return cls(data)
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            raise SessionError(f"{where}: expected an object with a 'messages' list")
        if data.get("format", FORMAT) != FORMAT or int(data.get("version", VERSION)) > VERSION:
            raise SessionError(f"{where}: format {data.get('format')!r} version {data.get('version')!r} "
                               f"is not a session this EdgeVox can read")
        system = data.get("system")
        if system is not None and not isinstance(system, str):
            raise SessionError(f"{where}: 'system' must be a string or null")
        try:
            return cls(data["messages"], system=system, meta=data.get("meta") or {})
        except SessionError as exc:
            raise SessionError(f"{where}: {exc}") from None

    @classmethod
    def load(cls, path: str | Path) -> Session:
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SessionError(f"cannot read session file {p}: {exc.strerror}") from None
        except ValueError as exc:
            raise SessionError(f"session file {p} is not valid JSON: {exc}") from None
        return cls.from_dict(data, where=f"session file {p}")

    def __repr__(self) -> str:
        return f"Session({len(self.messages)} messages, dropped={self.dropped})"


def _jsonable(value: Any) -> Any:
    from edgevox.tools import to_jsonable

    return to_jsonable(value)


def _check_message(m: Any, where: str) -> None:
    if not isinstance(m, dict):
        raise SessionError(f"{where} is not an object")
    role = m.get("role")
    if role not in _ROLES:
        raise SessionError(f"{where} has role {role!r}; expected one of {', '.join(_ROLES)} "
                           f"(a system message may only come first)")
    content = m.get("content")
    if content is not None and not isinstance(content, str):
        raise SessionError(f"{where}: content must be a string")
    calls = m.get("tool_calls")
    if calls is not None:
        if role != "assistant" or not isinstance(calls, list):
            raise SessionError(f"{where}: tool_calls must be a list on an assistant message")
        for c in calls:
            fn = c.get("function") if isinstance(c, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                raise SessionError(f"{where}: each tool call needs function.name")
    if role == "tool" and not isinstance(m.get("tool_call_id", ""), str):
        raise SessionError(f"{where}: tool_call_id must be a string")
