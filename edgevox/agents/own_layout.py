"""The calls of a turn's first acting hop written again in the model's own layout.

Why: the envelope (``{"tool": ...}`` or ``{"answer": ...}`` under a grammar, with
demonstrations) is what makes a small model answer small talk in words instead of acting,
but for a tool set without ``@tool(examples=)`` its demonstrations are made up from the
schemas, and the 0.5B coder copies their shape: a list of two or three calls where a
request asks for four, one call where it tells a scene of several. Asked for a JSON list
of calls in its own fenced layout (``json_fenced``), with no demonstrations, the same model
counts what a request asks for far better (BFCL parallel 100-149: 66 % in one generation,
against 30 % for the agent's envelope calls; bfcl/README.md, "Session 13").

So a profile may name its model's own layout (``own_layout``, with the preset whose
template lists the tools for it, ``own_layout_preset``). When the envelope chose to call
on the turn's first hop, and no tool carries examples of its own, the same request is
decoded once more in that layout, from the same session but with the list instructions
below in place of the envelope's instructions and demonstrations. The envelope still
decides *whether* to act (the own layout calls a tool for nearly any request: BFCL
irrelevance 2 %), the own layout writes *which calls*. Its calls replace the envelope's
only when they call every tool the envelope called, and no other unless the envelope
itself called more than one tool or a hook sees the request plainly ask for that tool
(``Hook.asked_tools``: the remainder hook's parts of the request, by meaning). Asked about
one thing, the own layout tends to add a second tool nobody asked for (BFCL multiple 0-49,
four such cases). Every replaced call still goes through the ``after_llm`` hooks like any
other.

The own layout's calls are not taken either when they put values the request never says
where the envelope's calls of the same tool kept to what it says or left the parameter out
(``makes_up``): measured on BFCL multiple 0-99 (session 16), the own layout split "divorce
law specialists" into two calls for "Marriage" and "Criminal" (multiple_58), asked for the
dividends both "quarterly" and "annually" where the request named neither (multiple_54),
and added ``features=["SqFt", "Bedrooms", "Bathrooms"]`` to a house-price forecast
(multiple_50); in each the envelope's call was right.

A first hop that meant to act and wrote nothing to act on (``undecided``: an empty reply, or
one that only promises help, "Sure, I can help with that.") is written in the own layout
too, and takes its calls if it makes any: the model's own words said it would act (BFCL
parallel and parallel_multiple 50-99, session 14: 7 of the 100 cases got such a promise and
no call, 2 more an empty reply).

A first hop that answered in words a request told as a story, one of whose sentences plainly
asks for a tool that looks things up (``story_tools``: the remainder hook's sentences and
parts, by meaning), is written in the own layout too; of its calls only those of the tools
so asked for are taken, and its words are dropped. Measured through the agent on BFCL
parallel_multiple 0-99 (session 17): "Imagine you are planning a trip to Mars. You weigh 75
kilograms on Earth ..." was answered "The vase is 24 centimeters tall.", and two more stories
like it, each with no call; offline, no request of the first 100 of irrelevance and
live_irrelevance is such a story. Whether a hop is such a story is known before it is decoded
(``may_drop_words``), so a streamed turn holds that hop's words until it ends: they are
dropped unheard there too, or said whole when no call replaces them.

A registry whose tools have examples (the voice assistant's home tools) never gets here:
its demonstrations are its author's, and its prompt and turns stay as they were.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Callable
from typing import Any

from edgevox.agents.demonstrations import tool_spec
from edgevox.agents.speech import empty_promise
from edgevox.agents.types import ANSWER, LLMOutput, LLMRequest
from edgevox.agents.warm import shared_prefix_tokens

log = logging.getLogger(__name__)

#: The system text of the own-layout generation: ask for a JSON list with one item per
#: thing asked (the BFCL runner's ``--system list`` is this text too).
LIST_INSTRUCTIONS = (
    "You are a function-calling assistant. To use the functions, reply with only a JSON "
    'list of calls: [{"name": "func_name", "arguments": {"arg": value}}, ...]. Put one '
    "item in the list for every call the request needs: a request about several items, "
    "values or places needs several calls, one per item. Use values exactly as given in "
    "the request. If none of the functions can answer the request, do not call any: reply "
    "in plain text."
)


def may_rewrite(agent: Any) -> bool:
    """Whether the agent's first acting hops may have their calls written again (then no
    call starts before its hop has ended)."""
    return (agent.own_layout is not None and hasattr(agent.backend, "with_preset")
            and not any(tool_spec(t)[3] for t in agent.registry))


def undecided(output: LLMOutput) -> bool:
    """A first hop that meant to act and wrote nothing to act on: no call, and a reply that
    is empty or only promises help ("Sure, I can help with that.", ``speech.empty_promise``)."""
    return not output.calls and (not output.content.strip() or empty_promise(output.content))


def _first_acting_hop(agent: Any, request: LLMRequest) -> bool:
    """A turn's first hop, offered tools, with no note, of an agent whose calls may be rewritten."""
    return (request.hop == 0 and not request.notes and request.strategy not in ("none", ANSWER)
            and may_rewrite(agent))


