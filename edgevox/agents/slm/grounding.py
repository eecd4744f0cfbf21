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
evaluation's utterances. This module holds the four checks and the hook.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterable, Mapping
from typing import Any

from edgevox.agents.data import leaves
from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.phrases import DEFAULT_PHRASES
from edgevox.agents.slm.amounts import (
    DOWN_WORDS,
    JOIN,
    SECONDS,
    TIME_UNITS,
    UP_WORDS,
    said_numbers,
    said_step,
)
from edgevox.agents.slm.follow_up import previous_call, retarget, undoing_call
from edgevox.agents.slm.held_back import WAITS, held_pieces
from edgevox.agents.slm.labels import said_name
from edgevox.agents.slm.parts import every_sentence
from edgevox.agents.slm.planned import GROUNDING, PLANNED
from edgevox.agents.slm.remarks import asks_nothing, asks_of_the_past
from edgevox.agents.slm.statements import ORDERS_PIECE, complains, terse_order
from edgevox.agents.slm.telling import only_tells
from edgevox.agents.slm.vocabulary import (
    CHANGERS,
    CLIMATE_DEVICES,
    DEVICES,
    ENDING_WORDS,
    FELT,
    FILLERS,
    GENERIC,
    HOME_PLACES,
    IMPERATIVES,
    OPENERS,
    PLACES,
    SERVICES,
    UNITS,
    WORD,
    changes_things,
    content_words,
    enum_of,
    heard_words,
    is_number,
    one_edit_apart,
    properties,
    stem,
    target_words,
    tool_words,
    undoes,
    without_idioms,
)

__all__ = ["HANDOVER", "NOTE", "PLANNED", "RELATED", "REPLIES", "VERDICT", "Grounding", "changes_things", "is_question", "orders_beside_a_question", "reason_for", "target_words", "tool_words",
           "unknown_place", "unserved_devices", "why_not"]

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
#: "in the conservatory", "on my porch": where a request says something is
_PLACE = re.compile(r"\b(?:in|on|at)\s+(?:the|my|our)\s+([a-z]+)")

#: the first words of a question, or of an order to find something out ("Check ...", "Convert
#: ..."): a tool that changes things cannot answer either (a polite request starts with
#: "can/could/would/will you")
_ASKS = frozenset("""
is are was were isn't aren't did didn't does doesn't do don't has have hasn't haven't how what
what's whats when where which who whose why how's hows who's whos where's wheres when's whens why's
check any anything
convert calculate compute translate spell define explain read
""".split())
#: "do" opens a question only before its subject ("Do you ...", "Does it ..."), else it is an order
_DO = frozenset({"do", "does"})
_SUBJECTS = frozenset("i you we they he she it this that these those there".split())
#: a line that ends on one of these asks for a state ("Bathroom light status.")
_STATE_WORDS = frozenset({"status"})
_NOT_ASKING = ("how about", "what about", "do you mind", "why don't you", "why not")
#: a line ending in "?" that opens with these is a polite request, not a question
#: a word that joins a follow-up to the turn before ("And could you ...?", "Then is it on?"): it
#: says nothing about whether the line asks
_JOINS = frozenset({"and", "also", "then", "plus"})
_POLITE = frozenset("can could would will won't wouldn't mind may might shall should please".split())
#: an enum parameter that says *where* (its values are places, so a place the request names must be one)
_WHERE = frozenset({"room", "rooms", "location", "place", "area", "zone", "floor", "where"})


#: a lead-in that only says when or whether the speaker minds ("When you get a moment, ...",
#: "If you don't mind, ..."): what follows its comma is the request
_LEAD_IN = re.compile(r"^\W*(?:(?:uh|um|er|oh|ok|okay|hey)\W+)*(?:when|whenever|if|once)\s+you\b[^,?]{0,40},\s*")
#: a polite request after a statement ("The cake needs 35 minutes, can you time it?"), after
#: a reason ("My hands are full, so would you mind ...?", "It's nippy in here, love. Could you
#: ...?", dev28; "It's freezing, can we go to 70 Fahrenheit?", dev44) or as a tag ("Get some
#: light going in the dining room, will you?"); "tell me when it's over" asks for a timer's
#: alert, not a reading
_POLITE_CLAUSE = re.compile(r"(?:,|[.!;]\s)\s*(?:(?:so|then|and|but)\s+)?(?:please\s+)?(?:can|could|would|will|won't|wouldn't)\s+(?:you|we)\b"
                            r"(?!\s+(?:please\s+)?(?:check|see|find|confirm|let|say|look)\b)"
                            r"(?!\s+(?:please\s+)?tell\b(?!\s+me\s+when\s+(?:it|that|time)(?:'s|\s+is)?\s+(?:up|over|done|finished)\b))[^,]*$")


#: a level offered after a comma, as a question: "..., maybe 20 percent?"
_SUGGESTED = re.compile(r",\s*(?:maybe|perhaps|say|like|about)\s+(?:at\s+|to\s+|around\s+)?(?:\d+|[a-z]+(?:-[a-z]+)?)"
                        r"(?:\s*(?:percent|%|degrees|minutes|mins))?\s*\?\s*$")
#: a question said inside a line that does not open as one, as transcripts without a question
#: mark and hurried speech put it ("timer how much time remaining", "the heating it is at what
#: number at the moment", dev26)
_ASKED_INSIDE = re.compile(r"\bhow\s+(?:much|long)\s+(?:time\s+)?(?:is\s+|'s\s+|has\s+)?(?:left|remaining|to\s+go)\b"
                           r"|\bat\s+what\s+(?:number|level|temperature|setting|percent)\b"
                           # "how much longer is there on my cake timer?", "could you tell me whether I
                           # left the light on", "would you tell me what's on my list" (dev28)
                           r"|\bhow\s+much\s+longer\b"
                           r"|^\W*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?tell\s+me\s+(?:whether|if|what|what's|which|how)\b")
#: one word the speaker calls someone by, then a polite request ("Sweetheart, would you ...?", dev28)
_CALLED_BY = re.compile(r"^\W*[a-z]+\s*,\s*(?=(?:please\s+)?(?:can|could|would|will|mind)\b)")
#: an apology or a call for attention before the line ("Excuse me, ...", "I'm sorry to bother
#: you, but ...", dev28): it says nothing about whether the line asks
_EXCUSE = re.compile(r"^\W*(?:excuse\s+me|pardon\s+me|(?:i'm\s+|i\s+am\s+)?sorry\s+to\s+(?:bother|trouble)\s+you)"
                     r"(?:\s*,?\s*but)?[,.!\s]+")

#: something offered or asked for as a suggestion, anywhere in the line
_OFFERED = re.compile(r"(?:^|[,.;!?\u2014\u2013]\s*|\s-+\s*)(?:how|what)\s+about\s+(?:some|a\s+bit\s+of|a\s+little)\b"
                      r"|\bany\s+chance\s+(?:of|you\s+could)\b")
