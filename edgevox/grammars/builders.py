"""Grammar builders: tool calls in the preset's own wire format, JSON schema, regex.

Every builder assembles generated rules plus the static pieces from ``grammars/*.gbnf``
and runs :func:`validate_gbnf` on the result before returning, so a Grammar object is
always safe to hand to llama.cpp.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .emit import RuleSet, avoid_rules, lit, rule_names
from .gbnf import GrammarError, ParsedGrammar, validate_gbnf
from .regex import regex_to_gbnf
from .schema import SchemaCompiler
from .wire import build_calls, envelope_answer, get_format

__all__ = [
    "Grammar", "static_dir", "static_piece", "tool_call_grammar", "single_tool_grammar",
    "reply_or_tool_grammar", "json_schema_grammar", "regex_grammar", "gbnf_grammar",
    "normalize_tools", "tools_key", "DEFAULT_THINK", "answer_grammar", "VALIDATION_LEVELS",
    "check_validation",
]

DEFAULT_THINK = ("<think>", "</think>")
_STATIC_DEPS = {"python": ("json",), "gemma": ("json",), "json": (), "think": (), "reply": ()}


# -- static pieces -----------------------------------------------------------------------------


def static_dir() -> Path:
    """The folder with the static ``*.gbnf`` pieces: ``edgevox/_data/grammars`` in a wheel,
    ``<repo>/grammars`` in a checkout."""
    pkg = Path(__file__).resolve().parent.parent
    for cand in (pkg / "_data" / "grammars", pkg.parent / "grammars"):
        if (cand / "json.gbnf").is_file():
            return cand
    raise FileNotFoundError(f"static grammar pieces not found under {pkg / '_data' / 'grammars'} "
                            f"or {pkg.parent / 'grammars'}")


@functools.cache
def static_piece(name: str) -> str:
    """The text of ``grammars/<name>.gbnf``."""
    return (static_dir() / f"{name}.gbnf").read_text(encoding="utf-8")


def _with_deps(names: Iterable[str]) -> list[str]:
    out: list[str] = []

    def add(n: str) -> None:
        for d in _STATIC_DEPS.get(n, ()):
            add(d)
        if n not in out:
            out.append(n)

    for n in sorted(names):  # a set's order varies between processes; the grammar text must not
        add(n)
    return out


@functools.cache
def _reserved() -> frozenset[str]:
    names: set[str] = {"root"}
    for p in _STATIC_DEPS:
        names |= rule_names(static_piece(p))
    return frozenset(names)


# -- the Grammar object --------------------------------------------------------------------------


@dataclass(frozen=True)
class Grammar:
    """A validated GBNF grammar plus what it was built for."""

    gbnf: str
    strategy: str
    wire_format: str | None = None
    key: tuple = ()
    root: str = "root"
    tool_names: tuple[str, ...] = ()
    #: "schema_aware" or "structural" for tool grammars (what the grammar enforces)
    validation: str = "schema_aware"
    _memo: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    _lock: Any = field(default_factory=threading.Lock, compare=False, hash=False, repr=False)

    def parsed(self) -> ParsedGrammar:
        with self._lock:
            if "parsed" not in self._memo:
                self._memo["parsed"] = validate_gbnf(self.gbnf, self.root)
            return self._memo["parsed"]

    def compiled(self) -> Any:
        """A ``llama_cpp.LlamaGrammar`` for this grammar, created once (llama_cpp imported lazily)."""
        with self._lock:
            if "compiled" not in self._memo:
                from llama_cpp import LlamaGrammar  # heavy import, only when a model is used

                grammar = LlamaGrammar.from_string(self.gbnf, verbose=False)
                if self.root != "root":
                    grammar._root = self.root
                self._memo["compiled"] = grammar
            return self._memo["compiled"]

    def _matcher(self) -> Any:
        from .matcher import GbnfMatcher

        parsed = self.parsed()
        with self._lock:
            if "matcher" not in self._memo:
                self._memo["matcher"] = GbnfMatcher(parsed, self.root)
            return self._memo["matcher"]

    def matches(self, text: str) -> bool:
        """Could llama.cpp have produced exactly ``text`` under this grammar? (for tests/checks)"""
        return self._matcher().matches(text)

    def is_prefix(self, text: str) -> bool:
        """Can ``text`` still be continued into something this grammar accepts?"""
        return self._matcher().is_prefix(text)

    def __str__(self) -> str:
        return self.gbnf


# -- tools ---------------------------------------------------------------------------------------


def _one_tool(t: Any) -> tuple[str, Any]:
    """(name, parameters schema) through the one normaliser (``edgevox.tools.spec``); a tool
    known by name only takes any arguments object."""
    from edgevox.tools.spec import NotATool, tool_spec

    try:
        spec = tool_spec(t)
    except NotATool as exc:
        raise GrammarError(str(exc)) from None
    return spec.name, ({"type": "object"} if isinstance(t, str) else spec.parameters)


def normalize_tools(tools: Any) -> list[tuple[str, Any]]:
    """(name, parameters schema) for OpenAI dicts, bare function dicts, Tool-like objects,
    registries (iterables of those) or a single tool."""
    if tools is None:
        raise GrammarError("no tools given")
    if isinstance(tools, (str, Mapping)) or hasattr(tools, "parameters"):
        tools = [tools]
    try:
        entries = [_one_tool(t) for t in tools]
    except TypeError:
        raise GrammarError(f"tools must be an iterable of tools, not {type(tools).__name__}") from None
    seen: set[str] = set()
    for name, _ in entries:
        if not name:
            raise GrammarError("tool with an empty name")
        if name in seen:
            raise GrammarError(f"duplicate tool name {name!r}")
        seen.add(name)
    if not entries:
        raise GrammarError("no tools given")
    return entries


def _canonical(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, ensure_ascii=True, separators=(",", ":"),
                                     default=repr).encode()).hexdigest()


def tools_key(tools: Any) -> str:
    """Cache key part for a tool set: the registry's fingerprint if it has one, else a
    hash of the canonical JSON of (name, parameters) in order."""
    fp = getattr(tools, "fingerprint", None)
    if isinstance(fp, (str, bytes, int)) and not isinstance(tools, Mapping):
        return f"fp:{fp}"
    return "sha:" + _canonical(normalize_tools(tools))


def _think_pair(think: Any) -> tuple[str, str] | None:
    if think is None or think is False:
        return None
    if think is True:
        return DEFAULT_THINK
    if (isinstance(think, (tuple, list)) and len(think) == 2 and all(isinstance(x, str) and x for x in think)):
        return (think[0], think[1])
    raise GrammarError(f"think must be None or an (open, close) pair of tags, got {think!r}")


def _opts_key(**opts: Any) -> str:
    return json.dumps(opts, sort_keys=True, default=repr, separators=(",", ":"))


# -- assembly ------------------------------------------------------------------------------------


def _finish(rs: RuleSet, root_body: str, pieces: Iterable[str], *, strategy: str,
            wire_format: str | None, key: tuple, tool_names: tuple[str, ...] = (),
            validation: str = "schema_aware", extra: Iterable[str] = ()) -> Grammar:
    head = f"root ::= {root_body}\n"
    static = "".join(static_piece(p) + ("" if static_piece(p).endswith("\n") else "\n")
                     for p in _with_deps(pieces))
    text = head + rs.text() + "".join(extra) + static
    validate_gbnf(text)
    return Grammar(gbnf=text, strategy=strategy, wire_format=wire_format, key=key,
                   tool_names=tool_names, validation=validation)


def _think_prefix(rs: RuleSet, think: tuple[str, str] | None, pieces: set[str]) -> str:
    if think is None:
        return ""
    if think == DEFAULT_THINK:
        pieces.add("think")
        return "think-block? "
    open_, close = think
    text = avoid_rules(rs, "thk-text", close, followed_by=close)
    block = rs.add("thk-block", f'{lit(open_)} {text} {lit(close)} "\\n"{{0,2}}')
    return f"{block}? "


# A reply that starts like a call in some other format -- bare JSON, a JSON list, a fenced
# block, or blank space before one of those -- is a call that escaped the schema (small
# models drift into a neighbouring format), so under reply_or_tool a reply may not.
_NOT_REPLY_START = "{[` \t\r\n"


VALIDATION_LEVELS = ("none", "structural", "schema_aware")


def check_validation(validation: Any) -> str:
    """A validation level by name (ValueError otherwise)."""
    if validation not in VALIDATION_LEVELS:
        raise ValueError(f"unknown validation level {validation!r}; allowed: {', '.join(VALIDATION_LEVELS)}")
    return validation


def _tool_grammar(strategy: str, tools: Any, wire_format: str, *, think: Any,
                  parallel_tool_calls: bool, key_tools: str | None = None,
                  text_before_calls: bool = False, validation: str = "schema_aware") -> Grammar:
    """The tool grammar of one strategy. ``validation="structural"``: the wire format's
    markup and syntax only (any name, any arguments object) -- what a server with a limited
    grammar engine takes, and cheap for huge or changing schema sets; a reply may then also
    begin like a bare call (the parser chain reads it) and prose may come before calls."""
    fmt = get_format(wire_format)
    structural = check_validation(validation) == "structural"
    if validation == "none":
        raise GrammarError("validation 'none' means no grammar")
    entries = normalize_tools(tools) if tools is not None or not structural else []
    pair = _think_pair(think)
    fixed = entries[0][0] if strategy == "single" else None
    key = (strategy, fmt.name, key_tools or ("" if structural and tools is None else tools_key(tools)),
           _opts_key(think=pair, parallel=bool(parallel_tool_calls) and strategy != "single",
                     text_before_calls=bool(text_before_calls), name=fixed,
                     **({"validation": "structural"} if structural else {})))
    rs = RuleSet(reserved=set(_reserved()))
    pieces = {"json", fmt.style}
    calls = build_calls(fmt, entries, rs, parallel=bool(parallel_tool_calls) and strategy != "single",
                        structural=structural, fixed_name=fixed)
    prefix = _think_prefix(rs, pair, pieces)
    before = bool(text_before_calls) or (structural and not fmt.bare)
    if strategy == "reply_or_tool" and fmt.name == "envelope":
        body = f"({calls} | {envelope_answer(rs)})"  # the first token picks the branch
    elif strategy == "reply_or_tool":
        pieces.add("reply")
        if fmt.bare:
            reply = "reply-bare"
            body = f"({calls} | {reply})"
        else:
            reply = avoid_rules(rs, "answer", fmt.opener, nonempty=True,
                                not_first="" if structural else _NOT_REPLY_START,
                                followed_by=fmt.opener if before else None)
            body = f"({calls} | {reply} {calls}?)" if before else f"({calls} | {reply})"
    else:
        body = calls
    return _finish(rs, prefix + body, pieces, strategy=strategy, wire_format=fmt.name, key=key,
                   tool_names=() if structural and not fixed else tuple(n for n, _ in entries),
                   validation=validation)


def tool_call_grammar(tools: Any, wire_format: str = "hermes", *, think: Any = None,
                      parallel_tool_calls: bool = True, validation: str = "schema_aware") -> Grammar:
    """The model must call one of ``tools`` (several in a row when ``parallel_tool_calls``),
    written in ``wire_format``; an optional think block may come first. ``validation``:
    "schema_aware" (names and argument schemas) or "structural" (markup and syntax only)."""
    return _tool_grammar("required", tools, wire_format, think=think,
                         parallel_tool_calls=parallel_tool_calls, validation=validation)


def single_tool_grammar(tool: Any, wire_format: str = "hermes", *, think: Any = None,
                        validation: str = "schema_aware") -> Grammar:
    """The model must make exactly one call, to this ``tool``."""
    entries = normalize_tools(tool)
    if len(entries) != 1:
        raise GrammarError(f"single_tool_grammar needs exactly one tool, got {len(entries)}")
    return _tool_grammar("single", tool, wire_format, think=think, parallel_tool_calls=False,
                         validation=validation)


def reply_or_tool_grammar(tools: Any, wire_format: str = "hermes", *, think: Any = None,
                          parallel_tool_calls: bool = True, text_before_calls: bool = False,
                          validation: str = "schema_aware") -> Grammar:
    """Either a plain reply (any length, ends at EOS) or well-formed calls.

    The reply can never open a call: for tagged formats it never contains the opener
    (``<tool_call>``, ``[TOOL_CALLS]``, ...) and may not start with ``{``, ``[``, a
    backtick or blank space (a bare, listed or fenced JSON call in another format); for
    bare JSON/pythonic formats it may not start with ``{``/``[``. ``text_before_calls=True`` additionally lets prose come before the calls.
    """
    return _tool_grammar("reply_or_tool", tools, wire_format, think=think,
                         parallel_tool_calls=parallel_tool_calls, text_before_calls=text_before_calls,
                         validation=validation)


def answer_grammar(wire_format: str = "envelope", *, think: Any = None) -> Grammar:
    """``tool_choice="none"`` under the envelope: only the answer branch,
    ``{"answer": "..."}`` (an optional think block first)."""
    fmt = get_format(wire_format)
    if fmt.name != "envelope":
        raise GrammarError(f"an answer-only grammar exists for the envelope format, not {fmt.name!r}")
    pair = _think_pair(think)
    rs = RuleSet(reserved=set(_reserved()))
    pieces = {"json"}
    prefix = _think_prefix(rs, pair, pieces)
    key = ("answer", fmt.name, "", _opts_key(think=pair))
    return _finish(rs, prefix + envelope_answer(rs), pieces, strategy="answer", wire_format=fmt.name, key=key)


def _schema_of(schema: Any) -> Any:
    """A pydantic model class (or anything with ``model_json_schema()``) -> its JSON schema."""
    to_schema = getattr(schema, "model_json_schema", None)
    return to_schema() if callable(to_schema) else schema


def json_schema_grammar(schema: Any) -> Grammar:
    """A JSON value matching ``schema`` (a JSON schema or a pydantic model class): an
    object, a ``oneOf``/``anyOf`` union of branches at the root, or a scalar root (string,
    number, integer, boolean, enum, const)."""
    schema = _schema_of(schema)
    if not isinstance(schema, Mapping):
        raise GrammarError(f"schema must be a JSON schema object, got {type(schema).__name__}")
    rs = RuleSet(reserved=set(_reserved()))
    comp = SchemaCompiler(rs, "json", "s", schema)
    root = comp.resolve(schema, "s")
    if not isinstance(root, Mapping):
        raise GrammarError("schema root must be a schema object")
    union = any(k in root for k in ("anyOf", "oneOf", "enum", "const"))
    t = root.get("type", "object" if comp._infer_type(root) in (None, "object") else None)
    if not union and t not in ("object", "string", "number", "integer", "boolean", "null") and not (
            isinstance(t, list) and t):
        raise GrammarError(f"structured output needs an object, a union or a scalar at the schema root, "
                           f"got type {t!r}")
    if not any(k in root for k in ("type", "anyOf", "oneOf", "enum", "const")):
        root = {**root, "type": "object"}
    expr = comp.value(root, "s-root")
    key = ("json_schema", None, "sha:" + _canonical(schema), "")
    return _finish(rs, expr, {"json"}, strategy="json_schema", wire_format=None, key=key)


def regex_grammar(pattern: str) -> Grammar:
    """Output that fully matches ``pattern`` (see :mod:`edgevox.grammars.regex` for the subset)."""
    expr = regex_to_gbnf(pattern)
    key = ("regex", None, "sha:" + _canonical(pattern), "")
    return _finish(RuleSet(), expr, (), strategy="regex", wire_format=None, key=key)


def gbnf_grammar(text: str, root: str = "root", *, think: Any = None) -> Grammar:
    """Wrap a user-written GBNF grammar after validating it (raw GBNF mode). With ``think``
    (True or an (open, close) pair) one think block may come before what it describes."""
    validate_gbnf(text, root)
    key = ("gbnf", None, "sha:" + _canonical([text, root]), "")
    pair = _think_pair(think)
    if pair is None:
        return Grammar(gbnf=text, strategy="gbnf", wire_format=None, key=key, root=root)
    rs = RuleSet(reserved=rule_names(text) | {"root"})
    open_, close = pair
    inner = avoid_rules(rs, "thk-text", close, followed_by=close)
    block = rs.add("thk-block", f'{lit(open_)} {inner} {lit(close)} "\\n"{{0,2}}')
    start = rs.add("thk-start", f"{block}? {root}")
    wrapped = text.rstrip("\n") + "\n" + rs.text()
    validate_gbnf(wrapped, start)
    return Grammar(gbnf=wrapped, strategy="gbnf", wire_format=None, root=start,
                   key=("gbnf", None, key[2], _opts_key(think=pair)))
