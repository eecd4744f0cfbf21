"""JSON schemas for tool parameters.

Why pydantic: it already knows how to describe every type a developer writes in
a signature (Optional, Literal, Enum, BaseModel, TypedDict, Annotated constraints,
nested generics), and the same model that produced the schema later converts the
validated JSON back into the Python objects the function expects. We only
post-process its output into the dialect the grammar builders want:

* no ``$ref``/``$defs`` — every reference is inlined (recursive types are refused),
* no ``title`` noise,
* ``const`` becomes a one-element ``enum`` (one keyword fewer for grammar builders),
* objects with ``properties`` are closed (``additionalProperties: false``) unless the
  model said otherwise (``extra="allow"``),
* the root always has ``type``, ``properties``, ``required`` and
  ``additionalProperties: false``.

``Optional[X]`` stays the standard ``anyOf: [X, {"type": "null"}]``.
"""

from __future__ import annotations

import functools
import inspect
import re
import types
import typing
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typing_extensions
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import PydanticJsonSchemaWarning

from .errors import ToolDefinitionError

NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:\-]{0,127}$")

_SCHEMA_KEYS = (
    "items",
    "additionalProperties",
    "not",
    "contains",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
)
_SCHEMA_LIST_KEYS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")
_SCHEMA_MAP_KEYS = ("properties", "patternProperties", "dependentSchemas")
_DEFS_KEYS = ("$defs", "definitions")

# BFCL and some hand-written tool lists use Python-ish type names.
_TYPE_ALIASES = {
    "dict": "object",
    "float": "number",
    "double": "number",
    "int": "integer",
    "long": "integer",
    "bool": "boolean",
    "str": "string",
    "list": "array",
    "tuple": "array",
}


# --------------------------------------------------------------------------- walking


def map_schema(node: Any, fn: Callable[[dict], dict]) -> Any:
    """Apply ``fn`` bottom-up to every subschema of ``node`` (a fresh copy is returned).

    Only schema positions are visited: a property *named* ``title`` or a ``default``
    value that happens to contain ``$ref`` is left alone.
    """
    if not isinstance(node, dict):
        return node
    return fn(_map_children(node, lambda sub: map_schema(sub, fn), _SCHEMA_MAP_KEYS + _DEFS_KEYS))


def _map_children(node: dict, fn: Callable[[Any], Any], map_keys: tuple[str, ...] = _SCHEMA_MAP_KEYS) -> dict:
    """A copy of ``node`` with ``fn`` applied to each direct subschema: the one walk over
    schema positions that ``map_schema`` and ``inline_refs`` share."""
    out = dict(node)
    for key in _SCHEMA_KEYS:
        if isinstance(out.get(key), dict):
            out[key] = fn(out[key])
    for key in _SCHEMA_LIST_KEYS:
        if isinstance(out.get(key), list):
            out[key] = [fn(s) for s in out[key]]
    for key in map_keys:
        if isinstance(out.get(key), dict):
            out[key] = {k: fn(s) for k, s in out[key].items()}
    return out


def inline_refs(schema: dict) -> dict:
    """Replace every local ``$ref`` by the schema it points to and drop ``$defs``.

    Sibling keywords of a ``$ref`` (``description``, ``default``) win over the target's.
    A single-element ``allOf`` wrapper (older pydantic) is merged the same way.
    """
    defs: dict[str, Any] = {}
    for key in _DEFS_KEYS:
        if isinstance(schema.get(key), dict):
            for name, sub in schema[key].items():
                defs[f"#/{key}/{name}"] = sub

    def resolve(node: Any, stack: tuple[str, ...]) -> Any:
        if not isinstance(node, dict):
            return node
        node = {k: v for k, v in node.items() if k not in _DEFS_KEYS}
        ref = node.pop("$ref", None)
        if ref is None and isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
            inner = node.pop("allOf")[0]
            merged = resolve(inner, stack)
            return (
                {**merged, **_resolve_children(node, stack)} if isinstance(merged, dict) else node
            )
        if ref is not None:
            if ref == "#" or ref in stack:
                raise ToolDefinitionError(
                    f"recursive type {ref.rsplit('/', 1)[-1]!r} cannot be expressed as a flat schema"
                )
            if ref not in defs:
                raise ToolDefinitionError(
                    f"unresolvable $ref {ref!r} (only local $defs are supported)"
                )
            target = resolve(defs[ref], stack + (ref,))
            return {**target, **_resolve_children(node, stack)}
        return _resolve_children(node, stack)

    def _resolve_children(node: dict, stack: tuple[str, ...]) -> dict:
        return _map_children(node, lambda sub: resolve(sub, stack))

    return resolve(schema, ())


