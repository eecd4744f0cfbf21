"""Action claims in a reply: "I've turned on the kitchen light", "Timer set for 5 minutes".

A small model often says an action was done when it made no call ("I'm setting a timer"),
or says the opposite of what its call did ("The garage light is now off" after switching it
on). This module finds such claims in text and checks them against the calls of the turn;
the ``false_claim`` hook acts on it and the home evaluation counts with it.

Precision first: a refusal ("I can't turn on the fan"), a question back ("Should I turn it
off?"), an offer ("Would you like me to ...") or an answer about the weather or the time is
not a claim. A claim is a sentence with an action verb in the past/perfect or present
progressive ("turned", "has been set", "I'm setting", "now playing"), or a device put in a
new state ("is now on"). Its *topic* (lights, timer, thermostat, music, volume, list) is
read from the same sentence; a claim is backed when, for every topic it names, a call of
that turn succeeded on a tool whose name or description mentions that topic (any successful
call backs a claim with no topic, e.g. "Done."). For on/off it also checks the direction
against the call's ``on`` argument, an amount said in percent or degrees must be one the
backing calls were given or returned ("set to 22 degrees" after a call that set 23 is a
contradiction), and a value of a backing tool's enum parameter that the sentence names must
be one a backing call chose ("the living room light is on" after the kitchen's was switched
on; "all" only when said of the topic: "all the lights").

Readings are the other kind of false statement (``made_up_readings``): a time of day or the
weather said with no call that read it. Measured on the home evaluation's tuning splits,
"Time please." was answered "The current local time is 10:30 AM." with no call (dev, dev3 and
dev4 alike), and "And in Rome?" after a weather call with the home's weather again. A reading
counts only where the registry has a tool that changes nothing and reads that kind (a home
without a clock may talk about times).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from edgevox.agents.data import leaves
from edgevox.agents.slm.vocabulary import (
    DEVICES,
    changes_things,
    enum_of,
    is_number,
    properties,
    stem,
    tool_words,
)

_VERBS = (r"turned|switched|set|started|cancell?ed|stopped|added|removed|deleted|paused|resumed|skipped|"
          r"played|dimmed|brightened|adjusted|changed|lowered|raised|muted|put|increased|decreased|"
          r"updated|activated|deactivated|created|scheduled|queued|taken|took|scratched")
_PROGRESSIVE = (r"turning|switching|setting|starting|cancell?ing|stopping|adding|removing|deleting|pausing|"
                r"resuming|skipping|playing|dimming|brightening|adjusting|changing|lowering|raising|muting|"
                r"putting|increasing|decreasing|creating")
_BASE = (r"turn|switch|set|start|cancel|stop|add|remove|delete|pause|resume|skip|play|dim|brighten|adjust|"
         r"change|lower|raise|mute|put|increase|decrease|create")
_CLAIM_RES = [
    re.compile(rf"\b(?:i've|i have|i|we've|i just|i've just)\s+(?:now\s+|also\s+|just\s+)?(?:{_VERBS})\b"),
    re.compile(rf"\b(?:is|are|has|have|had|was|were|'s|'re)\s+(?:now\s+|also\s+|successfully\s+|been\s+|just\s+)*"
               rf"(?:{_VERBS})\b"),
    re.compile(rf"\b(?:i'm|i am|we're|i'll|i will|let me)\s+(?:now\s+|also\s+|go ahead and\s+)?"
               rf"(?:{_PROGRESSIVE}|{_BASE})\b"),
    re.compile(r"\b(?:is|are)\s+now\s+(?:on|off|playing|paused|running|at|set)\b"),
    re.compile(r"\bnow playing\b|^\s*playing\s+\w|^\s*playing[.!]*$"),
    # a player's own words for what it did: "Next track.", "Back to previous track." (dev12, session
    # 20: said for "No wait, go back, I liked that." with no call)
    re.compile(r"^\s*(?:(?:going|skipping|jumping|skipped|went)\s+)?(?:back\s+to\s+)?(?:the\s+)?"
               r"(?:next|previous|last)\s+(?:track|song|tune)\s*[.!]*$"),
    # "Actually took that off again." (dev21: said with no call)
    re.compile(rf"^\s*(?:(?:okay|ok|sure|alright|all right|done|got it|actually|right|yes|yep|there)[,.!\s]+)*(?:{_VERBS})\b"),
    re.compile(r"^\s*(?:done|all set|consider it done)\b"),
    # "Canceling the timer." (dev28, session 27: said with no call): an action said as under way
    re.compile(rf"^\s*(?:(?:okay|ok|sure|alright|all right|right|yes|yep|no problem)[,.!\s]+)*(?:{_PROGRESSIVE})\s+"
               rf"(?:(?:off|on|up|down)\s+)?(?:the|your|a|an|it|that|them|those|some)\b"),
    # "Timer set for 5 minutes.", "Lights off in the hallway.", "Hallway lights are on."
    re.compile(rf"\b(?:timers?|lights?|lamps?|thermostat|heating|temperature|volume|music|song|track)\s+"
               rf"(?:is\s+|are\s+|has\s+been\s+|have\s+been\s+)?(?:now\s+)?(?:{_VERBS}|on|off)\b"),
    # a thing put on or taken off the list: "Sesame oil added to the list.", "Oat milk taken off the list."
    re.compile(r"\b(?:added|removed|taken|took|put|crossed|scratched|struck)\s+(?:it\s+|that\s+)?(?:off\s+|on\s+|back\s+)?"
               r"(?:to|from|onto|on|off|of)?\s*(?:the|your|my|our)\s+(?:shopping\s+|grocery\s+)?list\b"),
    # a change said as a comparison: "The kitchen light is brighter.", "The music's a bit louder now."
    # (a room only with "now": "The room is warmer than outside." compares, it claims nothing)
    re.compile(r"\b(?:lights?|lamps?|heating|volume|music|song|(?:room|house|temperature)(?=\S*\s+(?:is\s+|are\s+)?now\b))"
               r"(?:\s+(?:is|are)|'s)\s+(?:now\s+)?(?:a\s+(?:bit|little)\s+|much\s+|slightly\s+)?(?:brighter|dimmer"
               r"|darker|warmer|cooler|hotter|colder|louder|quieter|softer)\b(?!\s+than\b)"),
]
#: a device no light/timer/thermostat word names, put in a state or acted on: "The window is open.",
#: "The fan's on now.", "I've locked the front door." (dev11, session 20: "And could you open the
#: window?" answered "The window is open." with no call, which no pattern above saw)
_DEVICE = "|".join(sorted((re.escape(d) for d in DEVICES), key=len, reverse=True))
_STATES = (r"open|opened|closed|shut|locked|unlocked|on|off|running|started|stopped|up|down|lowered|raised|"
           r"drawn|pulled|cleaning|mowing|heating|boiling|recording|watering")
_THE = r"(?:the|your|my|our|a|an)\s+"
_MODIFIER = r"(?:(?!by\b|near\b|in\b|on\b|at\b|next\b|beside\b|and\b)[a-z']+\s+)"  # "front", "living room"
_DEVICE_CLAIM_RES = [
    re.compile(rf"\b({_DEVICE})(?:\s+(?:is|are|has been|have been)|'s|'re)\s+(?:now\s+|also\s+|all\s+)*(?:{_STATES})\b"),
    re.compile(rf"\b(?:i've|i have|i|i've just|i just)\s+(?:now\s+|also\s+|just\s+)?(?:opened|closed|shut|locked|"
               rf"unlocked|drew|drawn|pulled|lowered|raised|started|stopped|turned|switched|set|put)"
               rf"(?:\s+(?:on|off|up|down))?\s+{_THE}?{_MODIFIER}{{0,2}}({_DEVICE})\b"),
]
# refusals, questions back and offers are not claims
_NOT_CLAIM = re.compile(
    r"\b(?:can't|cannot|can not|couldn't|could not|unable|not able|don't have|do not have|no tool|"
    r"isn't possible|not possible|won't|wasn't|weren't|didn't|did not|haven't|have not|not been|"
    r"sorry|would you like|do you want|shall i|should i|want me to|if you|please specify|which)\b")

#: topic name -> words that name it in a reply
TOPICS: dict[str, tuple[str, ...]] = {
    "light": ("light", "lights", "lamp", "lamps", "brightness", "dimmed", "brightened"),
    "timer": ("timer", "timers", "countdown"),
    "thermostat": ("thermostat", "heating", "heat", "temperature", "degrees", "°"),
    "music": ("music", "song", "track", "playing", "playback", "paused", "resumed", "skipped", "playlist"),
    "volume": ("volume", "louder", "quieter", "muted"),
    "list": ("shopping", "list", "grocery"),
}
#: words without which no sentence is a claim (each pattern above needs one of them): a
#: streamed sentence is held from the first of them until it can be checked whole
TRIGGERS = frozenset(
    {w for group in (_VERBS, _PROGRESSIVE, _BASE) for w in group.replace("?", "").split("|")}
    | {"cancelled", "canceled", "cancelling", "canceling", "done", "now", "playing", "set"}
    | {k for keys in TOPICS.values() for k in keys if k.isalpha()}
    | DEVICES
)
_OFF = re.compile(r"\b(?:off|out|turned off|switched off|deactivated)\b")
_ON = re.compile(r"\b(?:on|turned on|switched on|activated)\b")


@dataclass
class Claim:
    """One sentence of a reply that says an action was done."""

    sentence: str
    topic: str | None  # the first of ``topics``
    state: bool | None  # True "on", False "off", None: not an on/off claim
    topics: tuple[str, ...] = ()  # every topic the sentence names ("the light is on and the timer set")
    devices: tuple[str, ...] = ()  # the devices it names (``vocabulary.DEVICES``: "window", "fan")


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _topics(sentence: str) -> tuple[str, ...]:
    words = set(re.findall(r"[a-z°]+", sentence))
    return tuple(name for name, keys in TOPICS.items()
                 if words & set(keys) or any(k == "°" and "°" in sentence for k in keys))


def find_claims(text: str) -> list[Claim]:
    """The sentences of ``text`` that claim an action was done (or is being done)."""
    out = []
    for s in _sentences(text or ""):
        low = s.lower().replace("’", "'")
        if low.endswith("?") or _NOT_CLAIM.search(low):
            continue
        devices = tuple(dict.fromkeys(m.group(1) for r in _DEVICE_CLAIM_RES for m in r.finditer(low)))
        if not devices and not any(r.search(low) for r in _CLAIM_RES):
            continue
        topics = _topics(low)
        state = None
        if "light" in topics:
            off, on = bool(_OFF.search(low)), bool(_ON.search(low))
            state = True if on and not off else False if off and not on else None
        out.append(Claim(s, topics[0] if topics else None, state, topics, devices))
    return out


def _tool_topics(name: str, description: str) -> set[str]:
    text = f"{name.replace('_', ' ')} {description}".lower()
    words = set(re.findall(r"[a-z]+", text))
    return {t for t, keys in TOPICS.items() if words & set(keys)}


_AMOUNT = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:%|percent\b|per cent\b|°|degrees?\b)")


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _numbers(value: Any) -> set[float]:
    """Every number inside a call's arguments or result (nested dicts and lists too)."""
    out: set[float] = set()
    for v in leaves(value):
        if isinstance(v, str):
            out.update(float(n) for n in _NUMBER.findall(v))
        elif is_number(v):
            out.add(float(v))
    return out


