"""Statements and orders: the shapes a spoken line takes, as the rules over words read them.

Whether a line asks the assistant for anything is judged piece by piece: the line lowered
(``lowered``), cut at its stops, commas and joins with the opening fillers dropped
(``cut_pieces``), and each piece read as an order (``ORDERS_PIECE``, a thing and its new state
``switched``, a ``terse_order`` with an amount), an ask of the assistant (``asked``), a statement
by its subject (``STATEMENT``), a person's name (``a_name``), a complaint (``complains``) or
courtesy (``COURTESY``). ``remarks`` (lines that ask nothing), ``changed_mind`` (lines taken
back) and ``telling`` (lines that only tell) read lines by these same cuts, so they are said
once, here.
"""

from __future__ import annotations

import re

from edgevox.agents.slm.amounts import said_numbers
from edgevox.agents.slm.vocabulary import FELT, HOME_PLACES, IMPERATIVES, WORD

#: a piece of a line that orders or asks for something
ORDERS_PIECE = re.compile(rf"^\W*(?:please\s+)?(?:{'|'.join(sorted(IMPERATIVES))}|"
                          r"tell|let's|let\s+me|can|could|would|will|i\s+need|i\s+want|"
                          r"(?:i|we|he|she|they)'d\s+(?:like|love)|i\s+would|i'll\s+(?:want|need)|we\s+(?:need|want))\b")

#: words that may open a piece before what it says ("Oh, and just turn ...")
OPENING = re.compile(r"^\W*(?:(?:oh|ah|and|also|so|like|um|uh|er|plus|then|right|ok|okay|actually|just|now|but|instead"
                      r"|yeah|well|no|nah|wait|hmm|hang\s+on)(?:\W+|$))*")

#: a request to the assistant anywhere in a line ("..., can you ...", "please")
_ASKED = re.compile(r"\b(?:can|could|would|will)\s+(?:you|we|ya)\b|\bplease\b|\bany\s+chance\b|\bhow\s+about\b"
                    r"|\bi'd\s+(?:like|love)\b|\bi\s+(?:want|need)\b|\blet's\b|\bmind\s+(?:putting|turning|switching|setting|adding)\b")

#: a piece that tells, by its subject ("the baby's asleep", "it was our first dance"), or only thanks
STATEMENT = re.compile(r"^(?:i|i'm|i've|i'd|we|we're|we've|we'd|he|he's|she|she's|they|they're|it|it's|its|that|that's"
                        r"|this|there|there's|the|my|our|his|her|their|you|you're|[a-z]+'s|forget"
                        r"|thanks|thank\s+you|cheers|ta|mate|love|pet|darling|hun|babe|don't\s+worry|no\s+worries|no\s+rush|no\s+bother|not\s+(?:yet|now|tonight|today)"
                        r"|(?:on|from|with|via|using)\s+(?:the|my|his|her|their|our|a)\s+(?:app|phone|remote|laptop|tablet))\b")

#: a thing and its new state ("the bedroom light off"), and the verbs that make it a statement
_STATE_ORDER = re.compile(r"^(?:[a-z']+\s+){1,4}(?:on|off|out|up|down)\W*$")

#: (a liking said of someone: "the cat likes it on", dev53, tells why, not what to switch)
VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|been|likes|wants|needs|prefers|loves|hates)\b|'(?:s|re|ve|m|d)\b|ed\b")

#: a terse order, a thing and what it is to be, with no verb: "Kitchen light to 50", "Heating to
#: 20", "Timer 6 minutes for the eggs", "Hallway light off" (dev50: blocked beside a question)
_TERSE_ORDER = re.compile(r"^(?:[a-z'-]+\s+){1,3}?(?:(?:to|at)\s+[\w-]+|[\w-]+\s+(?:minutes?|mins?|hours?|hrs?|seconds?|secs?"
                          r"|percent|per\s+cent|degrees?)|on|off|up|down)\b")

