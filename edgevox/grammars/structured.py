"""Structured output: a reply guaranteed (under grammar) or checked (without) to fit a schema.

`complete(..., response_schema=...)` on a backend lands here. With grammar support the
decoder can only produce JSON that the schema's grammar admits, so parsing cannot fail
for shape; jsonschema then checks what grammars cannot express. Without grammar
support (some remote servers) the schema goes into the prompt and the reply is parsed
and validated, with an optional bounded retry that tells the model what was wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import jsonschema

Message = dict[str, Any]


class StructuredOutputInvalid(ValueError):
    """The reply does not fit the requested schema or pattern.

    Carries the schema, the raw text verbatim, the JSON pointer of the failing
    value ("" for the whole document) and the validator's message.
    """

    def __init__(self, message: str, *, schema: Any, raw_text: str, pointer: str = ""):
        self.message = message
        self.schema = schema
        self.raw_text = raw_text
        self.pointer = pointer
        where = f" at {pointer}" if pointer else ""
        super().__init__(f"structured output invalid{where}: {message}")


_UNION = ("oneOf", "anyOf")
_SCALARS = ("string", "number", "integer", "boolean", "null")


def _root_kind(schema: dict) -> str:
    """"object", "union" or "scalar"; ValueError for a root a grammar cannot express."""
    if any(isinstance(schema.get(k), list) and schema[k] for k in _UNION):
        return "union"
    t = schema.get("type")
    if t == "object" or (t is None and "properties" in schema):
        return "object"
    if t in _SCALARS or (isinstance(t, list) and t and set(t) <= set(_SCALARS)) or (
            t is None and ("enum" in schema or "const" in schema)):
        return "scalar"
    raise ValueError("response_schema must describe an object, a oneOf/anyOf union or a scalar "
                     f"(string, number, integer, boolean, enum) at the root, got type {t!r}")


def schema_of(response_schema: Any) -> tuple[dict, Any]:
    """A plain JSON schema (refs inlined) and what validates into Python objects: the
    pydantic model class, or a ``TypeAdapter`` for any other type pydantic knows (a
    discriminated union ``Annotated[A | B, Field(discriminator=...)]``), or None."""
    model: Any = None
    if isinstance(response_schema, type) and hasattr(response_schema, "model_json_schema"):
        model = response_schema
        schema = response_schema.model_json_schema()
    elif isinstance(response_schema, dict):
        schema = response_schema
    else:
        try:
            from pydantic import TypeAdapter

            model = TypeAdapter(response_schema)
            schema = model.json_schema()
        except Exception:  # pydantic's errors for things it cannot describe
            raise TypeError("response_schema must be a JSON schema dict, a pydantic model class or a "
                            "type pydantic can describe (e.g. a discriminated union)") from None
    kind = _root_kind(schema)
    if model is None:
        return schema, None  # the user's schema as written: open objects stay open
    from edgevox.tools.schema import clean_schema

    return clean_schema(schema, object_root=kind == "object"), model


def matching_branch(doc: Any, schema: dict) -> int | None:
    """Index of the first oneOf/anyOf branch at the root that ``doc`` satisfies (None for
    a schema with no union at the root)."""
    for key in _UNION:
        branches = schema.get(key)
        if isinstance(branches, list):
            defs = {k: schema[k] for k in ("$defs", "definitions") if k in schema}
            for i, branch in enumerate(branches):
                sub = {**defs, **branch} if isinstance(branch, dict) else branch
                if jsonschema.Draft202012Validator(sub).is_valid(doc):
                    return i
    return None


def validate_document(text: str, schema: dict, model: type | None) -> Any:
    """Parse and validate one reply; raise StructuredOutputInvalid with a pointer."""
    candidate = _extract_json(text)
    try:
        doc = json.loads(candidate)
    except ValueError as exc:
        raise StructuredOutputInvalid(f"not JSON ({exc.msg} at char {exc.pos})",
                                      schema=schema, raw_text=text) from None
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        pointer = "".join(f"/{p}" for p in err.absolute_path)
        raise StructuredOutputInvalid(err.message, schema=schema, raw_text=text, pointer=pointer)
    if model is None:
        return doc
    validate = getattr(model, "model_validate", None) or model.validate_python
    try:
        return validate(doc)
    except Exception as exc:  # pydantic's ValidationError: custom validators the schema lacks
        loc = getattr(exc, "errors", lambda: [{}])()[0].get("loc", ())
        pointer = "".join(f"/{p}" for p in loc)
        raise StructuredOutputInvalid(str(exc).splitlines()[0], schema=schema, raw_text=text,
                                      pointer=pointer) from None


_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)```", re.S)


def _extract_json(text: str) -> str:
    """The JSON inside a reply: fenced block, the whole text if it is JSON (a scalar
    root), or from the first brace to the last."""
    m = _FENCE.search(text)
    if m:
        return m.group(1).strip()
    try:
        json.loads(text)
        return text.strip()
    except ValueError:
        pass
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        return text[start:end + 1]
    return text.strip()


def schema_prompt(schema: dict) -> str:
    what = "JSON object" if _root_kind(schema) != "scalar" else "JSON value"
    return (f"Reply with only one {what}, no prose and no code fence, that matches this "
            f"JSON schema:\n{json.dumps(schema, ensure_ascii=False)}")


def note_branch(completion: Any, schema: dict) -> Any:
    """Record which root branch of a union the parsed reply matched (``info["schema_branch"]``)."""
    if any(k in schema for k in _UNION):
        doc = completion.parsed
        if hasattr(doc, "model_dump"):
            doc = doc.model_dump(mode="json")
        completion.info["schema_branch"] = matching_branch(doc, schema)
    return completion


def supports_grammar(backend: Any) -> bool:
    """Whether ``backend`` constrains generation with a grammar: the one place this is asked
    (a backend that does not say so is taken not to, so no grammar is sent to be ignored).
    It lives here, below llm, so asking it never makes grammars import llm."""
    return bool(getattr(backend, "supports_grammar", False))


def complete_structured(backend: Any, messages: Sequence[Message] | None, tools: Any = None, *,
                        response_schema: Any = None, response_regex: str | None = None,
                        retries: int = 0, use_grammar: bool | None = None, **kwargs: Any) -> Any:
    """Generate a reply that fits `response_schema` (or `response_regex`).

    Returns the backend's Completion with `.parsed` set (dict, pydantic instance, or the
    regex match). `retries` (default 0) re-asks with the validation error folded in;
    it only matters without a grammar, where the model may still get it wrong.
    """
    kwargs.pop("grammar", None)
    grammar_ok = supports_grammar(backend) if use_grammar is None else use_grammar
    if response_regex is not None:
        return _complete_regex(backend, messages, tools, response_regex, grammar_ok, **kwargs)
    schema, model = schema_of(response_schema)
    msgs = list(messages or [])
    if grammar_ok:
        from .builders import json_schema_grammar

        completion = backend.complete(msgs, tools, grammar=json_schema_grammar(schema), **kwargs)
        completion.parsed = validate_document(completion.text, schema, model)
        return note_branch(completion, schema)
    msgs = [{"role": "system", "content": schema_prompt(schema)}, *msgs]
    for attempt in range(retries + 1):
        completion = backend.complete(msgs, tools, **kwargs)
        try:
            completion.parsed = validate_document(completion.text, schema, model)
            completion.info["structured_attempts"] = attempt + 1
            return note_branch(completion, schema)
        except StructuredOutputInvalid as exc:
            if attempt == retries:
                raise
            msgs = [*msgs, {"role": "assistant", "content": completion.text},
                    {"role": "user", "content": f"That reply was invalid: {exc}. "
                                                 "Send the corrected JSON object only."}]
    raise AssertionError("unreachable")


def _complete_regex(backend: Any, messages: Any, tools: Any, pattern: str, grammar_ok: bool,
                    **kwargs: Any) -> Any:
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"response_regex is not a valid regular expression: {exc}") from None
    grammar = None
    if grammar_ok:
        from .builders import regex_grammar

        grammar = regex_grammar(pattern)
    completion = backend.complete(list(messages or []), tools, grammar=grammar, **kwargs)
    text = completion.text if grammar is not None else completion.text.strip()
    match = compiled.fullmatch(text)
    if match is None:
        raise StructuredOutputInvalid(f"reply does not match /{pattern}/", schema=pattern,
                                      raw_text=completion.text)
    completion.parsed = match
    return completion
