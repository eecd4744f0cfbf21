"""Remote structured output: schema -> `response_format`, and when the server takes it strict.

Parsing and validation are edgevox.grammars.structured's (`validate_document`), so a
reply is judged the same way whichever path produced it.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: Keywords OpenAI's strict structured-output mode accepts (everything else makes it refuse).
STRICT_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
    "description", "title", "$defs", "definitions", "$ref", "pattern", "format", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
})

#: response_format shapes, in the order tried by default.
FORMAT_STYLES = ("json_schema", "json_object")
#: the property a non-object root is wrapped in for response_format
WRAP_KEY = "value"


def wrap_root(schema: dict) -> tuple[dict, bool]:
    """(schema to send, wrapped?): a union or scalar root becomes ``{"value": <schema>}``
    (definitions stay at the root, so local ``$ref``s still resolve)."""
    if schema.get("type") == "object":
        return schema, False
    defs = {k: schema[k] for k in ("$defs", "definitions") if k in schema}
    inner = {k: v for k, v in schema.items() if k not in defs}
    return {"type": "object", "properties": {WRAP_KEY: inner}, "required": [WRAP_KEY],
            "additionalProperties": False, **defs}, True


def unwrap_reply(text: str) -> str:
    """The JSON of ``value`` in a wrapped reply (the text unchanged if it is not one)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return text
    if isinstance(doc, dict) and set(doc) == {WRAP_KEY}:
        return json.dumps(doc[WRAP_KEY], ensure_ascii=False)
    return text


def strict_compatible(schema: Any) -> bool:
    """True when `schema` satisfies strict mode: an object root, every object closed
    (additionalProperties false) with all of its properties required, known keywords only."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return False
    return _strict_node(schema)


def _strict_node(node: Any) -> bool:
    if isinstance(node, bool):
        return False
    if not isinstance(node, dict) or not set(node) <= STRICT_KEYWORDS:
        return False
    types = node.get("type")
    is_object = types == "object" or (isinstance(types, list) and "object" in types) or "properties" in node
    if is_object:
        props = node.get("properties", {})
        if node.get("additionalProperties") is not False or not isinstance(props, dict):
            return False
        if set(node.get("required", ())) != set(props):
            return False
        if not all(_strict_node(v) for v in props.values()):
            return False
    elif "additionalProperties" in node:
        return False
    children: list[Any] = []
    if "items" in node:
        children.append(node["items"])
    children.extend(node.get("anyOf", ()))
    for key in ("$defs", "definitions"):
        children.extend((node.get(key) or {}).values())
    return all(_strict_node(c) for c in children)


def schema_name(response_schema: Any, schema: dict) -> str:
    """A json_schema.name OpenAI accepts (^[A-Za-z0-9_-]{1,64}$)."""
    raw = getattr(response_schema, "__name__", None) or (
        response_schema.get("title") if isinstance(response_schema, dict) else None) or schema.get("title")
    name = re.sub(r"[^A-Za-z0-9_-]", "_", str(raw or "response"))[:64]
    return name or "response"


def response_format(style: str, schema: dict, name: str, strict: bool) -> dict:
    """The request's response_format for one style.

    json_schema: OpenAI, llama.cpp's server and vLLM. json_object + schema: the shape
    llama-cpp-python's server takes (it refuses the json_schema type).
    """
    if style == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}}
    if style == "json_object":
        return {"type": "json_object", "schema": schema}
    raise ValueError(f"unknown response_format style {style!r}; known: {', '.join(FORMAT_STYLES)}")


def is_bare_json(text: str) -> bool:
    """Whether a reply is one JSON document and nothing else -- what a server that
    applied a response_format produces. Prose or a code fence means it was ignored."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