#: an enum value that means every one of them: a call with it backs a claim about any one
_EVERY = frozenset({"all", "every", "everything", "everywhere", "any", "whole"})


def _tool(registry: Any, name: str) -> Any:
    return registry.get(name) if registry is not None and name in registry.names() else None


def _other_target(claim: Claim, backing: list[Any], tools: dict[str, Any]) -> str | None:
    """A value of a backing tool's enum parameter that the claim names but no backing call
    chose ("living room" after a call for the kitchen), or None. Only parameters the calls
    set to a string are checked, and a call for "all" backs every value."""
    low = claim.sentence.lower().replace("’", "'")
    topic_words = "|".join(re.escape(k) for t in claim.topics for k in TOPICS[t] if k.isalpha())
    for c in backing:
        for key, schema in properties(tools.get(c.name)).items() if tools.get(c.name) is not None else ():
            chosen = {str(b.arguments.get(key)).lower() for b in backing
                      if isinstance(b.arguments, dict) and isinstance(b.arguments.get(key), str)}
            if not chosen or chosen & _EVERY:
                continue
            for value in (str(v).lower() for v in enum_of(schema) if isinstance(v, str)):
                if value in chosen:
                    continue
                if value in _EVERY:  # "all set" is no target; "all the lights" is
                    if topic_words and re.search(rf"\b{re.escape(value)}\s+(?:the\s+|of the\s+)?(?:{topic_words})\b", low):
                        return value
                elif re.search(rf"\b{re.escape(value)}\b", low):
                    return value
    return None


