"""Changed minds: lines taken back, broken off or left undecided in the same breath.

The home evaluation's dev47 (session 32), people who change their mind while they speak, found
lines taken back whole acted on by Qwen2.5-Coder-0.5B ("Kitchen light off -- wait, no, I'm still
washing up."). After the take-back comes what the speaker finally wants: nothing, when only a
keep ("leave it running"), a reason, a remark or a question to oneself follows
(``takes_it_back``, read that way round since dev58, session 35); a whole new request, which
``transcript`` then hands the model alone (``restarted``); or a thing alone ("-- no,
mozzarella"), which ``taken_back`` puts in the call. A line may also open on "never mind" and
only say why (``minds_nothing``), break off before its thing ("I need a timer for the...",
``TRAILS_OFF``) or end undecided ("Maybe some music? I dunno...", ``undecided``): none asks
for anything yet.
"""

from __future__ import annotations

import re

from edgevox.agents.slm.statements import (
    COURTESY,
    NAME_TELLS,
    ORDERS_PIECE,
    STATEMENT,
    a_name,
    a_thing_alone,
    an_order,
    asked,
    complains,
    cut_pieces,
    lowered,
    opens_alone,
    switched,
)
from edgevox.agents.slm.taken_back import BREAK

#: a line that trails off before its thing ("Hmm, I need a timer for the...", dev46): nothing to do yet
TRAILS_OFF = re.compile(r"\b(?:the|a|an|for|to|of|my|some|on|in|at|with)\s*(?:\.\.\.|…|-{2,}|[\u2014\u2013])"
                         r"(?:\W*(?:um|uh|er|erm|hmm|ah))*\W*$")  # "Volume to... er... hmm." (dev58)

#: the speaker has not decided, or has forgotten what they wanted ("Maybe some music? I dunno... let me
#: think about it.", "Should I add biscuits? ... I'll decide at the shop.", dev58)
_UNDECIDED = re.compile(r"\b(?:i\s+(?:dunno|don't\s+know|can't\s+decide|haven't\s+decided|can't\s+remember)|i'll\s+(?:decide|think|see)"
                        r"|i'll\s+sort\s+it\s+(?:out\s+)?myself|let\s+me\s+think|give\s+me\s+a\s+(?:minute|sec|second|moment)"
                        r"|not\s+sure\s+yet|we'll\s+see|(?:i've|i\s+have)\s+(?:\w+\s+)?forgotten)\b")

#: a hedge before the indecision: the line weighed something, it did not order it
_HEDGED = re.compile(r"\?|\b(?:maybe|perhaps|either|or|should\s+(?:i|we)|shall\s+(?:i|we)|what\s+was\s+it|no|nah|actually)\b")

#: "never mind" and the like, opening a line
_NEVER_MIND = re.compile(r"^(?:forget\s+(?:it|that|about\s+it)|never\s*mind|nevermind|leave\s+it|skip\s+it"
                         r"|(?:scratch|scrap)\s+(?:that|all\s+of\s+it|the\s+lot))(?:\s+then)?$")

#: words that take back what was said ("no", "hang on", "never mind"), and the same after a break in
#: speech with something said before it ("Kitchen light off -- wait, no, I'm still washing up.",
#: dev47); an "oh" or "hmm" may come first
_BACK = (r"(?:no|nah|nope|wait|hang\s+on|hold\s+on|actually|on\s+second\s+thought|scratch\s+that|scrap\s+that|forget\s+it"
         r"|never\s*mind|doesn't\s+matter|leave\s+it\s+(?:as\s+it\s+is|alone|be))\b")
_BACK_ALONE = re.compile(rf"^{_BACK}")

#: the sounds a speaker makes before what they say next ("-- oh, no", "-- er, forget it")
_SOUND = r"(?:oh|ah|hmm|eh|er|um|uh|ugh|ooh)"
#: a break in speech after something said, and the sounds that may come before a take-back
_AFTER_A_BREAK = rf"(?<=\w)(?:[.?!;]|{BREAK})\s*(?:{_SOUND}\W+)*"
_TAKEN_BACK = re.compile(rf"{_AFTER_A_BREAK}{_BACK}")

#: a piece that keeps things as they are, after a take-back ("keep them", "leave it running", "don't")
_KEPT = re.compile(r"^(?:don't|do\s+not|dont)(?:\s+bother)?$|^(?:leave|keep)\s+(?:it|them|that|this)\b(?:\s+one)?(?:\s+(?:running|on|off|going|playing|be|alone|as\s+it\s+is|where\s+it\s+is"
                   r"|the\s+way\s+it\s+is|like\s+that))?$"
                   r"|^(?:scratch|scrap|forget)\s+(?:that|it|all\s+of\s+it|the\s+lot)$|^never\s*mind$|^(?:it\s+)?doesn't\s+matter$"
                   r"|^(?:it's|that's)\s+(?:fine|ok|okay|alright|all\s+right)(?:\s+as\s+it\s+is)?$|^no\s+need$"
                   r"|^(?:carry|go)\s+on$|^keep\s+(?:going|playing)$")  # "Stop the music -- ah, no, it's fine, carry on." (dev49)