#: a tag after an order ("Knock the bedroom light down to 15, yeah?", "Kill the lights in the office,
#: would ya?", dev36: blocked as questions), and the verbs an order opens on
_TAG = re.compile(r",\s*(?:yeah|yea|ya|yep|ok|okay|would\s+ya|will\s+ya|would\s+you|will\s+you|could\s+you|can\s+you|mate|love)\W*$")


def is_question(text: str) -> bool:
    """A question about something, not a polite request ("Can you dim the lights?", "Bring
    the heat up, would you?", "When you get a moment, could you ...?") nor an order that
    starts with "do" ("Do the bedroom as well.")."""
    text = _CALLED_BY.sub("", _EXCUSE.sub("", _LEAD_IN.sub("", text.lower())))
    words = re.findall(r"[a-z']+", text)
    while len(words) > 1 and (words[0] in FILLERS or words[0] in _JOINS):
        words = words[1:]
    if not words or " ".join(words).startswith(_NOT_ASKING):
        return False
    asked = text.rstrip().endswith("?")
    if words[-1] in _STATE_WORDS or _ASKED_INSIDE.search(text):
        return True
    if words[0] not in _ASKS and _SUGGESTED.search(text):
        return False  # "The bathroom's too bright for a bath, maybe 20 percent?" (dev46): a level offered
    if words[0] not in _ASKS and _POLITE_CLAUSE.search(text):
        return False  # a statement, then "can you ...?": a request ("Is it on, can you check?" and
        # "The hall light, can you check it?" ask)
    if words[0] in _DO and not asked and (len(words) < 2 or words[1] not in _SUBJECTS):
        return False
    if words[0] in ("don't", "dont") and len(words) > 1 and words[1] not in _SUBJECTS:
        return False  # "Don't forget the oat milk, stick it on the list." (dev53), "Don't pause it, but could you go to
        # the next song?" (dev55) order; "Don't you ...?" asks
    if asked and _TAG.search(text) and any(p.split()[0] in IMPERATIVES
                                           for p in re.split(r"[,.;!?\u2014\u2013]|\s-+\s", text) if p.split()):
        return False  # an order with a tag ("..., add some to the list, yeah?", dev56)
    if _OFFERED.search(text) and not _ASKED_INSIDE.search(text):
        return False  # "It's a bit quiet in here -- how about some bossa nova?", "Any chance of some light ...?" (dev56)
    # a terse line said as a question asks ("Volume level?", "Bedroom humidity?"), unless it
    # opens like a polite request ("Can you ...?", "Mind turning ... off?")
    return words[0] in _ASKS or (asked and words[0] not in _POLITE)


#: the words that may open a sentence said after another before what it orders ("Oh and put the
#: hall light on.", "And, like, play some Afrobeats.", dev32)
_OPENS_AFTER = re.compile(r"^\W*(?:(?:oh|ah|and|also|so|like|um|uh|er|plus|then|right|ok|okay|actually|anyway|anyhow)\W+)*")


#: a want that is to know: "how much time is on the timer? I want to know if I can hop in the
#: shower" (dev30) asks twice
_WANTS_TO_KNOW = re.compile(r"\b(?:want|wanna|need|like|wanted|trying)\s+(?:to\s+)?(?:know|find\s+out|check|see|hear\s+if)\b")


def _orders(sentence: str) -> bool:
    low = _OPENS_AFTER.sub("", sentence.lower())
    return not is_question(sentence) and bool(ORDERS_PIECE.match(low) or terse_order(low)) and not _WANTS_TO_KNOW.search(low)


#: a comma before a question ("Pause this a sec, what's the temperature out in Dublin?", dev50)
_COMMA_ASKS = re.compile(r",\s*(?=(?:what|what's|whats|how|how's|when|when's|where|where's|who|who's|which|is|are|will|did|does)\b)",
                         re.IGNORECASE)


def _pieces(request: str) -> list[str]:
    """The request's sentences cut at their joins and before a question said after a comma,
    pieces of two words or more."""
    return [p for s in every_sentence(request) for j in JOIN.split(s) for p in _COMMA_ASKS.split(j) if len(p.split()) >= 2]


def _orders_beside_a_question(request: str) -> list[str]:
    """The sentences (or parts between joins) that order, in a line of several that also asks
    in one; else none ("Read my messages and then put the kitchen light on.": the light is
    ordered, the messages asked for)."""
    parts = _pieces(request)
    ordering = [s for s in parts if _orders(s)] if len(parts) > 1 else []
    return ordering if ordering and any(map(is_question, parts)) else []


def _asked_part(request: str) -> str:
    """The request without the parts that order beside a question (the place an order names is
    the order's, not the question's)."""
    ordering = _orders_beside_a_question(request)
    rest = [p for p in _pieces(request) if p not in ordering]
    return " and ".join(rest) if ordering and rest else request


def orders_beside_a_question(request: str) -> bool:
    """Does a line of several sentences ask in one and order in another ("Is it going to rain
    later? Oh and put the hall light on.", dev32)? Then it is no question as a whole: each
    call is judged by the sentence it serves (``asked_of``)."""
    return bool(_orders_beside_a_question(request))


def asked_of(request: str, tool: Any, arguments: Mapping[str, Any]) -> bool:
    """Is the call of ``tool`` about a question of ``request``: the line is one, and no
    sentence that orders it is the call's (shares a word of the tool or a value of a required
    argument: not a name the model took for a timer from an order to someone else)?"""
    if not is_question(request):
        return False
    ordering = _orders_beside_a_question(request)
    required = set((tool.parameters or {}).get("required") or ())
    values = [str(v).lower() for k, v in arguments.items() if k in required and isinstance(v, str) and v.strip()]
    own = tool_words(tool)
    return not any(content_words(s) & own or any(v in s.lower() for v in values) for s in ordering)


#: a line that tells how a thing is or was, or what someone did: "my shopping list is basically
#: just snacks", "that light bulb in the hallway needs replacing", "we ran the heating all winter"
#: (dev30: each made a call)
_TELLS = re.compile(r"^\W*(?:(?:oh|ah|well|so|ha|honestly|god)\W+)*(?:(?:my|our|the|that|this|those|these)\s+(?:[a-z']+\s+){0,5}?"
                    r"(?:is|are|was|were|needs|need|keeps|keep|has|had|looks|seems)\b(?!\s+(?:to|be|set|on|off|at)\b)"
                    r"|(?:we|i|they|he|she)\s+(?:ran|had|used|left|did|bought|got|paid|went|spent|tried|always|never|usually)\b)")
def tells_not_asks(request: str) -> bool:
    """Does the line only tell how a thing is or was, or what someone did (``_TELLS``), with no
    piece that orders or asks and no complaint, or tell in any of ``telling.only_tells``'s ways (a
    past, a plan, a taste, someone's doing)? A call of a tool that changes things is nobody's
    wish there."""
    if only_tells(request):
        return True  # "Dad said he'd sort the garage light when he's back from the tip." (dev56)
    low = request.lower().replace("’", "'")
    if not _TELLS.match(low) or is_question(request) or complains(low) or said_numbers(request):
        return False  # a complaint wants something ("the bedroom is too dark"); a number sets one
        # ("The bread needs 15 minutes, I'll want a timer for that.", dev30)
    return not any(ORDERS_PIECE.match(p) for p in re.split(r"[,;.!?]|\band\b|\bbut\b|\bso\b", low) if p.strip())