#: a piece that says how a thing is ("the lights at 40 are lovely"), not what it is to be
_TELLS_HOW = re.compile(r"\b(?:is|are|was|were|looks?|seems?|feels?|sounds?)\b|'(?:s|re)\b")
_NO_THING = frozenset("""i i'm i've we we're we've you he she they it it's that that's this there there's what who if when
once because since as got have has had use used is are was were be been how how's what's where where's which why up down on off""".split())

#: words that open a line with a comma and call nobody (fillers, the assistant's usual names, the home's
#: places and things)
NOT_A_PERSON = HOME_PLACES | frozenset("""
hey ok okay right yes yeah yep no nope nah please so well alright sorry thanks thank cheers ta um uh er oh ah actually
listen look wait hmm ha haha honestly seriously basically literally what who how when where why which whose great cool lovely perfect brilliant ace fab nice superb awesome amazing and also then now next first last again hi hello morning evening night
assistant computer jarvis alexa google siri nabu vox edgevox mycroft cortana bixby friday
lights light lamp music timer volume heating thermostat weather list shopping
""".split())


def lowered(request: str) -> str:
    return request.lower().replace("’", "'")


def cut_pieces(low: str) -> list[str]:
    """The line cut at its stops, commas and joins, each without its opening words (not at "so":
    "The kitchen light's so bright, I actually quite like it.")."""
    return [p for p in (OPENING.sub("", piece).strip() for piece in
                        re.split(r"[,;.!?]|\band\b|\bbut\b|\bwhen\b|\bbecause\b|\bcos\b", low)) if p]


def asked(low: str) -> bool:
    return bool(_ASKED.search(low))


def no_other_order(pieces: list[str], own: str) -> bool:
    """Is every other piece of the line a statement, not an order, an ask or a thing named
    ("Timer for an hour, the lamb's just gone in.": the timer is ordered)?"""
    return all(p == own or (STATEMENT.match(p) and not ORDERS_PIECE.match(p) and not switched(p)) for p in pieces)


#: a subject before the verb tells ("he comes down", dev55), not orders
_SUBJECT_FIRST = re.compile(r"^(?:he|she|they|we|i|you)(?:'ll|'d|\s+(?:will|might|could|would))?\s+[a-z]+s?\b")


def switched(piece: str) -> bool:
    """A thing and its new state, with no verb ("the bedroom light off"): an order."""
    return bool(_STATE_ORDER.match(piece)) and not VERB.search(piece) and not _SUBJECT_FIRST.match(piece)


def an_order(piece: str) -> bool:
    """Does the piece order something: an order's words, a thing and its new state, or a terse
    order with an amount ("turn the lights off", "the bedroom light off", "kitchen light to 50")?"""
    return bool(ORDERS_PIECE.match(piece)) or switched(piece) or terse_order(piece)


def capitalised(request: str, word: str) -> bool:
    """Is ``word`` written with a capital in ``request`` (a name, not a thing)?"""
    return bool(re.search(rf"\b{re.escape(word[:1].upper() + word[1:])}\b", request))


def a_name(request: str, word: str) -> bool:
    """Is ``word`` a person's name: written with a capital, and no filler, assistant or thing of the home?"""
    return word not in NOT_A_PERSON and capitalised(request, word)


def complains(low: str) -> bool:
    """Does the line say how a room feels, or "too" ("the bedroom is too dark")? A complaint wants something."""
    return bool({"too", *FELT} & set(WORD.findall(low)))


def a_piece_alone(rx: re.Pattern[str], low: str, pieces: list[str]) -> bool:
    """Does a piece match ``rx`` with every other piece a statement, and nothing asked?"""
    return any(rx.match(p) and no_other_order(pieces, p) for p in pieces) and not asked(low)


def opens_alone(rx: re.Pattern[str], low: str, pieces: list[str]) -> bool:
    """Does the line open on a piece matching ``rx``, then say only statements, asking nothing?"""
    return len(pieces) >= 2 and bool(rx.match(pieces[0])) and no_other_order(pieces, pieces[0]) and not asked(low)


