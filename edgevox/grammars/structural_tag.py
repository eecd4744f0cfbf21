"""Structural tags: the JSON description of an output that vLLM and SGLang take as
``response_format={"type": "structural_tag", "format": {...}}``, compiled to GBNF.

A user who wrote one for a server gets the same constrained output from a laptop: the
description becomes a validated :class:`~edgevox.grammars.Grammar` that the embedded
backend's mask engines run (and the remote backend sends to llama-server). Format types
(semantics as published for xgrammar; the code is ours): ``const_string``,
``json_schema`` (style ``json`` or ``qwen_xml``), ``grammar`` (GBNF), ``regex``,
``sequence``, ``or``, ``tag``, ``any_text`` (``excludes``), ``triggered_tags``
(``triggers``, ``at_least_one``, ``stop_after_first``, ``excludes``; alias
``tag_and_text``), ``tags_with_separator`` and the deprecated ``qwen_xml_parameter``.

A malformed description raises :class:`GrammarError` naming the field and the reason
(``structural tag format.elements[1].triggers: ...``), like a bad grammar -- never a crash.

:func:`tools_structural_tag` goes the other way: a wire format's tool calls under a
``tool_choice`` as a structural tag, so what the runtime enforces can be read and edited
(``edgevox grammar show``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .builders import DEFAULT_THINK, Grammar, _canonical, _finish, _reserved, normalize_tools
from .emit import RuleSet, avoid_all_rules, lit, rename_rules, rule_names
from .gbnf import GrammarError, validate_gbnf
from .regex import regex_to_gbnf
from .schema import SchemaCompiler, members
from .wire import WIRE_FORMATS, get_format

__all__ = ["FORMAT_TYPES", "structural_tag_grammar", "is_structural_tag", "tools_structural_tag"]

FORMAT_TYPES = ("const_string", "json_schema", "grammar", "regex", "sequence", "or", "tag", "any_text",
                "triggered_tags", "tags_with_separator", "qwen_xml_parameter", "tag_and_text")


def is_structural_tag(response_format: Any) -> bool:
    """``{"type": "structural_tag", ...}``?"""
    return isinstance(response_format, Mapping) and response_format.get("type") == "structural_tag"


def structural_tag_grammar(spec: Any) -> Grammar:
    """The grammar of a structural tag: the whole ``response_format`` object
    (``{"type": "structural_tag", "format": {...}}``) or just its format object."""
    if is_structural_tag(spec):
        if "format" not in spec:
            raise GrammarError("structural tag: 'format' is missing")
        node, path = spec["format"], "format"
    else:
        node, path = spec, "format"
    try:
        key = json.dumps(node, ensure_ascii=False)  # key order matters: properties are written in order
    except (TypeError, ValueError) as exc:
        raise GrammarError(f"structural tag {path}: not JSON data ({exc})") from None
    return _compile(key)


@functools.lru_cache(maxsize=64)
def _compile(key: str) -> Grammar:
    comp = _Compiler()
    body = comp.node(json.loads(key), "format")
    g = _finish(comp.rs, body, {"json"}, strategy="structural_tag", wire_format=None,
                key=("structural_tag", None, "sha:" + _canonical(key), ""), extra=comp.raw)
    return g


class _Compiler:
    """Format objects -> GBNF expressions (helper rules go to ``rs``, user grammars to ``raw``)."""

    def __init__(self) -> None:
        self.rs = RuleSet(reserved=set(_reserved()))
        self.raw: list[str] = []

    def err(self, path: str, why: str) -> GrammarError:
        return GrammarError(f"structural tag {path}: {why}")

    def field(self, spec: Mapping, path: str, name: str, kind: type | tuple, default: Any = ...) -> Any:
        if name not in spec:
            if default is ...:
                raise self.err(f"{path}.{name}", "missing")
            return default
        value = spec[name]
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            want = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.err(f"{path}.{name}", f"must be a {want}, got {type(value).__name__}")
        return value

    def strings(self, spec: Mapping, path: str, name: str, *, nonempty: bool = False) -> list[str]:
        items = self.field(spec, path, name, list, [] if not nonempty else ...)
        for i, s in enumerate(items):
            if not isinstance(s, str) or not s:
                raise self.err(f"{path}.{name}[{i}]", "must be a non-empty string")
        if nonempty and not items:
            raise self.err(f"{path}.{name}", "must not be empty")
        return items

    def node(self, spec: Any, path: str) -> str:
        if not isinstance(spec, Mapping):
            raise self.err(path, f"must be a format object, got {type(spec).__name__}")
        kind = spec.get("type", "tag" if "begin" in spec else None)
        if kind not in FORMAT_TYPES:
            raise self.err(f"{path}.type", f"unknown format type {kind!r}; known: {', '.join(FORMAT_TYPES[:-2])}")
        return getattr(self, "_" + kind)(spec, path)

    # -- leaves ---------------------------------------------------------------------------

    def _const_string(self, spec: Mapping, path: str) -> str:
        key = "text" if "text" in spec and "value" not in spec else "value"  # example 5 says "text"
        value = self.field(spec, path, key, str)
        return lit(value) if value else '""'

    def _json_schema(self, spec: Mapping, path: str, style: str | None = None) -> str:
        schema = self.field(spec, path, "json_schema", (dict, bool))
        style = style or self.field(spec, path, "style", str, "json")
        if schema is True:
            schema = {}
        if schema is False:
            raise self.err(f"{path}.json_schema", "false admits no value")
        _check_schema(schema, f"{path}.json_schema")
        hint = self.rs.name("js")
        try:
            if style == "json":
                comp = SchemaCompiler(self.rs, "json", hint, schema)
                root = comp.resolve(schema, hint)
                if isinstance(root, Mapping) and not any(k in root for k in ("type", "anyOf", "oneOf", "enum",
                                                                               "const", "$ref", "not")):
                    root = {**root, "type": "object"}
                return self.rs.define(hint, comp.value(root, hint))
            if style == "qwen_xml":
                return self.rs.define(hint, self.xml_parameters(schema, hint) or '""')
        except GrammarError as exc:
            raise self.err(f"{path}.json_schema", exc.reason) from None
        except (TypeError, ValueError, KeyError, AttributeError) as exc:  # a shape the checker let by
            raise self.err(f"{path}.json_schema", f"cannot compile this schema ({type(exc).__name__}: {exc})") from None
        raise self.err(f"{path}.style", f"unknown style {style!r}; known: json, qwen_xml")

    def xml_parameters(self, schema: Any, hint: str) -> str:
        """An object as ``<parameter=KEY>value</parameter>`` items (Qwen3-Coder's layout):
        strings raw up to the closing tag, other values JSON; blanks around items and
        non-string values are allowed."""
        from edgevox.formats.qwen3_coder import PARAM_CLOSE, PARAM_OPEN

        comp = SchemaCompiler(self.rs, "json", hint, schema)
        parts, extra = comp.top_object(schema, hint)
        if "xml-ws" not in self.rs.rules:
            self.rs.add("xml-ws", "[ \\t\\n]{0,8}")
            avoid_all_rules(self.rs, "xml-text", [PARAM_CLOSE], followed_by=PARAM_CLOSE)
        kvs = []
        for key, req, sub in parts:
            if any(c in key for c in "<>\n"):
                raise GrammarError(f"parameter {key!r} cannot be written inside {PARAM_OPEN}...>")
            value = self.xml_value(comp, sub, f"{hint}-{key}")
            kv = f'{lit(f"{PARAM_OPEN}{key}>")} {value} {lit(PARAM_CLOSE)} xml-ws'
            kvs.append((self.rs.add(f"{hint}-{key}-kv", kv), req))
        extra_kv = None
        if extra is not None:
            extra_kv = self.rs.add(f"{hint}-extra-kv",
                                   f'{lit(PARAM_OPEN)} [^<>\\n]+ ">" xml-text {lit(PARAM_CLOSE)} xml-ws')
        return members(kvs, "", extra_kv)

    def xml_value(self, comp: SchemaCompiler, schema: Any, where: str) -> str:
        s = comp.resolve(schema, where)
        values = [s["const"]] if isinstance(s, Mapping) and "const" in s else (
            s.get("enum") if isinstance(s, Mapping) else None)
        if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
            return "xml-ws (" + " | ".join(lit(v) for v in dict.fromkeys(values)) + ") xml-ws"
        if isinstance(s, Mapping) and s.get("type") == "string":
            return "xml-text"
        return f"xml-ws {comp.value(s, where)} xml-ws"

    def _qwen_xml_parameter(self, spec: Mapping, path: str) -> str:
        return self._json_schema(spec, path, style="qwen_xml")

    def _grammar(self, spec: Mapping, path: str) -> str:
        text = self.field(spec, path, "grammar", str)
        try:
            validate_gbnf(text)
        except GrammarError as exc:
            raise self.err(f"{path}.grammar", str(exc)) from None
        name = self.rs.name("ug")
        renamed = rename_rules(text, name + "-")
        self.rs.reserved |= rule_names(renamed)
        self.raw.append(renamed)
        return self.rs.define(name, f"{name}-root")

    def _regex(self, spec: Mapping, path: str) -> str:
        pattern = self.field(spec, path, "pattern", str)
        try:
            return self.rs.add("re", regex_to_gbnf(pattern))
        except (GrammarError, ValueError) as exc:
            raise self.err(f"{path}.pattern", str(exc)) from None

    def _any_text(self, spec: Mapping, path: str, end: str | None = None) -> str:
        excludes = self.strings(spec, path, "excludes")
        return avoid_all_rules(self.rs, "text", [*excludes, *([end] if end else [])], followed_by=end)

    # -- composites -----------------------------------------------------------------------

    def elements(self, spec: Mapping, path: str) -> list[str]:
        items = self.field(spec, path, "elements", list)
        if not items:
            raise self.err(f"{path}.elements", "must not be empty")
        return [self.node(e, f"{path}.elements[{i}]") for i, e in enumerate(items)]

    def _sequence(self, spec: Mapping, path: str) -> str:
        return self.rs.add("seq", " ".join(self.elements(spec, path)))

    def _or(self, spec: Mapping, path: str) -> str:
        return self.rs.add("or", " | ".join(self.elements(spec, path)))

    def _tag(self, spec: Mapping, path: str) -> str:
        begin = self.field(spec, path, "begin", str)
        end = self.field(spec, path, "end", str)
        content = self.field(spec, path, "content", dict)
        if content.get("type") == "any_text":  # text up to the end tag, never past it
            inner = self._any_text(content, f"{path}.content", end or None)
        else:
            inner = self.node(content, f"{path}.content")
        parts = [p for p in (lit(begin) if begin else "", inner, lit(end) if end else "") if p]
        return self.rs.add("tag", " ".join(parts))

    def tags(self, spec: Mapping, path: str) -> tuple[list[dict], str]:
        items = self.field(spec, path, "tags", list)
        if not items:
            raise self.err(f"{path}.tags", "must not be empty")
        for i, t in enumerate(items):
            if not isinstance(t, Mapping) or t.get("type", "tag") != "tag":
                raise self.err(f"{path}.tags[{i}]", "must be a tag object (begin, content, end)")
        alts = [self._tag(t, f"{path}.tags[{i}]") for i, t in enumerate(items)]
        return items, alts[0] if len(alts) == 1 else self.rs.add("tags", " | ".join(alts))

    def flags(self, spec: Mapping, path: str) -> tuple[bool, bool]:
        return (self.field(spec, path, "at_least_one", bool, False),
                self.field(spec, path, "stop_after_first", bool, False))

    def _triggered_tags(self, spec: Mapping, path: str) -> str:
        triggers = self.strings(spec, path, "triggers", nonempty=True)
        items, alts = self.tags(spec, path)
        for i, t in enumerate(items):
            n = sum(t["begin"].startswith(trig) for trig in triggers)
            if n != 1:
                raise self.err(f"{path}.tags[{i}].begin", f"{t['begin']!r} must begin with exactly one "
                                                        f"trigger, it begins with {n} of {triggers}")
        free = avoid_all_rules(self.rs, "free", [*triggers, *self.strings(spec, path, "excludes")])
        at_least_one, stop_after_first = self.flags(spec, path)
        if at_least_one:  # the first tag comes at the very beginning
            body = alts if stop_after_first else f"{alts} ({free} {alts})* {free}"
        else:
            body = f"{free} {alts}?" if stop_after_first else f"{free} ({alts} {free})*"
        return self.rs.add("triggered", body)

    _tag_and_text = _triggered_tags  # the guide's DeepSeek example names it so

    def _tags_with_separator(self, spec: Mapping, path: str) -> str:
        _, alts = self.tags(spec, path)
        sep = self.field(spec, path, "separator", str)
        at_least_one, stop_after_first = self.flags(spec, path)
        if stop_after_first:
            body = alts if at_least_one else f"{alts}?"
        else:
            more = f"({lit(sep)} {alts})*" if sep else f"{alts}*"
            body = f"{alts} {more}" if at_least_one else f"({alts} {more})?"
        return self.rs.add("tags-sep", body)


def _check_schema(schema: Any, where: str) -> None:
    """A JSON schema that jsonschema's meta-schema accepts (else GrammarError with its path)."""
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        at = "".join(f"/{p}" for p in exc.path)
        raise GrammarError(f"structural tag {where}{at}: not a valid JSON schema: {exc.message}") from None


# -- tools as a structural tag ----------------------------------------------------------------

def _tagged() -> dict[str, tuple[str, str, str, str, str]]:
    """Formats whose calls are tags around JSON arguments, per call: (before the name,
    between name and arguments, after the arguments, trigger, separator between calls),
    from each dialect's layout."""
    out = {}
    for f in WIRE_FORMATS.values():
        lay = f.layout
        if f.style != "json" or lay.call == "python" or lay.open or lay.block != "plain":
            continue
        if lay.call == "object":
            name_at = lay.head + "{" + json.dumps(lay.name_key) + ": "
            before, mid = name_at + '"', '", ' + json.dumps(lay.args_key) + ": "
            after = "}" + lay.tail
        else:  # the name is in the head
            before, _, mid = lay.head.partition("{name}")
            name_at, after = before, lay.tail
        out[f.name] = (before, mid, after, f.opener or name_at, lay.sep)
    return out


def _listed() -> dict[str, tuple[str, str]]:
    """List formats: (opener of the list, closer); items {"name": ..., "arguments": ...}."""
    return {f.name: (f.layout.open, f.layout.close) for f in WIRE_FORMATS.values()
            if f.layout.call == "object" and f.layout.open and f.layout.block in ("plain", "fenced")}


def tools_structural_tag(tools: Any, wire_format: str, *, tool_choice: Any = None,
                         parallel_tool_calls: bool = True, think: Any = None,
                         validation: str = "schema_aware") -> dict:
    """``tools`` called in ``wire_format`` under ``tool_choice`` ("auto", "required",
    "none" or a named function), as a ``response_format`` structural tag. Formats whose
    calls are not JSON (pythonic, Gemma's), and the structural level (any name), are
    described by a ``grammar`` element holding the preset grammar's GBNF."""
    from .choice import grammar_for_strategy, tool_choice_strategy

    fmt = get_format(wire_format)
    strategy = tool_choice_strategy(tool_choice)
    entries = normalize_tools(tools)
    if isinstance(strategy, tuple):
        entries = [e for e in entries if e[0] == strategy[1]]
        if not entries:
            raise ValueError(f"tool_choice names {strategy[1]!r}, which is not among the tools")
    parallel = bool(parallel_tool_calls) and not isinstance(strategy, tuple)
    required = strategy != "free" and strategy != "reply_or_tool"
    if strategy == "none":
        fmt_obj = _answer_only(fmt)
    elif validation != "schema_aware" or (fmt.name not in _tagged() and fmt.name not in _listed()
                                          and fmt.name != "envelope"):
        g = grammar_for_strategy("reply_or_tool" if strategy == "free" else strategy, tools, fmt.name,
                                 parallel_tool_calls=parallel, validation=validation)
        fmt_obj = {"type": "grammar", "grammar": g.gbnf if g.root == "root" else
                   f"root ::= {g.root}\n{g.gbnf}"}
    else:
        fmt_obj = _calls_tag(fmt.name, entries, parallel, required)
    pair = DEFAULT_THINK if think is True else (tuple(think) if think else None)
    if pair:
        block = {"type": "tag", "begin": pair[0], "content": {"type": "any_text"}, "end": pair[1] + "\n"}
        fmt_obj = {"type": "or", "elements": [{"type": "sequence", "elements": [block, fmt_obj]}, fmt_obj]}
    return {"type": "structural_tag", "format": fmt_obj}


def _schema(params: Any) -> Any:
    return params if isinstance(params, Mapping) else {"type": "object"}


def _answer_only(fmt: Any) -> dict:
    if fmt.name == "envelope":
        return _envelope_answer()
    return {"type": "any_text", "excludes": [fmt.opener]} if fmt.opener else {"type": "any_text"}


def _envelope_answer() -> dict:
    return {"type": "tag", "begin": '{"answer": ', "content": {"type": "json_schema",
                                                             "json_schema": {"type": "string"}}, "end": "}"}


def _calls_tag(name: str, entries: Sequence[tuple[str, Any]], parallel: bool, required: bool) -> dict:
    if name in _tagged():
        head, mid, end, trigger, sep = _tagged()[name]
        style = "qwen_xml" if WIRE_FORMATS[name].layout.call == "params" else "json"
        tags = [{"type": "tag", "begin": head + n + mid, "end": end,
                 "content": {"type": "json_schema", "json_schema": _schema(p), "style": style}}
                for n, p in entries]
        if required:
            return {"type": "tags_with_separator", "tags": tags, "separator": sep, "at_least_one": True,
                    "stop_after_first": not parallel}
        return {"type": "triggered_tags", "triggers": [trigger], "tags": tags, "stop_after_first": not parallel}
    lay = WIRE_FORMATS[name].layout
    items = [{"type": "tag", "begin": "{" + json.dumps(lay.name_key) + ": " + json.dumps(n) + ", "
              + json.dumps(lay.args_key) + ": ",
              "content": {"type": "json_schema", "json_schema": _schema(p)}, "end": "}"} for n, p in entries]
    one = {"type": "tags_with_separator", "tags": items, "separator": ", ", "at_least_one": True,
           "stop_after_first": True}
    if lay.block == "either":  # one call alone, or a list of them
        calls: dict = one
        if parallel:
            listed = {"type": "tag", "begin": "[", "end": "]", "content": {**one, "stop_after_first": False}}
            calls = {"type": "or", "elements": [one, listed]}
        return calls if required else {"type": "or", "elements": [calls, _envelope_answer()]}
    opener, closer = _listed()[name]
    block = {"type": "tag", "begin": opener, "end": closer, "content": {**one, "stop_after_first": not parallel}}
    if required:
        return block
    return {"type": "triggered_tags", "triggers": [opener], "tags": [block], "stop_after_first": True}