def wanted(agent: Any, request: LLMRequest, output: LLMOutput, ctx: Any = None) -> bool:
    """Whether this hop's calls are to be written (again) in the own layout: the envelope
    chose to call, left the choice undecided, or answered in words a story one of whose
    sentences plainly asks for a tool that looks things up (``story_tools``; needs ``ctx``)."""
    return _first_acting_hop(agent, request) and (
        bool(output.calls) or undecided(output) or (ctx is not None and bool(story_tools(agent, ctx))))


def may_drop_words(agent: Any, request: LLMRequest, ctx: Any) -> bool:
    """Whether this hop's words may yet be dropped for the own layout's calls (a story one of
    whose sentences plainly asks for a lookup, see ``wanted``). Known before the hop is
    decoded, so a streamed turn holds the hop's words until it ends and never says a made-up
    result ("The vase is 24 centimeters tall.") that the calls then replace."""
    return _first_acting_hop(agent, request) and bool(story_tools(agent, ctx))


def messages(session: Any) -> list[dict]:
    """The session as the own layout sees it: the list instructions (then the session's own
    system text, as a BFCL case's), its messages; no envelope instructions, no demonstrations."""
    system = LIST_INSTRUCTIONS + (f"\n\n{session.system}" if session.system else "")
    with session.lock:
        history = [dict(m) for m in session.messages]
    return [{"role": "system", "content": system}, *history]


def chosen(envelope: list[Any], own: list[Any], asked: Callable[[], set[str]] = set) -> list[Any]:
    """The own layout's calls when they call every tool the envelope called and no other,
    unless the envelope called several tools itself or every other tool is one the request
    plainly asks for (``asked()``: ``Hook.asked_tools``, only consulted then); else the
    envelope's. When the envelope wrote no call (``undecided``), the own layout's calls."""
    if not own:
        return envelope
    before, after = {c.name for c in envelope}, {c.name for c in own}
    if not envelope:
        return own
    if before <= after and (after <= before or len(before) > 1 or after - before <= asked()):
        return own
    return envelope


#: words that say no value by themselves
_LINKS = frozenset("a an the of and or for in on at to with by from is are be".split())
_WORD = re.compile(r"[a-z0-9]+")
#: a language, currency or place code: "en", "USD", "CA"
_CODE = re.compile(r"[a-z]{2}|[A-Z]{2,3}")
#: a parameter named for a unit ("unit", "temp_unit", "toUnit"; not "community")
_UNIT_KEY = re.compile(r"(?:^|_)units?(?=$|_|[A-Z])|(?<=[a-z])Units?(?=$|_|[A-Z])")


def _said_word(word: str, request: set[str]) -> bool:
    """A word of the request, or one a request word begins with or that begins with one
    ("asc" for "ascending", "sculptures" for "sculpture")."""
    return word in request or (len(word) >= 3 and any(
        w.startswith(word) or (len(w) >= 4 and word.startswith(w)) for w in request))


def said(value: Any, request: set[str]) -> bool | None:
    """Whether the request (its words) says a string value, by one of its words at least;
    a list of strings, by every item. None for any other value: numbers are worked out,
    counted and converted from what is said, and are not judged here; nor is a code (two
    small letters or two or three capitals: "en" for "in English", "USD", "CA"), converted
    from a name said (BFCL live_parallel_multiple_4-3-0: ``language="en"`` kept the own
    layout's two right calls from being taken, session 17)."""
    if isinstance(value, str) and _CODE.fullmatch(value.strip()):
        return None
    if isinstance(value, str):
        words = set(_WORD.findall(value.lower())) - _LINKS
        return bool(words) and any(_said_word(w, request) for w in words)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        each = [said(v, request) for v in value]
        return None if None in each else all(each)
    return None


def makes_up(request: str, envelope: list[Any], own: list[Any]) -> bool:
    """Whether the own layout's calls give a parameter values the request never says where
    the envelope's calls of the same tool gave it values the request says, or none (see the
    module's notes). A unit is not judged: the unit repair sets the one the request says."""
    words = set(_WORD.findall(request.lower()))
    for name in {c.name for c in envelope} & {c.name for c in own}:
        before = [c.arguments for c in envelope if c.name == name and isinstance(c.arguments, dict)]
        after = [c.arguments for c in own if c.name == name and isinstance(c.arguments, dict)]
        for key in set().union(*after) if after else ():
            if _UNIT_KEY.search(key):
                continue
            new = [a[key] for a in after if key in a]
            old = [a.get(key) for a in before]
            if sorted(map(repr, new)) == sorted(repr(v) for v in old if v is not None):
                continue
            if all(said(v, words) is False for v in new) and all(v is None or said(v, words) for v in old):
                return True
    return False


