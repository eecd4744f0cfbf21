"""The tool-call wire formats: how each model family writes calls, as grammar and as text.

Each format knows its call syntax, the literal that opens a call (so a reply can be
kept from starting one), and how argument values are spelled. ``render_tool_calls``
writes calls in the canonical form the grammars accept -- tests use it, and so can
anything that must show a model its own past calls.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from edgevox.formats import FORMATS, functionary, gemma, json_fenced, qwen3_coder
from edgevox.formats.base import Layout

from .emit import RuleSet, avoid_rules, lit
from .gbnf import GrammarError
from .schema import SchemaCompiler, members

__all__ = ["WIRE_FORMATS", "WireFormat", "build_calls", "render_tool_calls", "render_answer",
           "envelope_answer"]


@dataclass(frozen=True)
class WireFormat:
    name: str
    style: str              # value syntax: "json", "python" or "gemma"
    opener: str | None      # literal that starts the call block; None: bare JSON / list
    example: str
    layout: Layout = Layout()  # how calls are laid out (the format's own, from edgevox.formats)

    @property
    def bare(self) -> bool:
        return self.opener is None


# The dialects' facts (markers, examples) live in edgevox.formats; this module adds their grammars.
WIRE_FORMATS: dict[str, WireFormat] = {
    f.name: WireFormat(f.name, f.style, f.begin, f.example, f.layout) for f in FORMATS.values()
}

_PY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
_GEMMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_QC_CLOSE = "\n" + qwen3_coder.PARAM_CLOSE
_PO = qwen3_coder.PARAM_OPEN


def get_format(name: str) -> WireFormat:
    try:
        return WIRE_FORMATS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown wire format {name!r}; expected one of {sorted(WIRE_FORMATS)}") from None


def _check_name(fmt: WireFormat, name: str) -> None:
    lay = fmt.layout
    if lay.call == "python" and not _PY_NAME.match(name):
        raise GrammarError(f"tool name {name!r} cannot be written as a Python call ({fmt.name} format)")
    if fmt.style == "gemma" and not _GEMMA_NAME.match(name):
        raise GrammarError(f"tool name {name!r} cannot be written in Gemma's call:name{{...}} form")
    if fmt.style == "json" and "{name}>" in lay.head and any(c in name for c in "<>\n"):
        raise GrammarError(f"tool name {name!r} cannot be written inside {functionary.OPEN}...>")


def _kw_name(fmt: WireFormat, key: str) -> None:
    if fmt.style == "python" and (not _IDENT.match(key) or keyword.iskeyword(key)):
        raise GrammarError(f"parameter {key!r} cannot be a Python keyword argument ({fmt.name} format)")
    if fmt.layout.call == "params" and any(c in key for c in "<>\n"):
        raise GrammarError(f"parameter {key!r} cannot be written inside {_PO}...>")


# -- grammar -----------------------------------------------------------------------------------


def _qc_value(comp: SchemaCompiler, rs: RuleSet, schema: Any, where: str) -> str:
    """Qwen3-Coder spells a parameter value raw when it is a string, else as JSON (the
    template decides by the value's type), so strings in any branch of the schema are raw."""
    s = comp.resolve(schema, where)
    if not isinstance(s, Mapping):
        return comp.value(s, where)
    for key in ("anyOf", "oneOf"):
        if isinstance(s.get(key), list) and s[key]:
            base = {k: v for k, v in s.items() if k != key and k not in ("title", "description", "default")}
            alts = []
            for i, sub in enumerate(s[key]):
                sub = comp.resolve(sub, where)
                alts.append(_qc_value(comp, rs, {**base, **sub} if isinstance(sub, Mapping) else sub,
                                      f"{where}-{i}"))
            return "(" + " | ".join(dict.fromkeys(alts)) + ")"
    values = [s["const"]] if "const" in s else s.get("enum")
    if isinstance(values, list) and values:
        alts = []
        for v in values:
            if isinstance(v, str):
                if _QC_CLOSE in v:
                    raise GrammarError(f"schema at {where}: enum value {v!r} contains {_QC_CLOSE!r}")
                alts.append(lit(v))
            else:
                alts.append(comp.literal(v, where))
        return "(" + " | ".join(dict.fromkeys(alts)) + ")"
    t = s.get("type")
    if isinstance(t, list) and t:
        return "(" + " | ".join(dict.fromkeys(
            _qc_value(comp, rs, {**s, "type": x}, f"{where}-{x}") for x in t)) + ")"
    if s.get("nullable") is True:
        rest = {k: v for k, v in s.items() if k != "nullable"}
        return f"({_qc_value(comp, rs, rest, where)} | json-null)"
    if t == "string":
        return _qc_raw(rs)
    return comp.value(s, where)


def _args(fmt: WireFormat, comp: SchemaCompiler, rs: RuleSet, params: Any, hint: str) -> str:
    """The argument part of one call, in the format's own syntax."""
    if fmt.style == "json" and fmt.layout.call != "params":
        if params is None:
            return '"{}"'
        s = comp.resolve(params, hint)
        if isinstance(s, Mapping):
            t = s.get("type", "object")
            if t == "dict":
                s, t = {**s, "type": "object"}, "object"
            if t != "object" and not (isinstance(t, list) and "object" in t):
                raise GrammarError(f"schema at {hint}: parameters must have type 'object', got {t!r}")
            if "type" not in s and not any(k in s for k in ("anyOf", "oneOf", "enum", "const")):
                s = {**s, "type": "object"}
        return comp.value(s, hint)
    parts, extra = comp.top_object(params, hint)
    for key, _, _ in parts:
        _kw_name(fmt, key)
    kvs = []
    if fmt.layout.call == "params":
        for key, req, sub in parts:
            val = _qc_value(comp, rs, sub, f"{hint}-{key}")
            kv = f"{lit(f'{_PO}{key}>' + chr(10))} {val} {lit(_QC_CLOSE + chr(10))}"
            kvs.append((rs.add(f"{hint}-{key}-kv", kv), req))
        extra_kv = None
        if extra is not None:
            if "qc-key" not in rs.rules:
                rs.add("qc-key", "[^<>\\n]+")
            extra_kv = rs.add(f"{hint}-extra-kv",
                              f'{lit(_PO)} qc-key ">\\n" {_qc_raw(rs)} {lit(_QC_CLOSE + chr(10))}')
        return members(kvs, "", extra_kv) or '""'
    need_rules = any(not req for _, req, _ in parts)
    for key, req, sub in parts:
        sep = "=" if fmt.style == "python" else ":"
        kv = f"{lit(key + sep)} {comp.value(sub, f'{hint}-{key}')}"
        kvs.append((rs.add(f"{hint}-{key}-kv", kv) if need_rules else kv, req))
    if fmt.style == "python":
        extra_kv = None if extra is None else rs.add(
            f"{hint}-extra-kv", f'py-ident "=" {comp.value(extra, f"{hint}-extra")}')
        return members(kvs, comp.sep, extra_kv) or '""'
    extra_kv = None if extra is None else rs.add(
        f"{hint}-extra-kv", f'gm-key ":" {comp.value(extra, f"{hint}-extra")}')
    body = members(kvs, '","', extra_kv)
    return f'"{{" {body} "}}"' if body else '"{" "}"'


def _qc_raw(rs: RuleSet) -> str:
    if "qc-raw" not in rs.rules:
        avoid_rules(rs, "qc-raw", _QC_CLOSE, followed_by=_QC_CLOSE)
    return "qc-raw"


def _one_call(fmt: WireFormat, name: str, args: str) -> str:
    """One call (one list item for list formats), as the format's layout lays it out."""
    lay = fmt.layout
    if lay.call == "object":
        head = lit("{" + json.dumps(lay.name_key) + ": " + json.dumps(name, ensure_ascii=False) + ", "
                   + json.dumps(lay.args_key) + ": ")
        inner = f'{head} {args} "}}"'
    elif lay.call == "python":
        inner = f"{lit(name + '(')} {args} \")\""
    else:  # "args" / "params": the name is in the head
        inner = args
    before = lay.head.replace("{name}", name)
    return " ".join(p for p in (lit(before) if before else "", inner, lit(lay.tail) if lay.tail else "") if p)


def envelope_answer(rs: RuleSet) -> str:
    """The envelope's answer branch: ``{"answer": "<any JSON string>"}``."""
    return rs.add("env-answer", '"{\\"answer\\": " json-string "}"')


def _structural_call(fmt: WireFormat, rs: RuleSet, name: str | None) -> str:
    """One call whose markup and syntax are the format's but whose name is any identifier
    (or ``name`` when given) and whose arguments are any object in the format's syntax."""
    lay = fmt.layout
    if name is not None:
        _check_name(fmt, name)
    wrap = (lit(lay.head), lit(lay.tail)) if lay.head or lay.tail else None
    if fmt.style == "python":
        any_name = name is None and rs.add("any-name", 'py-ident ("." py-ident)*')
        kw = rs.add("any-kw", 'py-ident "=" py-value')
        args = f'({kw} (", " {kw})*)?'
        head = lit(name + "(") if name is not None else f'{any_name} "("'
        call = f'{head} {args} ")"'
        return f"{wrap[0]} {call} {wrap[1]}" if wrap else call
    if name is None:
        rs.add("any-name", f"[A-Za-z_] {lay.name_chars}{{0,63}}")
    if lay.call in ("args", "params"):  # the name sits in the head
        before, _, after = lay.head.partition("{name}")
        head = lit(before + name + after) if name is not None else " ".join(
            p for p in (lit(before), "any-name", lit(after) if after else "") if p)
        if lay.call == "params":
            if "qc-key" not in rs.rules:
                rs.add("qc-key", "[^<>\\n]+")
            param = rs.add("any-param", f'{lit(_PO)} qc-key ">\\n" {_qc_raw(rs)} {lit(_QC_CLOSE + chr(10))}')
            return f"{head} {param}* {lit(lay.tail)}"
        return f"{head} {'gm-object' if fmt.style == 'gemma' else 'json-object'} {lit(lay.tail)}"
    quoted = lit(json.dumps(name, ensure_ascii=False)) if name is not None else '"\\"" any-name "\\""'
    obj = (f'{lit("{" + json.dumps(lay.name_key) + ": ")} {quoted} {lit(", " + json.dumps(lay.args_key) + ": ")}'
           ' json-object "}"')
    return f"{wrap[0]} {obj} {wrap[1]}" if wrap else obj


def build_calls(fmt: WireFormat, tools: Sequence[tuple[str, Any]], rs: RuleSet, *,
                parallel: bool, structural: bool = False, fixed_name: str | None = None) -> str:
    """Add rules for "one call (or several when ``parallel``) of one of ``tools``"; return the
    name of the rule for the whole call block. ``structural``: the format's markup and
    syntax only -- any name (``fixed_name`` when given: a named tool_choice) and any
    arguments object; the schemas are not enforced."""
    if not tools and not structural:
        raise GrammarError("no tools to call")
    items = []
    if structural:
        items.append(rs.add("call-any", _structural_call(fmt, rs, fixed_name)))
    for i, (name, params) in enumerate(() if structural else tools):
        _check_name(fmt, name)
        prefix = f"t{i}-{name}"
        comp = SchemaCompiler(rs, fmt.style, prefix, params, canonical=True)
        args = _args(fmt, comp, rs, params, f"{prefix}-args")
        items.append(rs.add(f"{prefix}-call", _one_call(fmt, name, args)))
    item = items[0] if len(items) == 1 else rs.add("call-item", " | ".join(items))
    lay = fmt.layout
    if lay.block == "fenced":
        return rs.add("calls", _fenced_calls(rs, item, parallel))
    sep = lay.sep_gbnf if lay.sep_gbnf is not None else (lit(lay.sep) if lay.sep else "")
    if lay.block == "either":  # one call alone, or (parallel) several in a list
        listed = f"{lit(lay.open)} {item} ({sep} {item})* {lit(lay.close)}"
        return rs.add("calls", f"{item} | {listed}" if parallel else item)
    more = f"({sep} {item})*".replace("( ", "(") if parallel else ""
    # A newline after the last call is allowed where calls go one per line, so a model that
    # habitually ends with "\n" before EOS is not forced into one more call.
    tail = '"\\n"?' if lay.newline_after else ""
    seq = " ".join(p for p in (item, more, tail) if p)
    if lay.open or lay.close:
        seq = f"{lit(lay.open)} {seq} {lit(lay.close)}"
    return rs.add("calls", seq)


def _fenced_calls(rs: RuleSet, item: str, parallel: bool) -> str:
    """A ```json fence around one call object, a list of them (one per line or inline), or
    -- parallel only -- one bare object per line: the layouts models write, so the grammar
    does not push them off their own style."""
    rs.add("fence-nl", '"\\n" " "{0,4}')
    if parallel:
        bare = f'{item} ("\\n" {item})*'
        listed = f'"[" fence-nl? {item} ("," (fence-nl | " ") {item})* "\\n"? "]"'
    else:
        bare, listed = item, f'"[" fence-nl? {item} "\\n"? "]"'
    return f"{lit(json_fenced.OPEN + chr(10))} ({bare} | {listed}) {lit(chr(10) + json_fenced.FENCE)}"


# -- rendering ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ValueSyntax:
    """How a non-JSON value style spells literals (Python source, Gemma's call syntax)."""

    null: str
    true: str
    false: str
    sep: str
    string: Callable[[str], str]
    key: Callable[[Any], str]

    def render(self, v: Any) -> str:
        if v is None:
            return self.null
        if isinstance(v, bool):
            return self.true if v else self.false
        if isinstance(v, str):
            return self.string(v)
        if isinstance(v, (int, float)):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + self.sep.join(self.render(x) for x in v) + "]"
        if isinstance(v, Mapping):
            return "{" + self.sep.join(f"{self.key(k)}{self.render(x)}" for k, x in v.items()) + "}"
        raise TypeError(f"cannot render {type(v).__name__}")


_PY = _ValueSyntax("None", "True", "False", ", ", lambda s: json.dumps(s, ensure_ascii=False),
                   lambda k: json.dumps(str(k), ensure_ascii=False) + ": ")
_GEMMA = _ValueSyntax("null", "true", "false", ",", lambda s: gemma.QUOTE + s + gemma.QUOTE, lambda k: f"{k}:")
_py, _gemma = _PY.render, _GEMMA.render


def _call_parts(call: Any) -> tuple[str, Mapping[str, Any]]:
    if isinstance(call, Mapping):
        if "function" in call and isinstance(call["function"], Mapping):
            call = call["function"]
        args = call.get("arguments", call.get("parameters", {}))
        if isinstance(args, str):
            args = json.loads(args)
        return call["name"], args
    if isinstance(call, (tuple, list)) and len(call) == 2:
        return call[0], call[1]
    return call.name, call.arguments


def render_tool_calls(calls: Sequence[Any], wire_format: str) -> str:
    """Write ``calls`` ((name, args) pairs, dicts, or objects with .name/.arguments) the
    way the grammars of ``wire_format`` expect them: property order as given,
    one space after ',' and ':' in JSON."""
    fmt = get_format(wire_format)
    pairs = [_call_parts(c) for c in calls]
    if not pairs:
        raise ValueError("no calls to render")
    lay = fmt.layout
    items = [lay.head.replace("{name}", name) + _render_call(fmt, name, dict(a)) + lay.tail for name, a in pairs]
    if lay.block == "either" and len(items) == 1:
        return items[0]
    return lay.open + lay.sep.join(items) + lay.close


def _render_call(fmt: WireFormat, name: str, a: dict) -> str:
    lay = fmt.layout
    if lay.call == "object":
        return "{" + f"{_js(lay.name_key)}: {_js(name)}, {_js(lay.args_key)}: {_js(a)}" + "}"
    if lay.call == "python":
        return f"{name}(" + ", ".join(f"{k}={_py(v)}" for k, v in a.items()) + ")"
    if lay.call == "params":
        return "".join(f"{_PO}{k}>\n{v if isinstance(v, str) else _js(v)}{_QC_CLOSE}\n" for k, v in a.items())
    return _gemma(a) if fmt.style == "gemma" else _js(a)


def _js(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def render_answer(text: str) -> str:
    """An answer in words, written as the envelope's answer object."""
    return json.dumps({"answer": text}, ensure_ascii=False)