#: an undo of the turn before ("cancel that", "stop"), not something this line said
_UNDONE = re.compile(r"^(?:stop|cancel|undo|reverse)(?:\s+(?:that|it|this))?$")

#: a wish or a correction after a take-back: what follows is asked ("actually, I fancy some Beatles")
_WISHED = re.compile(r"\b(?:i\s+mean|i\s+meant|i\s+said|fancy|rather|prefer|in\s+the\s+mood|feel\s+like|make\s+it|make\s+that"
                     r"|go\s+with|do\s+with|could\s+use|instead\s+of"
                     r"|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty|fifty|sixty"
                     r"|seventy|eighty|ninety|hundred|half|quarter|dozen)\b|\d")

#: more ways a speaker takes back what they just said, after a break ("-- kidding, kidding",
#: "-- oh, it's fine", "-- ignore me", dev58)
_BACK_TOO = (r"(?:(?:just\s+|only\s+)?(?:kidding|joking)|(?:but\s+)?(?:honestly\s*,?\s*)?i\s+don't\s+mind(?:\s+it)?(?=\W*$)|ignore\s+(?:me|that)|cancel\s+that|don't\s+worry|it\s+doesn't\s+matter"
             r"|(?:it's|they're|that's)\s+fine|who\s+cares)")  # "Weather for Brisbane -- ah, who cares, ..." (dev60)
_TAKEN_BACK_TOO = re.compile(rf"{_AFTER_A_BREAK}{_BACK_TOO}\b")
_TAKEN_BACK_ALONE = re.compile(rf"^{_BACK_TOO}$")

#: a question the speaker asks of themselves or of others, not of the assistant ("what am I doing",
#: "are we doing the barbie Sunday or not?", "will anyone eat them?", dev58)
_ASKS_ONESELF = re.compile(r"^(?:(?:what|why|how|where|when|who)\s+)?(?:am|was|were|do|did|have|had|should|shall|will|would|are|is)\s+"
                           r"(?:i|we|anyone|anybody|they|he|she)\b")
_SOUNDS = re.compile(rf"^(?:(?:{_SOUND}|but|honestly)\W+)*")  # "-- but honestly, I don't mind it" (dev61)

#: not now, said after a take-back ("-- actually, no, not tonight, I've got a banging headache.", dev58)
_NOT_NOW = re.compile(r"^(?:not\s+(?:tonight|now|today|yet|right\s+now|just\s+now|at\s+the\s+moment)|(?:maybe\s+)?later"
                      r"|another\s+time|nothing|sh+|shush)$")  # "... Papa is sleeping. Later.", "Shh. Nothing." (dev58)

#: a line that ends, after a break, by leaving the thing as it is ("Put the heating up a bit... well,
#: not up, just leave it where it is.", dev60): what was said before is taken back
_LEFT_AT_THE_END = re.compile(rf"(?<=\w){BREAK}.*\b(?:leave|keep)\s+(?:it|them|that)\s+(?:where|as|the\s+way|like)\s+(?:it|they)\s+(?:is|are)\W*$")
#: the speaker will wait, said first after a take-back
_WAITS = re.compile(r"^(?:i'll|i\s+will|we'll|we\s+will|let's|i'd\s+better)\s+(?:just\s+)?wait\b")
#: what a speaker says to gain time, not an order ("give me a minute", "let me think")
_GAINS_TIME = re.compile(r"^(?:give\s+me\s+a\s+(?:minute|sec|second|moment)|let\s+me\b|hang\s+on|hold\s+on)")


def takes_it_back(request: str) -> bool:
    """Does the line break off, take back what it said ("-- no", "... actually", "-- kidding",
    "-- oh, it's fine") and then ask nothing again? What follows the last take-back asks again
    only when it orders, asks the assistant, names a thing or a number, or wishes ("-- no, the
    garage one", "-- actually, make it 21", "-- no wait, what time is it?"): a correction, and the
    line asks for that. A reason, a remark or a question to oneself does not ("Turn all the lights
    on -- nah, the sun's still up, what am I doing.", dev58); those were read the other way round
    until session 35, when a fresh batch in dev47's style found most take-backs acted on."""
    low = lowered(request)
    if _LEFT_AT_THE_END.search(low):
        return True
    backs = [*_TAKEN_BACK.finditer(low), *_TAKEN_BACK_TOO.finditer(low)]
    back = max(backs, key=lambda m: m.start()) if backs else None  # the last take-back: the speaker's final word
    if back is None or not [p for p in cut_pieces(low[:back.start()]) if not _KEPT.match(p) and not _BACK_ALONE.match(p)
                            and not _UNDONE.match(p)]:
        return False  # "No, forget it.", "No, cancel that, forget it." take back the turn before: the caller's to read
    rest = _SOUNDS.sub("", low[back.start():].lstrip(",.?!;-\u2014\u2013\u2026 "))
    # "-- oh, wait, I swore I was giving it up. No coffee." (dev58): no more of what was said before
    if (no := re.search(r"(?:^|[.,;!]\s*)no\s+([a-z]+(?:\s+[a-z]+)?)\W*$", rest)) and re.search(rf"\b{no[1]}\b", low[:back.start()]):
        rest = rest[:no.start()]
        if not cut_pieces(rest):
            return True  # the refusal was the take-back itself
    said = cut_pieces(rest)
    if said and _WAITS.match(said[0]):
        return True  # "-- oh, hang on, I'll wait till the water's boiling." (dev60): not now, whatever the reason
    if not said or asked(rest) or _WISHED.search(rest) or complains(rest):
        return False
    return not any(_asks_again(request, p) for p in said)


