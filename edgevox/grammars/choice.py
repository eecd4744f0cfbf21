"""tool_choice: from the OpenAI value and the agent's policy to a decoding strategy.

Strategies: ``"none"`` (no tools offered), ``"free"`` (tools offered, no grammar; the
parser chain reads whatever comes), ``"reply_or_tool"`` (grammar: a reply or
well-formed calls), ``"required"`` (grammar: calls only), ``("single", name)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .builders import (
    Grammar,
    answer_grammar,
    check_validation,
    reply_or_tool_grammar,
    single_tool_grammar,
    tool_call_grammar,
)

__all__ = ["tool_choice_strategy", "grammar_for_strategy", "default_validation", "TOOL_CHOICES", "POLICIES"]

TOOL_CHOICES = ("none", "auto", "required", '{"type": "function", "function": {"name": ...}}')
POLICIES = ("auto", "required_first_hop", "required_always")
Strategy = Any  # str | tuple[str, str]


def _named(choice: Mapping[str, Any]) -> str | None:
    if choice.get("type") != "function":
        return None
    fn = choice.get("function")
    name = fn.get("name") if isinstance(fn, Mapping) else choice.get("name")
    return name if isinstance(name, str) and name else None


def tool_choice_strategy(tool_choice: Any = None, policy: str = "auto", hop: int = 0, *,
                         constrain_auto: bool = False,
                         tool_names: Iterable[str] | None = None) -> Strategy:
    """Map an OpenAI ``tool_choice`` and the agent policy at ``hop`` to a strategy.

    An explicit ``tool_choice`` wins over the policy (at every hop; the agent decides
    when to drop it). ``None`` means "not given": the policy decides --
    ``"auto"``: unconstrained; ``"required_first_hop"``: hop 0 must call under grammar,
    later hops are free so the answer can land; ``"required_always"``: every hop calls.
    ``constrain_auto``: "auto" means ``"reply_or_tool"`` (grammar) instead of ``"free"``.
    ``tool_names``: if given, a named tool_choice must be one of them.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown tool_choice_policy {policy!r}; allowed: {', '.join(POLICIES)}")
    if isinstance(hop, bool) or not isinstance(hop, int) or hop < 0:
        raise ValueError(f"hop must be an int >= 0, got {hop!r}")
    auto = "reply_or_tool" if constrain_auto else "free"
    if tool_choice is not None:
        if tool_choice == "none":
            return "none"
        if tool_choice == "auto":
            return auto
        if tool_choice == "required":
            return "required"
        if isinstance(tool_choice, Mapping):
            name = _named(tool_choice)
            if name is not None:
                if tool_names is not None and name not in set(tool_names):
                    raise ValueError(f"tool_choice names {name!r}, which is not among the tools")
                return ("single", name)
        raise ValueError(f"bad tool_choice {tool_choice!r}; allowed: {', '.join(TOOL_CHOICES)} or None")
    if policy == "required_always" or (policy == "required_first_hop" and hop == 0):
        return "required"
    return auto


def default_validation(strategy: Strategy, tools: Any = None, think: Any = None) -> str:
    """The validation level when none is given: ``structural`` where tools or thinking are
    present and the strategy asks for no schema grammar ("free"), ``schema_aware`` where it
    does, ``none`` otherwise."""
    if strategy == "free" and (tools or think):
        return "structural"
    if strategy in ("none", "free"):
        return "none"
    return "schema_aware"


def grammar_for_strategy(strategy: Strategy, tools: Any, wire_format: str = "hermes", *,
                         cache: Any = None, think: Any = None, parallel_tool_calls: bool = True,
                         validation: str | None = "schema_aware") -> Grammar | None:
    """The Grammar for a strategy, or None when decoding is unconstrained ("none"/"free").
    With ``cache`` (a GrammarCache) the grammar is built once per tool set.

    The envelope format is the exception: there "none" is its answer branch alone
    (``{"answer": "..."}``), so a reply keeps the one shape the parser reads.

    ``validation``: "schema_aware" (the default), "structural" (markup and syntax only; a
    "free" strategy becomes "reply or structurally well-formed calls"), "none" (no grammar),
    or None for :func:`default_validation`.
    """
    level = default_validation(strategy, tools, think) if validation is None else check_validation(validation)
    if strategy == "none" and wire_format == "envelope" and validation != "none":
        if cache is not None:
            return cache.get("answer", None, wire_format, think=think)
        return answer_grammar(wire_format, think=think)
    if level == "none":
        return None
    if strategy == "free" and level == "structural" and tools:
        strategy = "reply_or_tool"
    if strategy in ("none", "free"):
        return None
    if cache is not None:
        opts: dict[str, Any] = {"think": think}
        if level != "schema_aware":
            opts["validation"] = level
        if strategy != "single" and not (isinstance(strategy, tuple)):
            opts["parallel_tool_calls"] = parallel_tool_calls
        return cache.get(strategy, tools, wire_format, **opts)
    if strategy == "required":
        return tool_call_grammar(tools, wire_format, think=think, parallel_tool_calls=parallel_tool_calls,
                                 validation=level)
    if strategy == "reply_or_tool":
        return reply_or_tool_grammar(tools, wire_format, think=think, parallel_tool_calls=parallel_tool_calls,
                                     validation=level)
    if isinstance(strategy, tuple) and len(strategy) == 2 and strategy[0] == "single":
        from .cache import _tool_list, _tool_name

        picked = [t for t in _tool_list(tools) if _tool_name(t) == strategy[1]]
        if not picked:
            from .gbnf import GrammarError

            raise GrammarError(f"tool_choice names {strategy[1]!r}, which is not among the tools")
        return single_tool_grammar(picked[0], wire_format, think=think, validation=level)
    raise ValueError(f"unknown strategy {strategy!r}")
