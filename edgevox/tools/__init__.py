"""Tools: ``@tool`` functions, their JSON schemas, and safe dispatch.

Example::

    from edgevox.tools import tool, ToolRegistry

    @tool
    def get_weather(city: str, days: int = 1) -> dict:
        # docstring: summary line + Google "Args:" entries describe the tool
        ...

    reg = ToolRegistry([get_weather])
    reg.schemas()                                   # OpenAI tools=[...]
    reg.fingerprint                                 # sha256 hex, order-independent
    reg.dispatch("get_weather", {"city": "Paris"})  # -> ToolResult, never raises
"""

from .docstrings import ParsedDocstring, parse_docstring
from .errors import ToolArgumentError, ToolDefinitionError
from .registry import ToolRegistry
from .result import DEFAULT_MAX_CHARS, ErrorType, ToolResult, to_jsonable
from .schema import clean_schema, inline_refs
from .tool import DEFAULT_TIMEOUT, Tool, tool

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_TIMEOUT",
    "ErrorType",
    "ParsedDocstring",
    "Tool",
    "ToolArgumentError",
    "ToolDefinitionError",
    "ToolRegistry",
    "ToolResult",
    "clean_schema",
    "inline_refs",
    "parse_docstring",
    "to_jsonable",
    "tool",
]
