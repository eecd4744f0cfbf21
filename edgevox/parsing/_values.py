"""Value-level helpers: bracket scanning, lenient JSON, safe literals, call normalisation.

Nothing here evaluates model text: JSON goes through ``json``; Python-style literals go
through ``ast.parse`` and a walker that accepts only literal nodes.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

from .types import MAX_DEPTH, Item, RejectedCall, ToolCall

_DECODER = json.JSONDecoder()
_JSON_STOPS = re.compile(r'[{}\[\]"]')
_PY_STOPS = re.compile(r"[{}\[\]()\"',]")
_PAIRS = {"{": "}", "[": "]", "(": ")"}


@dataclass
class Scan:
    """Result of scanning a bracketed value from ``start``.

    ``end`` is the index after the matching closer, or None when the text ends first
    (``stack`` then holds the closers still expected, ``in_string`` whether it ended inside
    a string). ``commas`` are top-level separator positions (depth 1) and ``closes`` the
    positions just after a depth-2 group closed (for repairing a list that lost its ``]``).
    """

    end: int | None
    stack: list[str] = field(default_factory=list)
    in_string: bool = False
    too_deep: bool = False
    commas: list[int] = field(default_factory=list)
    closes: list[int] = field(default_factory=list)
    mismatched: bool = False


def scan(text: str, start: int, python: bool = False, limit: int | None = None) -> Scan:
    """Find the end of the bracketed value opening at ``text[start]`` without parsing it."""
    stops = _PY_STOPS if python else _JSON_STOPS
    quotes = "\"'" if python else '"'
    n = len(text) if limit is None else min(limit, len(text))
    stack: list[str] = []
    res = Scan(end=None)
    i = start
    while i < n:
        m = stops.search(text, i, n)
        if m is None:
            break
        c = m.group()
        i = m.end()
        if c in quotes:
            j = _string_end(text, i, c, n)
            if j is None:
                res.in_string = True
                break
            i = j
        elif c in _PAIRS:
            stack.append(_PAIRS[c])
            if len(stack) > MAX_DEPTH + 2:
                res.too_deep = True
                break
        elif c == ",":
            if len(stack) == 1:
                res.commas.append(m.start())
        else:  # a closer
            if not stack:
                res.mismatched = True
                res.end = m.start()
                return res
            want = stack.pop()
            if want != c:  # `{)`: malformed here, whatever follows
                res.mismatched = True
                res.end = i
                return res
            if not stack:
                res.end = i
                return res
            if len(stack) == 1:
                res.closes.append(i)
    res.stack = list(reversed(stack))
    return res


def _string_end(text: str, i: int, quote: str, n: int) -> int | None:
    """Index after the closing ``quote`` of a string whose body starts at ``i``."""
    while True:
        j = text.find(quote, i, n)
        if j < 0:
            return None
        k = j - 1
        while k >= i and text[k] == "\\":
            k -= 1
        if (j - 1 - k) % 2 == 0:  # even number of backslashes: the quote is real
            return j + 1
        i = j + 1


def skip_blanks(text: str, i: int, end: int) -> int:
    """The first index from ``i`` (below ``end``) that is not a space, tab or newline."""
    while i < end and text[i] in " \t\r\n":
        i += 1
    return i


def unbalanced(text: str, start: int) -> bool:
    """True when the value opening at ``text[start]`` is not closed yet (JSON or Python quoting)."""
    return scan(text, start).end is None and scan(text, start, python=True).end is None


def depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when ``value`` nests no deeper than ``limit`` (level by level: no recursion risk,
    and a flat call's arguments cost one pass over their values)."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level:
        if depth >= limit:
            return False
        nxt: list[Any] = []
        for v in level:
            for x in v.values() if isinstance(v, dict) else v:
                if isinstance(x, (dict, list)):
                    nxt.append(x)
        level = nxt
        depth += 1
    return True


class _NotLiteral(ValueError):
    pass


_NAMED = {"True": True, "False": False, "None": None, "true": True, "false": False, "null": None}


def literal(node: ast.AST, depth: int = 0) -> Any:
    """Convert a literal AST node to JSON-compatible data; raise ValueError otherwise.

    Tuples and sets become lists; ``true/false/null`` are accepted as names because small
    models mix JSON into Python. Calls, names, operators, f-strings: rejected.
    """
    if depth > MAX_DEPTH:
        raise _NotLiteral("nesting too deep")
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, (str, int, float, bool)) or v is None:
            return v
        raise _NotLiteral(f"unsupported constant {type(v).__name__}")
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [literal(e, depth + 1) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                raise _NotLiteral("dict unpacking is not a literal")
            key = literal(k, depth + 1)
            if isinstance(key, bool) or key is None or not isinstance(key, (str, int, float)):
                raise _NotLiteral("dict keys must be strings or numbers")
            out[str(key)] = literal(v, depth + 1)
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = literal(node.operand, depth + 1)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise _NotLiteral("sign applied to a non-number")
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Name) and node.id in _NAMED:
        return _NAMED[node.id]
    raise _NotLiteral(f"{type(node).__name__} is not a literal")


def py_literal(src: str) -> Any:
    """Parse a Python-style literal (``{'a': True}``) safely; raise ValueError on anything else."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(src.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError, TypeError) as e:
        raise ValueError(f"not a literal: {e}") from None
    return literal(tree.body)


