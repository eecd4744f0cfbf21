"""One normaliser for "anything tool-like": every layer that is handed tools reads them here.

Accepted: an OpenAI tool dict (``{"type": "function", "function": {...}}``), a bare function
dict (``{"name", "description", "parameters"}``), a ``@tool`` function or any object with
``openai_schema()``, any object with ``.name`` (and ``.parameters`` or ``.schema``), or a
plain name. What is none of these is a ``NotATool`` (a TypeError) naming what it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["NotATool", "ToolSpec", "as_openai_tool", "tool_spec"]


class NotATool(TypeError):
    """Something given as a tool is not one; the message says what it was."""


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: its name, its JSON-schema parameters (None: not known,
    e.g. a tool given by name only) and its description."""

    name: str
    parameters: Mapping[str, Any] | None = None
    description: str = ""


def tool_spec(tool: Any) -> ToolSpec:
    """The ``ToolSpec`` of one tool-like thing (see the module docstring)."""
    if isinstance(tool, str):
        if not tool:
            raise NotATool("a tool name must not be empty")
        return ToolSpec(tool)
    if isinstance(tool, Mapping):
        fn = tool.get("function") if isinstance(tool.get("function"), Mapping) else tool
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise NotATool(f"tool dict has no function name: {str(tool)[:80]}")
        params = fn.get("parameters")
        desc = fn.get("description")
        return ToolSpec(name, params if isinstance(params, Mapping) else None, desc if isinstance(desc, str) else "")
    name = getattr(tool, "name", None)
    if isinstance(name, str) and name:
        params = getattr(tool, "parameters", None)
        if params is None:
            params = getattr(tool, "schema", None)
        desc = getattr(tool, "description", "")
        return ToolSpec(name, params if isinstance(params, Mapping) else None, desc if isinstance(desc, str) else "")
    schema = getattr(tool, "openai_schema", None)
    if callable(schema):
        return tool_spec(schema())
    raise NotATool(f"not a tool: {type(tool).__name__} (want an OpenAI tool dict, a @tool function or a name)")


def as_openai_tool(tool: Any) -> dict:
    """The OpenAI ``{"type": "function", "function": {...}}`` dict of a tool dict (kept as
    given), a bare function dict (wrapped) or an object with ``openai_schema()``."""
    if isinstance(tool, Mapping):
        if isinstance(tool.get("function"), Mapping):
            return dict(tool)
        tool_spec(tool)  # a bare function dict must at least name its function
        return {"type": "function", "function": dict(tool)}
    schema = getattr(tool, "openai_schema", None)
    if callable(schema):
        return schema()
    raise NotATool(f"not a tool (want an OpenAI tool dict or a @tool function): {tool!r}"[:200])
