"""BFCL AST checker: decide whether a model's calls answer a BFCL case.

Written from BFCL's published evaluation rules (BFCL blog "Evaluation Metrics", the
leaderboard CHANGELOG and the data README), not from its code:

* Function name must match exactly; the dots-to-underscores spelling BFCL uses for
  APIs that reject dots is accepted too.
* Every parameter the function doc lists as ``required`` must be present; parameters
  the doc does not define, or the possible answer does not mention, are rejected.
* Types are strict: bool is never int; an int is accepted for a ``float`` parameter
  only at the top level (not inside lists); a float is never accepted for an int;
  ``tuple`` and ``array`` take lists (checked element by element, recursively);
  string types take strings only ("true" is not a boolean).
* A string where another type is expected passes when it is one of the acceptable
  values: BFCL lets a model pass a variable named in the prompt (``x=data['sales']``).
* Each parameter of a possible answer maps to a list of acceptable values; ``""`` in
  that list marks the parameter optional (may be omitted). ``null`` is accepted only
  when ``None`` is listed.
* Strings compare after standardization: lower-cased, all whitespace and the
  characters ``, . / - _ * ^`` removed (both sides).
* Lists compare element-wise (order matters, same length); dicts compare by keys and
  values (order free), where a possible-answer dict again maps each key to a list of
  acceptable values; lists of dicts compare positionally, each dict as above.
* parallel / parallel_multiple: exactly as many calls as expected ones, each expected
  call matched to a distinct model call in any order (all-or-nothing).
* simple / multiple: exactly one call (for multiple: chosen among several functions).
* irrelevance: valid only when no call is made; live_relevance: at least one call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from edgevox.bfcl.schema import sanitize_name

__all__ = [
    "Verdict",
    "category_kind",
    "check",
    "check_call",
    "normalize_calls",
    "normalize_string",
]

OPTIONAL = ""  # the possible-answer marker for "this parameter may be omitted"


@dataclass(frozen=True)
class Verdict:
    """Outcome of one check. ``error_type`` is None when valid, else ``group:detail``."""

    valid: bool
    error_type: str | None
    message: str
    errors: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["errors"] = list(self.errors)
        return d


_OK = Verdict(True, None, "ok")


def _fail(error_type: str, message: str, errors: Sequence[str] = ()) -> Verdict:
    return Verdict(False, error_type, message, tuple(errors))


# ---------------------------------------------------------------- categories
_KINDS = {
    "simple": "simple",
    "simple_python": "simple",
    "live_simple": "simple",
    "multiple": "multiple",
    "live_multiple": "multiple",
    "parallel": "parallel",
    "live_parallel": "parallel",
    "parallel_multiple": "parallel_multiple",
    "live_parallel_multiple": "parallel_multiple",
    "irrelevance": "irrelevance",
    "live_irrelevance": "irrelevance",
    "live_relevance": "relevance",
}


def category_kind(category: str) -> str:
    """simple | multiple | parallel | parallel_multiple | irrelevance | relevance."""
    try:
        return _KINDS[category]
    except KeyError:
        raise ValueError(f"no AST checker for BFCL category {category!r}") from None


# ---------------------------------------------------------------- calls
class _CallFormatError(ValueError):
    pass


def _one_call(raw: Any, index: int) -> tuple[str, dict[str, Any]]:
    if isinstance(raw, Mapping):
        name = raw.get("name")
        args = raw.get("arguments", raw.get("parameters"))
    else:
        name = getattr(raw, "name", None)
        args = getattr(raw, "arguments", None)
    if not isinstance(name, str) or not name:
        raise _CallFormatError(f"call #{index} has no function name")
    if args is None:
        args = {}
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError as exc:
            raise _CallFormatError(
                f"call #{index} ({name}) has arguments that are not JSON"
            ) from exc
    if not isinstance(args, Mapping):
        raise _CallFormatError(f"call #{index} ({name}) has arguments that are not an object")
    return name, dict(args)


def normalize_calls(calls: Any) -> list[tuple[str, dict[str, Any]]]:
    """Turn dicts / ToolCall-like objects into ``(name, arguments)`` pairs.

    Raises ValueError for a call without a name or with non-object arguments.
    """
    if calls is None:
        return []
    if isinstance(calls, (str, bytes, Mapping)) or not isinstance(calls, Sequence):
        raise _CallFormatError("calls must be a list of {'name', 'arguments'} items")
    return [_one_call(c, i) for i, c in enumerate(calls)]


# ---------------------------------------------------------------- values
_STANDARDIZE = re.compile(r"[\s,./\-_*^]")


def normalize_string(text: str) -> str:
    """BFCL string standardization: lower-case; drop whitespace and ``,./-_*^``."""
    return _STANDARDIZE.sub("", text).lower()


def _is_optional_marker(value: Any) -> bool:
    return isinstance(value, str) and value == OPTIONAL


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _acceptable(raw: Any) -> list[Any]:
    """A possible-answer entry is a list of acceptable values; tolerate a bare value."""
    return list(raw) if isinstance(raw, list) else [raw]


def _equal(value: Any, expected: Any) -> bool:
    """Literal comparison with BFCL semantics (strings standardized, bool is not a number)."""
    if isinstance(expected, Mapping):
        return isinstance(value, Mapping) and _dict_error(value, expected) is None
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(expected)
            and all(_equal(v, e) for v, e in zip(value, expected, strict=True))
        )
    if isinstance(expected, str):
        return isinstance(value, str) and normalize_string(value) == normalize_string(expected)
    if isinstance(expected, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(expected, bool) and value == expected
    if expected is None:
        return value is None
    if _is_number(expected):
        return _is_number(value) and value == expected
    return bool(value == expected)


def _dict_error(value: Mapping[str, Any], expected: Mapping[str, Any]) -> tuple[str, str] | None:
    """Compare a dict with a possible-answer dict (key -> acceptable values)."""
    for key in value:
        if key not in expected:
            return "value_error:dict_key", f"unexpected key {key!r}"
    for key, raw in expected.items():
        options = _acceptable(raw)
        if key not in value:
            if any(_is_optional_marker(o) for o in options):
                continue
            return "value_error:dict_key", f"missing key {key!r}"
        if not options and isinstance(value[key], (list, tuple)) and not value[key]:
            continue  # same data quirk as for parameters: [] means "an empty list"
        if not any(_equal(value[key], o) for o in options if not _is_optional_marker(o)) \
                and not _explicit_empty(value[key], options):
            return "value_error:dict_value", f"key {key!r}: {value[key]!r} not in {options!r}"
    return None


# ---------------------------------------------------------------- types
_TYPE_NAMES = {
    "string": "string", "str": "string",
    "integer": "integer", "int": "integer",
    "float": "float", "number": "float",
    "boolean": "boolean", "bool": "boolean",
    "array": "array", "list": "array", "tuple": "array",
    "dict": "dict", "object": "dict",
    "any": "any",
}  # fmt: skip


def _type_error(
    value: Any, schema: Mapping[str, Any], path: str, top: bool
) -> tuple[str, str] | None:
    """None if ``value`` fits the BFCL type of ``schema``, else ``(error_type, reason)``.

    Lists recurse into ``items`` (nested level: no int-for-float); dict values are judged
    by the possible answer, not by type, as BFCL documents.
    """
    kind = _TYPE_NAMES.get(str(schema.get("type", "any")).lower())
    if kind in (None, "any"):
        return None
    if kind == "string":
        ok = isinstance(value, str)
    elif kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "float":
        ok = isinstance(value, float) or (
            top and isinstance(value, int) and not isinstance(value, bool)
        )
    elif kind == "boolean":
        ok = isinstance(value, bool)
    elif kind == "dict":
        ok = isinstance(value, Mapping)
    else:  # array / tuple
        ok = isinstance(value, (list, tuple))
        items = schema.get("items")
        if ok and isinstance(items, Mapping):
            for i, item in enumerate(value):
                err = _type_error(item, items, f"{path}[{i}]", top=False)
                if err:
                    return "type_error:nested", err[1]
    if ok:
        return None
    reason = f"{path}: expected {schema.get('type')}, got {type(value).__name__} {value!r}"
    return ("type_error:simple" if top else "type_error:nested"), reason


# ---------------------------------------------------------------- one call
def _names_match(called: str, expected: str) -> bool:
    """Exact, or BFCL's dots-to-underscores spelling (what ``sanitize_name`` produces)."""
    return called == expected or called == sanitize_name(expected)