def terse_order(low: str) -> bool:
    """A thing and what it is to be, said with no verb (``_TERSE_ORDER``), naming an amount or a
    switch: "Kitchen light to 50" orders; "things to do" does not."""
    m = _TERSE_ORDER.match(low)
    return bool(m) and not _TELLS_HOW.search(low) and not {w for w in m.group(0).split()[:-1] if w in _NO_THING or w.endswith(("'s", "'d", "'ll"))} and (
        bool(said_numbers(m.group(0))) or m.group(0).split()[-1] in ("on", "off", "up", "down")
        or bool(re.search(r"\b(?:max|maximum|full|half|min|minimum)\b", m.group(0))))


#: a thing named with no verb ("just the living room"): after a take-back, the thing meant instead
_DETERMINED = re.compile(r"^(?:the|my|our|his|her|their|this|that|these|those)\b")
_ANY_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|been|will|would|can|could|do|does|did|won't|can't)\b"
                       r"|'(?:s|re|ve|ll|m|d)\b|\w{3}ed\b")


def a_thing_alone(piece: str) -> bool:
    return bool(_DETERMINED.match(piece)) and not _ANY_VERB.search(piece)


def a_thing_said(piece: str) -> bool:
    """A thing named with no verb, as a false start says it ("A timer for the pizza... oh, the
    oven's got its own, don't bother.", dev49)."""
    return bool(re.match(r"(?:a|an|some|the|my|our)\b", piece)) and not _ANY_VERB.search(piece)


#: a piece that asks something: a question's first word ("..., what time is it?")
ASKS_A_QUESTION = re.compile(r"^(?:what|what's|whats|how|how's|when|when's|where|where's|who|who's|which|is|are|will|can|could"
                              r"|would|do|does|did)\b")

#: a name and what its person did or does ("Dad said ...", "Kev reckons ..."); a line's first word is
#: always capitalised, so "Calculate the ..." (BFCL simple_python_46) is no name: no such verb follows
NAME_TELLS = re.compile(r"^[a-z]+\s+(?:[a-z]+ed|[a-z]+s|said|had|has|is|was|will|'ll|might|must|must've|always|never|usually|used|already|just)\b")


#: thanks, a greeting or praise said alone before an order ("Cheers, that's grand, and the hallway
#: light off while you're at it", "Night night, thanks for everything today, and the bedroom light
#: off please", dev50: the model said "You're welcome." and did nothing)
COURTESY = re.compile(r"^(?:(?:thanks|thank\s+you|cheers|ta)(?:\s+(?:so\s+much|a\s+lot|mate|love|pal|darling|for\s+.+))?"
                       r"|(?:good\s+)?(?:morning|afternoon|evening|night)(?:\s+(?:all|everyone|love|mate))?|night\s+night"
                       r"|hi|hiya|hello|hey(?:\s+there)?|(?:that's\s+|that\s+is\s+)?(?:lovely|brilliant|great|perfect|grand"
                       r"|fab|ace|nice|super|spot\s+on|smashing)(?:\s+(?:thanks|cheers))?)$")

#: what may close an order said after courtesy ("... off please", "... while you're at it")
_ORDER_TAIL = re.compile(r"(?:\s+(?:please|too|as\s+well|while\s+you're\s+at\s+it|would\s+you|would\s+ya|will\s+you|thanks))+\W*$")


def after_courtesy(request: str) -> str | None:
    """The order after thanks, a greeting or praise said alone at the line's start, or None. The
    courtesy is dropped so the model reads the order, not a thanks to answer."""
    low = lowered(request)
    if len(low) != len(request):
        return None
    start = 0
    for cut in re.finditer(r"[,;.!?]|\band\b", low):
        piece = OPENING.sub("", low[start:cut.start()]).strip()
        if piece and not COURTESY.match(piece):
            break
        start = cut.end()
    rest = low[start:]
    if not start or not rest.strip():
        return None
    first = OPENING.sub("", re.split(r"[,;.!?]", rest)[0]).strip()
    bare = _ORDER_TAIL.sub("", first)
    if not (ORDERS_PIECE.match(first) or switched(bare) or terse_order(bare)) or COURTESY.match(first):
        return None
    return OPENING.sub("", request[start:]).strip() or None
