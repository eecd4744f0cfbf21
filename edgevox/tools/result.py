"""The outcome of one tool call, as the agent and the model see it."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from typing import Any, Literal

#: "withdrawn": a hook took the call back before it ran, and the hop goes on without it (its
#: arguments were another part of the request's: ``agents.slm.grounding``)
ErrorType = Literal["unknown_tool", "invalid_arguments", "exception", "timeout", "cancelled", "withdrawn"]

DEFAULT_MAX_CHARS = 2000
"""Bound for ``to_model_text``: a 0.5 B model with a 4 k context cannot read a page of JSON."""


def to_jsonable(value: Any, _depth: int = 0) -> Any:
    """Best-effort conversion to JSON types; anything unknown becomes ``str(value)``."""
    if _depth > 50:
        return str(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value, _depth + 1)
    if isinstance(value, dict):
        return {
            str(k) if not isinstance(k, str) else k: to_jsonable(v, _depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v, _depth + 1) for v in value]
    dump = getattr(value, "model_dump", None)  # pydantic models
    if callable(dump):
        try:
            return to_jsonable(dump(mode="json"), _depth + 1)
        except Exception:
            return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_jsonable(dataclasses.asdict(value), _depth + 1)
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", "replace")
    try:
        return str(value)
    except Exception:
        return f"<{type(value).__name__}>"


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@dataclasses.dataclass
class ToolResult:
    """One dispatched call. Failures are data here, never exceptions.

    ``arguments`` are the validated arguments with defaults filled when validation
    passed, otherwise what the model sent. ``value`` is the tool's return value as
    returned (``to_model_text``/``to_dict`` make it JSON). ``exception`` keeps the
    original exception for the developer's logs; it never reaches the model.
    """

    name: str
    arguments: Any
    ok: bool
    value: Any = None
    error: str | None = None
    error_type: ErrorType | None = None
    duration_s: float = 0.0
    call_id: str | None = None
    exception: BaseException | None = dataclasses.field(default=None, repr=False, compare=False)

    def to_model_text(self, max_chars: int = DEFAULT_MAX_CHARS) -> str:
        """Compact JSON for the tool message.

        Success: the JSON of ``value``. Failure:
        ``{"error":"...","error_type":"..."}``. Longer than ``max_chars`` ->
        ``{"truncated":"<prefix>","note":"result truncated: N of M chars shown"}``
        (still valid JSON).
        """
        if self.ok:
            text = _dumps(to_jsonable(self.value))
        else:
            text = _dumps({"error": self.error or "", "error_type": self.error_type})
        if len(text) <= max_chars:
            return text
        return _truncate(text, max_chars)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able view of the whole result (logs, ``--json`` output)."""
        return {
            "name": self.name,
            "arguments": to_jsonable(self.arguments),
            "ok": self.ok,
            "value": to_jsonable(self.value),
            "error": self.error,
            "error_type": self.error_type,
            "duration_s": self.duration_s,
            "call_id": self.call_id,
        }


def _truncate(text: str, max_chars: int) -> str:
    keep = max(0, max_chars - 80)
    while True:
        out = _dumps(
            {
                "truncated": text[:keep],
                "note": f"result truncated: {keep} of {len(text)} chars shown",
            }
        )
        if len(out) <= max_chars or keep == 0:
            return out
        keep = max(0, keep - max(len(out) - max_chars, 16))