def _asks_again(request: str, piece: str) -> bool:
    """Does a piece said after a take-back ask again: anything but a statement, a "don't ...", a
    question to oneself, words that gain time, a take-back said again, or a person's doing?"""
    if piece.startswith(("don't", "do not", "dont")) or _GAINS_TIME.match(piece) or _ASKS_ONESELF.match(piece) \
            or _TAKEN_BACK_ALONE.match(piece) or _KEPT.match(piece) or _BACK_ALONE.match(piece) or _NOT_NOW.match(piece) \
            or COURTESY.match(piece) or piece in ("sorry", "my bad", "oops"):
        return False
    if ORDERS_PIECE.match(piece) or switched(piece) or a_thing_alone(piece):
        return True
    # a person's doing ("Gran already bought a sack of it"), not a name said instead ("-- er, no, Coldplay.")
    return not (STATEMENT.match(piece) or (a_name(request, piece.split()[0]) and NAME_TELLS.match(piece)))


#: a take-back that a correction may follow: "-- no, I mean the time, what time is it?" (not "sorry"
#: alone: "..., sorry, can you also ..." is a courtesy)
_CORRECTING = re.compile(rf"{_AFTER_A_BREAK}(?:{_BACK}|i\s+mean|oops)(?:\W+(?:{_BACK}|sorry|i\s+mean|oops))*\W+")

#: a word of an order that points back at what was taken back ("no, make it 50"): the line is read whole
_POINTS_BACK = re.compile(r"\b(?:it|them|that|this|those|these|one|same)\b")
_ONE_OF_A_ROW = re.compile(r"\bthe\s+(?:previous|next|last|other)\s+one\b")

#: a player's move said as an order ("-- oh, no, go back, the previous one", dev49)
_PLAYER_MOVE = re.compile(r"^(?:go\s+back|skip|rewind)\b")

#: a part added, not a request restarted ("Play jazz, oh wait, also add milk")
_ADDED = re.compile(r"^\W*(?:and|plus)\b|\b(?:also|too|as\s+well|and\s+then)\b")
_ASKS_WHAT = re.compile(r"\b(?:what|what's|whats|how|when|where|which|who)\b[^?]*\?")


def restarted(request: str) -> str | None:
    """The words after the line's last take-back, when they make a request of their own: an order
    that points back at nothing, or a question ("Office light off -- no, the garage, the garage light
    off." -> "the garage, the garage light off.", "What's the weather -- no, I mean the time, what time
    is it?" -> "the time, what time is it?", dev47). The model read the taken-back half as well and
    acted on it; a thing alone ("-- no, mozzarella") is ``taken_back``'s to put in the call."""
    low = lowered(request)
    backs = list(_CORRECTING.finditer(low))
    if not backs or len(low) != len(request) or not cut_pieces(low[:backs[-1].start()]):
        return None
    rest = low[backs[-1].end():]
    orders = [p for p in cut_pieces(rest) if ORDERS_PIECE.match(p) or switched(p) or _PLAYER_MOVE.match(p)]
    if len(rest.split()) < 2 or _ADDED.search(rest) or not (orders or _ASKS_WHAT.search(rest)):
        return None
    if any(_POINTS_BACK.search(_ONE_OF_A_ROW.sub("", p)) for p in orders) or takes_it_back(request):
        return None  # (a line taken back whole, "-- no, it's fine, carry on", restarts nothing)
    return request[backs[-1].end():].strip()


def minds_nothing(request: str) -> bool:
    """Does the line open with "never mind" and then only say why ("Oh, forget it, the rice
    cooker beeps on its own.", dev46: a timer cancelled, the weather read), or say it twice
    over? Not right after an action, where it may take the action back (the caller's to know)."""
    low = lowered(request)
    pieces = cut_pieces(low)
    # (or said twice over: "Scratch that, um, scratch all of it.", dev47)
    return opens_alone(_NEVER_MIND, low, pieces) or (len(pieces) >= 2 and all(_NEVER_MIND.match(p) for p in pieces))


def undecided(low: str) -> bool:
    """Does the line end undecided ("I dunno", "I'll decide at the shop", "I've completely
    forgotten") after only weighing something (a question, "maybe", "or"), with no order after?"""
    m = _UNDECIDED.search(low)
    if m is None or not (_HEDGED.search(low[:m.start()]) or not low[:m.start()].strip(" ,.!?-")):
        return False
    after = [p for p in cut_pieces(low[m.end():]) if not _GAINS_TIME.match(p)]
    return not any(an_order(p) or a_thing_alone(p) for p in after)
