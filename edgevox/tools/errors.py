"""Exception types of the tools package.

Both are raised to the *developer* (bad tool definitions, or an explicit
``validate`` call). ``ToolRegistry.dispatch`` never raises them: it turns them
into a ``ToolResult`` the model can read.
"""

from __future__ import annotations


class ToolDefinitionError(TypeError):
    """A function or schema cannot be turned into a tool (unsupported type, bad schema, bad name)."""


class ToolArgumentError(ValueError):
    """Arguments do not satisfy a tool's parameter schema.

    ``pointer`` is the JSON pointer (RFC 6901) of the failing value inside the
    arguments object: ``""`` for the object itself, ``"/days"``, ``"/items/0/qty"``.
    """

    def __init__(self, tool: str, message: str, pointer: str = "") -> None:
        self.tool = tool
        self.message = message
        self.pointer = pointer
        where = pointer or "(root)"
        super().__init__(f"invalid arguments for {tool!r} at {where}: {message}")


def json_pointer(path: object) -> str:
    """JSON pointer for a sequence of keys/indexes (``~`` and ``/`` escaped per RFC 6901)."""
    parts = []
    for p in path:  # type: ignore[attr-defined]
        parts.append(str(p).replace("~", "~0").replace("/", "~1"))
    return "".join("/" + p for p in parts)
