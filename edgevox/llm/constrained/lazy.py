"""Triggered ("lazy") tool grammars: free prose until a call marker, then the call grammar.

Described as data, in the spirit of structural tags: *triggers* (strings that open a
call), *tags* (begin marker, content grammar, end marker) or a ready-made grammar for the
whole call block, and whether a trigger only counts at the start of the reply. A new
wire format is a preset entry (``[trigger]`` in ``presets/*.toml``), not code.

The language: prose that contains no trigger; or such prose, then a trigger, then the
rest of a call block that begins with that trigger (the call grammar's derivative by the
trigger, :func:`~.gbnf_ops.derive_gbnf`); with ``at_start``, a trigger counts only after
leading blanks. Each engine gets it in the form it runs fast:

* llama.cpp (GBNF): ``root ::= prose ("<tool_call>" rest)?`` with ``prose`` a
  right-linear automaton over the triggers (a flat parse stack however long the prose);
* llguidance (Lark): prose is one regex lexeme (``.*`` minus "contains a trigger") and
  the trigger a *lazy* lexeme that ends at the first trigger -- a char-level automaton
  would swamp its Earley parser.

Both forms are checked to give the same masks token by token. With rejection-first
sampling a prose token costs one single-token check, so prose runs at free-decoding
speed; and unlike llama.cpp's built-in lazy grammars, a token that straddles the trigger
(``"[{"`` when the trigger is ``"["``) is simply part of the grammar -- there it makes
llama.cpp throw through the C API and kill the process.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from edgevox.grammars.automaton import avoid_automaton

from .engine import grammar_source
from .gbnf_ops import (
    derive_gbnf,
    gbnf_literal,
    gbnf_to_llg,
    regex_escape,
    rename_lark,
    rename_rules,
)

__all__ = ["StructuralTag", "TriggeredGrammar", "lazy_tool_grammar"]

_WS = " \t\n"


@dataclass(frozen=True)
class StructuralTag:
    """One way of writing a call: ``begin`` + content (GBNF, or an object with ``.gbnf``) + ``end``."""

    begin: str
    content: Any
    end: str = ""


@dataclass(frozen=True)
class TriggeredGrammar:
    """Prose until one of ``triggers`` appears, then calls; see the module docstring.

    Give either ``tags`` (each call is ``begin content end``; several calls are joined by
    ``separator`` when ``parallel``) or ``calls`` (a grammar for the whole call block whose
    strings begin with a trigger). ``triggers`` defaults to the tags' begin markers.
    """

    triggers: tuple[str, ...] = ()
    tags: tuple[StructuralTag, ...] = ()
    calls: Any = None
    at_start: bool = False
    parallel: bool = True
    separator: str = "\n"
    root: str = field(default="root", init=False)

    def __post_init__(self) -> None:
        if (self.calls is None) == (not self.tags):
            raise ValueError("give exactly one of tags or calls")
        triggers = tuple(self.triggers) or tuple(dict.fromkeys(t.begin for t in self.tags))
        if not triggers:
            raise ValueError("triggers are required with a calls grammar")
        for t in triggers:
            if not t:
                raise ValueError("empty trigger")
            if self.at_start and t[0] in _WS:
                raise ValueError(f"an at_start trigger may not begin with whitespace: {t!r}")
        object.__setattr__(self, "triggers", triggers)
        object.__setattr__(self, "tags", tuple(self.tags))

    @property
    def gbnf(self) -> str:
        """The GBNF form (llama.cpp's grammar sampler; also what gets validated)."""
        return _gbnf(self)

    def lark(self) -> str:
        """The llguidance form (Lark with a lazy trigger lexeme); same language."""
        return _lark(self)


# -- compiling -------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _calls_gbnf(g: TriggeredGrammar) -> str:
    if g.calls is not None:
        text, root = grammar_source(g.calls)
        return text if root == "root" else f"root ::= {root}\n{text}"
    out, alts = [], []
    for i, tag in enumerate(g.tags):
        text, root = grammar_source(tag.content)
        prefix = f"tag{i}-"
        out.append(rename_rules(text, prefix))
        parts = [p for p in (gbnf_literal(tag.begin) if tag.begin else "", prefix + root,
                             gbnf_literal(tag.end) if tag.end else "") if p]
        out.append(f"tag{i} ::= {' '.join(parts)}\n")
        alts.append(f"tag{i}")
    one = alts[0] if len(alts) == 1 else "(" + " | ".join(alts) + ")"
    more = f" ({gbnf_literal(g.separator)} {one})*" if g.parallel and g.separator else (
        f" ({one})*" if g.parallel else "")
    return f"root ::= {one}{more}\n" + "".join(out)


@functools.lru_cache(maxsize=64)
def _rests(g: TriggeredGrammar) -> tuple[tuple[int, str, str], ...]:
    """(index, trigger, GBNF of what follows it) for every trigger that can open a call."""
    calls = _calls_gbnf(g)
    out = []
    for i, trig in enumerate(g.triggers):
        try:
            out.append((i, trig, derive_gbnf(calls, trig)))
        except ValueError:  # GrammarError: no call begins with this trigger
            continue
    if not out:
        raise ValueError(f"no call of the call grammar begins with any trigger {g.triggers}")
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _gbnf(g: TriggeredGrammar) -> str:
    rests = _rests(g)
    body = " | ".join(f"{gbnf_literal(t)} rest{i}-root" for i, t, _ in rests)
    rules = "".join(rename_rules(rest, f"rest{i}-") for i, _, rest in rests)
    if g.at_start:
        head = f"root ::= [ \\t\\n]* ({body}) | lz-start\n"
        return head + _start_automaton(g.triggers) + rules
    return f"root ::= lz-p0 ({body})?\n" + _avoid_automaton(g.triggers) + rules


@functools.lru_cache(maxsize=64)
def _lark(g: TriggeredGrammar) -> str:
    rests = _rests(g)
    any_trig = "(?:" + "|".join(regex_escape(t) for t in g.triggers) + ")"
    lines = ['%llguidance {"no_forcing": true}']
    if g.at_start:
        lines.append(f"LZ_TEXT: /(?s:.*)/ & ~/[ \\t\\n]*{any_trig}(?s:.*)/")
        lead = "/[ \\t\\n]*/"
    else:
        lines.append(f"LZ_TEXT: /(?s:.*)/ & ~/(?s:.*){any_trig}(?s:.*)/")
        lead = "LZ_TEXT"
    alts = ["LZ_TEXT"]
    for i, trig, _ in rests:
        lines.append(f"lz_t{i}[lazy]: {lead} {json.dumps(trig)}")
        alts.append(f"lz_t{i} r{i}_start")
    lines.insert(1, "start: " + " | ".join(alts))
    for i, _, rest in rests:
        lines.append(rename_lark(gbnf_to_llg(rest), f"r{i}_"))
    return "\n".join(lines) + "\n"


# -- the prose automata (GBNF) -------------------------------------------------------------------


def _avoid_automaton(triggers: Sequence[str]) -> str:
    """Rules ``lz-p<i>``: any text in which no trigger occurs (Aho-Corasick states)."""
    prefixes, index, alphabet, step = avoid_automaton(triggers)  # step None: a trigger occurs, not prose any more
    lines = []
    for p in prefixes:
        by_target: dict[int, list[str]] = {}
        elsewhere = []  # characters that do not lead back to state 0
        for c in alphabet:
            nxt = step(p, c)
            if nxt is None or index[nxt] != 0:
                elsewhere.append(c)
            if nxt is not None and index[nxt] != 0:
                by_target.setdefault(index[nxt], []).append(c)
        alts = [f"{_class(elsewhere, negated=True)} lz-p0"]
        alts += [f"{_class(cs)} lz-p{j}" for j, cs in sorted(by_target.items())]
        alts.append('""')
        lines.append(f"lz-p{index[p]} ::= {' | '.join(alts)}\n")
    return "".join(lines)


def _start_automaton(triggers: Sequence[str]) -> str:
    """Rules ``lz-start``: any text that does not begin with blanks then a trigger."""
    prefixes = sorted({t[:k] for t in triggers for k in range(1, len(t))}, key=lambda s: (len(s), s))
    index = {p: i for i, p in enumerate(prefixes)}
    lines = ["lz-free ::= [^\\x00]*\n"]

    def node(p: str) -> str:
        return "lz-start" if p == "" else f"lz-s{index[p]}"

    for p in ["", *prefixes]:
        nexts = sorted({t[len(p)] for t in triggers if t.startswith(p) and len(t) > len(p)})
        stop = set(nexts)
        alts = []
        if p == "":
            alts.append("[ \\t\\n] lz-start")
            stop |= set(_WS)
        for c in nexts:
            if p + c in index:  # still a proper prefix; a completed trigger has no edge
                alts.append(f"{_class([c])} {node(p + c)}")
        alts.append(f"{_class(sorted(stop), negated=True)} lz-free")
        alts.append('""')
        lines.append(f"{node(p)} ::= {' | '.join(alts)}\n")
    return "".join(lines)


_CLASS_ESC = {"\\": "\\\\", "]": "\\]", "[": "\\[", "-": "\\-", "^": "\\x5E", "\n": "\\n",
              "\r": "\\r", "\t": "\\t"}


def _class(chars: Sequence[str], negated: bool = False) -> str:
    body = "".join(_CLASS_ESC.get(c) or (f"\\x{ord(c):02X}" if ord(c) < 0x20 else c) for c in chars)
    return "[" + ("^" if negated else "") + body + "]"


# -- from a preset --------------------------------------------------------------------------------


def lazy_tool_grammar(tools: Any, preset: Any, *, parallel: bool = True) -> Any:
    """Prose or calls for ``tools`` in ``preset``'s wire format, triggered by its ``[trigger]``
    (a :class:`TriggeredGrammar`; for the envelope format its plain union grammar).

    ``[trigger]`` keys: ``begin`` (the marker that opens a call; required), ``at_start``,
    ``triggers`` (more trigger strings). By default the call block is the
    ``edgevox.grammars`` grammar of the preset's ``wire_format``. A wire format edgevox
    does not know is described entirely in the preset with ``content = "json"``: each
    call is ``open`` + ``{"<name_key>": name, "<args_key>": {...}}`` + ``close``
    (defaults: ``begin``, ``end``, ``"name"``, ``"arguments"``), calls joined by
    ``separator`` (default a newline).
    """
    from edgevox.llm.presets import get_preset

    preset = get_preset(preset)
    if preset.wire_format == "envelope":
        # Nothing to trigger on: the envelope's first token already chooses between the
        # answer and a call, so its union grammar applies from token 0 (not lazy).
        from edgevox.grammars import reply_or_tool_grammar

        return reply_or_tool_grammar(tools, "envelope", parallel_tool_calls=parallel)
    trig: Mapping[str, Any] = preset.trigger or {}
    begin = trig.get("begin")
    if not isinstance(begin, str) or not begin:
        raise ValueError(f"preset {preset.name!r} has no [trigger] begin marker")
    triggers = tuple(dict.fromkeys([begin, *trig.get("triggers", ())]))
    at_start = bool(trig.get("at_start", False))
    content = trig.get("content")
    if content is None:
        from edgevox.grammars import tool_call_grammar

        calls = tool_call_grammar(tools, preset.wire_format, parallel_tool_calls=parallel)
        return TriggeredGrammar(triggers=triggers, calls=calls, at_start=at_start)
    if content != "json":
        raise ValueError(f"preset {preset.name!r}: unknown [trigger] content {content!r} (known: 'json')")
    tag = StructuralTag(begin=str(trig.get("open", begin)), content=_json_calls(tools, trig),
                        end=str(trig.get("close", trig.get("end", ""))))
    return TriggeredGrammar(triggers=triggers, tags=(tag,), at_start=at_start, parallel=parallel,
                            separator=str(trig.get("separator", "\n")))


def _json_calls(tools: Any, trig: Mapping[str, Any]) -> Any:
    """One JSON call object for any of ``tools``: name first, then the arguments object."""
    from edgevox.grammars import json_schema_grammar, normalize_tools

    name_key = str(trig.get("name_key", "name"))
    args_key = str(trig.get("args_key", "arguments"))
    alts = [{"type": "object",
             "properties": {name_key: {"const": name}, args_key: params or {"type": "object"}},
             "required": [name_key, args_key], "additionalProperties": False}
            for name, params in normalize_tools(tools)]
    return json_schema_grammar(alts[0] if len(alts) == 1 else {"anyOf": alts})