#: a device's word said as a place, not the device
_NO_DEVICE = re.compile(r"\bnext[\s-]+door\b|\bdoor\s+to\s+door\b"
                        r"|\btubs?\s+of\b")  # "2 tubs of cream cheese" (dev42): a measure, no hot tub


def _device_compound(request: str, tools: Iterable[Any], tool: Any) -> bool:
    """Does ``request`` name a device no tool serves right before a word of the tool's name
    ("TV volume" for ``set_volume``, "oven temperature"): that device's own setting? Not a place
    that is also a device ("garage light")."""
    unserved = unserved_devices(request, tools)
    named = {stem(w) for w in re.split(r"[_.\s]+", tool.name.lower()) if w}
    words = WORD.findall(request.lower())
    return bool(unserved) and any(stem(a) in unserved and a not in HOME_PLACES and stem(b) in named
                                  for a, b in itertools.pairwise(words))


def unserved_devices(request: str, tools: Iterable[Any]) -> set[str]:
    """The devices ``request`` names that no tool's vocabulary mentions (as stems)."""
    served = set().union(*(tool_words(t) for t in tools))
    low = _NO_DEVICE.sub(" ", request.lower())  # "my baby is sleeping next door" (dev26) names no door
    named = {stem(w) for w in WORD.findall(low)} & {stem(d) for d in DEVICES}  # "TV": short words too
    return named - served


def asks_another_service(request: str, tool: Any, *, anywhere: bool = False) -> bool:
    """Does ``request`` open by asking for a service (its first four words: "Remind me to ...",
    "Get us a taxi"; with ``anywhere``, any of its words) that the called tool's vocabulary
    does not mention? Not one asked for later ("Send the email, and set a reminder": BFCL parallel_193's right call is the email);
    a timer whose requests say "remind me in 10 minutes" may serve "Remind me in 20 minutes.".
    Or one asked for anywhere by the phrases of ``_ELSEWHERE`` ("... to my calendar")."""
    low = request.lower()
    words = WORD.findall(low)
    own = tool_words(tool)
    if not anywhere:  # the opening: up to the tool's own first word ("Weather in Bergen, and remind
        # me of the time too.", dev21, opens with the weather)
        thing = target_words(tool) - UNITS - {stem(w) for w in CHANGERS}
        words = list(itertools.takewhile(lambda w: stem(w) not in thing, words[:5]))
    named = {stem(w) for w in words} & {stem(s) for s in SERVICES}
    for rx in _ELSEWHERE:
        if (m := rx.search(low)) and stem(re.sub(r"[\s-]", "", m.group(1))) not in own and not (
                m.group(1) == "order" and {stem(w) for w in content_words(low[m.end():])} & own):
            return True  # an order of what the tool names is the tool's ("Order me pizza" -> a food tool)
    return bool(named - own)


#: what a home assistant is asked for that its tools may not do, said anywhere in the request:
#: an entry "in my calendar" ("Add dentist on Tuesday to my calendar." -> not the shopping list),
#: an order placed ("Order a curry ..."; only as the opening verb: "in ascending order" is not),
#: a song sung or a dance ("Can you sing happy birthday?" -> not the music player)
_ELSEWHERE = (
    re.compile(r"\b(?:to|in|on|into)\s+(?:my|the|our)\s+(calendar|diary|agenda|schedule)\b"),
    re.compile(r"\bthe\s+(news|headlines)\b"),  # "What's the news today?" (dev14; "news" alone stems to "new")
    # the washing machine said by its work: "Put a wash on, forty degrees." (dev14: the heating set to 40)
    re.compile(r"\b(?:put|start|run|do|stick|bung)\s+(?:a|the|another|on\s+a|on\s+the)\s+(?:quick\s+)?(wash|washing)\b(?!\s+up\b)"),  # not the washing up (dev30)
    # another list than the tool's ("Add ring the plumber to my to-do list.", dev12, session 20)
    re.compile(r"\b(?:to|in|on|onto)\s+(?:my|the|our)\s+(to[\s-]?do|todo|task|tasks|reading|packing|wish|bucket|chores?)\s+list\b"),
    # a chat or a contact list ("Add Sam to the five-a-side group chat.", dev44: Sam on the shopping list)
    re.compile(r"\b(?:to|into)\s+(?:my|the|our)\s+(?:[a-z0-9-]+\s+){0,2}?(chat|contacts|whatsapp)\b"),
    # a parcel tracked ("Track my Amazon parcel and read me my emails", dev50: the next track played)
    re.compile(r"\btrack\s+(?:my|the|our|a|that|this)\s+(?:[a-z0-9-]+\s+){0,2}?(parcel|package|delivery|shipment|order)s?\b"),
    re.compile(r"^\W*(?:(?:uh|um|please|ok|okay|hey)\W+)*(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?"
               r"(order)\s+(?:a|an|some|me|us|the|our)\b"),
    re.compile(r"^\W*(?:(?:uh|um|please|ok|okay|hey)\W+)*(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?"
               r"(sing|hum|whistle|rap|dance)\b"),
    # a call to a person ("Call Grandma on speaker", dev34: the music played), not "call it a day"
    # nor a timer's "ring me in ten minutes"
    re.compile(r"^\W*(?:(?:uh|um|please|ok|okay|hey)\W+)*(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?"
               r"(call|phone|dial|facetime|ring)\s+(?!(?:it|that|this|me\s+(?:in|when|after|at|once))\b"
               r"|the\s+(?:api|function|endpoint|service|method|tool)\b)"),
    # an alarm said by what it does ("wake me up at six tomorrow", dev26: a timer, then the weather);
    # not a length ("wake me up in 20 minutes" is a timer)
    re.compile(r"\b(wake)\s+(?:me|us|him|her|them|the\s+kids)\b(?!(?:\s+up)?\s+in\b)"),
)


#: small talk about how someone is ("How are we today?", "How's it going?")
_HOW_ARE_YOU = re.compile(r"\bhow\s+(?:are|r)\s+(?:you|we|ya|things|u)\b|\bhow's\s+(?:it\s+going|life|things|your\s+day)\b"
                          r"|\bhow\s+(?:have|has)\s+(?:you|we)\s+been\b|\bhow\s+do\s+you\s+do\b"
                          # and how the assistant itself is ("You work 24 hours a day, don't you get tired?", dev40)
                          r"|\b(?:don't|dont|do)\s+you\s+(?:ever\s+)?(?:get\s+)?(?:tired|bored|lonely|sleep|rest|dream)\b"
                          r"|\bare\s+you\s+(?:ever\s+)?(?:tired|bored|lonely|sleepy|happy|sad|real|human|alive)\b")


