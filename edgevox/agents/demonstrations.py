"""Demonstrations: example exchanges the agent shows the model before the conversation.

Why: a 0.5B model follows examples where it ignores instructions (DESIGN.md, "Judgement").
A few prior turns -- a request and the call it should make, a greeting and the words it
should get back -- teach it both *when* to call and *which* tool, in the exact wire format
the preset's grammar and parser expect (the turns are ordinary chat messages, so the
preset's own rendering writes them).

They are built from the tools alone (plain OpenAI-style schemas, so the BFCL runner can
build them for each case's own functions): one call per tool, from ``@tool(examples=...)``
when given, else made up from the schema and description; requests that ask for two or
three things and get a list of calls (the envelope's parallel form); and a few fixed answers
in words for small talk and for a request no tool fits. Static per tool set, they belong to
the cached prompt prefix (``LLMAgent.prompt_prefix``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Demo", "ANSWERS", "build_demonstrations", "demonstration_messages", "pair_demonstrations",
           "round_demonstrations", "round_messages", "tool_spec"]


@dataclass(frozen=True)
class Demo:
    """One example exchange: a request, and either the call it makes or the words it gets.

    ``topic``: for an answer in words, the words that name what it declines or answers
    ("fan", "pizza"); the demonstration is left out when a tool's name or description uses
    one of them (then a tool may well serve it). Empty: shown whatever the tools.
    ``also``: more calls the same request makes (two actions asked in one sentence).
    """

    request: str
    call: tuple[str, dict[str, Any]] | None = None
    answer: str | None = None
    topic: frozenset[str] = frozenset()
    also: tuple[tuple[str, dict[str, Any]], ...] = ()

    @property
    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        """Every call of this exchange, in order (none for an answer in words)."""
        return [] if self.call is None else [self.call, *self.also]


#: Answers in words, most useful first: small talk, "never mind", a question no tool
#: answers, a device no tool controls, a state the tools cannot read, a request no tool
#: serves. (Written for this project; none is taken from an evaluation set.)
ANSWERS: tuple[Demo, ...] = (
    Demo("Hi, how are you?", answer="I'm fine, thanks. How can I help?"),
    Demo("Turn on the fan.", answer="Sorry, I can't control a fan.", topic=frozenset({"fan", "fans"})),
    Demo("What's the capital of France?", answer="Paris.", topic=frozenset({"capital", "capitals", "france"})),
    Demo("Thanks, that's all.", answer="You're welcome."),
    Demo("Is the oven still on?", answer="Sorry, I can't check that.",
         topic=frozenset({"oven", "status", "state", "check"})),
    Demo("Never mind.", answer="Okay."),
    Demo("Order me a pizza.", answer="Sorry, I can't do that.", topic=frozenset({"pizza", "order", "food"})),
)

_WORD = re.compile(r"[a-z]+")
_EG = re.compile(r"""e\.g\.,?\s*["']?([^"',.;)]+)""", re.IGNORECASE)


def tool_spec(tool: Any) -> tuple[str, str, dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """``(name, description, parameters, examples)`` of a Tool, an OpenAI tool dict or a
    bare ``{"name", "description", "parameters"}`` (BFCL's shape)."""
    if hasattr(tool, "parameters") and hasattr(tool, "name"):
        return (tool.name, tool.description or "", dict(tool.parameters or {}),
                list(getattr(tool, "examples", None) or []))
    if not isinstance(tool, Mapping):
        raise TypeError(f"a tool must be a Tool or a schema dict, not {type(tool).__name__}")
    spec = tool.get("function") if isinstance(tool.get("function"), Mapping) else tool
    if "name" not in spec:
        raise ValueError("a tool schema has no 'name'")
    return str(spec["name"]), str(spec.get("description") or ""), dict(spec.get("parameters") or {}), []


def build_demonstrations(tools: Iterable[Any], *, answers: Sequence[Demo] = ANSWERS,
                         per_tool: int = 2, max_answers: int | None = None, pairs: bool = True) -> list[Demo]:
    """The demonstrations for a tool set: up to ``per_tool`` of each tool's own examples
    (one call made up from its schema when it has none; every second of those asked as a
    question) and answers in words, at most ``max_answers`` (default: half as many as
    calls, at least three), interleaved so that position teaches nothing; with ``pairs``,
    first of the calls, requests that ask for several things at once and get a list of
    calls (see :func:`pair_demonstrations`)."""
    specs = [tool_spec(t) for t in tools]
    calls: list[Demo] = []
    made_up: list[int] = []  # positions of the calls made up from a schema (no examples)
    for name, description, params, examples in specs:
        if not examples:
            made_up.append(len(calls))
        chosen = examples[:per_tool] or [(_request_from_schema(name, description, params),
                                          _arguments_from_schema(params))]
        calls.extend(Demo(request, call=(name, dict(arguments))) for request, arguments in chosen)
    vocabulary: set[str] = set()
    for name, description, _, _ in specs:  # what a tool is for: its name and first sentence
        # (not the rest: "Only lights: not fans" must not hide the fan demonstration)
        vocabulary |= _words(name.replace("_", " ").replace(".", " ") + " " + first_sentence(description))
    if max_answers is None:
        max_answers = max(3, len(calls) // 2)
    said = [d for d in answers if not d.topic & vocabulary][:max_answers]
    if not specs:
        return said
    # the pairs come first, so the turns next to the conversation are the same as without
    # them: measured, with two-call lists last the model called again after a tool's result
    # instead of answering, and with a refusal last it refused "What time is it?"
    lists = pair_demonstrations(specs, calls) if pairs else []
    for i in made_up[1::2]:  # every second made-up request asked as a question (see _as_question)
        asked = _as_question(calls[i].request)
        if asked:
            calls[i] = Demo(asked, call=calls[i].call)
    acting = lists + calls
    out: list[Demo] = []
    step = max(1, len(acting) // max(1, len(said)))  # spread the answers among the calls
    for i, demo in enumerate(acting):
        if i % step == 0 and said:
            out.append(said.pop(0))
        out.append(demo)
    return out + said


def pair_demonstrations(specs: Sequence[tuple[str, str, dict[str, Any], list]], calls: Sequence[Demo]) -> list[Demo]:
    """Requests that ask for several things in one sentence, answered with a list of calls.

    Why: shown only one call per request, the 0.5B model writes one call object and the
    second action is lost (BFCL parallel 0/10 through the agent); shown only lists of two,
    it writes two calls where three are asked. One tool several times (two of its own
    examples, or its made-up call asked for three values of one argument: "...; then the
    same with base 4, and again with base 5") and, with two tools or more, two different
    tools (their first calls joined). Built from the schemas alone, like every
    demonstration."""
    out: list[Demo] = []
    by_tool: dict[str, list[Demo]] = {}
    for d in calls:
        by_tool.setdefault(d.call[0], []).append(d)  # type: ignore[index]
    twice = next((ds[:2] for ds in by_tool.values() if len(ds) >= 2), None)
    if twice is not None:
        out.append(Demo(_join(twice[0].request, twice[1].request), call=twice[0].call, also=(twice[1].call,)))
    else:
        for name, _, params, _ in specs:
            again = _varied(name, params, by_tool[name][0], times=3)
            if again is not None:
                out.append(again)
                break
    firsts = [ds[0] for ds in by_tool.values()]
    if len(firsts) >= 2:
        a, b = (firsts[0], firsts[1]) if twice is None or len(firsts) < 3 else (firsts[1], firsts[2])
        out.append(Demo(_join(a.request, b.request), call=a.call, also=(b.call,)))
    return out


def _join(first: str, second: str) -> str:
    """Two requests as one sentence: "Lights off in the bedroom and heat the house to 22.";
    "Also," after a request that spells its arguments out ("...: base 3, unit cm. Also, ...")."""
    head = first.rstrip(" .!?")
    tail = second[:1].lower() + second[1:] if second[1:2].islower() else second
    return f"{head}. Also, {tail}" if ":" in head else f"{head} and {tail}"


def _varied(name: str, params: Mapping[str, Any], demo: Demo, times: int = 2) -> Demo | None:
    """``demo`` (a call made up from the schema) asked ``times`` times in one request, one
    argument changed each time (a number, an enum member, else a plain string); None when
    no argument can change."""
    assert demo.call is not None
    arguments = demo.call[1]
    props = params.get("properties") or {}
    keys = sorted(arguments, key=lambda k: isinstance(arguments[k], str) and not (props.get(k) or {}).get("enum"))
    for key in keys:  # numbers and enums first: a changed string reads less naturally
        others = _others(props.get(key), arguments[key], times - 1)
        if others:
            said = key.replace("_", " ")
            tail = ", and again with ".join(f"{said} {_spell(v)}" for v in others)
            request = f"{demo.request.rstrip(' .!?')}; then the same with {tail}."
            return Demo(request, call=demo.call, also=tuple((name, {**arguments, key: v}) for v in others))
    return None


def _others(schema: Any, value: Any, n: int) -> list[Any]:
    """``n`` other valid values for a parameter (numbers a step on, the next enum members,
    a string with a letter after it), or [] when it has no ``n`` of them."""
    if not isinstance(schema, Mapping) or isinstance(value, bool):
        return []
    enum = schema.get("enum")
    if enum:
        rest = [v for v in enum if v != value][:n]
    elif isinstance(value, (int, float)):
        lo, hi = schema.get("minimum"), schema.get("maximum")
        up = [value + i for i in range(1, n + 1) if hi is None or value + i <= hi]
        down = [value - i for i in range(1, n + 1) if lo is None or value - i >= lo]
        rest = [type(value)(v) for v in (up + down)[:n]]
    elif isinstance(value, str) and value and not (schema.get("pattern") or schema.get("format")):
        rest = [f"{value} {letter}" for letter in "BCDE"[:n]]
    else:
        rest = []
    return rest if len(rest) == n else []


def demonstration_messages(demos: Iterable[Demo]) -> list[dict[str, Any]]:
    """The demonstrations as chat messages (user, then assistant words or ``tool_calls``);
    the preset's rendering writes the calls in its own wire format."""
    msgs: list[dict[str, Any]] = []
    for i, d in enumerate(demos):
        msgs.append({"role": "user", "content": d.request})
        if d.call is not None:
            msgs.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": f"demo{i}" + (f"_{j}" if j else ""), "type": "function",
                 "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}
                for j, (name, arguments) in enumerate(d.calls)]})
        else:
            msgs.append({"role": "assistant", "content": d.answer or ""})
    return msgs


#: A whole round: the request, the call, the tool's result and the answer spoken after it.
Round = tuple[str, tuple[str, dict[str, Any]], Any, str]


def round_demonstrations(tools: Iterable[Any], limit: int = 2) -> list[Round]:
    """Whole rounds from the tools' ``@tool(rounds=...)``: the first of each tool that has
    one, at most ``limit``, in the registry's order.

    Why: shown only requests and calls, the 0.5B model words a tool's result by saying the
    request back ("Turn on the kitchen light." after the light went on: 5 of 8 probed in
    ``bench_voice``), which the echo guard then retries -- a third hop. A round that ends in
    a short answer about the result shows the hop after a result what it is for. Built only
    from what a tool declares: a result and its wording cannot be made up from a schema."""
    out: list[Round] = []
    for t in tools:
        for request, arguments, result, answer in (getattr(t, "rounds", None) or [])[:1]:
            if len(out) < limit:
                out.append((request, (t.name, dict(arguments)), result, answer))
    return out


def round_messages(rounds: Iterable[Round], note: str | None = None) -> list[dict[str, Any]]:
    """The rounds as chat messages: the request, the assistant's call, the tool's result
    (as compact JSON, the way a real result reaches the model), then ``note`` as a user
    turn when the agent adds one after results (``Phrases.answer_note`` on presets with a
    tool role), then the answer: the same shape as the hop that words a real result."""
    from edgevox.tools.result import ToolResult

    msgs: list[dict[str, Any]] = []
    for i, (request, (name, arguments), result, answer) in enumerate(rounds):
        cid = f"round{i}"
        msgs += [{"role": "user", "content": request},
                 {"role": "assistant", "content": "", "tool_calls": [
                     {"id": cid, "type": "function",
                      "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}]},
                 {"role": "tool", "tool_call_id": cid, "name": name,
                  "content": ToolResult(name, arguments, ok=True, value=result).to_model_text()}]
        if note:
            msgs.append({"role": "user", "content": note})
        msgs.append({"role": "assistant", "content": answer})
    return msgs


# -- made-up requests for tools without examples ----------------------------------------------

def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def first_sentence(text: str) -> str:
    """What a description says a tool is for: its first sentence."""
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0] if text else ""


def _request_from_schema(name: str, description: str, params: Mapping[str, Any]) -> str:
    """A request in words: the description's first sentence with the arguments spelled out."""
    first = first_sentence(description).rstrip(".!? ")
    head = first or name.replace("_", " ").replace(".", " ")
    args = _arguments_from_schema(params)
    if not args:
        return head + "."
    spelled = ", ".join(f"{k.replace('_', ' ')} {_spell(v)}" for k, v in args.items())
    return f"{head}: {spelled}."


#: Verbs a tool's description starts with ("Retrieves the ...", "Calculate the ..."), in
#: their plain form: a made-up request that starts with one can be asked as a question.
VERBS = frozenset("""add analyze book browse calculate check combine compute convert create delete determine
display estimate execute fetch find generate get identify initiate list locate look make manage order perform
place play predict provide purchase remove render reserve retrieve return scrape search send set sort update
write""".split())


def _plain_verb(word: str) -> str | None:
    """``word`` as a plain verb from VERBS ("Retrieves" -> "retrieve"), else None."""
    w = word.lower()
    for cut in (w, w[:-1] if w.endswith("s") else "", w[:-2] if w.endswith("es") else "",
                w[:-3] + "y" if w.endswith("ies") else ""):
        if cut in VERBS:
            return cut
    return None


def _as_question(request: str) -> str | None:
    """A made-up request asked as a question ("Calculate the area: base 3." -> "Can you
    calculate the area with base 3?"). Why: BFCL's requests are as often questions as
    commands, and shown only commands answered by calls (and questions answered in
    words), the model answered "What is the capital of Brazil?" itself."""
    head, _, args = request.rstrip(" .!?").partition(": ")
    first, _, rest = head.partition(" ")
    verb = _plain_verb(first)
    if verb is None:
        return None
    return f"Can you {verb} {rest}" + (f" with {args}" if args else "") + "?"


def _spell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return " and ".join(_spell(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_spell(v)}" for k, v in value.items())
    return str(value)


def _arguments_from_schema(params: Mapping[str, Any]) -> dict[str, Any]:
    props = params.get("properties") or {}
    required = [k for k in params.get("required") or [] if k in props]
    return {k: _sample(k, props[k]) for k in required}


def _sample(name: str, schema: Any) -> Any:
    """A plausible value for one parameter: an enum member, an example from its
    description, a number inside its bounds; never something a real call could not hold."""
    if not isinstance(schema, Mapping):
        return name
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        options = [o for o in schema.get(key) or [] if isinstance(o, Mapping) and o.get("type") != "null"]
        if options:
            return _sample(name, options[0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        lo, hi = schema.get("minimum"), schema.get("maximum")
        value = 3 if lo is None else lo + 1
        if hi is not None and value > hi:
            value = hi
        return int(value) if kind == "integer" else float(value)
    if kind == "array":
        return [_sample(name.rstrip("s") or name, schema.get("items") or {"type": "string"})]
    if kind == "object":
        return _arguments_from_schema(schema)
    described = _EG.search(str(schema.get("description") or ""))
    if described:
        return described.group(1).strip()
    return name.replace("_", " ")