@dataclass
class Decoded:
    """A value decoded from ``text[start:end]``; ``error`` set when it could not be."""

    value: Any = None
    end: int | None = None
    error: str | None = None
    truncated: bool = False


def decode_at(text: str, start: int, limit: int | None = None, repair: bool = False) -> Decoded:
    """Decode the JSON (or Python-literal) object/array opening at ``text[start]``.

    ``truncated`` means the text ended before the value closed. With ``repair`` (used only
    when a closing tag bounds the region) missing closers at the end are supplied.
    """
    n = len(text) if limit is None else limit
    try:
        value, end = _DECODER.raw_decode(text, start)
        if end <= n:
            # fewer brackets than the limit cannot nest deeper than it: skip the walk
            deep = text.count("{", start, end) + text.count("[", start, end) > MAX_DEPTH
            if deep and not depth_ok(value):
                return Decoded(end=end, error="nesting too deep")
            return Decoded(value=value, end=end)
    except (ValueError, RecursionError):
        pass
    # Both scans are decided left to right, so the earlier end of the two is the same for
    # every continuation of the text: a streamed reply reads the same way at every step.
    sc_json = scan(text, start, limit=n)
    sc_py = scan(text, start, python=True, limit=n)
    ends = [s for s in (sc_json, sc_py) if s.end is not None]
    sc = min(ends, key=lambda s: s.end) if ends else sc_json
    if sc.end is None:
        if sc_json.too_deep or sc_py.too_deep:
            return Decoded(error="nesting too deep", truncated=True)
        if repair and not sc.in_string and sc.stack:
            src = text[start:n].rstrip().rstrip(",") + "".join(sc.stack)
            v = _loads_any(src)
            if v is not _FAIL:
                return Decoded(value=v, end=n)
        return Decoded(error="truncated JSON (the reply ended before the call was complete)", truncated=True)
    if sc.mismatched:
        return Decoded(end=sc.end, error="malformed JSON (mismatched brackets)")
    v = _loads_any(text[start:sc.end])
    if v is _FAIL:
        return Decoded(end=sc.end, error="malformed JSON")
    return Decoded(value=v, end=sc.end)


_FAIL = object()


def _loads_any(src: str) -> Any:
    try:
        v = json.loads(src)
    except (ValueError, RecursionError):
        try:
            v = py_literal(src)
        except ValueError:
            return _FAIL
    return v if depth_ok(v) else _FAIL


_ARG_KEYS = ("arguments", "parameters", "args")
CALL_KEYS = frozenset({"name", "arguments", "parameters", "args", "id", "type"})


def unwrap(obj: dict[str, Any]) -> dict[str, Any]:
    """Flatten the OpenAI shape ``{"id", "type", "function": {"name", "arguments"}}``."""
    fn = obj.get("function")
    if isinstance(fn, dict) and "name" in fn and "name" not in obj:
        merged = dict(fn)
        if "id" in obj and "id" not in merged:
            merged["id"] = obj["id"]
        return merged
    return obj


