"""Telling: lines that only tell -- of the past, a habit, a plan, a taste -- and order nothing.

Written in session 35, when a fresh batch in dev45's style (the line between asking and not
asking) found a third of such lines acted on ("We left the garage light on for a whole week once
when we were in Spain." switched it off). See ``only_tells``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from edgevox.agents.slm.statements import (
    ASKS_A_QUESTION,
    NAME_TELLS,
    STATEMENT,
    VERB,
    a_name,
    an_order,
    asked,
    complains,
    cut_pieces,
    lowered,
)
from edgevox.agents.slm.vocabulary import IMPERATIVES

#: past verbs without "-ed" ("Me nan kept her thermostat at twenty-six", "Butter's gone up", dev61); not
#: those spelt as their present ("put", "set", "left": "Someone left the light on again" wants it off)
_IRREGULAR_PAST = ("kept went gone came took made bought brought caught fell forgot spent paid found heard knew sold "
                   "slept woke wore won drove ate drank swore sang grew threw wrote spoke gave broke began")

#: the subject a telling piece opens on: a pronoun (not "you": that may be the assistant), or a
#: thing's or a person's noun phrase ("the garage light", "my nan", "Kev's", "me dad")
_TELLING_SUBJECT = re.compile(r"^(?:i|i've|i'd|i'll|i'm|we|we've|we'd|we'll|we're|he|he's|she|she's|they|they're|they've|it|it's"
                              r"|that|that's|there|there's|(?:(?:half|some|all|most)\s+(?:of\s+)?)?(?:the|my|our|his|her|their|this|that|those|these|me|your)\s+[a-z']+|[a-z]+'s"
                              # the family, named as a recogniser may write them, lower-cased ("dad said ...")
                              rf"|(?:mum|mam|mom|dad|nan|nana|gran|granny|grandma|grandad|grandpa|auntie|uncle)\s+(?=[a-z]+(?:ed|s)\b|said|had|will|'ll|always|never"
                              rf"|{'|'.join(_IRREGULAR_PAST.split())})"
                              # a thing with its state so far ("Kitchen light's been flickering since Tuesday", dev61)
                              r"|(?:[a-z]+\s+){0,2}[a-z]+'s\s+(?=been|got|gone|had|always|never|still))\b")

#: a past, a habit, a plan or a maybe, a taste, a wish, something done by oneself
_TELLS_OF = re.compile(r"\b(?:was|were|been|had|did|said|told|reckons?|thinks?|thought|always|never|usually|used\s+to|once"
                       r"|last\s+(?:night|week|year|winter|summer|time|month|weekend|christmas)|yesterday|might|maybe|probably|gonna|going\s+to|will|'ll"
                       r"|wish|wished|love|loves|loved|hate|hates|prefer|prefers|best|worst|favourite|perfect|brilliant|great"
                       r"|lovely|enough|plenty|myself|himself|herself|themselves|already|apparently|sweet\s+spot|spot\s+on"
                       r"|just\s+right|\w{3,}ed|keeps|likes|keep\s+meaning|(?:don't|doesn't)\s+even|must've|must\s+have|back\s+in|years\s+ago|as\s+a\s+(?:kid|child)|when\s+i\s+was"
                       rf"|{'|'.join(_IRREGULAR_PAST.split())}|(?:'s|'ve|has|have|had)\s+(?:just\s+|already\s+)?put)\b|\b[a-z]+'s\s+(?:\w+ing)\b")

#: what shows a line wants something now although it tells: a need or a mood, a room too dark, cold
#: or loud, food run out, the list, a timer for something, "more", "again", "I said" (a correction),
#: "I wonder" (a question); each of these asked for a call in a tuned line that otherwise tells
_WANTS_NOW = re.compile(r"(?<!might\s)(?<!'ll\s)(?<!will\s)(?<!may\s)(?<!probably\s)\b(?:need|needs|want|wants|wanna|fancy|mood|feel\s+like|could\s+do\s+with|could\s+use"
                        r"|would\s+(?:be|go|cheer|help)|'d\s+(?:like|love|be)|can't\s+(?:see|hear)|hardly|barely|dark|bright|cold"
                        r"|warm|hot|freezing|loud|quiet|black|pitch|out\s+of|ran\s+out|run\s+out|last\s+of|finished|used\s+up"
                        r"|polished\s+off|(?:no|none)\s+(?:\w+\s+)?left|all\s+gone"
                        r"|(?:on|onto|to|off|from)\s+(?:the|my|our)\s+(?:shopping\s+)?list|list\s*:|shopping\s+list(?!'s|\s+is)"
                        r"|timer\s+for|please|i\s+mean|i\s+meant|(?<!for\s)(?<!point\s)now|instead(?!\s+of)|(?<!no\s)more|less|too|wonder|sick\s+of|fed\s+up|i\s+said|can\s+be"
                        r"|could\s+be|should\s+be|appreciate|if\s+you\s+(?:could|can|would)|looking\s+for)\b")

#: a thing and the state it is wanted in, with no one who did it ("the air conditioner turned on
#: with cool mode.", BFCL live_simple_44)
_THING_IN_A_STATE = re.compile(r"^\W*(?:the|my|our)\s+(?:[a-z']+\s+){1,3}(?:turned|switched|set|put)\s+(?:on|off|to|up|down)\b")

#: where and when a story is set, before its subject ("Last winter we had ...", "Back home in Chennai we ...")
_SCENE = re.compile(r"^(?:last\s+\w+|next\s+(?:year|week|weekend|month|summer|winter|spring|autumn|christmas|time)"
                    r"|this\s+(?:summer|winter|spring|autumn|christmas)|(?:on\s+)?(?:mondays|tuesdays|wednesdays|thursdays|fridays"
                    r"|saturdays|sundays|weekends|weeknights|school\s+nights)|(?:yesterday|tomorrow)(?:\s+(?:morning|afternoon|evening|night))?|once|years\s+ago|as\s+a\s+(?:kid|child)|later(?:\s+on)?"
                    r"|back\s+(?:home|then)(?:\s+in\s+\w+)?|back\s+in\s+\w+|when\s+i\s+was\s+(?:a\s+)?\w+|in\s+the\s+old\s+days)\s+")

#: words said aside, between a story's pieces ("..., no bother.", "..., apparently.")
_ASIDES = frozenset("bother worries problem probs ta cheers mate love grand fine apparently anyway honestly".split())

#: a thing said and how it is ("jazz on a sunday morning is just the best"), and the pieces that
#: drop their subject ("might paint the office at the weekend", "drives me mad", "not even once")
_BEING = re.compile(rf"^(?!(?:{'|'.join(sorted(IMPERATIVES | {'find', 'show', 'tell', 'search', 'look', 'check', 'fetch'}))})\b)"
                    r"(?:(?!who\b|which\b|that\b)[a-z'-]+\s+){1,5}(?:is|are|was|were)\b")
_NO_SUBJECT = re.compile(r"^(?:might|drives|makes|sounds|looks|not\s+even|never\s+again|no\s+point|not\s+yet"
                         r"|which\s+(?:is|was|made|makes|means|meant)"  # "Our old house had ..., which made zero sense." (dev63)
                         r"|not\s+(?:the|a|my|our|his|her)\s+[a-z']+$)\b")  # "..., I think it's the fitting and not the bulb." (dev61)

#: a maybe or a plan, not a switch ordered ("I might stick some Nina Simone on", dev56)
_MAYBE = re.compile(r"\b(?:might|may|will|'ll|would|gonna|going\s+to)\b")

#: a question tagged on to a statement, closing the line ("..., hasn't it.")
_TAG_QUESTION = re.compile(r",\s*(?:isn't|hasn't|wasn't|doesn't|didn't|aren't|weren't|won't|haven't|hadn't|innit)\s+(?:it|they|he|she|we|you|there)\W*$")

#: verbs of orders no list here holds, seen opening a tuned request ("Bin the pasta timer, ...",
#: "Back one track, ...", "Pick the music back up ...", "Every light in the house on, ...")
_ORDERS_TOO = frozenset("bin ditch back pick go".split())
#: "every" orders before what it switches ("Every light in the house on, ..."), not in "every single one"
_EVERY_THING = re.compile(r"^every\s+(?:single\s+)?(?:light|lamp|room|bulb)s?\b")


@lru_cache(maxsize=512)  # asked of the same line by the gate, grounding (per tool), the planner and the claim check
def only_tells(request: str) -> bool:
    """Does the line only tell: of the past, a habit, someone's plan or doing, a taste, a wish,
    something already done ("Dad said he'd sort the garage light when he's back from the tip.",
    "We left the garage light on for a whole week once when we were in Spain.", dev56)? Every
    piece opens on a subject or is a remark, one says a past, a plan, a taste or "already", and
    nothing orders, asks, complains or wants something now (``_WANTS_NOW``). Written in session
    35, when a fresh batch in dev45's style found a third of such lines acted on; on the 3208
    tuned turns that ask for a call it holds for none. Only a tool that changes things is kept
    from such a line (``grounding``, the gate): a statement may still be a typed request for a
    look-up (BFCL's first messages: it holds for 1 of simple_python's 400, none of cases 0-99)."""
    low = lowered(request)
    if "?" in low or asked(low) or complains(low) or _WANTS_NOW.search(low) or not _TELLS_OF.search(low) \
            or _THING_IN_A_STATE.match(low):
        return False
    low = _TAG_QUESTION.sub("", low)  # "The thermostat's been on twenty all week, hasn't it." (dev57) tells
    pieces = [_SCENE.sub("", q) for part in re.split(r"\s[-\u2014\u2013]+\s|\u2014|--", low) for q in cut_pieces(part)]
    pieces = [p for p in pieces if p and p not in _ASIDES]
    if not pieces or ASKS_A_QUESTION.match(pieces[0]):
        return False
    if any(an_order(p) or p.split()[0] in _ORDERS_TOO or _EVERY_THING.match(p)
           or (re.search(r"\b(?:on|off)$", p) and not VERB.search(p) and not _MAYBE.search(p)) for p in pieces):
        return False
    # (a piece of a word or two after the first goes on with a list: "... the bread and eggs")
    return all(_TELLING_SUBJECT.match(p) or STATEMENT.match(p) or (a_name(request, p.split()[0]) and NAME_TELLS.match(p))
               or _BEING.match(p) or _NO_SUBJECT.match(p) or (n and len(p.split()) <= 2) for n, p in enumerate(pieces))
