"""Reading a line as a question or an order: is it a question about a state (``is_question``),
which of its pieces order beside one that asks (``orders_beside_a_question``), and does it only
tell how a thing is or what someone did (``tells_not_asks``).

Its own module because every judge of a call reads the line this way first, and none of it
depends on the call: grounding's checks, the remainder hook, ``wants`` and the false-claim hook
all import it, and it imports nothing of theirs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from edgevox.agents.slm.amounts import JOIN, said_numbers
from edgevox.agents.slm.parts import every_sentence
from edgevox.agents.slm.statements import ORDERS_PIECE, complains, terse_order
from edgevox.agents.slm.telling import only_tells
from edgevox.agents.slm.vocabulary import FILLERS, IMPERATIVES, content_words, tool_words

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
OPENS_AFTER = re.compile(r"^\W*(?:(?:oh|ah|and|also|so|like|um|uh|er|plus|then|right|ok|okay|actually|anyway|anyhow)\W+)*")


#: a want that is to know: "how much time is on the timer? I want to know if I can hop in the
#: shower" (dev30) asks twice
_WANTS_TO_KNOW = re.compile(r"\b(?:want|wanna|need|like|wanted|trying)\s+(?:to\s+)?(?:know|find\s+out|check|see|hear\s+if)\b")


def _orders(sentence: str) -> bool:
    low = OPENS_AFTER.sub("", sentence.lower())
    return not is_question(sentence) and bool(ORDERS_PIECE.match(low) or terse_order(low)) and not _WANTS_TO_KNOW.search(low)


#: a comma before a question ("Pause this a sec, what's the temperature out in Dublin?", dev50)
_COMMA_ASKS = re.compile(r",\s*(?=(?:what|what's|whats|how|how's|when|when's|where|where's|who|who's|which|is|are|will|did|does)\b)",
                         re.IGNORECASE)


def line_pieces(request: str) -> list[str]:
    """The request's sentences cut at their joins and before a question said after a comma,
    pieces of two words or more."""
    return [p for s in every_sentence(request) for j in JOIN.split(s) for p in _COMMA_ASKS.split(j) if len(p.split()) >= 2]


def _orders_beside_a_question(request: str) -> list[str]:
    """The sentences (or parts between joins) that order, in a line of several that also asks
    in one; else none ("Read my messages and then put the kitchen light on.": the light is
    ordered, the messages asked for)."""
    parts = line_pieces(request)
    ordering = [s for s in parts if _orders(s)] if len(parts) > 1 else []
    return ordering if ordering and any(map(is_question, parts)) else []


def asked_part(request: str) -> str:
    """The request without the parts that order beside a question (the place an order names is
    the order's, not the question's)."""
    ordering = _orders_beside_a_question(request)
    rest = [p for p in line_pieces(request) if p not in ordering]
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
