"""Argument checking against a tool's parameter schema.

Order matters: coerce -> validate (jsonschema, Draft 2020-12) -> fill defaults.
Defaults are filled *after* validation because Python signatures often carry
defaults the annotation does not admit (``days: int = None``).

The coercions are deliberately few, because every coercion hides a model error:

1. a JSON **string** that decodes to an object/array, where the schema wants an
   object/array and does not accept a string (small models often stringify nested
   arguments, e.g. ``"filters": "{\\"a\\": 1}"``);
2. an **integral float** (``3.0``) where the schema wants an integer and not a
   number; it becomes ``3``.

Nothing else: ``true`` is not an integer, ``"3"`` is not a number.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from .errors import ToolArgumentError, json_pointer

_MAX_MESSAGE = 300


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "unknown"


def allowed_types(schema: Any) -> set[str] | None:
    """JSON types a (sub)schema can accept, or None when it does not say."""
    if not isinstance(schema, dict):
        return None
    t = schema.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list) and branches:
        out: set[str] = set()
        for b in branches:
            bt = allowed_types(b)
            if bt is None:
                return None
            out |= bt
        return out
    if isinstance(schema.get("enum"), list):
        return {json_type(v) for v in schema["enum"]}
    return None


def _accepts(types: set[str] | None, jtype: str) -> bool:
    return types is None or jtype in types or (jtype == "integer" and "number" in types)


def _branch_for(schema: dict, jtype: str) -> dict:
    """The subschema that describes values of ``jtype`` (first matching anyOf/oneOf branch)."""
    branches = schema.get("anyOf") or schema.get("oneOf")
    if "type" in schema or not isinstance(branches, list):
        return schema
    for b in branches:
        if isinstance(b, dict) and _accepts(allowed_types(b), jtype):
            return _branch_for(b, jtype)
    return schema


def coerce(schema: Any, value: Any) -> Any:
    """Apply the two documented coercions anywhere in ``value`` (returns a new value)."""
    if not isinstance(schema, dict):
        return value
    types = allowed_types(schema)
    if (
        isinstance(value, str)
        and types is not None
        and "string" not in types
        and types & {"object", "array"}
    ):
        try:
            decoded = json.loads(value)
        except ValueError:
            decoded = None
        if (isinstance(decoded, dict) and "object" in types) or (
            isinstance(decoded, list) and "array" in types
        ):
            value = decoded
    if (
        isinstance(value, float)
        and types is not None
        and "integer" in types
        and "number" not in types
        and value.is_integer()
    ):
        value = int(value)
    if isinstance(value, dict):
        s = _branch_for(schema, "object")
        props = s.get("properties") if isinstance(s.get("properties"), dict) else {}
        extra = s.get("additionalProperties")
        return {
            k: coerce(props[k], v)
            if k in props
            else coerce(extra, v)
            if isinstance(extra, dict)
            else v
            for k, v in value.items()
        }
    if isinstance(value, list):
        s = _branch_for(schema, "array")
        prefix = s.get("prefixItems") if isinstance(s.get("prefixItems"), list) else []
        items = s.get("items")
        out = []
        for i, v in enumerate(value):
            sub = prefix[i] if i < len(prefix) else items
            out.append(coerce(sub, v))
        return out
    return value


def fill_defaults(schema: Any, value: Any) -> Any:
    """Copy schema ``default``s into objects that lack the property (recursively)."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        s = _branch_for(schema, "object")
        props = s.get("properties") if isinstance(s.get("properties"), dict) else {}
        out = {k: fill_defaults(props.get(k), v) for k, v in value.items()}
        for k, sub in props.items():
            if k not in out and isinstance(sub, dict) and "default" in sub:
                out[k] = copy.deepcopy(sub["default"])
        return out
    if isinstance(value, list):
        s = _branch_for(schema, "array")
        items = s.get("items")
        return [fill_defaults(items, v) for v in value]
    return value


def _short(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def check(validator: Draft202012Validator, tool: str, arguments: Any) -> None:
    """Raise ToolArgumentError for the most relevant jsonschema error, if any."""
    try:
        error = best_match(validator.iter_errors(arguments))
    except RecursionError:
        raise ToolArgumentError(tool, "arguments are nested too deeply") from None
    if error is not None:
        raise ToolArgumentError(tool, _short(error.message), json_pointer(error.absolute_path))


def parse_arguments(tool: str, arguments: Any) -> dict:
    """Accept a dict, None (no arguments) or a JSON string holding an object."""
    if arguments is None:
        return {}
    if isinstance(arguments, (str, bytes, bytearray)):
        text = arguments.decode("utf-8", "replace") if not isinstance(arguments, str) else arguments
        if not text.strip():
            return {}
        try:
            arguments = json.loads(text)
        except ValueError as e:
            raise ToolArgumentError(tool, f"arguments are not valid JSON: {e}") from None
    if not isinstance(arguments, dict):
        raise ToolArgumentError(
            tool, f"arguments must be a JSON object, got {json_type(arguments)}"
        )
    bad = [k for k in arguments if not isinstance(k, str)]
    if bad:
        raise ToolArgumentError(tool, f"argument names must be strings, got {bad[0]!r}")
    return arguments
