"""Tool-call parser chain: model text in, calls + speakable content + reasoning out.

    from edgevox.parsing import parse_tool_calls
    r = parse_tool_calls(text, parsers=("qwen25", "hermes"), tools=tools)
    r.calls, r.content, r.reasoning, r.fallback_mode, r.rejected

Nothing in model text is ever executed: JSON goes through ``json``, Python-style calls and
literals through ``ast`` parsing plus a literal-only walker. See ``chain.py`` for the rules.
"""

from .base import DETECTORS, Detector, MultiDetector, register_detector
from .chain import DEFAULT_PARSERS, DEFAULT_THINK_TAGS, parse_tool_calls
from .detectors import BUILTIN
from .streaming import (
    CallComplete,
    CallRejected,
    CallStarted,
    Event,
    ReasoningDelta,
    StreamingParser,
    TextDelta,
)
from .types import MAX_DEPTH, MAX_INPUT_CHARS, ParseResult, RejectedCall, Span, ToolCall, ToolIndex

__all__ = [
    "BUILTIN",
    "DEFAULT_PARSERS",
    "DEFAULT_THINK_TAGS",
    "DETECTORS",
    "MAX_DEPTH",
    "MAX_INPUT_CHARS",
    "CallComplete",
    "CallRejected",
    "CallStarted",
    "Detector",
    "Event",
    "MultiDetector",
    "ParseResult",
    "ReasoningDelta",
    "RejectedCall",
    "Span",
    "StreamingParser",
    "TextDelta",
    "ToolCall",
    "ToolIndex",
    "parse_tool_calls",
    "register_detector",
]
