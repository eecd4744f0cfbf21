"""Convert BFCL function documents into OpenAI-style tool dicts with standard JSON Schema.

BFCL writes parameter types in Python terms (``dict``, ``float``, ``tuple``, ``any``);
the tool registry, the grammar builders and chat templates expect JSON Schema
(``object``, ``number``, ``array``, no type). Descriptions, enums and defaults are kept
because small models lean on them.

Function names may contain dots (``math.factorial``), which many tool APIs reject.
BFCL's own rule is to replace dots with underscores when presenting the function and to
accept that spelling when scoring; :func:`sanitize_name` does the same (and also replaces
any other character outside ``[A-Za-z0-9_-]``), and :func:`name_map` maps back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["BfclSchemaError", "convert_schema", "name_map", "sanitize_name", "to_json_schema"]


class BfclSchemaError(ValueError):
    """A BFCL function document cannot be converted (unknown type, wrong shape)."""


# BFCL type name -> JSON Schema type name; None means "no type constraint".
_TYPES: dict[str, str | None] = {
    "dict": "object",
    "object": "object",
    "float": "number",
    "number": "number",
    "integer": "integer",
    "int": "integer",
    "string": "string",
    "str": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "null": "null",
    "any": None,
}

# Keywords copied as-is: standard JSON Schema annotations and simple validations.
# Anything else (BFCL's ``optional`` flag, typos, vendor keys) is dropped.
_COPY = (
    "title",
    "description",
    "enum",
    "const",
    "default",
    "examples",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
)

_BAD_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def sanitize_name(name: str) -> str:
    """Return a tool name valid for OpenAI-style APIs (``^[A-Za-z0-9_-]{1,64}$``).

    Dots become underscores exactly as BFCL does; other illegal characters too.
    """
    if not isinstance(name, str) or not name:
        raise BfclSchemaError(f"function name must be a non-empty string, got {name!r}")
    return _BAD_NAME_CHARS.sub("_", name)[:64]


def name_map(func_docs: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Map sanitized names back to BFCL's original names for one case's functions.

    Raises BfclSchemaError when two functions collapse onto the same sanitized name,
    since a call could then not be attributed.
    """
    out: dict[str, str] = {}
    for doc in func_docs:
        original = doc["name"]
        safe = sanitize_name(original)
        if out.get(safe, original) != original:
            raise BfclSchemaError(
                f"functions {out[safe]!r} and {original!r} share the sanitized name {safe!r}"
            )
        out[safe] = original
    return out


def _convert_type(raw: Any, path: str) -> str | list[str] | None:
    if isinstance(raw, list):  # a union; keep the distinct mapped members
        mapped = [_convert_type(t, path) for t in raw]
        if any(m is None for m in mapped):
            return None
        unique = list(dict.fromkeys(m for m in mapped if isinstance(m, str)))
        return unique[0] if len(unique) == 1 else unique
    if raw is None:
        return None
    if not isinstance(raw, str) or raw.lower() not in _TYPES:
        raise BfclSchemaError(f"unknown BFCL type {raw!r} at {path}")
    return _TYPES[raw.lower()]


def convert_schema(node: Mapping[str, Any], path: str = "parameters") -> dict[str, Any]:
    """Convert one BFCL parameter schema (recursively) to JSON Schema."""
    if not isinstance(node, Mapping):
        raise BfclSchemaError(f"schema at {path} must be an object, got {type(node).__name__}")
    out: dict[str, Any] = {}
    json_type = _convert_type(node.get("type"), path)
    if json_type is not None:
        out["type"] = json_type
    for key in _COPY:
        if key in node:
            out[key] = node[key]

    props = node.get("properties")
    if props is not None:
        if not isinstance(props, Mapping):
            raise BfclSchemaError(f"'properties' at {path} must be an object")
        out["properties"] = {str(k): convert_schema(v, f"{path}.{k}") for k, v in props.items()}
    required = node.get("required")
    if required is not None:
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise BfclSchemaError(f"'required' at {path} must be a list of names")
        names = list(dict.fromkeys(required))
        if "properties" in out:  # a required name with no property is a data slip; drop it
            names = [n for n in names if n in out["properties"]]
        if names:
            out["required"] = names

    items = node.get("items")
    if isinstance(items, Mapping):
        out["items"] = convert_schema(items, f"{path}[]")
    elif isinstance(items, list):  # positional items (tuple): JSON Schema 2020-12 prefixItems
        out["prefixItems"] = [convert_schema(s, f"{path}[{i}]") for i, s in enumerate(items)]
    elif items is not None:
        raise BfclSchemaError(f"'items' at {path} must be an object or a list")

    extra = node.get("additionalProperties")
    if isinstance(extra, bool):
        out["additionalProperties"] = extra
    elif isinstance(extra, Mapping):
        out["additionalProperties"] = convert_schema(extra, f"{path}.*")
    return out


def to_json_schema(func_doc: Mapping[str, Any], *, sanitize: bool = False) -> dict[str, Any]:
    """Turn one BFCL function document into an OpenAI tool dict.

    ``{"type": "function", "function": {"name", "description", "parameters"}}``; the
    name is BFCL's as-is unless ``sanitize=True`` (then use :func:`name_map` to map
    calls back; the checker accepts both spellings either way).
    """
    if not isinstance(func_doc, Mapping) or "name" not in func_doc:
        raise BfclSchemaError("a BFCL function document needs at least a 'name'")
    name = func_doc["name"]
    params_doc = func_doc.get("parameters") or {"type": "dict", "properties": {}}
    params = convert_schema(params_doc, f"{name}.parameters")
    if params.get("type") != "object":
        raise BfclSchemaError(
            f"parameters of {name!r} must be of type dict/object, got {params_doc.get('type')!r}"
        )
    params.setdefault("properties", {})
    function: dict[str, Any] = {
        "name": sanitize_name(name) if sanitize else name,
        "description": str(func_doc.get("description") or ""),
        "parameters": params,
    }
    return {"type": "function", "function": function}
