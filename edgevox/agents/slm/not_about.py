"""``why_not``: the four checks of ``grounding`` on one call against the whole request, and why
the call is not about it (a key of ``grounding.REPLIES``), or None when it is.

The checks draw on their own modules (``devices``, ``services``, ``places``, ``questions``);
what is left here is how they are weighed, and the last check, nothing in common: the words a
call shares with the request, or a value it holds that the request says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from edgevox.agents.data import leaves
from edgevox.agents.slm.devices import (
    acted_on,
    device_compound,
    device_words,
    same_device,
    unserved_devices,
)
from edgevox.agents.slm.places import WHERE, home_place, unknown_place
from edgevox.agents.slm.questions import asked_of, asked_part, tells_not_asks
from edgevox.agents.slm.remarks import asks_nothing, asks_of_the_past
from edgevox.agents.slm.services import LENGTH_SAID, asks_elsewhere, takes_a_length
from edgevox.agents.slm.vocabulary import (
    CLIMATE_DEVICES,
    FELT,
    GENERIC,
    OPENERS,
    UNITS,
    WORD,
    changes_things,
    content_words,
    enum_of,
    heard_words,
    properties,
    stem,
    target_words,
    tool_words,
    undoes,
    without_idioms,
)

#: small talk about how someone is ("How are we today?", "How's it going?")
_HOW_ARE_YOU = re.compile(r"\bhow\s+(?:are|r)\s+(?:you|we|ya|things|u)\b|\bhow's\s+(?:it\s+going|life|things|your\s+day)\b"
                          r"|\bhow\s+(?:have|has)\s+(?:you|we)\s+been\b|\bhow\s+do\s+you\s+do\b"
                          # and how the assistant itself is ("You work 24 hours a day, don't you get tired?", dev40)
                          r"|\b(?:don't|dont|do)\s+you\s+(?:ever\s+)?(?:get\s+)?(?:tired|bored|lonely|sleep|rest|dream)\b"
                          r"|\bare\s+you\s+(?:ever\s+)?(?:tired|bored|lonely|sleepy|happy|sad|real|human|alive)\b")


#: a joke, a poem, a story *about* something: the thing is its topic (what no tool makes)
_TOPIC = re.compile(r"\b(jokes?|poems?|stor(?:y|ies)|riddles?|limericks?|haikus?|facts?|puns?)\s+(?:about|on|involving|with)\b")


def wordy(value: str) -> bool:
    """Letters of a name, not only numbers and glue words ("lo-fi", not "x^3" or "1 to 5")."""
    words = WORD.findall(value)
    return sum(map(len, words)) >= 3 and any(w not in GENERIC for w in words)


#: what a tool that sets a room's temperature is about: it may serve the air conditioning
_CLIMATE_TARGETS = frozenset(stem(w) for w in ("temperature", "thermostat", "heat", "heating", "cool"))


def why_not(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> str | None:
    """Why a call of ``tool`` is not about ``request`` (a key of ``REPLIES``), or None when it
    is grounded. ``tools``: every tool of the registry (what is served at all)."""
    written = request  # (as written: capitals mark a name)
    request = without_idioms(heard_words(request, tools))  # homophones read as meant ("whats the thyme", dev16)
    said = content_words(request)
    target = target_words(tool)
    if not said & (target - UNITS) and not said & device_words(tool, tools):
        # "Unlock the front door for 5 minutes." names a door, not a timer
        low = re.sub(r"\bshut\b(?=[\w\s']*?\b(?:off|down)\b)", " ", request.lower())  # "Shut the music off."
        opens = {stem(w) for w in WORD.findall(low) if w in OPENERS}
        unserved = unserved_devices(request, tools)
        if target & _CLIMATE_TARGETS:
            unserved -= CLIMATE_DEVICES  # "Crank the aircon down to twenty-four" (dev14) sets a temperature
        if unserved and takes_a_length(tool) and LENGTH_SAID.search(request) and all(
                re.search(rf"\bin\s+(?:the|my|our)\s+{re.escape(d)}", request.lower()) for d in unserved):
            unserved = set()  # "... thirty-five minutes in the oven, can you time it?" (dev12): timed, not worked
        if unserved and _said_apart(request, tool, arguments, unserved):
            unserved = set()  # "Hit pause on that, the kettle's screaming." (dev21): the kettle is the reason
        if unserved:
            unserved -= _in_a_title(written, arguments)  # "Play OK Computer by Radiohead." (dev63): an album's name
        if unserved or (opens and not opens & tool_words(tool)):
            return "device"
    elif (thing := acted_on(request)) and ((stem(thing[0]) in (unserved := unserved_devices(request, tools))
                                            and not (thing[1] and stem(thing[1]) in target))
                                           or (thing[1] and stem(thing[1]) in unserved and stem(thing[0]) not in target)):
        return "device"  # "Heat the oven to 220." / "Heat the hot tub ...": the oven is what is heated, not the house
    if changes_things(tool) and device_compound(request, tools, tool):
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
    if asked_of(request, tool, arguments) and (changes_things(tool) or home_place(asked_part(request), tool, arguments, tools)
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
    value_parts = parts_of_values(tool, request)
    own = tool_words(tool) - value_parts
    felt = {FELT[w] for w in WORD.findall(request.lower()) if w in FELT}  # how the room feels names its thing
    if said & own or (felt & own and not unserved_devices(request, tools)):
        return None
    if stem("timer") in own and takes_a_length(tool) and _TIME_IT.search(request.lower()):
        return None  # "The recipe says simmer twenty minutes, so can you time that for me?" (dev65)
    # Not optional arguments: the model copies the request's words into a free-text ``label``
    # ("Open the blinds halfway." -> a timer labelled "blinds halfway").
    required = set((tool.parameters or {}).get("required") or ())
    strings = [v.strip().lower() for v in leaves({k: v for k, v in arguments.items() if k in required})
               if isinstance(v, str)]
    if strings and all(v in FELT and FELT[v] not in own for v in strings):
        return "unrelated"  # "I'm roasting, it must be 26 in here." (dev40) -> query "roasting": how the room feels
    if said & content_words(" ".join(strings)) - value_parts or any(wordy(v) and v in request.lower() for v in strings):
        return None  # "Jazz please." -> query "jazz"; "maybe lo-fi" -> query "lo-fi"
    words = set(WORD.findall(request.lower()))
    enums = {str(arguments[k]).lower() for k, sch in properties(tool).items()
             if enum_of(sch) and isinstance(arguments.get(k), str)}
    # "Crank it up a bit." -> change "up"; not "Cool it down to 19." -> set_volume: "cool" names the
    # thermostat. A word of a tool on the same device ("Turn it up, I love this song.": the song
    # plays on the speakers the volume is of) names no other thing.
    others = any(said & target_words(t) for t in tools if t.name != tool.name and not same_device(t, tool))
    return None if enums & words and not others else "unrelated"


#: a length asked to be timed, said by the verb ("time that for me", "can you time it?")
_TIME_IT = re.compile(r"\btime\s+(?:it|that|this|them|those)\b")


def _in_a_title(request: str, arguments: Mapping[str, Any]) -> set[str]:
    """The stems of words a string argument of the call holds that the request writes with a capital
    mid-line, as a name is written ("Computer" of "OK Computer", "Radio" of "Radio Gaga"); not all
    capitals ("TV") and not the line's first word."""
    held = {w for v in leaves(dict(arguments)) if isinstance(v, str) for w in WORD.findall(v.lower())}
    words = re.findall(r"[A-Za-z]+", request)[1:]
    return {stem(w.lower()) for w in words if w[0].isupper() and not w.isupper() and w.lower() in held}


def parts_of_values(tool: Any, request: str) -> set[str]:
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
              if k.lower() in WHERE for v in enum_of(sch) if isinstance(v, str)} - own
    timed_elsewhere = not takes_a_length(tool) and any(takes_a_length(t) for t in tools)
    words = WORD.findall(request.lower())
    for key, value in arguments.items():
        if key not in props or enum_of(props[key]) or not isinstance(value, str):
            continue
        said = WORD.findall(value.lower())
        if " ".join(said) in others or (timed_elsewhere and said == words and LENGTH_SAID.search(request.lower())):
            return True
    return False
