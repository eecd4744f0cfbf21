"""Data types shared by the detectors, the chain and the streaming parser."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Texts longer than this are cut before parsing (a reply of a small model is a few KB;
#: anything bigger is runaway generation, and every detector is at most O(n) in it).
MAX_INPUT_CHARS = 64 * 1024
#: Deepest nesting of lists/objects accepted in arguments (guards recursion in decoders).
MAX_DEPTH = 32
#: Longest ``raw`` text kept in a RejectedCall (the agent quotes it back to the model).
MAX_RAW_CHARS = 2000


@dataclass(slots=True)
class ToolCall:
    """One call recovered from model text. ``id`` is the model's own id, verbatim, or None."""

    id: str | None
    name: str
    arguments: dict[str, Any]
    #: the model's margin when it chose this call (``edgevox.agents.confirm``); None: unknown
    confidence: float | None = field(default=None, compare=False)

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions shape (arguments as a JSON string)."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments, ensure_ascii=False)},
        }


@dataclass
class RejectedCall:
    """Something that looked like a call but cannot be dispatched, with the reason why."""

    name: str | None
    raw: str
    reason: str

    def __post_init__(self) -> None:
        if len(self.raw) > MAX_RAW_CHARS:
            self.raw = self.raw[:MAX_RAW_CHARS] + "…"


Item = ToolCall | RejectedCall


@dataclass
class Span:
    """A region ``text[start:end]`` that a detector claims as call markup.

    ``items`` are the calls (or rejections) found in it, in order. ``final`` is False while
    more text could still change the items (truncated JSON, an unclosed list): the
    streaming parser holds such regions back. ``pending_name`` is the name of a call whose
    arguments are still arriving, when the detector can already tell it. ``say`` is
    speakable text the markup carries (the envelope's ``{"answer": …}``, decoded): it
    becomes content where the span stands; while ``final`` is False it is the part decoded
    so far, always a prefix of the final text.
    """

    start: int
    end: int
    items: list[Item] = field(default_factory=list)
    final: bool = True
    pending_name: str | None = None
    say: str | None = None

    @property
    def calls(self) -> list[ToolCall]:
        return [i for i in self.items if isinstance(i, ToolCall)]

    @property
    def rejected(self) -> list[RejectedCall]:
        return [i for i in self.items if isinstance(i, RejectedCall)]


@dataclass(slots=True)
class ParseResult:
    """Outcome of parsing one model reply (see ``parse_tool_calls``)."""

    calls: list[ToolCall] = field(default_factory=list)
    content: str = ""
    reasoning: str | None = None
    fallback_mode: bool = False
    rejected: list[RejectedCall] = field(default_factory=list)


class ToolIndex:
    """The tools a reply may call: name -> JSON-schema ``parameters`` (or None).

    Accepts OpenAI tool dicts, bare function dicts, objects with a ``.name`` (and
    optionally ``.parameters`` / ``.schema``), or plain names.
    """

    def __init__(self, tools: Iterable[Any]):
        self.schemas: dict[str, dict[str, Any] | None] = {}
        if isinstance(tools, (str, Mapping)):
            tools = [tools]
        for tool in tools:
            name, params = _tool_entry(tool)
            if name:
                self.schemas[name] = params

    def __contains__(self, name: object) -> bool:
        return name in self.schemas

    def __len__(self) -> int:
        return len(self.schemas)

    def resolve(self, name: str) -> str | None:
        """The known tool ``name`` refers to, tolerating a ``functions.`` prefix."""
        if name in self.schemas:
            return name
        for prefix in ("functions.", "function.", "tools."):
            if name.startswith(prefix) and name[len(prefix):] in self.schemas:
                return name[len(prefix):]
        return None

    def known_list(self, limit: int = 30) -> str:
        names = sorted(self.schemas)
        more = f", … ({len(names) - limit} more)" if len(names) > limit else ""
        return ", ".join(names[:limit]) + more

    def param_types(self, name: str) -> dict[str, Any]:
        """``properties`` of the tool's schema ({} when unknown)."""
        schema = self.schemas.get(name)
        if not schema:  # a tool known by name only (the usual case is a quick one)
            return {}
        props = schema.get("properties") if type(schema) is dict or isinstance(schema, Mapping) else None
        return props if type(props) is dict or isinstance(props, Mapping) else {}


def _tool_entry(tool: Any) -> tuple[str | None, dict[str, Any] | None]:
    """(name, parameters) through the one normaliser; what is not a tool is skipped (None)."""
    from edgevox.tools.spec import NotATool, tool_spec  # lazy: only when tools are given

    try:
        spec = tool_spec(tool)
    except NotATool:
        return None, None
    return spec.name, spec.parameters  # type: ignore[return-value]


def as_tool_index(tools: Any) -> ToolIndex | None:
    if tools is None or isinstance(tools, ToolIndex):
        return tools
    return ToolIndex(tools)