def _tidy(node: dict, *, close_objects: bool) -> dict:
    node.pop("title", None)
    if "const" in node and "enum" not in node:
        node["enum"] = [node.pop("const")]
    t = node.get("type")
    if isinstance(t, str) and t in _TYPE_ALIASES:
        node["type"] = _TYPE_ALIASES[t]
    elif isinstance(t, list):
        node["type"] = [_TYPE_ALIASES.get(x, x) if isinstance(x, str) else x for x in t]
    if node.get("type") == "any":
        node.pop("type")
    if close_objects and "properties" in node and "additionalProperties" not in node:
        node["additionalProperties"] = False
    return node


def finish_root(schema: dict) -> dict:
    """Give the root object the fixed shape every consumer can rely on."""
    schema = dict(schema)
    schema.setdefault("type", "object")
    if schema["type"] != "object":
        raise ToolDefinitionError(
            f"tool parameters must be an object schema, got type {schema['type']!r}"
        )
    props = schema.get("properties") or {}
    required = [r for r in schema.get("required") or [] if r in props]
    missing = [r for r in schema.get("required") or [] if r not in props]
    if missing:
        raise ToolDefinitionError(f"required parameters without a schema: {missing}")
    out = {"type": "object", "properties": props, "required": required}
    out.update({k: v for k, v in schema.items() if k not in out})
    out.setdefault("additionalProperties", False)
    return out


def clean_schema(schema: dict, *, close_objects: bool = True, object_root: bool = True) -> dict:
    """Inline refs, strip titles, normalise type aliases; then fix the root shape (an
    object; with ``object_root=False`` any root, e.g. a union of objects, is left as it is)."""
    flat = inline_refs(schema)
    flat = map_schema(flat, functools.partial(_tidy, close_objects=close_objects))
    return finish_root(flat) if object_root else flat


# --------------------------------------------------------------------------- TypedDicts


@functools.cache
def _retype_typeddict(td: type) -> Any:
    """An equivalent ``typing_extensions.TypedDict`` for a ``typing.TypedDict``.

    pydantic refuses ``typing.TypedDict`` before Python 3.12; developers should not
    have to know that. Required/NotRequired per key is preserved.
    """
    hints = typing.get_type_hints(td, include_extras=True)
    fields = {}
    for key, ann in hints.items():
        origin = typing.get_origin(ann)
        # Trust an explicit Required/NotRequired over __required_keys__: with string
        # annotations (PEP 563) typing.TypedDict cannot see them on 3.11.
        required = key in td.__required_keys__
        if origin in (typing_extensions.Required, typing_extensions.NotRequired):
            required = origin is typing_extensions.Required
            ann = typing.get_args(ann)[0]
        ann = translate_annotation(ann)
        wrap = typing_extensions.Required if required else typing_extensions.NotRequired
        fields[key] = wrap[ann]
    new = typing_extensions.TypedDict(td.__name__, fields)  # type: ignore[operator]
    new.__doc__ = td.__doc__
    new.__module__ = td.__module__
    new.__qualname__ = td.__qualname__
    return new


