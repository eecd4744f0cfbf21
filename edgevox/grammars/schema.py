"""JSON Schema -> GBNF, in three value syntaxes: JSON, Python literals and Gemma's inline form.

Our own builder rather than llama-cpp-python's converter: the wire formats need values
that are not JSON (pythonic calls, Gemma's ``<|"|>`` strings), every tool needs its own
rule-name prefix, whitespace must be bounded, and the grammar has to be checked by
our validator anyway.

Choices worth knowing:
- Properties keep the schema's order; optional ones may be left out (commas stay right).
- An object that declares ``properties`` takes no other keys unless
  ``additionalProperties`` is ``true`` or a schema: a model must not invent arguments.
  An object without ``properties`` takes any keys (typed by ``additionalProperties``).
- ``minLength``/``maxLength`` (JSON/Python strings, up to 256) and ``minItems``/``maxItems``
  (up to 64) are enforced; larger bounds, ``pattern``, ``format``, numeric ranges (other
  than "no minus sign when minimum >= 0") are left to validation after parsing.
- ``$ref`` to local definitions (recursion allowed), ``anyOf``/``oneOf`` (alternatives,
  sibling keywords merged in), ``allOf`` (merged), ``type`` lists, ``nullable``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from edgevox.formats import gemma

from .emit import RuleSet, lit
from .gbnf import MAX_REPETITION, GrammarError

__all__ = ["SchemaCompiler", "members", "STYLES"]

STYLES = ("json", "python", "gemma")
MAX_STRING_BOUND = 256
MAX_ARRAY_BOUND = 64
MAX_DEPTH = 64
_ANNOTATIONS = {"title", "description", "default", "examples", "$comment", "$schema", "$id",
                "$defs", "definitions", "deprecated", "readOnly", "writeOnly"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Gemma writes keys bare: anything without its own syntax characters or blanks.
_GEMMA_KEY = re.compile(r"[^\s:,{}\[\]<>|\"]+\Z")
_GEMMA_QUOTE = gemma.QUOTE

# Python type names some tool sets (BFCL among them) use in place of JSON Schema's.
_TYPE_ALIASES = {"dict": "object", "float": "number", "tuple": "array", "list": "array",
                 "int": "integer", "str": "string", "bool": "boolean", "any": None}
_ANY = {"json": "json-value", "python": "py-value", "gemma": "gm-value"}
_STRING = {"json": "json-string", "python": "py-string", "gemma": "gm-string"}
_CHAR = {"json": "json-char", "python": "py-char"}
_BOOL = {"json": "json-bool", "python": "py-bool", "gemma": "json-bool"}
_NULL = {"json": "json-null", "python": "py-none", "gemma": "json-null"}


def _quant(lo: int, hi: int | None) -> str:
    if hi is None:
        return {0: "*", 1: "+"}.get(lo, f"{{{lo},}}")
    if (lo, hi) == (0, 1):
        return "?"
    return f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"


def _group(alts: list[str]) -> str:
    uniq = list(dict.fromkeys(a for a in alts))
    if len(uniq) == 1:
        return uniq[0]
    return "(" + " | ".join(a if a else '""' for a in uniq) + ")"


def members(kvs: list[tuple[str, bool]], sep: str, extra: str | None = None) -> str:
    """A GBNF expression for "these key/value items, in this order, separated by ``sep``;
    optional ones may be skipped" -- plus trailing ``extra`` items when given.

    Returns "" when nothing can appear. Linear in the number of required items,
    quadratic only in leading optional ones.
    """
    def join(*parts: str) -> str:
        return " ".join(p for p in parts if p)

    def rest(j: int) -> str:
        parts = [join(sep, kv) if req else f"({join(sep, kv)})?" for kv, req in kvs[j:]]
        if extra:
            parts.append(f"({join(sep, extra)})*")
        return " ".join(parts)

    alts: list[str] = []
    for i, (kv, req) in enumerate(kvs):
        alts.append(join(kv, rest(i + 1)))
        if req:
            break
    else:
        if extra:
            alts.append(join(extra, f"({join(sep, extra)})*"))
        if not alts:
            return ""
        return f"({' | '.join(alts)})?"
    return alts[0] if len(alts) == 1 else f"({' | '.join(alts)})"


def _merge(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        if k == "properties" and isinstance(out.get(k), Mapping) and isinstance(v, Mapping):
            out[k] = {**out[k], **v}
        elif k == "required" and isinstance(out.get(k), list) and isinstance(v, list):
            out[k] = list(dict.fromkeys([*out[k], *v]))
        else:
            out[k] = v
    return out


class SchemaCompiler:
    """Turns (sub)schemas into GBNF expressions, adding helper rules to ``rules``."""

    def __init__(self, rules: RuleSet, style: str, prefix: str, root_schema: Any, *,
                 canonical: bool = False) -> None:
        """``canonical``: JSON/Python spacing fixed the way ``json.dumps`` writes it -- one
        space after ``:`` and ``,``, none inside brackets -- instead of 0 or 1 space. Tool
        calls use it: models write calls that way, and fixed spacing turns keys and
        punctuation into forced text that fast-forward can skip."""
        if style not in STYLES:
            raise ValueError(f"unknown value style {style!r}; expected one of {STYLES}")
        self.rs = rules
        self.style = style
        self.prefix = prefix
        self.root_schema = root_schema
        self._refs: dict[str, str] = {}
        self._depth = 0
        self.ws = "" if style == "gemma" else "json-ws"
        fixed = canonical and style != "gemma"
        self.pad = "" if fixed else self.ws              # after "{" / "[", before "}" / "]"
        self.sep = '", "' if fixed else f'"," {self.ws}'.strip()
        self.colon = '": "' if fixed else ('":"' if style == "gemma" else '":" json-ws')

    # -- helpers ---------------------------------------------------------------------------

    def _err(self, msg: str, where: str) -> GrammarError:
        return GrammarError(f"schema at {where}: {msg}")

    def _pointer(self, ref: str, where: str) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise self._err(f"only local $ref ('#/...') is supported, got {ref!r}", where)
        node = self.root_schema
        for part in [p for p in ref[1:].split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise self._err(f"$ref {ref!r} does not resolve", where)
        return node

    def resolve(self, schema: Any, where: str) -> Any:
        """Follow ``$ref`` chains and merge ``allOf`` (used where a concrete shape is needed)."""
        seen = set()
        while isinstance(schema, Mapping) and "$ref" in schema:
            ref = schema["$ref"]
            if ref in seen:
                raise self._err(f"$ref cycle at {ref!r}", where)
            seen.add(ref)
            rest = {k: v for k, v in schema.items() if k != "$ref" and k not in _ANNOTATIONS}
            target = self._pointer(ref, where)
            schema = _merge(target, rest) if rest and isinstance(target, Mapping) else target
        if isinstance(schema, Mapping) and "allOf" in schema:
            subs = schema["allOf"]
            if not isinstance(subs, list):
                raise self._err("allOf must be a list", where)
            merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
            for sub in subs:
                sub = self.resolve(sub, where)
                if isinstance(sub, Mapping):
                    merged = _merge(merged, sub)
            schema = merged
        return schema

    # -- literals (const / enum) -------------------------------------------------------------

    def render_scalar(self, v: Any, where: str) -> str:
        """The canonical text of a scalar in this style (used for const/enum)."""
        if v is None:
            return "None" if self.style == "python" else "null"
        if isinstance(v, bool):
            if self.style == "python":
                return "True" if v else "False"
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            if isinstance(v, float) and not math.isfinite(v):
                raise self._err(f"non-finite number {v!r} cannot be written", where)
            return json.dumps(v)
        if isinstance(v, str):
            if self.style == "gemma":
                if _GEMMA_QUOTE in v:
                    raise self._err(f"string {v!r} contains Gemma's {_GEMMA_QUOTE} delimiter", where)
                return _GEMMA_QUOTE + v + _GEMMA_QUOTE
            return json.dumps(v, ensure_ascii=False)
        raise self._err(f"unsupported literal {v!r}", where)

    def literal(self, v: Any, where: str) -> str:
        sep = self.sep
        if isinstance(v, list):
            inner = f" {sep} ".join(self.literal(x, where) for x in v)
            return "(" + " ".join(p for p in ('"["', self.pad, inner, self.pad, '"]"') if p) + ")"
        if isinstance(v, Mapping):
            inner = f" {sep} ".join(f"{self.key_literal(str(k), where)} {self.literal(x, where)}"
                                    for k, x in v.items())
            return "(" + " ".join(p for p in ('"{"', self.pad, inner, self.pad, '"}"') if p) + ")"
        return lit(self.render_scalar(v, where))

    def key_literal(self, key: str, where: str) -> str:
        """``"key":`` (with the optional space after the colon) in this style."""
        if self.style == "gemma":
            if not _GEMMA_KEY.match(key):
                raise self._err(f"key {key!r} cannot be written bare (Gemma writes keys unquoted)", where)
            return lit(key + ":")
        if self.colon == '": "':
            return lit(json.dumps(key, ensure_ascii=False) + ": ")
        return f"{lit(json.dumps(key, ensure_ascii=False) + ':')} json-ws"

    # -- values -----------------------------------------------------------------------------

    def value(self, schema: Any, hint: str) -> str:
        """An expression (a single GBNF item) for a value matching ``schema``."""
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise self._err(f"schema nested deeper than {MAX_DEPTH}", hint)
            return self._value(schema, hint)
        finally:
            self._depth -= 1

    def _value(self, schema: Any, hint: str) -> str:
        if schema is True or schema is None:
            return _ANY[self.style]
        if schema is False:
            raise self._err("schema 'false' allows no value", hint)
        if not isinstance(schema, Mapping):
            raise self._err(f"expected a schema object, got {type(schema).__name__}", hint)
        if "$ref" in schema:
            return self._ref(schema, hint)
        if "allOf" in schema:
            return self.value(self.resolve(schema, hint), hint)
        if "const" in schema:
            return self.literal(schema["const"], hint)
        if "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list) or not values:
                raise self._err("enum must be a non-empty list", hint)
            return _group([self.literal(v, hint) for v in values])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                subs = schema[key]
                if not isinstance(subs, list) or not subs:
                    raise self._err(f"{key} must be a non-empty list", hint)
                base = {k: v for k, v in schema.items() if k != key and k not in _ANNOTATIONS}
                alts = []
                for i, sub in enumerate(subs):
                    if base:
                        sub = self.resolve(sub, hint)
                        sub = _merge(base, sub) if isinstance(sub, Mapping) else sub
                    alts.append(self.value(sub, f"{hint}-{i}"))
                return _group(alts)
        types = schema.get("type")
        if isinstance(types, str) and types in _TYPE_ALIASES:
            types = _TYPE_ALIASES[types]
            schema = {k: v for k, v in schema.items() if k != "type"}
            if types is not None:
                schema["type"] = types
            else:
                return _ANY[self.style]
        if schema.get("nullable") is True:
            rest = {k: v for k, v in schema.items() if k != "nullable"}
            return _group([self.value(rest, hint), _NULL[self.style]])
        if isinstance(types, list):
            if not types:
                raise self._err("type list is empty", hint)
            return _group([self.value({**schema, "type": t}, f"{hint}-{t}") for t in types])
        if types is None:
            types = self._infer_type(schema)
            if types is None:
                return _ANY[self.style]
        if types == "string":
            return self._string(schema, hint)
        if types == "integer":
            return "json-uint" if self._non_negative(schema) else "json-int"
        if types == "number":
            return "json-unumber" if self._non_negative(schema) else "json-number"
        if types == "boolean":
            return _BOOL[self.style]
        if types == "null":
            return _NULL[self.style]
        if types == "array":
            return self._array(schema, hint)
        if types == "object":
            return self.object(schema, hint)
        raise self._err(f"unknown type {types!r}", hint)

    @staticmethod
    def _infer_type(schema: Mapping[str, Any]) -> str | None:
        if any(k in schema for k in ("properties", "additionalProperties", "required")):
            return "object"
        if "items" in schema or "prefixItems" in schema:
            return "array"
        if any(k in schema for k in ("minLength", "maxLength", "pattern")):
            return "string"
        if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
            return "number"
        return None

    @staticmethod
    def _non_negative(schema: Mapping[str, Any]) -> bool:
        for key in ("minimum", "exclusiveMinimum"):
            v = schema.get(key)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0:
                return True
        return False

    def _ref(self, schema: Mapping[str, Any], hint: str) -> str:
        ref = schema["$ref"]
        extra = {k: v for k, v in schema.items() if k != "$ref" and k not in _ANNOTATIONS}
        if extra:  # $ref with sibling constraints: inline the merged schema
            return self.value(self.resolve(schema, hint), hint)
        if ref in self._refs:
            return self._refs[ref]
        target = self._pointer(ref, hint)
        name = self.rs.name(f"{self.prefix}-def-{str(ref).rsplit('/', 1)[-1]}")
        self._refs[ref] = name
        self.rs.define(name, self.value(target, name))
        return name

    def _string(self, schema: Mapping[str, Any], hint: str) -> str:
        if self.style == "gemma":
            return _STRING["gemma"]
        lo = schema.get("minLength", 0)
        hi = schema.get("maxLength")
        lo = lo if isinstance(lo, int) and not isinstance(lo, bool) and lo > 0 else 0
        hi = hi if isinstance(hi, int) and not isinstance(hi, bool) and hi >= 0 else None
        if hi is not None and hi > MAX_STRING_BOUND:
            hi = None
        if hi is not None and hi < lo:
            raise self._err(f"maxLength {hi} < minLength {lo}", hint)
        if lo > MAX_REPETITION:
            raise self._err(f"minLength {lo} is above the grammar limit {MAX_REPETITION}", hint)
        if lo == 0 and hi is None:
            return _STRING[self.style]
        return self.rs.add(f"{hint}-str", f'"\\"" {_CHAR[self.style]}{_quant(lo, hi)} "\\""')

    def _array(self, schema: Mapping[str, Any], hint: str) -> str:
        sep = self.sep
        open_, close = f'"[" {self.pad}'.strip(), f'{self.pad} "]"'.strip()
        prefix = schema.get("prefixItems")
        items = schema.get("items", True)
        if prefix is None and isinstance(items, list):
            prefix = items
        if prefix is not None:  # tuple form: exactly these items, in order
            if not isinstance(prefix, list):
                raise self._err("prefixItems must be a list", hint)
            parts = [self.value(s, f"{hint}-{i}") for i, s in enumerate(prefix)]
            body = f" {sep} ".join(parts)
            return self.rs.add(hint, " ".join(p for p in (open_, body, close) if p))
        item = self.value(items, f"{hint}-item")
        lo = schema.get("minItems", 0)
        hi = schema.get("maxItems")
        lo = lo if isinstance(lo, int) and not isinstance(lo, bool) and lo > 0 else 0
        hi = hi if isinstance(hi, int) and not isinstance(hi, bool) and hi >= 0 else None
        if hi is not None and hi > MAX_ARRAY_BOUND:
            hi = None
        if hi is not None and hi < lo:
            raise self._err(f"maxItems {hi} < minItems {lo}", hint)
        if lo > MAX_REPETITION:
            raise self._err(f"minItems {lo} is above the grammar limit {MAX_REPETITION}", hint)
        more = f"({sep} {item})"
        if hi == 0:
            body = ""
        elif lo == 0:
            body = f"({item} {more}{_quant(0, None if hi is None else hi - 1)})?"
        else:
            rep = _quant(lo - 1, None if hi is None else hi - 1)
            body = item if rep == "{0}" else f"{item} {more}{rep}"
        return self.rs.add(hint, " ".join(p for p in (open_, body, close) if p))

    # -- objects ------------------------------------------------------------------------------

    def object_parts(self, schema: Mapping[str, Any], hint: str) -> tuple[list[tuple[str, bool, Any]], Any]:
        """(properties as (key, required, schema) in schema order, extra-value schema or None)."""
        props = schema.get("properties") or {}
        if not isinstance(props, Mapping):
            raise self._err("properties must be an object", hint)
        required = schema.get("required") or []
        if not isinstance(required, list):
            raise self._err("required must be a list", hint)
        order = list(props) + [r for r in required if r not in props]
        for k in order:
            if props.get(k) is False and k in required:
                raise self._err(f"required property {k!r} has schema false", hint)
        parts = [(str(k), k in required, props.get(k, True)) for k in order if props.get(k) is not False]
        ap = schema.get("additionalProperties")
        if ap is False:
            extra = None
        elif ap is None:
            extra = None if props else True
        elif ap is True:
            extra = True
        else:
            extra = ap
        return parts, extra

    def object(self, schema: Mapping[str, Any], hint: str) -> str:
        parts, extra = self.object_parts(schema, hint)
        need_rules = any(not req for _, req, _ in parts)
        kvs = []
        for key, req, sub in parts:
            kv = f"{self.key_literal(key, hint)} {self.value(sub, f'{hint}-{key}')}"
            if need_rules:
                kv = self.rs.add(f"{hint}-{key}-kv", kv)
            kvs.append((kv, req))
        extra_kv = None
        if extra is not None:
            key_rule = {"json": "json-string", "python": "py-string", "gemma": "gm-key"}[self.style] \
                + " " + self.colon
            extra_kv = self.rs.add(f"{hint}-extra-kv", f"{key_rule} {self.value(extra, f'{hint}-extra')}")
        body = members(kvs, self.sep, extra_kv)
        text = " ".join(p for p in ('"{"', self.pad, body, self.pad, '"}"') if p)
        return self.rs.add(hint, text)

    def top_object(self, schema: Any, hint: str) -> tuple[list[tuple[str, bool, Any]], Any]:
        """The parts of a tool's ``parameters`` (which must describe an object)."""
        if schema is None:
            return [], None
        s = self.resolve(schema, hint)
        if s is True or s == {}:
            return [], True
        if not isinstance(s, Mapping):
            raise self._err("parameters must be an object schema", hint)
        t = s.get("type", "object")
        if t == "dict":
            t = "object"
        if t != "object" and not (isinstance(t, list) and "object" in t):
            raise self._err(f"parameters must have type 'object', got {t!r}", hint)
        if any(k in s for k in ("anyOf", "oneOf")):
            raise self._err("anyOf/oneOf at the top of parameters is not supported in this wire format", hint)
        return self.object_parts(s, hint)
