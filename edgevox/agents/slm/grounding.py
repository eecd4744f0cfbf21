"""Grounding: a call must be about something the request talks about.

Measured on the home evaluation's dev split with Qwen2.5-Coder-0.5B: most unwanted actions
are calls to the *nearest* tool for a request no tool serves -- "Close the blinds." ->
``set_thermostat(0)``, "Turn on the fan in the office." -> ``set_light("office")`` -- or a
setter called for a question about a state ("Is the kitchen light on?" -> the light
switched on). Four checks, each from what the registry says a tool is for, block such a
call before it runs:

1. **A device no tool serves.** The request names a household device (a fixed, generic
   list: fans, blinds, doors, vacuums, mowers, ...) that no tool's vocabulary mentions, and
   not the called tool's own target (``set_light``: "light", "brightness"; not its rooms:
   a fan in the office is still a fan). The same for opening, closing and locking, which
   only doors, windows and blinds do.
2. **A question to a tool that changes things.** "Is the heating on?" asks about a state;
   a tool whose name or description starts with a verb that changes something (``set_``,
   "Start ...", "Control ...") cannot answer it; one that computes or tells may
   (``calculate_area``, ``get_weather``). Polite requests ("Can you ...?") are not questions;
   a line that ends on "status" ("Bathroom light status.") is one. Nor may a tool that tells
   answer a question about a place its call leaves out: a room of the home ("How warm is it
   in the bedroom?" -> ``get_weather``: the weather is outside) or "in the den". No tool
   answers "why" (a reason: "Why is the sky blue?" -> the weather).
3. **A place the tool does not know.** "Turn off the pantry light." -> ``set_light("all")``:
   the request names a place ("the pantry light", "in the conservatory") that is none of
   the values of the call's *where* enum (``room``), and the call chose another one. A
   place of a home the registry has no word for (``vocabulary.PLACES``: "Conservatory light
   off.") counts wherever the request says it.
4. **Nothing in common.** The request shares no word with the tool's vocabulary (its name,
   the first sentence of its description, its parameter names, enum values and the
   requests of its ``@tool(examples=)``), does not say one of the call's required strings
   ("lo-fi") or its enum values ("crank it *up*"), and does not point back at the request
   before that does ("Now turn it off again."). Numbers and generic verbs ("turn", "set")
   ground nothing. Words are compared by a crude stem (lights/light, heating/heat). A call
   whose enum value the request says with "un"/"de" before it ("Unpause." -> ``pause``) is
   about the opposite of the request. A call that puts the whole request into an optional
   string (a timer named "Remind me to ring the dentist tomorrow.") says nothing of its own.

A follow-up that changes one thing of the action before ("Hmm, make that 70." after the
thermostat, "What about Lisbon?" after the weather) shares no word with its tool: a call of
the *same* tool as the previous turn's successful call, which sets to a value the request
says an argument the previous call had otherwise, is grounded by that turn.

A blocked call never runs; the turn ends with a short reply in words that says what the
assistant cannot do (measured: letting the model answer after the error cost 50-80 s a
turn under load and it read the error back). The vocabulary comes from the registry, the
device list is generic knowledge (both in ``vocabulary``): neither is taken from an
evaluation's utterances. Where each part lives: ``devices`` (1), ``questions`` (2), ``places`` (3),
``services`` (what no tool is), ``not_about`` (``why_not``: the four weighed, and 4), ``several_asks``
(a line that asks more than one thing), ``lengths`` (a length nobody asked for). This module holds
the hook, and what it reads beyond one line: the turn before, the hop's other calls, the pieces a
line holds back.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any

from edgevox.agents.data import leaves
from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.phrases import DEFAULT_PHRASES
from edgevox.agents.slm.amounts import DOWN_WORDS, UP_WORDS, said_numbers, said_step
from edgevox.agents.slm.devices import device_word, same_device
from edgevox.agents.slm.follow_up import previous_call, retarget
from edgevox.agents.slm.held_back import WAITS, held_pieces
from edgevox.agents.slm.lengths import ended_instead, invents_a_length, length_told
from edgevox.agents.slm.not_about import why_not, wordy
from edgevox.agents.slm.places import unknown_place
from edgevox.agents.slm.planned import GROUNDING, PLANNED
from edgevox.agents.slm.questions import is_question, line_pieces
from edgevox.agents.slm.services import asks_another_service
from edgevox.agents.slm.several_asks import (
    from_another_part,
    grounded_by_a_piece,
    strays_from,
    switched_as_said,
    without_the_other_parts_words,
)
from edgevox.agents.slm.statements import ORDERS_PIECE, terse_order
from edgevox.agents.slm.vocabulary import (
    UNITS,
    WORD,
    changes_things,
    content_words,
    tool_words,
    without_idioms,
)

__all__ = ["HANDOVER", "NOTE", "PLANNED", "RELATED", "REPLIES", "VERDICT", "Grounding", "reason_for"]


#: the blocked call's error (recorded with the call; the turn ends with REPLIES[reason])
NOTE = "Not done: I have no tool for that."


REPLIES = {
    "device": "Sorry, I can't control the {device}.",
    "question": "Sorry, I can't check that.",
    "unrelated": "Sorry, I can't do that.",
    "place": "Sorry, I don't know the {place}.",
    "remark": "Okay.",
    "held back": DEFAULT_PHRASES.left_alone,
    "waits": DEFAULT_PHRASES.cannot_wait,
}


def changes_what_was_said(request: str, before: Mapping[str, Any], arguments: Mapping[str, Any]) -> bool:
    """Does the call set, to a value ``request`` says, an argument the previous call of the
    same tool (``before``) had otherwise ("make that 70" -> temperature 72 -> 70), or move it by
    the step the request says ("another degree up" -> 18 -> 19, ``stepped``)?"""
    request_words = WORD.findall(request.lower())
    said = f" {' '.join(request_words)} "
    numbers = said_numbers(request)
    for key, value in arguments.items():
        if value is None or before.get(key) == value or isinstance(value, bool):
            continue
        if isinstance(value, (int, float)) and float(value) in numbers:
            return True
        if isinstance(value, (int, float)) and isinstance(before.get(key), (int, float)) \
                and float(value) - float(before[key]) in stepped(request):
            return True
        if not isinstance(value, str) or not wordy(value):
            continue
        words = WORD.findall(value.lower())
        if f" {' '.join(words)} " in said and words != request_words:  # a value said, not the request echoed
            return True
    return False


#: the way a step goes: "another degree up", "one more notch down", "two degrees warmer"
_UP = UP_WORDS | {"raise"}


_ONE_STEP = re.compile(r"\b(?:another|one\s+more|a|one)\s+(?:degree|notch|step|point|percent)\b")


def stepped(request: str) -> set[float]:
    """The changes a request says as a step from the value before ("Still a bit nippy, another
    degree up." -> {1.0}; "Two degrees cooler." -> {-2.0}); empty when it says no way or no
    step. Read with the previous call of the same tool (``changes_what_was_said``)."""
    words = set(WORD.findall(request.lower()))
    way = (1 if words & _UP else 0) - (1 if words & DOWN_WORDS else 0)
    if not way:
        return set()
    step = said_step(request) or (1.0 if _ONE_STEP.search(request.lower()) else None)
    return {way * step} if step else set()


#: words by which a request points back at the one before ("turn it off again", "same for ...")
_BACK = frozenset({"it", "them", "those", "again", "same", "too", "also", "instead", "more"})  # "Bump that up two more." (dev15)


def points_back(request: str) -> bool:
    """Does the request refer to an earlier one ("Now turn it off again.")?"""
    return bool(_BACK & set(WORD.findall(request.lower())))


def previous_request(ctx: TurnContext) -> str:
    """The user's message before this turn's, or "" (whether or not the session holds this
    turn's message yet)."""
    users = [m.get("content") for m in getattr(ctx.session, "messages", []) if m.get("role") == "user"]
    users = [u for u in users if isinstance(u, str)]
    return users[-2] if len(users) > 1 and users[-1] == ctx.text else (users[-1] if users and users[-1] != ctx.text else "")


def reason_for(ctx: TurnContext, tool: Any, arguments: Mapping[str, Any]) -> str | None:
    """``why_not`` for a call in a running turn: a request that points back ("Now turn it
    off again.") is read together with the one before it."""
    tools = list(ctx.registry)
    if tool.name in ctx.state(Grounding.name).get(PLANNED, ()):
        return None  # the call a hook made from the request's own words
    if held_back_call(ctx.text, tool, arguments, tools) and orders_plainly(ctx.text):
        return "unrelated"  # "Keep the heating where it is and play some Chopin." (dev53): not the thermostat
    if ctx.state(Grounding.name).get(VERDICT):
        return ctx.state(Grounding.name)[VERDICT]  # the relevance gate's, by meaning
    if retarget(ctx.text, tool, {}) is not None and is_question(previous_request(ctx)) \
            and previous_call(getattr(ctx.session, "messages", []), ctx.text) is None:
        return "question"  # "What about the bedroom?" after "Kitchen light, is it on?" (dev16): asked again
    reason = why_not(ctx.text, tool, arguments, tools)
    if reason in ("device", "unrelated", "question") and grounded_by_a_piece(ctx.text, tool, arguments, tools):
        return None  # one piece of the line asks for it; another asks what no tool does
    if reason == "unrelated" and tool.name in ctx.state(Grounding.name).get(RELATED, ()) \
            and not asks_another_service(ctx.text, tool) \
            and not content_words(ctx.text) & tool_words(tool) - content_words(without_idioms(ctx.text)):
        return None  # near the tool's requests by meaning (the relevance gate said so), not by an idiom ("play dead")
    if reason == "unrelated":
        prev = previous_call(getattr(ctx.session, "messages", []), ctx.text)
        if prev and prev[0] == tool.name and changes_what_was_said(ctx.text, prev[1], arguments):
            return None  # "What about Lisbon?" right after the weather in Madrid
    if reason == "unrelated" and points_back(ctx.text):
        before = previous_request(ctx)
        if before and why_not(f"{before} {ctx.text}", tool, arguments, tools) is None:
            return None  # "Now turn it off again." after "Bathroom light on."
    if reason is None and invents_a_length(ctx.text, tool, arguments) and not _called_before(ctx, tool.name):
        return "unrelated"  # "Remind me to pay the NEPA bill on Friday morning" -> a one-hour timer (dev32)
    return reason


def _called_before(ctx: TurnContext, name: str) -> bool:
    """Has the session called ``name`` before (a later "Same again." may repeat its length)?
    Earlier hops of this turn count too: their later calls are ``invents_a_length``'s."""
    return any((c.get("function") or {}).get("name") == name for m in getattr(ctx.session, "messages", [])
               for c in m.get("tool_calls") or ())


#: keys of the grounding hook's turn state that another hook (the relevance gate) may set
#: before a call is checked: HANDOVER -- a blocked call's turn goes on to the next hop instead
#: of ending in words; RELATED -- names of tools the request is about by meaning, though it
#: shares no word with them (their "unrelated" check is skipped)
HANDOVER = "handover"


RELATED = "related"


#: VERDICT -- the reason (a key of REPLIES) to block the call about to be checked, decided by
#: meaning: a question about a state no tool reports, a tool far from the request
VERDICT = "verdict"


def withdrawn(call: Any, why: str) -> HookResult:
    """The call taken back before it runs: the hop goes on (a ``withdrawn`` result, not a block
    that ends the turn in words)."""
    from edgevox.tools import ToolResult

    return HookResult.replace(ToolResult(name=call.name, arguments=call.arguments, ok=False, error=NOTE,
                                         error_type="withdrawn", call_id=call.id), reason=f"{call.name} {why}")


def _says(value: str, piece: str) -> bool:
    return re.search(rf"\b{re.escape(value)}\b", piece) is not None


def held_back_call(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> str | None:
    """A ``REPLIES`` key when a call of a tool that changes things is held back (``held_back``):
    the pieces that name it (its thing, or a value it holds) all hold it back, or a value it
    holds is said only in a held piece ("Leave the garage light on but turn the hallway one
    off." -> the garage light, dev53); else None."""
    pieces = held_pieces(request)
    if not changes_things(tool) or not any(why for _, why in pieces):
        return None
    target = tool_words(tool) - UNITS
    values = {str(v).lower() for v in leaves(dict(arguments)) if isinstance(v, str) and len(v.strip()) > 1}

    def names(piece: str) -> bool:
        return bool(content_words(piece) & target) or any(_says(v, piece) for v in values)

    held = [why for p, why in pieces if why and names(p)]
    if not held:
        return None
    plain = [p for p, why in pieces if not why]
    only_held = any(any(_says(v, p) for p, why in pieces if why) and not any(_says(v, p) for p in plain) for v in values)

    def names_another(piece: str) -> bool:
        return any(content_words(piece) & tool_words(t) for t in tools if t.name != tool.name and not same_device(t, tool))

    # a plain order of no other thing may be the call's ("Don't cancel the laundry timer, start a new one for 45 minutes.")
    if not only_held and any(names(p) or (ORDERS_PIECE.match(p) and not names_another(p) and held[0] not in WAITS) for p in plain):
        return None
    return "waits" if held[0] in WAITS else "held back"


def orders_plainly(request: str) -> bool:
    """Does a piece the line does not hold back order something ("play some Chopin")?"""
    return any(not why and (ORDERS_PIECE.match(p) or terse_order(p)) for p, why in held_pieces(request))


def unasked_piece(ctx: TurnContext, tool: Any, arguments: Mapping[str, Any]) -> str | None:
    """``reason_for`` a call beside the turn's successes, in a line of several pieces, when no
    piece grounds it (``grounded_by_a_piece``); else None."""
    if tool.name in ctx.state(Grounding.name).get(PLANNED, ()) or len(line_pieces(ctx.text)) < 2:
        return None
    reason = reason_for(ctx, tool, arguments)
    return None if reason is None or grounded_by_a_piece(ctx.text, tool, arguments, list(ctx.registry)) else reason


def unasked_after_success(ctx: TurnContext, tool: Any, arguments: Mapping[str, Any]) -> bool:
    """Is a call, on a hop after one that succeeded, of a tool no call of the turn used, on a hop no
    hook forced, sharing no word with the request and holding no value it says? "Add 2 litres
    of milk and take bread off the list." (dev42): the bread was not on the list, and on the
    hop after the refusal the model read the weather."""
    if tool.name in ctx.state(Grounding.name).get(PLANNED, ()) or ctx.state("remainder").get("forced_hop") == ctx.hop \
            or any(r.name == tool.name for r in ctx.records) or not any(r.hop < ctx.hop for r in ctx.successes()):
        return False  # (a call beside the success in the same hop is the model's reading of the request)
    said = ctx.text.lower()
    values = [str(v).lower() for v in leaves(dict(arguments)) if isinstance(v, (str, int, float)) and str(v).strip()]
    return not content_words(ctx.text) & tool_words(tool) and not any(v in said for v in values)


class Grounding(Hook):
    """Blocks calls not about the request (see the module docstring); the turn ends with a
    short reply in words.

    A ``before_tool`` hook, so a call the stream completes may still start early: the
    request and the call are all it needs. The blocked call is recorded (not dispatched,
    with an error) and its ``after_tool`` ends the turn. (Sending the turn on to the one
    other tool that shares words with the request, its name forced, was measured on dev:
    1 right call, 3 wrong ones -- the right tool with made-up numbers -- and 1 unwanted;
    a wrong action is worse than none, so it is not done.)
    """

    name = GROUNDING
    priority = 5  # before the other before_tool hooks: a call not about the request needs no repair
    safety = True

    def before_tool(self, ctx: TurnContext, call: Any) -> HookResult | None:
        registry = ctx.registry
        tool = registry.get(call.name)
        if tool is None or not isinstance(call.arguments, dict):
            return None  # unknown names are unknown_tool's
        tools = list(registry)
        seen = ctx.state(self).setdefault("calls_of_hop", {})
        earlier, seen[ctx.hop] = seen.get(ctx.hop, 0), seen.get(ctx.hop, 0) + 1
        repaired = None
        if tool.name not in ctx.state(self).get(PLANNED, ()) \
                and (kept := without_the_other_parts_words(ctx.text, tool, call.arguments, tools)) is not None:
            # a name taken from the other part ("... and whats the weather doing" -> a timer
            # named "weather"): the call goes on without it, checked as any other
            call = dataclasses.replace(call, arguments=kept)
            repaired = HookResult.replace(call, reason=f"{call.name} without another part's words")
        if earlier and tool.name not in ctx.state(self).get(PLANNED, ()) \
                and from_another_part(ctx.text, tool, call.arguments, tools):
            # the hop's other call did its own part; this one took the other part's words: it
            # is taken back and the hop goes on (the remainder hook asks for the part undone)
            return withdrawn(call, "took another part's words")
        approved = ctx.state(self).setdefault("approved", {}).setdefault(ctx.hop, [])
        if strays_from(ctx.text, tool, call.arguments, approved):
            # one action asked, and the hop's next call of the tool undoes the one before it or
            # moves to a place the request never says: taken back, the hop goes on
            return withdrawn(call, "strays from the hop's call before it")
        if tool.name not in ctx.state(self).get(PLANNED, ()) and (switched := switched_as_said(ctx.text, tool, call.arguments)):
            call = dataclasses.replace(call, arguments=switched)
            repaired = HookResult.replace(call, reason=f"{call.name} switched as the request says")
        if (earlier or ctx.successes()) and invents_a_length(ctx.text, tool, call.arguments):
            return withdrawn(call, "holds a length the request never says")
        if length_told(ctx.text, tool, call.arguments):
            return withdrawn(call, "its length is told, not asked")
        if not earlier and (ended := ended_instead(ctx.text, registry, tool, call.arguments)):
            ending = dataclasses.replace(call, name=ended[0].name, arguments=ended[1])
            return HookResult.replace(ending, reason=f"{call.name} with a made-up length: {ended[0].name} asked")
        if held := held_back_call(ctx.text, tool, call.arguments, tools):
            # (with a piece said plainly, ``reason_for`` calls it unrelated: the relevance gate may
            # send the turn on to the tool that piece is nearest, and the block then ends nothing)
            return self._blocked(ctx, call, held, REPLIES[held])
        approved.append((tool.name, dict(call.arguments)))
        if ctx.successes() and unasked_after_success(ctx, tool, call.arguments):
            return withdrawn(call, "a tool nothing in the request names, after the turn's calls")
        if ctx.successes() or any((t := registry.get(n)) is not None and n != tool.name and same_device(t, tool)
                                  for n, _ in approved[:-1]):
            # after a success the turn is on track; beside a call of the same device in the hop,
            # "it" is that device's ("Put on some Taylor Swift and turn it up", dev30). Unless the
            # line has several pieces and neither it nor any piece grounds the call ("Set an alarm
            # for 6:30 and turn all the lights off.", dev52: after the lights, a 6-hour timer)
            reason = None if ctx.state("remainder").get("forced_hop") == ctx.hop else unasked_piece(ctx, tool, call.arguments)
            if reason is None:
                return repaired
        else:
            reason = reason_for(ctx, tool, call.arguments)
        if reason is None and from_another_part(ctx.text, tool, call.arguments, tools):
            reason = "unrelated"
        if reason is None:
            return repaired
        approved.pop()  # a blocked call is nothing the hop's next call may stray from
        reply = REPLIES[reason]
        if reason == "device":
            device = device_word(ctx.text, tools)
            reply = reply.format(device=device) if device != "that" else REPLIES["unrelated"]
        elif reason == "place":
            reply = reply.format(place=unknown_place(ctx.text, tool, call.arguments, tools))
        return self._blocked(ctx, call, reason, reply)

    def _blocked(self, ctx: TurnContext, call: Any, reason: str, reply: str) -> HookResult:
        """The call recorded, not run, with an error; its ``after_tool`` ends the turn with ``reply``."""
        from edgevox.tools import ToolResult

        blocked = ToolResult(name=call.name, arguments=call.arguments, ok=False, error=NOTE,
                             error_type="invalid_arguments", call_id=call.id)
        ctx.state(self).setdefault("blocked", {})[id(blocked)] = reply
        return HookResult.replace(blocked, reason=f"{call.name} is not about the request ({reason})")

    def after_tool(self, ctx: TurnContext, result: Any) -> HookResult | None:
        st = ctx.state(self)
        reply = st.get("blocked", {}).pop(id(result), None)
        if reply is None:
            return None
        if st.pop(HANDOVER, None):
            return None  # another hook takes the turn on to the next hop (the relevance gate's redirect)
        return HookResult("end", reply=reply, reason="answered in words", counted=False)  # counted when blocked
