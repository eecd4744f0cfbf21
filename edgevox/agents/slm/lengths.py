"""Lengths of time a call holds that nobody asked for: a length the request never says
(``invents_a_length``: "Living room lights at half, the film's starting." -> a one-hour timer),
a length told, not asked ("I'll be in the bath for like forty minutes", ``length_told``), and a
timer started with a made-up length where the request asks to end one (``ended_instead``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from edgevox.agents.slm.amounts import TIME_UNITS, said_numbers
from edgevox.agents.slm.follow_up import undoing_call
from edgevox.agents.slm.labels import said_name
from edgevox.agents.slm.questions import OPENS_AFTER, is_question
from edgevox.agents.slm.services import LENGTH_SAID, takes_a_length, time_key
from edgevox.agents.slm.statements import ORDERS_PIECE, terse_order
from edgevox.agents.slm.vocabulary import ENDING_WORDS, WORD, heard_words, is_number, properties

_SAYS_A_LENGTH = re.compile(rf"\b(?:{TIME_UNITS}|hrs?)\b|\b(?:an|for)\s+our\b")  # a transcript's "half an our" (dev12)


#: a number that is a level, not a length ("at 50 percent", "twenty degrees")
_A_LEVEL = re.compile(r"[\w-]+\s*(?:%|per\s*cent\b|degrees?\b)")


def invents_a_length(request: str, tool: Any, arguments: Mapping[str, Any]) -> bool:
    """Does a call hold a length (hours/minutes/seconds) where the request says no time unit
    and no number but a level's? "Living room lights at half, the film's starting." made the light's call
    and then a one-hour timer for "film" (dev15), and the timer again for "Do the same in the
    office"; the later calls of a turn are not grounded, so this is checked on its own."""
    lengths = [v for k, v in arguments.items() if time_key(k) and is_number(v) and v]
    low = request.lower()
    # (a number said that is not the length is the level's: "Dim the living room to thirty, film's
    # starting." made a one-hour timer, dev65)
    return bool(lengths) and not _SAYS_A_LENGTH.search(low) and not said_numbers(_A_LEVEL.sub(" ", low)) & set(map(float, lengths))


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
    if not takes_a_length(tool) or not any(time_key(k) and is_number(v) and v for k, v in arguments.items()) \
            or not re.search(r"timer|countdown", f"{tool.name} {tool.description or ''}".lower()):
        return False  # a timer's length, not the time a look-up or a sum takes
    low = request.lower().replace("’", "'")
    if _TIMER_ASKED.search(low):
        return False
    pieces = [OPENS_AFTER.sub("", p).strip() for p in re.split(r"[,.;!?\u2014\u2013]|\s-+\s|\band\b|\bbut\b", low)]
    timed = [p for p in pieces if p and LENGTH_SAID.search(p)]
    others = [p for p in pieces if p and not LENGTH_SAID.search(p)]
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