#: kind of reading -> (a sentence that states one, what a read-only tool's name and description
#: say when it reads that kind: the clock, not "the time taken to cover a distance" -- BFCL's
#: irrelevance_17 offers only calculate_time for "What's the time right now?")
READINGS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    # (?<!\d), not \b: an ISO stamp's "T14:00" ("2023-10-01T14:00:00Z" answered "What time is it in Tokyo?")
    "time": (re.compile(r"(?<!\d)\d{1,2}:\d{2}\b|\b\d{1,2}\s*(?:a\.?m\b\.?|p\.?m\b\.?)"),
             re.compile(r"\b(?:current|local)\s+(?:local\s+)?time\b|\bclock\b|\btime of day\b|\bget time\b")),
    # a number with a weather word, or the weather stated outright at the sentence's start ("Yes, it is
    # raining in Berlin today.", said for "Is it raining in Berlin today?" with get_weather uncalled);
    # not "I can't tell whether it is raining."
    "weather": (re.compile(r"(?=.*\d)(?=.*\b(?:sunny|cloudy|clear sky|clear skies|rain|raining|rainy|snow|snowing|"
                           r"windy|overcast|forecast|humid|humidity|storm|stormy|fog|foggy)\b)"
                           r"|^(?:(?:yes|no)\b[,!.]?\s*)?it(?:'s| is)\s+(?:currently\s+|now\s+)?(?:not\s+)?"
                           r"(?:raining|snowing|sunny|cloudy|windy|rainy|foggy|stormy|overcast)\b"
                           # "The weather is going to be cloudy." (dev36: said after an action, uncalled)
                           r"|^(?:(?:yes|no)\b[,!.]?\s*)?(?:(?:the\s+)?(?:weather|forecast|sky|skies)|today|tomorrow|tonight|it)"
                           r"(?:'s|'ll|\s+is|\s+will|\s+looks)\s+(?:[a-z]+\s+){0,4}?"
                           r"(?:raining|rain|snow|snowing|sunny|cloudy|windy|rainy|foggy|stormy|overcast|showers|clear)\b"),
                re.compile(r"\bweather\b|\bforecast\b")),
}