def translate_annotation(ann: Any) -> Any:
    """Rewrite ``typing.TypedDict`` classes anywhere inside ``ann`` (see ``_retype_typeddict``)."""
    if isinstance(ann, type) and typing.is_typeddict(ann) and type(ann).__module__ == "typing":
        return _retype_typeddict(ann)
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is None or not args:
        return ann
    if origin is typing.Annotated:
        inner = translate_annotation(args[0])
        return ann if inner is args[0] else typing.Annotated[(inner, *ann.__metadata__)]
    if origin is typing.Literal:
        return ann
    new_args = tuple(translate_annotation(a) if a is not Ellipsis else a for a in args)
    if all(a is b for a, b in zip(new_args, args, strict=True)):
        return ann
    if origin in (typing.Union, types.UnionType):
        return typing.Union[new_args]  # noqa: UP007 - built from a runtime tuple
    try:
        return origin[new_args]
    except TypeError:
        return ann


# --------------------------------------------------------------------------- functions


@dataclass
class ParamSpec:
    """How one Python parameter maps to a JSON property."""

    name: str  # JSON property name == Python parameter name
    field: str  # attribute name on the pydantic arguments model
    kind: inspect._ParameterKind


@dataclass
class FunctionSchema:
    parameters: dict
    model: type[BaseModel]
    params: list[ParamSpec]


def _hints_target(fn: Callable) -> Any:
    if isinstance(fn, functools.partial):
        return _hints_target(fn.func)
    if inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isbuiltin(fn):
        return fn
    call = getattr(type(fn), "__call__", None)  # noqa: B004 - want the method itself
    return call if call is not None else fn


def function_schema(
    fn: Callable,
    *,
    tool_name: str,
    param_docs: dict[str, str],
    localns: dict[str, Any] | None = None,
) -> FunctionSchema:
    """Build the parameter schema and the arguments model for ``fn``.

    ``localns``: the namespace where the function was defined, used only when
    string annotations (``from __future__ import annotations``) name classes that
    are local to that scope and so are not in the module globals.
    """
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as e:
        raise ToolDefinitionError(f"cannot read the signature of tool {tool_name!r}: {e}") from e
    target = _hints_target(fn)
    try:
        try:
            hints = typing.get_type_hints(target, include_extras=True)
        except NameError:
            if not localns:
                raise
            hints = typing.get_type_hints(target, localns=dict(localns), include_extras=True)
    except Exception as e:  # NameError for unresolvable forward refs, among others
        raise ToolDefinitionError(
            f"cannot resolve the type hints of tool {tool_name!r}: {e}"
        ) from e

    fields: dict[str, Any] = {}
    params: list[ParamSpec] = []
    annotations: dict[str, Any] = {}
    for i, (pname, p) in enumerate(sig.parameters.items()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"tool {tool_name!r}: *args/**kwargs ({pname}) cannot be described to a model; "
                "list the parameters explicitly"
            )
        ann = translate_annotation(hints.get(pname, Any))
        annotations[pname] = ann
        extra: dict[str, Any] = {"alias": pname}
        if pname in param_docs:
            extra["description"] = param_docs[pname]
        if isinstance(p.default, FieldInfo):
            if p.default.description is not None:
                extra.pop("description", None)
            fields[f"p{i}"] = (ann, FieldInfo.merge_field_infos(p.default, Field(**extra)))
        else:
            default = ... if p.default is p.empty else p.default
            fields[f"p{i}"] = (ann, Field(default, **extra))
        params.append(ParamSpec(name=pname, field=f"p{i}", kind=p.kind))

    try:
        model = create_model(  # type: ignore[call-overload]
            f"{tool_name}_arguments",
            __config__=ConfigDict(extra="forbid", populate_by_name=False),
            **fields,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PydanticJsonSchemaWarning)
            raw = model.model_json_schema(by_alias=True)
    except ToolDefinitionError:
        raise
    except Exception as e:
        culprit = _find_bad_param(annotations)
        where = f" (parameter {culprit!r})" if culprit else ""
        raise ToolDefinitionError(
            f"cannot build a JSON schema for tool {tool_name!r}{where}: {e}"
        ) from e
    return FunctionSchema(parameters=clean_schema(raw), model=model, params=params)


def _find_bad_param(annotations: dict[str, Any]) -> str | None:
    for name, ann in annotations.items():
        try:
            TypeAdapter(ann).json_schema()
        except Exception:
            return name
    return None