def _explicit_empty(value: Any, options: list[Any]) -> bool:
    """``""`` given explicitly where ``""`` is a possible answer: BFCL's checker compares
    the standardized string with the list as it stands, so it passes there, and here
    (multiple_38, multiple_68, multiple_88)."""
    return isinstance(value, str) and normalize_string(value) == "" and any(_is_optional_marker(o) for o in options)


def _value_verdict(param: str, value: Any, options: list[Any]) -> Verdict:
    candidates = [o for o in options if not _is_optional_marker(o)]
    if any(_equal(value, o) for o in candidates) or _explicit_empty(value, options):
        return _OK
    shown = f"{param}={value!r} is not one of {candidates!r}"
    if isinstance(value, str):
        return _fail("value_error:string", f"Wrong string value: {shown}.")
    if isinstance(value, Mapping):
        dict_options = [o for o in candidates if isinstance(o, Mapping)]
        if dict_options:
            err = _dict_error(value, dict_options[0])
            if err:
                return _fail(err[0], f"Wrong dict value for {param!r}: {err[1]}.")
        return _fail("value_error:dict_value", f"Wrong dict value: {shown}.")
    if isinstance(value, (list, tuple)):
        list_options = [o for o in candidates if isinstance(o, (list, tuple))]
        has_dicts = any(isinstance(e, Mapping) for o in list_options for e in o)
        if has_dicts:
            if all(len(o) != len(value) for o in list_options):
                return _fail("value_error:list_dict_count", f"Wrong number of dicts: {shown}.")
            return _fail("value_error:list_dict", f"Wrong list of dicts: {shown}.")
        return _fail("value_error:list/tuple", f"Wrong list value: {shown}.")
    return _fail("value_error:others", f"Wrong value: {shown}.")