#: words that may open a reading: a streamed sentence with one is held until it can be checked
READING_TRIGGERS = frozenset({"time", "clock", "weather", "forecast", "sunny", "cloudy", "rain", "raining",
                              "snow", "windy", "outside", "temperature", "degrees", "am", "pm"})


def _serves(registry: Any, name: str, device: str) -> bool:
    """Is ``device`` ("window") a word of what the tool ``name`` is for? (its name alone without a registry)"""
    tool = _tool(registry, name)
    words = tool_words(tool) if tool is not None else {stem(w) for w in name.split("_")}
    return stem(device) in words


def unserved_claims(text: str, registry: Any) -> list[str]:
    """The devices ``text`` claims were acted on that no tool of ``registry`` is for at all
    ("The window is open." in a home with lights and a thermostat): a retry cannot help there."""
    if registry is None:
        return []
    return [d for claim in find_claims(text) for d in claim.devices
            if not any(_serves(registry, name, d) for name in registry.names())]


def _readers(registry: Any, reads: re.Pattern[str]) -> set[str]:
    return {t.name for t in registry if not changes_things(t)
            and reads.search(f"{t.name.replace('_', ' ').replace('.', ' ')} {t.description}".lower())}


def made_up_readings(text: str, calls: list[Any], registry: Any = None) -> list[tuple[str, str]]:
    """``(kind, sentence)`` of each reading in ``text`` (a time of day, the weather) that no
    successful call of the turn read, where the registry has a read-only tool for that kind;
    empty without a registry."""
    if registry is None:
        return []
    ok = [c for c in calls if getattr(c, "dispatched", True) and getattr(c, "error", None) is None]
    reasons = []
    for kind, (pattern, reads) in READINGS.items():
        readers = _readers(registry, reads)
        if not readers or any(c.name in readers for c in ok):
            continue
        said = next((s for s in _sentences(text or "") if not s.endswith("?") and pattern.search(s.lower())), None)
        if said is not None:
            reasons.append((kind, said))
    return reasons


