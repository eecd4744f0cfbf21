"""Hypothesis strategies: argument values that satisfy a JSON schema (the subset the
registry and the structured-output tests use), in schema property order."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)


def _resolve(schema: Any, root: Any) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        node = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def from_schema(schema: Any, root: Any = None, depth: int = 0) -> st.SearchStrategy:
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if schema is True or schema == {}:
        return st.one_of(st.none(), st.booleans(), st.integers(-99, 99), TEXT)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(s, root, depth + 1) for s in schema[key]])
    t = schema.get("type", "object" if "properties" in schema else None)
    if isinstance(t, list):
        return st.one_of([from_schema({**schema, "type": x}, root, depth) for x in t])
    if t == "string":
        lo = schema.get("minLength", 0)
        hi = schema.get("maxLength", max(lo, 12))
        return st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=lo, max_size=hi)
    if t == "integer":
        lo = schema.get("minimum", -10**15)
        hi = schema.get("maximum", 10**15)
        return st.integers(lo, hi)
    if t == "number":
        lo = schema.get("minimum", -1e9)
        hi = schema.get("maximum", 1e9)
        return st.one_of(st.integers(int(lo), int(hi)),
                         st.floats(lo, hi, allow_nan=False, allow_infinity=False))
    if t == "boolean":
        return st.booleans()
    if t == "null":
        return st.none()
    if t == "array":
        lo = schema.get("minItems", 0)
        hi = schema.get("maxItems", lo + 3)
        return st.lists(from_schema(schema.get("items", {}), root, depth + 1), min_size=lo, max_size=hi)
    if t == "object":
        props = schema.get("properties", {})
        req = set(schema.get("required", []))
        order = list(props)
        required = {k: from_schema(v, root, depth + 1) for k, v in props.items() if k in req}
        optional = {k: from_schema(v, root, depth + 1) for k, v in props.items() if k not in req}
        if depth > 3:
            optional = {}
        return st.fixed_dictionaries(required, optional=optional).map(
            lambda d: {k: d[k] for k in order if k in d})
    raise NotImplementedError(schema)