def check_call(call: Any, func_doc: Mapping[str, Any], answer: Mapping[str, Any]) -> Verdict:
    """Check one model call against one function doc and one possible answer.

    ``answer`` is one ground-truth entry, ``{function_name: {param: [acceptable]}}``.
    """
    try:
        ((name, args),) = normalize_calls([call])
    except _CallFormatError as exc:
        return _fail("call_format:invalid_call", f"{exc}.")
    if len(answer) != 1:
        raise ValueError("a possible answer must hold exactly one function")
    ((expected_name, expected_params),) = answer.items()

    if not _names_match(name, expected_name):
        return _fail(
            "simple_function_checker:wrong_func_name",
            f"Function name {name!r} does not match the expected {expected_name!r}.",
        )
    params = func_doc.get("parameters") or {}
    props: Mapping[str, Any] = params.get("properties") or {}
    for req in params.get("required") or []:
        if req not in args:
            return _fail(
                "simple_function_checker:missing_required",
                f"Missing required parameter {req!r} of {expected_name}.",
            )
    for key in args:
        if key not in props:
            return _fail(
                "simple_function_checker:unexpected_param",
                f"Unexpected parameter {key!r}: {expected_name} does not define it.",
            )
        if key not in expected_params:
            return _fail(
                "simple_function_checker:unexpected_param",
                f"Unexpected parameter {key!r}: the possible answer does not use it.",
            )
    for key, value in args.items():
        options = _acceptable(expected_params[key])
        if value is None and any(o is None for o in options):
            continue
        if not options and isinstance(value, (list, tuple)) and not value:
            continue  # data quirk: an empty acceptable list on an array means "empty list"
        type_err = _type_error(value, props[key], key, top=True)
        if type_err:
            if isinstance(value, str) and _value_verdict(key, value, options).valid:
                continue  # a variable name from the prompt, listed as a possible answer
            return _fail(type_err[0], f"Wrong type for parameter {type_err[1]}.")
        verdict = _value_verdict(key, value, options)
        if not verdict.valid:
            return verdict
    for key, raw in expected_params.items():
        if key not in args and not any(_is_optional_marker(o) for o in _acceptable(raw)):
            return _fail(
                "simple_function_checker:missing_optional",
                f"Parameter {key!r} must be given here (the possible answer does not allow omitting it).",
            )
    return _OK