def unreadable_readings(text: str, request: str, registry: Any = None) -> list[tuple[str, str]]:
    """``(kind, sentence)`` of each reading in ``text`` of a kind that no tool of the registry
    can read at all, so it can only have been made up ("The time is currently 12:00 PM." with
    only a travel-time calculator). Where the request states a reading itself ("What's 7:30
    plus 2 hours?"), one in the reply is worked out from the user's, not made up; empty without
    a registry."""
    if registry is None:
        return []
    reasons = []
    for kind, (pattern, reads) in READINGS.items():
        if _readers(registry, reads) or pattern.search((request or "").lower()):
            continue
        for s in _sentences(text or ""):
            if not s.endswith("?") and pattern.search(s.lower()):
                reasons.append((kind, s))
                break
    return reasons


def unbacked(text: str, calls: list[Any], registry: Any = None) -> list[str]:
    """Why claims in ``text`` are false given the turn's calls (``CallRecord``-like objects:
    ``name``, ``arguments``, ``error``, ``dispatched``); empty when every claim is backed.

    ``registry`` (optional) gives tool descriptions for topics; without it, tool names alone.
    """
    ok = [c for c in calls if getattr(c, "dispatched", True) and getattr(c, "error", None) is None]
    reasons = []
    for claim in find_claims(text):
        not_done = [d for d in claim.devices if not any(_serves(registry, c.name, d) for c in ok)]
        if not_done:
            reasons.append(f"says the {not_done[0]} was acted on, and no successful call was about it: {claim.sentence!r}")
            continue
        if claim.topic is None:
            if not ok:
                reasons.append(f"claims an action with no successful call: {claim.sentence!r}")
            continue
        tools = {c.name: _tool(registry, c.name) for c in ok}
        topics_of = {c.name: _tool_topics(c.name, getattr(tools[c.name], "description", "") or "") for c in ok}
        missing = [t for t in claim.topics if not any(t in topics_of[c.name] for c in ok)]
        if missing:
            reasons.append(f"claims a {missing[0]} action with no successful {missing[0]} call: {claim.sentence!r}")
            continue
        backing = [c for c in ok if set(claim.topics) & topics_of[c.name]]
        other = _other_target(claim, backing, tools)
        if other is not None:
            reasons.append(f"names {other!r}, which no call chose: {claim.sentence!r}")
            continue
        said_amounts = {float(n) for n in _AMOUNT.findall(claim.sentence.lower())}
        done_amounts = set().union(*(_numbers(c.arguments) | _numbers(getattr(c, "result", None)) for c in backing))
        if said_amounts - done_amounts:
            shown = ", ".join(f"{n:g}" for n in sorted(said_amounts - done_amounts))
            reasons.append(f"says {shown} but no call set that amount: {claim.sentence!r}")
            continue
        if claim.state is not None:
            states = {c.arguments.get("on") for c in backing if isinstance(c.arguments.get("on"), bool)}
            if states and claim.state not in states:
                said = "on" if claim.state else "off"
                reasons.append(f"says {said!r} but the call switched it {'on' if not claim.state else 'off'}: "
                               f"{claim.sentence!r}")
    return reasons