def is_call_shaped(obj: Any) -> bool:
    """Exactly a call: a name plus arguments/parameters (and optionally id/type)."""
    if not isinstance(obj, dict):
        return False
    obj = unwrap(obj)
    return (
        isinstance(obj.get("name"), str)
        and any(k in obj for k in _ARG_KEYS)
        and set(obj) <= CALL_KEYS
    )


def item_from_obj(obj: Any, raw: str, call_id: str | None = None) -> Item:
    """Normalise one decoded call object into a ToolCall, or say why it is not one."""
    if not isinstance(obj, dict):
        return RejectedCall(None, raw, f"a tool call must be an object, got {type(obj).__name__}")
    if "function" in obj:
        obj = unwrap(obj)
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        return RejectedCall(None, raw, "tool call without a name")
    name = name.strip()
    args: Any = None
    for k in _ARG_KEYS:
        if k in obj:
            args = obj[k]
            break
    args_or_err = normalise_args(args)
    if isinstance(args_or_err, str):
        return RejectedCall(name, raw, args_or_err)
    ident = obj.get("id")
    if call_id is None and isinstance(ident, str) and ident:
        call_id = ident
    return ToolCall(call_id, name, args_or_err)


def normalise_args(args: Any) -> dict[str, Any] | str:
    """Arguments as a dict; a JSON string is decoded. Returns an error message otherwise."""
    if args is None:
        return {}
    if type(args) is dict:  # the usual case: no string to decode
        return args if depth_ok(args) else "arguments nested too deeply"
    if isinstance(args, str):
        s = args.strip()
        if not s:
            return {}
        try:
            args = json.loads(s)
        except (ValueError, RecursionError):
            try:
                args = py_literal(s)
            except ValueError:
                return "arguments given as a string that is not a JSON object"
    if not isinstance(args, dict):
        return f"arguments must be an object, got {type(args).__name__}"
    if not depth_ok(args):
        return "arguments nested too deeply"
    return args


def items_from_value(value: Any, raw: str) -> list[Item]:
    """Calls in a decoded value: one call object, a list of them, or ``{"tool_calls": [...]}``."""
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list) and "name" not in value:
        value = value["tool_calls"]
    if isinstance(value, list):
        return [item_from_obj(v, _raw_of(v, raw)) for v in value]
    return [item_from_obj(value, raw)]


def _raw_of(v: Any, fallback: str) -> str:
    try:
        return json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        return fallback


def split_elements(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Top-level element ranges of the list ``text[start:end]`` (``start`` at ``[``).

    Used to salvage well-formed siblings when the list as a whole does not decode.
    """
    sc = scan(text, start, python=True, limit=end)
    bounds = [start + 1, *[c + 1 for c in sc.commas]]
    stops = [*sc.commas, (sc.end - 1) if sc.end is not None else end]
    out = []
    for a, b in zip(bounds, stops, strict=False):
        if text[a:b].strip():
            out.append((a, b))
    return out


def coerce_to_schema(args: dict[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    """Decode stringified values (``"3"``, ``"[1, 2]"``) where the schema wants non-strings.

    Llama 3.2 and small Qwen models often quote numbers and lists; a value is decoded only
    when the result has the declared type, so strings stay strings.
    """
    if not props:
        return args
    out = dict(args)
    for key, val in args.items():
        spec = props.get(key)
        if not isinstance(val, str) or not isinstance(spec, dict):
            continue
        want = spec.get("type")
        wants = set(want) if isinstance(want, list) else {want}
        if "string" in wants or not wants - {None}:
            continue
        try:
            dec = json.loads(val.strip())
        except (ValueError, RecursionError):
            if "boolean" in wants and val.strip().lower() in ("true", "false"):
                out[key] = val.strip().lower() == "true"
            continue
        if _has_type(dec, wants) and depth_ok(dec):
            out[key] = dec
    return out


def _has_type(v: Any, wants: set[Any]) -> bool:
    checks = {
        "integer": lambda x: isinstance(x, int) and not isinstance(x, bool),
        "number": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
        "boolean": lambda x: isinstance(x, bool),
        "array": lambda x: isinstance(x, list),
        "object": lambda x: isinstance(x, dict),
        "null": lambda x: x is None,
    }
    return any(checks[w](v) for w in wants if w in checks)