# ---------------------------------------------------------------- one case
def _field(case: Any, name: str, alt: str | None = None) -> Any:
    if isinstance(case, Mapping):
        return case.get(name, case.get(alt) if alt else None)
    return getattr(case, name, getattr(case, alt, None) if alt else None)


def _doc_for(functions: Sequence[Mapping[str, Any]], name: str) -> Mapping[str, Any] | None:
    for doc in functions:
        if doc.get("name") == name:
            return doc
    return None


def _max_matching(ok: list[list[bool]]) -> list[int | None]:
    """Expected index -> call index, a maximum bipartite matching (Kuhn's algorithm)."""
    n_calls = len(ok[0]) if ok else 0
    owner: list[int | None] = [None] * n_calls

    def augment(i: int, seen: list[bool]) -> bool:
        for j in range(n_calls):
            if ok[i][j] and not seen[j]:
                seen[j] = True
                if owner[j] is None or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(len(ok)):
        augment(i, [False] * n_calls)
    assignment: list[int | None] = [None] * len(ok)
    for j, i in enumerate(owner):
        if i is not None:
            assignment[i] = j
    return assignment


def check(case: Any, calls: Any) -> Verdict:
    """Score the model's calls for one case (a :class:`~edgevox.bfcl.data.Case`).

    ``calls``: a list of ``{"name", "arguments"}`` dicts or objects with ``.name`` and
    ``.arguments`` (arguments may be a JSON string). Never raises for bad model output;
    raises ValueError only for an unknown category or a malformed case.
    """
    kind = category_kind(_field(case, "category"))
    try:
        parsed = normalize_calls(calls)
    except _CallFormatError as exc:
        if kind == "irrelevance":
            return _fail("irrelevance:function_called", f"A call was made ({exc}).")
        return _fail("call_format:invalid_call", f"{exc}.")

    if kind == "irrelevance":
        if parsed:
            names = ", ".join(n for n, _ in parsed)
            return _fail(
                "irrelevance:function_called",
                f"No call was expected, but the model called {names}.",
            )
        return _OK
    if kind == "relevance":
        if not parsed:
            return _fail("relevance:no_function_called", "A call was expected, but none was made.")
        return _OK

    functions = _field(case, "functions", "function") or []
    answers = _field(case, "possible_answer", "ground_truth")
    if not isinstance(answers, list) or not answers:
        raise ValueError(f"case {_field(case, 'id')!r} has no possible answer")
    docs = []
    for answer in answers:
        if not isinstance(answer, Mapping) or len(answer) != 1:
            raise ValueError(f"case {_field(case, 'id')!r}: malformed possible answer {answer!r}")
        (fname,) = answer.keys()
        doc = _doc_for(functions, fname)
        if doc is None:
            raise ValueError(f"case {_field(case, 'id')!r}: no function doc for {fname!r}")
        docs.append(doc)

    if kind in ("simple", "multiple"):
        if len(parsed) != 1:
            return _fail(
                f"{kind}_function_checker:wrong_count",
                f"Expected exactly 1 call, got {len(parsed)}.",
            )
        return check_call({"name": parsed[0][0], "arguments": parsed[0][1]}, docs[0], answers[0])

    # parallel / parallel_multiple: order-free, one-to-one, all-or-nothing
    if len(parsed) != len(answers):
        return _fail(
            "parallel_function_checker_no_order:wrong_count",
            f"Expected {len(answers)} calls, got {len(parsed)}.",
        )
    verdicts = [
        [check_call({"name": n, "arguments": a}, doc, answer) for n, a in parsed]
        for doc, answer in zip(docs, answers, strict=True)
    ]
    assignment = _max_matching([[v.valid for v in row] for row in verdicts])
    missing = [i for i, j in enumerate(assignment) if j is None]
    if not missing:
        return _OK
    errors = []
    for i in missing:
        (fname,) = answers[i].keys()
        reasons = "; ".join(f"call #{j}: {v.message}" for j, v in enumerate(verdicts[i]))
        errors.append(f"expected call #{i} ({fname}) matched no model call ({reasons})")
    (first_name,) = answers[missing[0]].keys()
    return _fail(
        "parallel_function_checker_no_order:cannot_find_match",
        f"Could not match {len(missing)} of {len(answers)} expected calls, first {first_name!r}.",
        errors,
    )
