"""Which grammar a backend request runs under: the caller's, or the preset's tool grammar
at a validation level. Shared by the embedded and the remote backend (grammars are built
lazily here: :mod:`edgevox.grammars` is imported only when one is needed)."""

from __future__ import annotations

import json
from typing import Any

from edgevox.llm.presets import Preset

__all__ = ["tool_grammar_for", "structural_twin", "response_format_grammar"]


def response_format_grammar(response_format: Any, grammar: Any = None) -> Any:
    """The grammar of an OpenAI-style ``response_format``: ``{"type": "structural_tag",
    "format": {...}}`` compiled to GBNF (a malformed one raises GrammarError naming the
    field), ``{"type": "text"}`` none. Structured JSON goes through ``response_schema``."""
    if response_format is None:
        return grammar
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if grammar is not None and kind != "text":
        raise ValueError("give either grammar or response_format, not both")
    if kind == "text":
        return grammar
    if kind == "structural_tag":
        from edgevox.grammars.structural_tag import structural_tag_grammar

        return structural_tag_grammar(response_format)
    if kind in ("json_schema", "json_object"):
        raise ValueError(f"response_format type {kind!r}: pass the schema as response_schema= instead")
    raise ValueError(f"unknown response_format {response_format!r}; "
                     "supported: {'type': 'structural_tag', 'format': {...}} and {'type': 'text'}")


def tool_grammar_for(preset: Preset, grammar: Any, tools: Any, tool_choice: Any,
                     validation: str | None) -> Any:
    """The grammar a request asked for: ``grammar`` as given (GBNF text wrapped for a think
    block when the preset thinks), else with ``validation`` and tools the preset's tool
    grammar for ``tool_choice`` at that level. Shared by the embedded and remote backends."""
    if grammar is not None:
        if isinstance(grammar, str) and preset.think and validation != "none":
            from edgevox.grammars import gbnf_grammar

            return gbnf_grammar(grammar, think=preset.think)
        return grammar
    if validation is None or validation == "none" or not tools:
        if validation is not None:
            from edgevox.grammars import check_validation

            check_validation(validation)
        return None
    from edgevox.grammars import grammar_for_strategy, tool_choice_strategy

    strategy = tool_choice_strategy(tool_choice)
    if strategy == "free":
        strategy = "reply_or_tool"
    return grammar_for_strategy(strategy, tools, preset.wire_format, think=preset.think,
                                validation=validation)


def structural_twin(grammar: Any, tools: Any) -> Any:
    """The structural grammar for the same strategy, format, think tags and tools as a
    schema-aware tool ``grammar`` (None when there is none): what to send a server whose
    grammar engine refuses the schema grammar."""
    if getattr(grammar, "validation", None) != "schema_aware" or not tools:
        return None
    if getattr(grammar, "strategy", None) not in ("required", "reply_or_tool", "single"):
        return None
    from edgevox.grammars import grammar_for_strategy

    opts = json.loads(grammar.key[3]) if len(grammar.key) > 3 and grammar.key[3] else {}
    strategy = ("single", opts.get("name")) if grammar.strategy == "single" else grammar.strategy
    return grammar_for_strategy(strategy, tools, grammar.wire_format, think=opts.get("think"),
                                parallel_tool_calls=bool(opts.get("parallel", True)),
                                validation="structural")