def _from_hooks(agent: Any, view: Callable[[Any], set[str] | None]) -> set[str]:
    """The union of the agent's hooks' answers to ``view`` (empty when no hook has one)."""
    names: set[str] = set()
    for h in agent.hooks.hooks:
        names |= view(h) or set()
    return names


def asked_tools(agent: Any, ctx: Any) -> set[str]:
    """The tools the request plainly asks for, as the agent's hooks tell it (the union of
    their ``asked_tools``; empty when no hook has a view)."""
    return _from_hooks(agent, lambda h: h.asked_tools(ctx))


def story_tools(agent: Any, ctx: Any) -> set[str]:
    """The tools that look things up which a sentence of a story plainly asks for, as the
    agent's hooks tell it (the union of their ``story_tools``; empty: no story, or no view)."""
    return _from_hooks(agent, lambda h: h.story_tools(ctx))


def from_story(own: list[Any], named: set[str]) -> list[Any]:
    """The own layout's calls for a story the envelope answered in words: those of the tools
    the story plainly asks for (``story_tools``: tools that look things up). The envelope
    chose to answer, so no other tool is called on the own layout's word alone; a part
    still undone gets its own hop after these calls (``slm.remainder``)."""
    return [c for c in own if c.name in named]


def persists(agent: Any) -> bool:
    """Whether the own layout's prefix goes to the prompt cache: as the agent's own does
    (the BFCL engine keeps each case's out of it)."""
    return bool(agent.warm_job is not None and agent.warm_job.persist)


def rewrite(ctx: Any, request: LLMRequest, output: LLMOutput) -> LLMOutput:
    """``output`` with its calls written again in the own layout (see the module's notes);
    ``output`` itself when the own layout fails or its calls are not taken. ``ctx`` is the
    turn's ``TurnContext``: its agent, session and stop event."""
    from edgevox.grammars import GrammarError, grammar_for_strategy
    from edgevox.llm import ContextOverflow
    from edgevox.parsing import parse_tool_calls

    agent = ctx.agent
    agent._count("own_layout_hops")
    promised = undecided(output)
    if promised:
        agent._count("own_layout_undecided")  # the envelope wrote no call: see ``undecided``
    wire_format, preset = agent.own_layout
    backend = agent.backend.with_preset(preset)
    tools = request.tools
    try:
        grammar = grammar_for_strategy("reply_or_tool", tools, wire_format, cache=agent.grammar_cache,
                                       parallel_tool_calls=True)
        opts = {k: v for k, v in request.options.items() if v is not None}
        msgs = messages(ctx.session)
        keep = getattr(backend, "kept_state", contextlib.nullcontext)
        with keep():  # the envelope's prompt stays in the KV cache for the turn's next hop
            if hasattr(backend, "warm_prefix"):  # its own static prefix: from the prompt cache after once
                backend.warm_prefix(shared_prefix_tokens(backend, msgs[:1], tools), persist=persists(agent))
            done = backend.complete(msgs, tools, grammar=grammar, stop_event=ctx.stop_event, **opts)
    except (GrammarError, ContextOverflow, RuntimeError, OSError, ValueError) as exc:
        log.warning("agent %r: own-layout calls failed (%s); the envelope's calls stand", agent.name, exc)
        agent._count("own_layout_failures")
        return output
    if done.finish_reason not in ("stop", "length"):
        return output
    parsed = parse_tool_calls(done.text, parsers=backend.preset.detectors, tools=tools)
    envelope = list(output.calls)
    if not envelope and not promised:  # a story answered in words (see ``wanted``)
        calls = from_story(list(parsed.calls), story_tools(agent, ctx))
        if not calls:
            return output
        agent._count("own_layout_story")  # its made-up words are not said: the calls' results are
        output = output.replace(content="")
    else:
        calls = chosen(envelope, list(parsed.calls), lambda: asked_tools(agent, ctx))
    if envelope and calls is not envelope and makes_up(ctx.text, envelope, calls):
        agent._count("own_layout_made_up")  # the envelope kept to what the request says
        return output
    if [(c.name, c.arguments) for c in calls] == [(c.name, c.arguments) for c in output.calls]:
        return output
    agent._count("own_layout_calls")
    confidences = [c.confidence for c in output.calls if c.confidence is not None]
    for call in calls:  # the decision to act, and how sure it was, is the envelope's
        call.confidence = min(confidences) if confidences else None
    return output.replace(calls=calls)

