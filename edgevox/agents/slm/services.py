"""Services no tool is: what a home assistant is asked for that the called tool does not do --
a reminder, a calendar entry, an order placed, a call to a person, an alarm at a time of day
rather than a timer's length. Read from the opening of the request (``asks_another_service``)
or, for an alarm, from a clock time said without a length (``asks_elsewhere``).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from edgevox.agents.slm.amounts import SECONDS, TIME_UNITS
from edgevox.agents.slm.vocabulary import (
    CHANGERS,
    SERVICES,
    UNITS,
    WORD,
    content_words,
    properties,
    stem,
    target_words,
    tool_words,
)


def asks_another_service(request: str, tool: Any, *, anywhere: bool = False) -> bool:
    """Does ``request`` open by asking for a service (its first four words: "Remind me to ...",
    "Get us a taxi"; with ``anywhere``, any of its words) that the called tool's vocabulary
    does not mention? Not one asked for later ("Send the email, and set a reminder": BFCL parallel_193's right call is the email);
    a timer whose requests say "remind me in 10 minutes" may serve "Remind me in 20 minutes.".
    Or one asked for anywhere by the phrases of ``_ELSEWHERE`` ("... to my calendar")."""
    # a service's word as the source of what is said names no service ("The recipe says simmer twenty
    # minutes, so can you time that for me?", dev65)
    low = re.sub(r"\b[a-z]+\s+(?:says|said|reads)\b", " ", request.lower())
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
        takes_a_length(tool) and _CLOCK_TIME.search(request) and not LENGTH_SAID.search(request))


def time_key(key: str) -> bool:
    """Is ``key`` a parameter of a length in a time unit (``hours``, ``minutes``, ``seconds``)?"""
    return key.lower().rstrip("s") in SECONDS


def takes_a_length(tool: Any) -> bool:
    """Does the tool take a length in time units?"""
    return any(time_key(k) for k in properties(tool))


#: a length of time said ("35 minutes")
LENGTH_SAID = re.compile(rf"\b(?:{TIME_UNITS})\b")
