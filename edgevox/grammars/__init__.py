"""Grammars that make small models write well-formed tool calls and structured output.

Builders produce GBNF (llama.cpp's grammar syntax) in each preset's own wire format,
validated by our own parser before anything reaches llama.cpp (an invalid grammar kills
the process there). Nothing here imports llama_cpp until ``Grammar.compiled()``.
"""

from .builders import (
    VALIDATION_LEVELS,
    Grammar,
    answer_grammar,
    check_validation,
    gbnf_grammar,
    json_schema_grammar,
    normalize_tools,
    regex_grammar,
    reply_or_tool_grammar,
    single_tool_grammar,
    static_dir,
    tool_call_grammar,
    tools_key,
)
from .cache import GrammarCache
from .choice import (
    POLICIES,
    TOOL_CHOICES,
    default_validation,
    grammar_for_strategy,
    tool_choice_strategy,
)
from .gbnf import GrammarError, ParsedGrammar, parse_gbnf, validate_gbnf
from .matcher import GbnfMatcher
from .structured import StructuredOutputInvalid, complete_structured, supports_grammar
from .wire import WIRE_FORMATS, WireFormat, render_answer, render_tool_calls

__all__ = [
    "Grammar", "GrammarError", "GrammarCache", "ParsedGrammar", "GbnfMatcher", "WireFormat",
    "WIRE_FORMATS", "POLICIES", "TOOL_CHOICES",
    "tool_call_grammar", "single_tool_grammar", "reply_or_tool_grammar", "json_schema_grammar",
    "regex_grammar", "gbnf_grammar", "validate_gbnf", "parse_gbnf", "render_tool_calls",
    "tool_choice_strategy", "grammar_for_strategy", "static_dir", "normalize_tools", "tools_key",
    "StructuredOutputInvalid", "complete_structured", "supports_grammar", "answer_grammar", "render_answer",
    "VALIDATION_LEVELS", "default_validation", "check_validation",
]