#: a joke, a poem, a story *about* something: the thing is its topic (what no tool makes)
_TOPIC = re.compile(r"\b(jokes?|poems?|stor(?:y|ies)|riddles?|limericks?|haikus?|facts?|puns?)\s+(?:about|on|involving|with)\b")
#: a time of day or a day to come ("at half five", "for six tomorrow morning", "at 7 pm"): what
#: an alarm or a reminder is set for, not the length a timer runs
_CLOCK_TIME = re.compile(r"\bat\s+(?:half|quarter)\s+(?:past|to\s+)?[a-z0-9]+|\bat\s+\d{1,2}(?::\d{2})?\b"
                         # "an alarm for half six" (dev13): half past six, said the British way
                         r"|\bfor\s+(?:half|quarter)\s+(?:past\s+|to\s+)?(?:\d{1,2}|one|two|three|four|five|six|seven"
                         r"|eight|nine|ten|eleven|twelve)\b"
                         # "Remind me to take the bins out at eight." (dev14): an hour said in words
                         r"|\bat\s+(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b(?!\s+(?:hours?|minutes?"
                         r"|mins?|seconds?|secs?|percent|degrees?|per\s*cent))"
                         r"|\b(?:tomorrow|tonight|this\s+(?:morning|afternoon|evening))\b|\bo'?clock\b"
                         # "set an alarm for 7" (dev24): an alarm is set for an hour of the day
                         r"|\balarms?\s+(?:for|at)\s+(?:\d{1,2}(?::\d{2})?|one|two|three|four|five|six|seven|eight|nine|ten"
                         r"|eleven|twelve)\b"
                         r"|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\bat\s+(?:noon|midnight|dawn)\b", re.IGNORECASE)


def asks_elsewhere(request: str, tool: Any) -> bool:
    """Does ``request`` ask for a service the tool is not (``asks_another_service``), or, of a
    tool that takes a length, for a time of day ("Set an alarm for six tomorrow morning.": an
    alarm, not a timer)?"""
    return asks_another_service(request, tool) or bool(
        _time_params_of(tool) and _CLOCK_TIME.search(request) and not _LENGTH.search(request))


def _time_key(key: str) -> bool:
    """Is ``key`` a parameter of a length in a time unit (``hours``, ``minutes``, ``seconds``)?"""
    return key.lower().rstrip("s") in SECONDS


def _time_params_of(tool: Any) -> bool:
    """Does the tool take a length in time units?"""
    return any(_time_key(k) for k in properties(tool))


def acted_on(request: str) -> tuple[str, str] | None:
    """The thing an order opens on, and the word after it: "Heat the oven to 220." ->
    ("oven", "to"); None when the request does not open "<verb> the/my/our <thing>"."""
    m = re.match(r"\W*(?:please\s+)?[a-z]+\s+(?:the|my|our)\s+([a-z]+)(?:\s+([a-z]+))?", request.lower())
    return (m.group(1), m.group(2) or "") if m else None


#: the first words of a request, up to its third ("Pool house light off." -> pool, house, light)
_OPENING = re.compile(r"\W*(?:(?:the|my|our)\s+)?([a-z]+)\s+([a-z]+)(?:\s+([a-z]+))?")
#: words before a light's name that say which light, not where ("the big light", "desk lamp")
_KINDS = frozenset("""
big main ceiling overhead desk reading night bedside floor table little small side all every both other
that this those these some fairy string christmas top bottom upstairs downstairs front back
""".split())


#: the home as a whole, said as a place ("in the whole flat", "throughout the house"), and the
#: values of a *where* enum that mean every place
_EVERYWHERE = re.compile(r"\b(?:whole|entire|all\s+(?:of\s+)?the|every\s+room\s+in\s+the|throughout\s+the)\s+"
                         r"(?:house|flat|home|apartment|place)\b|\beverywhere\b")
_ALL_VALUES = frozenset({"all", "everywhere", "whole house", "house", "home"})


