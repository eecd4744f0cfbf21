"""``Tool`` and the ``@tool`` decorator."""

from __future__ import annotations

import copy
import functools
import inspect
import json
import logging
import sys
from collections.abc import Callable, Mapping
from typing import Any, overload

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import BaseModel, ValidationError

from .docstrings import parse_docstring
from .errors import ToolArgumentError, ToolDefinitionError, json_pointer
from .schema import NAME_RE, ParamSpec, clean_schema, function_schema
from .validation import check, coerce, fill_defaults, parse_arguments

DEFAULT_TIMEOUT = 10.0

log = logging.getLogger(__name__)


def _check_timeout(timeout: float | None) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    return float(timeout)


def _is_async_callable(fn: Any) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(type(fn), "__call__", None)  # noqa: B004 - want the method itself
    return not inspect.isfunction(fn) and call is not None and inspect.iscoroutinefunction(call)


class Tool:
    """A callable the model may invoke, with its JSON-schema description.

    ``parameters`` is a self-contained JSON schema (no ``$ref``), object at the
    root, with ``properties``, a ``required`` list and ``additionalProperties: false``.
    Treat it as read-only: the validator is compiled from it once.
    Calling the Tool calls the function directly (no validation, no timeout).
    """

    def __init__(
        self,
        name: str,
        description: str = "",
        parameters: Mapping[str, Any] | None = None,
        fn: Callable[..., Any] | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        say: str | Callable[[Any], str] | None = None,
        examples: Any = None,
        confirm: bool | str = False,
        rounds: Any = None,
        phrasings: Any = None,
    ) -> None:
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise ToolDefinitionError(
                f"invalid tool name {name!r}: use 1-128 of letters, digits, '_', '-', '.', ':'"
            )
        if description is None:
            description = ""
        if not isinstance(description, str):
            raise ToolDefinitionError(f"tool {name!r}: description must be a string")
        if parameters is not None and not isinstance(parameters, Mapping):
            raise ToolDefinitionError(f"tool {name!r}: parameters must be a JSON-schema object")
        if fn is not None and not callable(fn):
            raise ToolDefinitionError(f"tool {name!r}: fn is not callable")
        if say is not None and not (isinstance(say, str) and say.strip()) and not callable(say):
            raise ToolDefinitionError(f"tool {name!r}: say must be a format string or a function "
                                      f"from the result to a sentence")
        if not isinstance(confirm, (bool, str)):
            raise ToolDefinitionError(f"tool {name!r}: confirm must be True/False or a question to ask")
        schema = clean_schema(copy.deepcopy(dict(parameters or {})), close_objects=False)
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as e:
            raise ToolDefinitionError(
                f"tool {name!r}: invalid parameter schema: {e.message}"
            ) from None
        self.name = name
        self.description = description
        self.parameters: dict[str, Any] = schema
        self.fn = fn
        self.timeout = _check_timeout(timeout)
        #: how a successful result is spoken without asking the model again (see ``speak``)
        self.say = say
        #: (request, arguments) pairs the agent shows the model as demonstrations
        self.examples: list[tuple[str, dict[str, Any]]] = _check_examples(name, examples)
        #: ask the user before every call (True, or a question with {argument} fields)
        self.confirm: bool | str = confirm
        #: (request, arguments, result, answer): whole rounds the agent shows the model
        self.rounds: list[tuple[str, dict[str, Any], Any, str]] = _check_rounds(name, rounds)
        #: other ways people ask for this tool (no arguments): read by the relevance gate
        #: (``edgevox.agents.slm.relevance``) to tell which tool a request means, never shown
        #: to the model, so they cost no prompt tokens
        self.phrasings: tuple[str, ...] = _check_phrasings(name, phrasings)
        self.is_async = fn is not None and _is_async_callable(fn)
        self._validator = Draft202012Validator(schema)
        for request, arguments, *_ in [*self.examples, *self.rounds]:
            try:
                self._check(arguments)
            except ToolArgumentError as e:
                raise ToolDefinitionError(f"tool {name!r}: the example {request!r} has bad arguments: {e}") from None
        self._model: type[BaseModel] | None = None
        self._params: list[ParamSpec] | None = None
        if fn is not None:
            for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
                try:
                    setattr(self, attr, getattr(fn, attr))
                except (AttributeError, TypeError):
                    pass
            self.__wrapped__ = fn

    # ------------------------------------------------------------------ constructors

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        localns: Mapping[str, Any] | None = None,
        say: str | Callable[[Any], str] | None = None,
        examples: Any = None,
        confirm: bool | str = False,
        rounds: Any = None,
        phrasings: Any = None,
    ) -> Tool:
        """Build a tool from type hints and docstring (see ``tool``).

        ``localns`` resolves string annotations that name classes local to the
        defining scope (``@tool`` passes its caller's locals automatically).
        """
        if not callable(fn):
            raise ToolDefinitionError(f"@tool needs a callable, got {type(fn).__name__}")
        tool_name = name or getattr(fn, "__name__", None) or type(fn).__name__
        doc_source = fn
        while isinstance(doc_source, functools.partial):  # partial's own doc is noise
            doc_source = doc_source.func
        doc = parse_docstring(inspect.getdoc(doc_source))
        fs = function_schema(
            fn,
            tool_name=str(tool_name),
            param_docs=doc.params,
            localns=dict(localns) if localns is not None else None,
        )
        self = cls(
            str(tool_name),
            doc.summary if description is None else description,
            fs.parameters,
            fn,
            timeout=timeout,
            say=say,
            examples=examples,
            confirm=confirm,
            rounds=rounds,
            phrasings=phrasings,
        )
        self._model = fs.model
        self._params = fs.params
        return self

    @classmethod
    def from_schema(
        cls,
        spec: Mapping[str, Any],
        fn: Callable[..., Any] | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> Tool:
        """Build a tool from ``{"type":"function","function":{...}}`` or a bare
        ``{"name","description","parameters"}`` (BFCL style).

        BFCL's Python-ish type names (``dict``, ``float``, ``tuple``, ``any``) become
        JSON-schema ones; ``$ref``s are inlined; the root gets
        ``additionalProperties: false`` unless it says otherwise. Without ``fn`` the
        tool can be validated against but not run. With ``fn``, it is called with the
        validated JSON arguments as keyword arguments.
        """
        if not isinstance(spec, Mapping):
            raise ToolDefinitionError(f"tool spec must be a dict, got {type(spec).__name__}")
        inner = spec.get("function")
        if isinstance(inner, Mapping):
            spec = inner
        if "name" not in spec:
            raise ToolDefinitionError("tool spec has no 'name'")
        return cls(
            spec["name"],
            spec.get("description") or "",
            spec.get("parameters"),
            fn,
            timeout=timeout,
        )

    # ------------------------------------------------------------------ views

    def openai_schema(self) -> dict[str, Any]:
        """``{"type":"function","function":{"name","description","parameters"}}`` (a copy)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(self.parameters),
            },
        }

    def speak(self, value: Any, arguments: Mapping[str, Any] | None = None) -> str | None:
        """The sentence ``say`` makes of a successful result, or None (no ``say``, a field
        it names is missing, or the function failed): then the model words the answer.

        A format string takes the result's fields (a dict result; anything else is
        ``{result}``), falling back to the call's arguments: ``"Timer for {minutes} min."``.
        A function gets the result value and returns the sentence.
        """
        say = self.say
        if say is None:
            return None
        try:
            if callable(say):
                text = say(value)
            else:
                fields = dict(arguments or {})
                fields.update(value if isinstance(value, Mapping) else {"result": value})
                text = say.format_map(fields)
        except Exception as exc:  # a bad template must not lose the turn: the model answers
            log.warning("tool %r: say= could not word the result (%s: %s)", self.name,
                        type(exc).__name__, exc)
            return None
        return text.strip() if isinstance(text, str) and text.strip() else None

    # ------------------------------------------------------------------ arguments

    def validate(self, arguments: Any) -> dict[str, Any]:
        """Check ``arguments`` (dict, JSON string or None) and return them coerced
        and with schema defaults filled.

        Coercions (the only ones): a JSON string that decodes to an object/array
        where the schema wants an object/array (and no string); an integral float
        (``3.0``) where it wants an integer. A bool is never an integer, a string
        never a number. Raises ``ToolArgumentError`` (with ``.pointer``).
        """
        return self._check(arguments)[0]

    def _check(self, arguments: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        try:
            args = parse_arguments(self.name, arguments)
            args = coerce(self.parameters, args)
            check(self._validator, self.name, args)
            return fill_defaults(self.parameters, args), args
        except RecursionError:
            raise ToolArgumentError(self.name, "arguments are nested too deeply") from None

    def bind(self, arguments: Any) -> tuple[dict[str, Any], tuple[Any, ...], dict[str, Any]]:
        """Validate and convert: ``(json_arguments, args, kwargs)`` ready for ``fn``.

        Values become the pydantic models / Enums / tuples the signature asks for.
        """
        filled, given = self._check(arguments)
        if self._model is None or self._params is None:
            return filled, (), dict(filled)
        try:
            inst = self._model.model_validate(given)
        except ValidationError as e:
            err = e.errors()[0]
            raise ToolArgumentError(
                self.name, str(err.get("msg", e)), json_pointer(err.get("loc", ()))
            ) from None
        pos: list[Any] = []
        kw: dict[str, Any] = {}
        for p in self._params:
            value = getattr(inst, p.field)
            if p.kind is inspect.Parameter.POSITIONAL_ONLY:
                pos.append(value)
            else:
                kw[p.name] = value
        return filled, tuple(pos), kw

    # ------------------------------------------------------------------ calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.fn is None:
            raise TypeError(f"tool {self.name!r} was built from a schema and has no function")
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        kind = "async " if self.is_async else ""
        return f"<{kind}Tool {self.name!r} params={list(self.parameters['properties'])}>"


def _check_examples(name: str, examples: Any) -> list[tuple[str, dict[str, Any]]]:
    """``examples=`` as a list of (request, arguments); a clear error for anything else."""
    if examples is None:
        return []
    items = list(examples.items()) if isinstance(examples, Mapping) else examples
    out: list[tuple[str, dict[str, Any]]] = []
    try:
        for request, arguments in items:
            if not isinstance(request, str) or not request.strip() or not isinstance(arguments, Mapping):
                raise TypeError
            out.append((request.strip(), dict(arguments)))
    except (TypeError, ValueError):
        raise ToolDefinitionError(f"tool {name!r}: examples must map request strings to argument dicts, "
                                  f'e.g. {{"Lights on in the kitchen": {{"room": "kitchen"}}}}') from None
    return out


def _check_phrasings(name: str, phrasings: Any) -> tuple[str, ...]:
    """``phrasings=`` as a tuple of non-empty request strings; a clear error for anything else."""
    if phrasings is None:
        return ()
    if isinstance(phrasings, str) or not all(isinstance(p, str) and p.strip() for p in phrasings):
        raise ToolDefinitionError(f"tool {name!r}: phrasings must be a list of request strings, "
                                  f'e.g. ["Lights out.", "Kill the lamp."]')
    return tuple(dict.fromkeys(p.strip() for p in phrasings))


def _check_rounds(name: str, rounds: Any) -> list[tuple[str, dict[str, Any], Any, str]]:
    """``rounds=`` as a list of (request, arguments, result, answer); a clear error otherwise."""
    out: list[tuple[str, dict[str, Any], Any, str]] = []
    try:
        for request, arguments, result, answer in rounds or []:
            if not all(isinstance(s, str) and s.strip() for s in (request, answer)) \
                    or not isinstance(arguments, Mapping):
                raise TypeError
            json.dumps(result)  # shown to the model as JSON, like a real result
            out.append((request.strip(), dict(arguments), result, answer.strip()))
    except (TypeError, ValueError):
        raise ToolDefinitionError(f"tool {name!r}: rounds must be (request, arguments, JSON result, answer) "
                                  f"tuples, e.g. (\"Lights off\", {{\"on\": false}}, {{\"on\": false}}, "
                                  f"\"The light is off.\")") from None
    return out


def _caller_locals() -> dict[str, Any] | None:
    """Locals of the scope that applied the decorator (two frames up), copied."""
    frame = sys._getframe(2)
    try:
        return dict(frame.f_locals)
    finally:
        del frame


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    say: str | Callable[[Any], str] | None = None,
    examples: Any = None,
    confirm: bool | str = False,
    rounds: Any = None,
    phrasings: Any = None,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    say: str | Callable[[Any], str] | None = None,
    examples: Any = None,
    confirm: bool | str = False,
    rounds: Any = None,
    phrasings: Any = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function into a ``Tool``: ``@tool`` or ``@tool(name=..., description=..., timeout=...)``.

    The schema comes from the type hints (str, int, float, bool, list[T], dict[str, T],
    Optional / ``X | None``, Literal, Enum, pydantic models, TypedDicts, Annotated
    constraints, nested). A parameter with a default is optional and its default
    shows in the schema. The docstring's first paragraph is the description;
    ``Args:`` / ``:param x:`` / NumPy ``Parameters`` entries describe parameters.
    ``timeout`` is in seconds (None = no limit). ``say``: how a successful result is
    spoken, a format string over the result's fields or a function from the result to a
    sentence (``Tool.speak``); when every call of a turn has one and succeeds, the agent
    speaks it without a second LLM hop.
    ``examples``: requests that should call this tool, as ``{"request": arguments}`` or
    ``[("request", arguments), ...]``; the agent shows them to the model as demonstrations
    (``edgevox.agents.demonstrations``). ``confirm``: ask the user before every call
    (True, or the question itself with ``{argument}`` fields, e.g. "Unlock the {door}?").
    ``rounds``: whole example rounds, ``[("request", arguments, result, "spoken answer")]``:
    the agent shows the model the call, the result and the answer (how a result is worded,
    for the hop that words it when the tool has no ``say`` or it failed).
    ``phrasings``: other ways people ask for it, without arguments (``["Unpause.", "Keep
    going."]``): the relevance gate compares a request with them by meaning to tell which
    tool it means; the model never sees them.
    """
    if fn is not None:
        return Tool.from_function(
            fn, name=name, description=description, timeout=timeout, localns=_caller_locals(),
            say=say, examples=examples, confirm=confirm, rounds=rounds, phrasings=phrasings,
        )

    def decorate(f: Callable[..., Any]) -> Tool:
        return Tool.from_function(
            f, name=name, description=description, timeout=timeout, localns=_caller_locals(),
            say=say, examples=examples, confirm=confirm, rounds=rounds, phrasings=phrasings,
        )

    return decorate
