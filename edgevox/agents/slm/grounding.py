"""Grounding: a call must be about something the request talks about.

Measured on the home evaluation's dev split with Qwen2.5-Coder-0.5B: most unwanted actions
are calls to the *nearest* tool for a request no tool serves -- "Who painted the Mona
Lisa?" -> ``play_music(query="maya")``, "Close the blinds." -> ``set_thermostat(0)``. Such a
call shares no word with the request: neither with what the tool is for (its name, the
first sentence of its description, its parameter names, enum values and the requests of
its ``@tool(examples=)``) nor with the words of its own string arguments.

A call with no such word is blocked before it runs (the model gets an error saying no tool
does what was asked), and the next hop may only answer in words. Numbers do not ground a call ("What is 15 plus 27?" is not
a 15-minute timer); generic verbs ("turn", "set", "switch") do not either, since every
device is turned and set. Words are compared by a crude stem (lights/light,
heating/heat). A follow-up like "And pears." is grounded by its required argument
(``item="pears"``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any

from edgevox.agents.demonstrations import first_sentence
from edgevox.agents.hooks import Hook, HookResult, TurnContext

#: the blocked call's error, which the model reads before it answers in words (measured: the
#: model repeats much of it, so it is worded as something it may say)
NOTE = "Not done: I have no tool for that. Say so to the user in a few words."

_WORD = re.compile(r"[a-z]+")
#: words that say nothing about *which* device or service is meant
_GENERIC = frozenset("""
a an the to of in on off for and or but with at by from into out up down over it its this that
these those there here is are was be been am do does did can could would will should may might
i me my we our you your he she they them please pls thanks thank just now then so some any all
every what which who how when where why yes no not turn set make get put switch give let tell
want need like know see go going have has had one two three four five six seven eight nine ten
bit little more less very really much many again also too
""".split())


def stem(word: str) -> str:
    """A crude stem, enough to match lights/light and heating/heat."""
    for suffix in ("ing", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """The stems of the words of ``text`` that can say which device or service is meant."""
    return {stem(w) for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _GENERIC}


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def tool_words(tool: Any) -> set[str]:
    """What a tool is for, as content-word stems (see the module docstring)."""
    parts = [tool.name.replace("_", " ").replace(".", " "), first_sentence(tool.description or "")]
    for key, schema in ((tool.parameters or {}).get("properties") or {}).items():
        parts.append(key.replace("_", " "))
        if isinstance(schema, Mapping):
            parts.extend(str(v) for v in schema.get("enum") or [])
    parts.extend(request for request, _ in getattr(tool, "examples", None) or [])
    return content_words(" ".join(parts))


def grounded(request: str, tool: Any, arguments: Mapping[str, Any]) -> bool:
    """Does ``request`` share a content word with the tool or with the call's own required
    strings? (Not optional ones: the model copies the request's words into a free-text
    ``label`` -- "Open the blinds halfway." -> a timer labelled "blinds halfway".)"""
    said = content_words(request)
    if said & tool_words(tool):
        return True
    required = set((tool.parameters or {}).get("required") or ())
    return bool(said & content_words(" ".join(_strings({k: v for k, v in arguments.items() if k in required}))))


class Grounding(Hook):
    """Blocks calls that share no word with the request; the model then answers in words.

    A ``before_tool`` hook, so a call the stream completes may still start early: the
    request and the call are all it needs. The blocked call never runs (its result is an
    error the model sees), and the next hop may only answer in words.
    """

    name = "grounding"
    priority = 5  # before the other before_tool hooks: a call not about the request needs no repair
    safety = True

    def before_tool(self, ctx: TurnContext, call: Any) -> HookResult | None:
        from edgevox.tools import ToolResult

        tool = ctx.registry.get(call.name)
        if tool is None or not isinstance(call.arguments, dict) or ctx.successes():
            return None  # unknown names are unknown_tool's; after a success the turn is on track
        if grounded(ctx.text, tool, call.arguments):
            return None
        ctx.state(self)["words_only"] = True
        return HookResult.replace(ToolResult(name=call.name, arguments=call.arguments, ok=False, error=NOTE,
                                             error_type="invalid_arguments", call_id=call.id),
                                  reason=f"{call.name} is not about the request")

    def before_llm(self, ctx: TurnContext, request: Any) -> HookResult | None:
        if not ctx.state(self).pop("words_only", False) or request.strategy == "none":
            return None
        return HookResult.replace(dataclasses.replace(request, strategy="none"), reason="answer in words",
                                  counted=False)