def unknown_place(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> str | None:
    """The place a request names ("in the conservatory", "the pantry light", "the laundry
    room") when the call fills an enum
    parameter (``room``) with a value the request does not say and no tool knows that place:
    the model put the light of a room the home does not have on another one ("all")."""
    said = set(WORD.findall(request.lower()))
    chosen = [str(arguments[k]) for k, sch in properties(tool).items()
              if k.lower() in _WHERE and enum_of(sch) and isinstance(arguments.get(k), str)]
    if not chosen or any(set(WORD.findall(v.lower())) <= said for v in chosen):
        return None
    if any(len(w) >= 4 and v.lower().startswith(w) and " " not in v for v in chosen for w in said):
        return None  # "I need the hall light on, I've got my hands full of laundry." (dev30): "hall" said
    if _EVERYWHERE.search(request.lower()) and any(v.lower() in _ALL_VALUES for v in chosen):
        return None  # "Lights off in the whole flat." (dev16) -> room "all": the home itself
    known = set().union(*(tool_words(t) for t in tools))
    low = request.lower()
    places = _PLACE.findall(low) + re.findall(r"\b([a-z]+)\s+room\b", low) + [w for w in said if w in PLACES] + [
        m.group(1) for m in re.finditer(r"\b(?:the|my|our)\s+([a-z]+)\s+([a-z]+)", low) if stem(m.group(2)) in target_words(tool)]
    # a place said in two words before the thing ("set the patty o lights to fifty", dev38: the
    # recogniser's "patio" in two)
    places += [m.group(1) for m in re.finditer(r"\b(?:the|my|our)\s+([a-z]+)\s+([a-z]+)\s+([a-z]+)", low)
               if m.group(1) not in _KINDS and stem(m.group(3)) in target_words(tool) and stem(m.group(2)) not in target_words(tool)]
    # the words that open a terse request before the thing ("Summerhouse lights on.", "Pool house light off.")
    if (m := _OPENING.match(low)) and m.group(1) not in _KINDS:
        if stem(m.group(2)) in target_words(tool) or (m.group(3) and stem(m.group(3)) in target_words(tool)):
            places.append(m.group(1))
    values = {w for k, sch in properties(tool).items() if k.lower() in _WHERE
              for v in enum_of(sch) if isinstance(v, str) for w in WORD.findall(v.lower())}
    for place in places:
        if place not in GENERIC and stem(place) not in known \
                and not any(len(place) >= 4 and v.startswith(place) for v in values) \
                and not any(len(v) >= 5 and one_edit_apart(place, v) for v in values) \
                and f"{place}room" not in values:  # "hall" for "hallway", "dinning", "bed room" (dev13)
            after = re.search(rf"\b{place}\s+([a-z]+)", low)  # "wine cellar", "guest room": say both words
            nxt = after.group(1) if after else ""
            if nxt and nxt not in GENERIC and stem(nxt) not in target_words(tool) and stem(nxt) not in known | {"room"}:
                return f"{place} {nxt}"
            return f"{place} room" if nxt == "room" else place
    return None


#: a request about indoors, where an outdoor reading (the weather) says nothing
_OUTDOORS = frozenset(stem(w) for w in ("weather", "forecast"))
_INDOORS = re.compile(r"\b(?:inside|indoors|in\s+here|in\s+the\s+(?:house|flat|apartment))\b")


def home_place(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> str | None:
    """A place ``request`` names that the call of ``tool`` neither can take (no *where* enum
    of its own holding it) nor says in its arguments: a value of another tool's *where* enum
    ("bedroom"), or a place said with "in the ..." ("in the den")."""
    low = request.lower()
    own = {str(v).lower() for k, sch in properties(tool).items() if k.lower() in _WHERE for v in enum_of(sch)}
    said = " ".join(str(v).lower() for v in leaves(dict(arguments)) if isinstance(v, str))
    if _INDOORS.search(low) and tool_words(tool) & _OUTDOORS and not (own & {"house", "home", "inside", "indoors"}):
        return "house"  # "What's the temperature inside the house?" (dev12): no weather reads it
    for place in re.findall(r"\bin\s+(?:the|my|our)\s+([a-z]+)", low):  # a room ("in the den"), not "in the form of"
        if place in HOME_PLACES and place not in own and place not in said:
            return place
    for other in tools:
        if other.name == tool.name:
            continue
        for key, sch in properties(other).items():
            if key.lower() not in _WHERE:
                continue
            for value in (str(v).lower() for v in enum_of(sch) if isinstance(v, str)):
                if value not in GENERIC and value not in own and value not in said \
                        and re.search(rf"\b{re.escape(value)}\b", low):
                    return value
    return None


def _wordy(value: str) -> bool:
    """Letters of a name, not only numbers and glue words ("lo-fi", not "x^3" or "1 to 5")."""
    words = WORD.findall(value)
    return sum(map(len, words)) >= 3 and any(w not in GENERIC for w in words)


#: a length of time said ("35 minutes")
_LENGTH = re.compile(rf"\b(?:{TIME_UNITS})\b")


#: what a tool that sets a room's temperature is about: it may serve the air conditioning
_CLIMATE_TARGETS = frozenset(stem(w) for w in ("temperature", "thermostat", "heat", "heating", "cool"))


def why_not(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> str | None:
    """Why a call of ``tool`` is not about ``request`` (a key of ``REPLIES``), or None when it
    is grounded. ``tools``: every tool of the registry (what is served at all)."""
    request = without_idioms(heard_words(request, tools))  # homophones read as meant ("whats the thyme", dev16)
    said = content_words(request)
    target = target_words(tool)
    if not said & (target - UNITS) and not said & _device_words(tool, tools):
        # "Unlock the front door for 5 minutes." names a door, not a timer
        low = re.sub(r"\bshut\b(?=[\w\s']*?\b(?:off|down)\b)", " ", request.lower())  # "Shut the music off."
        opens = {stem(w) for w in WORD.findall(low) if w in OPENERS}
        unserved = unserved_devices(request, tools)
        if target & _CLIMATE_TARGETS:
            unserved -= CLIMATE_DEVICES  # "Crank the aircon down to twenty-four" (dev14) sets a temperature
        if unserved and _time_params_of(tool) and _LENGTH.search(request) and all(
                re.search(rf"\bin\s+(?:the|my|our)\s+{re.escape(d)}", request.lower()) for d in unserved):
            unserved = set()  # "... thirty-five minutes in the oven, can you time it?" (dev12): timed, not worked
        if unserved and _said_apart(request, tool, arguments, unserved):
            unserved = set()  # "Hit pause on that, the kettle's screaming." (dev21): the kettle is the reason
        if unserved or (opens and not opens & tool_words(tool)):
            return "device"
    elif (thing := acted_on(request)) and ((stem(thing[0]) in (unserved := unserved_devices(request, tools))
                                            and not (thing[1] and stem(thing[1]) in target))
                                           or (thing[1] and stem(thing[1]) in unserved and stem(thing[0]) not in target)):
        return "device"  # "Heat the oven to 220." / "Heat the hot tub ...": the oven is what is heated, not the house
    if changes_things(tool) and _device_compound(request, tools, tool):
        return "device"  # "TV volume to 20." (dev42): the TV's volume, not the speakers'
    if asks_elsewhere(request, tool):
        return "unrelated"  # "Remind me to take the bins out." -> the shopping list; an alarm -> a timer
    if _HOW_ARE_YOU.search(request) and not said & target:
        return "unrelated"  # "Morning! How are we today?" asks after the speaker, not the date
    if (m := _TOPIC.search(request)) and stem(m.group(1)) not in tool_words(tool):
        return "unrelated"  # "Do you know any jokes about the weather?": the weather is a joke's topic
    if changes_things(tool) and (tells_not_asks(request) or asks_nothing(request)):
        return "remark"  # "we ran the heating all winter and the bill was shocking" (dev30); "I already switched it off" (dev44)
    if not changes_things(tool) and asks_of_the_past(request):
        return "question"  # "What was the weather like in Barcelona last week?" (dev44): no tool tells it
    if asked_of(request, tool, arguments) and (changes_things(tool) or home_place(_asked_part(request), tool, arguments, tools)
                                 or re.match(r"\W*(?:why|how come)\b", request.lower())):
        return "question"
    if unknown_place(request, tool, arguments, tools):
        return "place"
    low = request.lower()
    if any(re.search(rf"\b(?:un|de){re.escape(str(v).lower())}\b", low) for k, sch in properties(tool).items()
           if enum_of(sch) and isinstance(v := arguments.get(k), str) and v.strip()):
        return "unrelated"  # "Unpause." -> action "pause": the request says the opposite
    if _echoed(request, tool, arguments):
        return "unrelated"  # the whole request as a timer's name: the call says nothing of its own
    if _holds_anothers(request, tool, arguments, tools):
        return "unrelated"  # "bathroom off" -> the list's item "bathroom" (dev23)
    if changes_things(tool) and _what_someone_does(request, arguments, ready=not any(undoes(tool, t) for t in tools)):
        return "unrelated"  # "..., we're playing cards." (dev19) -> play_music("cards")
    parts_of_values = _parts_of_values(tool, request)
    own = tool_words(tool) - parts_of_values
    felt = {FELT[w] for w in WORD.findall(request.lower()) if w in FELT}  # how the room feels names its thing
    if said & own or (felt & own and not unserved_devices(request, tools)):
        return None
    # Not optional arguments: the model copies the request's words into a free-text ``label``
    # ("Open the blinds halfway." -> a timer labelled "blinds halfway").
    required = set((tool.parameters or {}).get("required") or ())
    strings = [v.strip().lower() for v in leaves({k: v for k, v in arguments.items() if k in required})
               if isinstance(v, str)]
    if strings and all(v in FELT and FELT[v] not in own for v in strings):
        return "unrelated"  # "I'm roasting, it must be 26 in here." (dev40) -> query "roasting": how the room feels
    if said & content_words(" ".join(strings)) - parts_of_values or any(_wordy(v) and v in request.lower() for v in strings):
        return None  # "Jazz please." -> query "jazz"; "maybe lo-fi" -> query "lo-fi"
    words = set(WORD.findall(request.lower()))
    enums = {str(arguments[k]).lower() for k, sch in properties(tool).items()
             if enum_of(sch) and isinstance(arguments.get(k), str)}
    # "Crank it up a bit." -> change "up"; not "Cool it down to 19." -> set_volume: "cool" names the
    # thermostat. A word of a tool on the same device ("Turn it up, I love this song.": the song
    # plays on the speakers the volume is of) names no other thing.
    others = any(said & target_words(t) for t in tools if t.name != tool.name and not same_device(t, tool))
    return None if enums & words and not others else "unrelated"


def _parts_of_values(tool: Any, request: str) -> set[str]:
    """The stems of words that the tool knows only inside an enum value of several words
    that ``request`` does not say whole: "room" of "living room" in "Room temperature too
    high." (dev28: a light switched on)."""
    low = f" {' '.join(WORD.findall(request.lower()))} "
    values = [str(v).lower() for sch in properties(tool).values() for v in enum_of(sch) if isinstance(v, str)]
    whole = {stem(v) for v in values if " " not in v} | target_words(tool)
    return {stem(w) for v in values if " " in v and f" {v} " not in low for w in v.split()} - whole


#: what someone is doing, said of them ("we're playing cards", "the kids are watching a film")
_DOING = re.compile(r"\b(?:we're|we\s+are|i'm|i\s+am|they're|they\s+are|kids\s+are|he's|she's)\s+(?:\w+\s+)?"
                    r"(?:playing|watching|doing|having)\s+([a-z' ]+)")
#: what is on now, said of it ("Crank the tunes up a notch would ya, this is my jam", dev50:
#: played "jam"): a reason, not a thing to play
_ON_NOW = re.compile(r"\b(?:this|that)(?:'s|\s+is)\s+(?:(?:my|our|a|the|such\s+a|one\s+of\s+my|totally|literally)\s+)+"
                     r"([a-z']+(?:\s+[a-z']+){0,2})\s*(?:[,.!?;]|$)")
#: a thing said to be ready or done ("tea's nearly ready", dev24: a reason, not a thing to play)
_READY = re.compile(r"\b([a-z]+)(?:'s|\s+is|\s+are|'re)\s+(?:(?:nearly|almost|just|about|already|all)\s+)?"
                    r"(?:ready|done|finished|cooked|served|here|on\s+the\s+table)\b")


def _what_someone_does(request: str, arguments: Mapping[str, Any], *, ready: bool = True) -> bool:
    """Does every word-string argument of the call come from what the request says someone is
    doing or what is on now ("this is my jam"), or, with ``ready``, says is ready, with nothing
    ordered to play besides? A statement, not a request for it. A thing ready is why its timer
    is cancelled ("kill the timer, the rice is done already", dev24): not ``ready`` for a tool
    that undoes another."""
    low = request.lower().replace("’", "'")
    doing = {w for m in _DOING.finditer(low) for w in WORD.findall(m.group(1))}
    doing |= {w for m in _ON_NOW.finditer(low) for w in WORD.findall(m.group(0))}
    doing |= {m.group(1) for m in _READY.finditer(low)} if ready else set()
    strings = [set(WORD.findall(v.lower())) for v in leaves(dict(arguments)) if isinstance(v, str) and v.strip()]
    return bool(doing and strings) and all(s and s <= doing for s in strings) and not re.search(r"\bplay\b", low)


def same_device(tool: Any, other: Any) -> bool:
    """Do two tools act on one device or thing (a target word beyond ``_SHARED`` in common:
    the player and the volume on the speaker, the list's adder and remover)?"""
    return bool(target_words(tool) & target_words(other) - _SHARED)


def _device_words(tool: Any, tools: Iterable[Any]) -> set[str]:
    """The things other tools of the same device act on: "Doorbell's going, hold the music a sec."
    (dev21) pauses the music that ``play_music`` names and ``media_control`` plays on."""
    return set().union(*(target_words(t) - UNITS - _SHARED for t in tools
                         if t.name != tool.name and same_device(t, tool)))


def _said_apart(request: str, tool: Any, arguments: Mapping[str, Any], devices: set[str]) -> bool:
    """Is an enum value the call holds said in a piece of ``request`` (between its commas and
    joins) that names none of ``devices``, while another piece names them? "Hit pause on that,
    the kettle's screaming." (dev21) pauses the player; "Pause the kettle." names the kettle."""
    values = {str(v).lower() for k, sch in properties(tool).items() if enum_of(sch)
              and isinstance(v := arguments.get(k), str) and v.strip()}
    pieces = [p for p in re.split(r",|;|\band\b|\bbut\b", request.lower()) if p.strip()]
    if len(pieces) < 2 or not values:
        return False
    return any(values & set(WORD.findall(p)) and not {stem(w) for w in WORD.findall(p)} & devices for p in pieces)


#: target words two tools may share without acting on one device (a temperature is set on the
#: thermostat and read from the weather)
_SHARED = frozenset({"temperature", "home", "item", "level", "current", "target"})


def from_another_part(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> bool:
    """Two actions in one sentence ("start a fifteen minute timer and uh turn off the office
    light"): does the call take a word-string argument ("office") only from parts of the
    request that are not about its tool, but about another one (``cancel_timer("office")``:
    the second part is the light's, by the thing it names)? Only a request of one sentence
    (what a person says at once; not a paragraph of tasks) and two parts or more."""
    return bool(taken_from_another_part(request, tool, arguments, tools))


def without_the_other_parts_words(request: str, tool: Any, arguments: Mapping[str, Any],
                                  tools: Iterable[Any]) -> dict[str, Any] | None:
    """The call less the optional arguments it took from another part, when a number it keeps
    is said ("set a timer for ten minutes and like whats the weather doing" ->
    ``start_timer(minutes=10, label="weather")``: the timer without the name); None when a
    required argument was taken or nothing said is left (``cancel_timer("office")`` -> nothing)."""
    taken = taken_from_another_part(request, tool, arguments, tools)
    required = set((tool.parameters or {}).get("required") or ())
    if not taken or taken & required:
        return None
    kept = {k: v for k, v in arguments.items() if k not in taken}
    if all(is_number(arguments[k]) and not isinstance(arguments[k], bool) for k in taken):
        return kept  # a number from the other part ("set a twenty minute timer and uh turn off the
        # bedroom light" -> the light at 20 percent): the call without it stands on its own words
    said = said_numbers(request)
    if not any(is_number(v) and v and float(v) in said for v in kept.values()):
        return None
    return kept


def taken_from_another_part(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> set[str]:
    """The names of the word-string arguments of ``from_another_part``."""
    if re.search(r"[.!?]\s+\S", request.strip()):
        return set()
    parts = [p for p in (p.strip(" ,.") for p in JOIN.split(request)) if len(p.split()) >= 2]
    if len(parts) < 2:
        return set()
    own = target_words(tool)
    others = [t for t in tools if t.name != tool.name]

    def about_another(part: str) -> bool:
        said = content_words(part)
        if not said & own and asks_another_service(part, tool):
            return True  # "... and order me a pizza from Domino's" (dev52: the pizza went on the list)
        return not said & own and why_not(part, tool, arguments, tools) is not None and any(
            said & (target_words(t) - UNITS) and why_not(part, t, {}, tools) is None for t in others)

    taken = set()
    for key, value in arguments.items():
        if isinstance(value, str) and _wordy(value):
            words = WORD.findall(value.lower())
            holding = [p for p in parts if all(re.search(rf"\b{re.escape(w)}\b", p.lower()) for w in words)]
        elif is_number(value) and not isinstance(value, bool) and value:
            # "Turn off the bedroom and bathroom lights, and set the heating to 17 overnight." (dev52):
            # the bathroom light at 17 percent
            holding = [p for p in parts if float(value) in said_numbers(p)]
        else:
            continue
        if holding and all(about_another(p) for p in holding):
            taken.add(key)
    return taken


def _echoed(request: str, tool: Any, arguments: Mapping[str, Any]) -> bool:
    """Is the whole request (three words or more) the value of an optional string argument?
    ("Remind me to ring the dentist tomorrow." -> ``start_timer(label=<the request>)``)"""
    words = WORD.findall(request.lower())
    required = set((tool.parameters or {}).get("required") or ())
    return len(words) >= 3 and any(isinstance(v, str) and WORD.findall(v.lower()) == words
                                   for k, v in arguments.items() if k not in required)


def _holds_anothers(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> bool:
    """Does a free-text argument hold only what another tool's parameters take: a place of
    another tool's where-enum ("bathroom off" -> ``remove_from_shopping_list("bathroom")``, dev23), or
    the whole request saying a length, to a tool that takes none when another does ("eggs 25
    mins" -> ``play_music("eggs 25 mins")``, dev23)?"""
    props = properties(tool)
    own = {str(v).lower() for sch in props.values() for v in enum_of(sch)}
    others = {str(v).lower() for t in tools if t.name != tool.name for k, sch in properties(t).items()
              if k.lower() in _WHERE for v in enum_of(sch) if isinstance(v, str)} - own
    timed_elsewhere = not _time_params_of(tool) and any(_time_params_of(t) for t in tools)
    words = WORD.findall(request.lower())
    for key, value in arguments.items():
        if key not in props or enum_of(props[key]) or not isinstance(value, str):
            continue
        said = WORD.findall(value.lower())
        if " ".join(said) in others or (timed_elsewhere and said == words and _LENGTH.search(request.lower())):
            return True
    return False


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
        if not isinstance(value, str) or not _wordy(value):
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


#: what a piece says of a switch: the call's ``True``/``False`` must be the piece's
_SWITCHED_ON = frozenset({"on", "up"})
_SWITCHED_OFF = frozenset({"off", "out", "kill"})


def grounded_by_a_piece(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> bool:
    """Is the call, blocked by the line as a whole, the whole of one of its pieces (cut at joins)?
    "Lock the back door and switch the garage light off." (dev50): the lock is no tool's, the
    light is; "Read me the news headlines then play some Miles Davis." The piece must name the
    tool's own thing, or a name the call holds that it puts on ("Boil the kettle and put some Nina
    Simone on.", dev52; "Book a table at Dishoom for Friday, and put it in my calendar." grounds no
    list), ground the call alone and say what it holds: each place and text it names, its switch
    ("off" for ``False``; "on" or a number it sets for ``True``) -- "Turn the TV off and set the
    living room lights to 10" does not switch the living room light off."""
    pieces = _pieces(request)
    if len(pieces) < 2:
        return False
    props = properties(tool)

    def says_it(piece: str) -> bool:
        words = set(WORD.findall(piece.lower()))
        stems = {stem(w) for w in words}
        numbers = said_numbers(piece)
        for key, value in arguments.items():
            if isinstance(value, bool):
                if not (words & (_SWITCHED_ON if value else _SWITCHED_OFF)
                        or (value and any(is_number(v) and not isinstance(v, bool) and float(v) in numbers
                                          for v in arguments.values()))):
                    return False
            elif isinstance(value, str) and value.strip() and (key in props or not props):
                if not {stem(w) for w in WORD.findall(value.lower())} <= stems:
                    return False
        return True

    own = tool_words(tool) - _parts_of_values(tool, request)
    required = set((tool.parameters or {}).get("required") or ())
    names = [v for k, v in arguments.items() if k in required and isinstance(v, str) and _named(v, request)]

    def names_it(piece: str) -> bool:
        low = piece.lower()
        return bool(content_words(piece) & own) or (bool(_PUT_ON.search(low)) and any(v.lower() in low for v in names))

    return any(names_it(p) and why_not(p, tool, arguments, tools) is None and says_it(p) for p in pieces)


#: a thing put on ("put some Nina Simone on", "stick on some Motown"): started, as a record is
_PUT_ON = re.compile(r"\b(?:put|stick|pop|whack|bung|chuck|throw)\b(?:\s+on\b|.*\bon\W*$)")


def _named(value: str, request: str) -> bool:
    """Is ``value`` said in ``request`` as a name, each word with a capital ("Nina Simone")?"""
    words = value.split()
    return bool(words) and all(re.search(rf"\b{re.escape(w[:1].upper() + w[1:])}\b", request) for w in words)


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
#: PLANNED -- names of tools a hook has made the call of from the request's own words
#: (``slm.planned``): not checked again


def device_word(request: str, tools: Iterable[Any]) -> str:
    """The first word of ``request`` naming a device no tool serves ("that": none)."""
    stems = unserved_devices(request, tools)
    for word in re.findall(r"[A-Za-z]+", request):
        if stem(word.lower()) in stems:
            return word.lower()
    return "that"


def _said(value: Any, request: str) -> bool:
    return isinstance(value, str) and bool(words := set(WORD.findall(value.lower()))) \
        and words <= set(WORD.findall(request.lower()))


def strays_from(request: str, tool: Any, arguments: Mapping[str, Any], before: list[tuple[str, dict]]) -> bool:
    """Does this call stray from a call of the same tool the hop made before it: the same place
    set otherwise ("All the lights on, upstairs and down." -> ``room="all", on=True`` then
    ``on=False``), or, in a request that asks for one action (no "and", "then", "also"), a
    place the request never says where that call took the one it says ("Desk lamp, office,
    twenty." -> the office light, then the kitchen light off)? Both ran on dev11 (session 19).
    In any request, a place never said, set otherwise than the said one was ("Kitchen light on
    and close the blinds." -> every light off, dev50).
    Only tools with a *where* enum (``room``)."""
    where = [k for k, sch in properties(tool).items() if k.lower() in _WHERE and enum_of(sch)]
    if not where:
        return False
    one_action = not JOIN.search(request)  # "Lights off in the kitchen and the lounge." asks two
    for name, args in before:
        if name != tool.name:
            continue
        if all(args.get(k) == arguments.get(k) for k in where) and any(
                k not in where and v is not None and args.get(k) is not None and v != args[k]
                for k, v in arguments.items()):
            return True
        if one_action and any(args.get(k) != arguments.get(k) and _said(args.get(k), request)
                              and not _said(arguments.get(k), request) for k in where):
            return True
        if any(args.get(k) != arguments.get(k) and _said(args.get(k), request) and not _said(arguments.get(k), request)
               for k in where) and any(k not in where and v is not None and args.get(k) is not None and v != args[k]
                                       for k, v in arguments.items()):
            return True  # "Kitchen light on and close the blinds." (dev50) -> then every light off
    return False


_SAYS_A_LENGTH = re.compile(rf"\b(?:{TIME_UNITS}|hrs?)\b|\b(?:an|for)\s+our\b")  # a transcript's "half an our" (dev12)
#: a number that is a level, not a length ("at 50 percent", "twenty degrees")
_A_LEVEL = re.compile(r"[\w-]+\s*(?:%|per\s*cent\b|degrees?\b)")


def invents_a_length(request: str, tool: Any, arguments: Mapping[str, Any]) -> bool:
    """Does a call hold a length (hours/minutes/seconds) where the request says no time unit
    and no number but a level's? "Living room lights at half, the film's starting." made the light's call
    and then a one-hour timer for "film" (dev15), and the timer again for "Do the same in the
    office"; the later calls of a turn are not grounded, so this is checked on its own."""
    lengths = [v for k, v in arguments.items() if _time_key(k) and is_number(v) and v]
    low = request.lower()
    return bool(lengths) and not _SAYS_A_LENGTH.search(low) and not said_numbers(_A_LEVEL.sub(" ", low))


#: a timer asked for in words that need not say "timer" ("The pasta needs 11 minutes", "keep track of
#: that", "make it 18", "another one for the fish", "ten minutes for the rice"): on the tuned splits
#: every request for a timer says one of these or the timer itself
_TIMER_ASKED = re.compile(r"\b(?:timers?|countdown|count\s+down|remind|shout|buzz|beep|ping|nudge|let\s+me\s+know|tell\s+me\s+when"
                          r"|alarm|time\s+(?:it|this|that|the|my|me|for)|time\s+\w+\s+minutes|keep\s+(?:track|an\s+eye|time)|needs?|wants?"
                          r"|make\s+(?:it|that)|another|one\s+more|new\s+one|for\s+(?:the|my|these|those|our)|give\s+me|wake\s+me|start\s+a)\b")
#: a piece that tells how long the speaker or a thing takes ("I'll be in the bath for like forty
#: minutes", "this one's six minutes long")
_TELLS_A_LENGTH = re.compile(r"^(?:(?:i|we|he|she|they)(?:'ll|'m|'re|\s+will|\s+am|\s+are)?\s+(?:be|been|going|gonna|out|away|gone|back)\b"
                             r"|(?:this|that|it)(?:'s|\s+is)\s|(?:(?:the|this|that)\s+)?[a-z]+(?:'s|\s+is)\s)")


def length_told(request: str, tool: Any, arguments: Mapping[str, Any]) -> bool:
    """Is a timer's length said only in a piece that tells how long the speaker or a thing takes,
    beside an order for something else, with no word that asks for a timer? "Turn the bathroom
    light on, I'll be in the bath for like forty minutes." and "Next song, this one's six minutes
    long ..." each started a timer beside the call asked for (dev57)."""
    if not _time_params_of(tool) or not any(_time_key(k) and is_number(v) and v for k, v in arguments.items()) \
            or not re.search(r"timer|countdown", f"{tool.name} {tool.description or ''}".lower()):
        return False  # a timer's length, not the time a look-up or a sum takes
    low = request.lower().replace("’", "'")
    if _TIMER_ASKED.search(low):
        return False
    pieces = [_OPENS_AFTER.sub("", p).strip() for p in re.split(r"[,.;!?\u2014\u2013]|\s-+\s|\band\b|\bbut\b", low)]
    timed = [p for p in pieces if p and _LENGTH.search(p)]
    others = [p for p in pieces if p and not _LENGTH.search(p)]
    return bool(timed) and all(_TELLS_A_LENGTH.match(p) for p in timed) \
        and any(ORDERS_PIECE.match(p) or terse_order(p) or re.match(r"(?:next|previous|skip|pause|stop|resume|louder|quieter)\b", p)
                for p in others)


def ended_instead(request: str, registry: Any, tool: Any, arguments: Mapping[str, Any]) -> tuple[Any, dict] | None:
    """(undoer, arguments) when a call that makes a thing with a length nobody said is asked to
    end one: "Bin the pizza timer." and "can sell the cookie timer" (dev16) started a ten-second
    timer named "pizza"; the request says an ending word (``ENDING_WORDS``, homophones read) and
    the registry has one tool that undoes the called one (``cancel_timer``), given the call's
    values of the parameters they share. Never for a question ("How long till the chicken timer
    goes off?", dev16, would have cancelled it)."""
    heard = heard_words(request, registry)
    if not set(WORD.findall(heard.lower())) & ENDING_WORDS or is_question(request) \
            or not invents_a_length(request, tool, arguments) or (undone := undoing_call(registry, tool, arguments)) is None:
        return None
    undoer, shared = undone
    name = said_name(heard, tool)  # "the pizza timer": the one to end
    named = {k: name for k in properties(undoer) if name and k in properties(tool)
             and isinstance(shared.get(k), (str, type(None)))}
    return undoer, {**shared, **named}


def withdrawn(call: Any, why: str) -> HookResult:
    """The call taken back before it runs: the hop goes on (a ``withdrawn`` result, not a block
    that ends the turn in words)."""
    from edgevox.tools import ToolResult

    return HookResult.replace(ToolResult(name=call.name, arguments=call.arguments, ok=False, error=NOTE,
                                         error_type="withdrawn", call_id=call.id), reason=f"{call.name} {why}")


#: on no longer wanted: "I don't want the kitchen light on any more, we've finished eating." (dev55: switched on)
_UNWANTED_ON = re.compile(r"\b(?:don't|do\s+not|dont)\s+(?:want|need)\b[^,.]*\bon\s+(?:any\s*more|now)\b")


def switched_as_said(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The call switched off, without the numbers its pieces never say, when it switches on and
    the pieces that name the tool's thing say "off" and never "on" ("Set an alarm for 6:30 and
    turn all the lights off." -> every light on at 40 percent, dev52); else None. (And the other
    way round.) "Turn the TV off and set the living room lights to 10": the light's piece says
    neither."""
    own = tool_words(tool)
    pieces = [p for p in _pieces(request) or [request] if content_words(p) & own]
    request = " , ".join(pieces)
    words = set(WORD.findall(request.lower()))
    if ("on" in words) == ("off" in words):
        return None
    said_on = "on" in words and not _UNWANTED_ON.search(request.lower())
    switches = [k for k, v in arguments.items() if isinstance(v, bool) and v != said_on]
    if len(switches) != 1 or sum(isinstance(v, bool) for v in arguments.values()) != 1:
        return None
    said = said_numbers(request)
    return {k: (said_on if k == switches[0] else v) for k, v in arguments.items()
            if said_on or not (is_number(v) and not isinstance(v, bool) and float(v) not in said)}


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
    if tool.name in ctx.state(Grounding.name).get(PLANNED, ()) or len(_pieces(ctx.text)) < 2:
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
