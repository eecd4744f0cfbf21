"""Remarks: lines that name a tool's thing and ask for nothing.

A small model reads the thing and the number in a line and acts on them, whatever the line
does with them. The home evaluation's dev30 (session 27) found lines that tell how a thing is or
was ("we ran the heating all winter and the bill was shocking"); dev44 (session 31), written to
sit on the line between asking and not asking, found more, each of which made a call with
Qwen2.5-Coder-0.5B:

* done already: "I already switched the office light off.", "We had the heating on 23 all
  night.", "I put milk on the list yesterday." (milk added again);
* a plan for later, the speaker's or someone else's: "I'll put some jazz on after dinner.",
  "My husband's going to turn the heating down when he gets home.";
* said to someone else in the room: "Tom, can you switch the hallway light off on your way?",
  "Kids, turn that music down!";
* liked as it is: "I love this Stevie Wonder track, it was our first dance.";
* left alone: "Leave the heating where it is.", "Don't touch the bedroom light, she's asleep."
  (``held_back`` judges these since session 34, with orders told not to, under a condition or for later);
* the weather that was: "What was the weather like in Barcelona last week?" (the weather tool
  tells today's and the forecast).

dev60 and dev61 (session 36), the home as people talk in it through a day, found more said to
someone else ("Dad, can you put the dining room light on for me?", "Jen, did you put the heating
on?", "Can you grab milk on your way home, love, ..."), a wish ("If only the hallway light came on
by itself ...") and a saying passed on ("..., that's what my mother always said.").

dev47 (session 32), people who change their mind while they speak, found one more: a line
taken back in the same breath ("Kitchen light off -- wait, no, I'm still washing up."), read in
``changed_mind``; a line that only tells (a story, a habit) is ``telling``'s.

English marks each of these plainly (a past verb after its subject, "'ll" or "going to" with a
time to come, a name and a comma before an order, "I love this", "leave ... where it is",
"last week"), and every such line must hold no piece that orders or asks the assistant. These
are rules over words, not meaning: ``relevance`` has the line answered in words, and
``grounding`` blocks a call of a tool that changes things on it ("Okay.").
"""

from __future__ import annotations

import re

from edgevox.agents.slm.changed_mind import TRAILS_OFF, takes_it_back, undecided
from edgevox.agents.slm.facts import states_a_fact
from edgevox.agents.slm.held_back import held_pieces
from edgevox.agents.slm.passed_on import passed_on
from edgevox.agents.slm.statements import (
    ASKS_A_QUESTION,
    NAME_TELLS,
    NOT_A_PERSON,
    OPENING,
    ORDERS_PIECE,
    STATEMENT,
    a_name,
    a_piece_alone,
    a_thing_said,
    an_order,
    asked,
    capitalised,
    complains,
    cut_pieces,
    lowered,
    no_other_order,
    opens_alone,
)
from edgevox.agents.slm.vocabulary import IMPERATIVES

#: food gone, wanted on the list again ("we just ran out of toilet paper", "the last of the ketchup")
_GONE = re.compile(r"\b(?:ran|run|running)\s+out\b|\bout\s+of\b|\bthe\s+last\s+of\b|\bagain\b")

#: who a report or a plan is about
_PEOPLE = (r"(?:i|we|he|she|they|someone|somebody|(?:my|our|the)\s+(?:husband|wife|partner|son|daughter|mum|mom|dad"
           r"|brother|sister|flatmate|roommate|housemate|kids|boyfriend|girlfriend|neighbour|neighbor|nan|gran|grandma|grandad))")

#: past verbs that cannot be orders: "switched", "had", "went off"
#: (not "bought", "finished", "used": "I already bought the eggs" takes them off the list, "We've
#: finished the olive oil" puts it on; not "left": "Someone left the light on again" wants it off;
#: not "got": "I've got a call in five" has it now)
_PAST = ("switched turned flicked had ran kept added started cancelled canceled stopped paused played dimmed "
         "took changed sorted did went came rang tried forgot fixed replaced opened closed locked "
         "done gone taken brought moved")

#: past verbs spelt as their present: "I put milk on the list yesterday" needs its "yesterday"
_PAST_AS_PRESENT = "put set cut shut let"
_DONE = re.compile(rf"^(?P<who>{_PEOPLE}|(?:the|that|this|my|our)\s+(?:[a-z']+\s+){{0,2}}?[a-z']+|[a-z]+)(?:'ve|\s+have|'d|\s+had|'s|\s+has)?\s+"
                   rf"(?:(?:already|just|literally|actually|only|also)\s+)*(?P<verb>{'|'.join((_PAST + ' ' + _PAST_AS_PRESENT).split())})\b")

#: done already, said with no subject: "Already sorted the heating" (not "just": "Just put it on the list")
_DONE_ALREADY = re.compile(rf"^already\s+(?:{'|'.join(_PAST.split())})\b")
#: when a thing was done
_BEFORE_NOW = re.compile(r"\b(?:already|just|earlier|ago|yesterday|before|last\s+(?:night|week|weekend|time)"
                         r"|this\s+morning|all\s+(?:night|day|weekend|week|winter|evening)|(?:him|her|them|my|our)sel(?:f|ves)"
                         r"|on\s+(?:his|her|their|my)\s+own)\b")

#: a plan: who will do it, then the verb
_WHO = rf"^(?P<who>{_PEOPLE}|[a-z]+)"
_PLAN = re.compile(rf"{_WHO}(?:'ll|\s+will|'s\s+going\s+to|\s+is\s+going\s+to|'re\s+going\s+to|\s+are\s+going\s+to"
                   r"|'m\s+going\s+to|\s+am\s+going\s+to|'s\s+gonna|'m\s+gonna|'re\s+gonna|\s+gonna)\s+(?:probably\s+|just\s+)?"
                   rf"(?:{'|'.join(sorted(IMPERATIVES | {'sort', 'do', 'deal', 'fix', 'change', 'grab', 'buy', 'throw'}))})\b")

#: a plan told by another ("Jamie said he'd switch the office light off before he leaves.", dev53)
_TOLD_PLAN = re.compile(rf"{_WHO}\s+(?:said|says|promised|reckons|told\s+me)\s+(?:he|she|they|we|i)(?:'d|'ll|\s+would|\s+will"
                        rf"|'s\s+going\s+to|'re\s+going\s+to)\s+(?:probably\s+|just\s+)?(?:{'|'.join(sorted(IMPERATIVES))})\b")

#: someone doing it now ("My daughter's adding the strawberries to the list from her phone.", dev53)
_DOING_IT = re.compile(rf"{_WHO}(?:'s|\s+is|'re|\s+are|'m|\s+am)\s+(?:just\s+|already\s+|busy\s+)?(?:adding|switching|turning"
                       r"|putting|setting|sorting|cancelling|canceling|taking|removing|changing|starting|stopping|pausing|dimming)\b")

#: when a plan will be done
_LATER = re.compile(r"\b(?:later|after|when|once|tomorrow|tonight|in\s+a\s+(?:bit|minute|while|sec)"
                    r"|this\s+(?:evening|afternoon|weekend)|at\s+the\s+weekend|before\s+(?:bed|dinner|lunch|tea|we))\b")

#: a person called by name or as a group, then what they are asked ("Kids, turn that music down!");
#: not "love" or "sweetheart": a speaker may call the assistant so ("Sweetheart, would you turn the
#: music down ...?", dev28)
_GROUPS = "kids guys boys girls children everyone everybody".split()
#: the family, called by what they are to the speaker ("Dad, can you put the dining room light on for
#: me?", dev61): whatever follows is said to them
_FAMILY = frozenset("mum mam mom mummy mommy dad daddy nan nana nanna gran granny grandma grandad grandpa".split())
#: (a filler may come first, with its own comma: "Look, Isla, it's your song!", "Right, kids, ...", dev61)
_CALLED = re.compile(r"^\W*(?:(?:hey|right)\s+|(?P<oi>oi)\W+|(?:look|right|no|nah|now|okay|ok|come\s+on)\s*,\s*)?(?P<who>you\s+lot|(?:mr|mrs|ms|miss|dr|auntie|uncle)\.?\s+[a-z]+|[a-z]+)"
                     r"\s*(?:,|[\u2014\u2013]|-{1,2}(?=\s))\s*(?P<rest>.+)")  # "Raj — put ... on from your phone" (dev56)

#: what is asked of a person called by name is their own doing: "can you ..., on your way?", "put
#: the Beyonce album on when you've got a sec" (dev46)
_OF_A_PERSON = re.compile(r"\b(?:your|yourself|you've|you're|(?:when|once|before|if)\s+you|(?:did|have)\s+you|would\s+you\s+ever)\b")
#: an errand on the way somewhere: a person's, whoever is called ("Can you grab milk on your way home,
#: love, we're completely out.", dev61)
_ON_THEIR_WAY = re.compile(r"\bon\s+your\s+way\s+(?:home|back|in|out|past|up|down|over|round)\b|\bwhen\s+you(?:'re|\s+are)?\s+"
                           r"(?:get|come|go|going|coming|getting)\s+(?:home|back|in|up|down|out)\b")

#: a statement's words for the person it is said to
_TO_THEM = re.compile(r"\b(?:for\s+you|your|you're|you've|in\s+you\s+(?:come|go))\b")
#: a second word the speaker calls someone by ("Jess, love, ...")
_ENDEARMENT = re.compile(r"^(?:love|dear|darling|mate|pet|hun|babe|sweetie|sweetheart|pal)\W+")

#: an offer made to a person called by name: their wish is asked, not the assistant told
#: ("Grandad, do you want the heating up a bit?", "Mrs Patel, would you like it a bit warmer?", dev56)
_OFFERED_TO = re.compile(r"^(?:do|did)\s+you\s+(?:want|fancy|need)\b|^would\s+you\s+(?:like|prefer)\b|^(?:shall|should)\s+i\b")

#: thanks, for something or not
_THANKS = re.compile(r"^(?:thanks|thank\s+you|cheers|ta)(?:\s+(?:so\s+much|a\s+lot|mate|love|for\s+.+))?$")

#: liked as it is ("I love this Stevie Wonder track", "I actually quite like it")
_LIKED = re.compile(r"^i\s+(?:(?:really|just|absolutely|actually|quite|do|so|totally)\s+)*(?:love|like|adore|enjoy)\s+"
                    r"(?:it|that|this|them|(?:this|that|the)\s+(?:[a-z']+\s+){0,3}?(?:song|track|tune|one|album|playlist|band|record))\W*$")

#: the weather that was: the weather tool tells now and the forecast
_WEATHER_WORDS = re.compile(r"\b(?:weather|temperature|rain|rained|raining|snow|snowed|sunny|hot|cold|warm|windy)\b")
_WAS = re.compile(r"\b(?:was|were|been|did|had|rained|snowed|poured|hailed|stormed)\b")  # "Last week it rained every single day" (dev63)
_PAST_TIME = re.compile(r"\b(?:yesterday|last\s+(?:night|week|weekend|month|year|summer|winter|spring|autumn|fall)"
                        r"|ever\s+recorded|on\s+record|the\s+other\s+day|while\s+we\s+were\s+away|been\s+like)\b")
_RECORDED = re.compile(r"\b(?:ever\s+recorded|on\s+record)\b")
_NOW_OR_LATER = re.compile(r"\b(?:today|tomorrow|tonight|now|later|forecast|this\s+(?:afternoon|evening))\b")


def _done(request: str, low: str, pieces: list[str]) -> bool:
    """A piece tells what was done already ("I already switched the office light off.")."""
    for piece in pieces:
        if _DONE_ALREADY.match(piece) and no_other_order(pieces, piece) and not asked(low) and not complains(low):
            return True  # "Already sorted the heating, love, it's on twenty-one now." (dev60): "I" left out
        m = _DONE.match(piece)
        if not m:
            continue
        person = re.fullmatch(_PEOPLE, m["who"]) is not None
        thing = " " in m["who"]
        if not person and not thing and not a_name(request, m["who"]):
            continue  # "Heating set to 20." orders; a thing said as the subject is no report
        if (m["verb"] in _PAST_AS_PRESENT.split() or not person) and not _BEFORE_NOW.search(low):
            continue  # "I put ..." and "Sam's switched ..." need their "yesterday", "just"
        if no_other_order(pieces, piece) and not asked(low) and not _GONE.search(low) and not complains(low):
            return True
    return False


def _planned(request: str, low: str, pieces: list[str]) -> bool:
    """A piece tells what someone will do later ("I'll put some jazz on after dinner.")."""
    for piece in pieces:
        m = _PLAN.match(piece)
        if not m or not _LATER.search(low):
            continue
        if re.fullmatch(_PEOPLE, m["who"]) is None and not a_name(request, m["who"]):
            continue
        if no_other_order(pieces, piece) and not asked(low):
            return True
    return False


def _someone_does_it(request: str, low: str, pieces: list[str]) -> bool:
    """A piece tells what someone else will do or is doing now ("Jamie said he'd ...", "My
    daughter's adding ... from her phone")."""
    for piece in pieces:
        m = _TOLD_PLAN.match(piece) or _DOING_IT.match(piece)
        if m and (re.fullmatch(_PEOPLE, m["who"]) is not None or a_name(request, m["who"])) \
                and no_other_order(pieces, piece) and not asked(low):
            return True
    return False


def said_to_someone_else(request: str) -> bool:
    """Does the line call people as a group or the family, then say anything to them ("Kids, turn
    that music down!", "Dad, can you ...?"), or a person by name, then ask them of their own doing
    ("Tom, can you switch the hallway light off on your way?", "Jen, did you ...?") or speak of
    them ("Milo, it's too cold for you out there")? Or ask an errand on the way home (an errand
    is a person's, whoever is called)? A name is a capitalised word that is no filler, no usual
    name of an assistant and no thing of the home; every line opens on a capital, so what follows
    must be the person's own ("Previous, please." calls nobody)."""
    low = lowered(request)
    if _ON_THEIR_WAY.search(low):
        return True
    m = _CALLED.match(low)
    if not m or m["who"] in NOT_A_PERSON:
        return False
    rest = OPENING.sub("", m["rest"])
    if m["who"] in _GROUPS or m["who"] in _FAMILY:
        return bool(rest.strip(" .!?"))
    if m["who"].startswith("you"):
        return bool(ORDERS_PIECE.match(rest) or asked(rest))
    if not capitalised(request, m["who"].split()[-1]):
        return False
    rest = OPENING.sub("", _ENDEARMENT.sub("", rest))  # "Jess, love, add hummus to your list ..." (dev56)
    if _OFFERED_TO.match(rest):
        return True
    if m["oi"]:  # "Oi, Marcus, turn that music down" (dev56): "oi" calls a person
        return bool(ORDERS_PIECE.match(rest) or asked(rest))
    # their own doing, asked or ordered in any words ("Danny, just hit the hallway switch on your
    # way past.", "Sophie, what's the time on your watch?", dev56), or said of them ("Declan, you're in
    # charge of the music tonight", dev61), but not a statement about other things
    if _OF_A_PERSON.search(rest) and (rest.startswith("you") or not STATEMENT.match(rest) or ORDERS_PIECE.match(rest) is not None
                                      or ASKS_A_QUESTION.match(rest) is not None):
        return True
    # a statement to them that speaks of them ("Milo, it's too cold for you out there, in you come.",
    # "Look, Isla, it's your song! Dance, dance!", dev61: the model played "Milo" and "Isla")
    return bool(STATEMENT.match(rest) and _TO_THEM.search(rest) and not asked(rest))


#: a word of praise said before the thanks ("Brilliant, thanks, it's warmer already.", dev49)
_PRAISE_FIRST = frozenset("brilliant great perfect lovely awesome amazing fab fantastic ace nice superb wonderful".split())


def _thanked(low: str, pieces: list[str]) -> bool:
    """Thanks, then only statements ("Cheers for the timer, the banana bread came out perfect.")."""
    while len(pieces) > 2 and pieces[0] in _PRAISE_FIRST:
        pieces = pieces[1:]
    return opens_alone(_THANKS, low, pieces) and not complains(low)


#: a question about what the assistant can do at all ("Can you play stuff from Spotify, or is it just
#: the radio?", "Can you do timers in seconds as well, or just minutes?", dev56)
_ABILITY = re.compile(r"^\W*(?:can|could|do)\s+you\s+[^?,]*,\s+or\s+(?:just|only|is\s+it|are\s+(?:you|they)|do\s+you)\b[^?]*\?\s*$"
                      r"|^\W*(?:can|do)\s+you\s+(?:do|handle|understand|support)\s+(?:[a-z]+\s+){0,2}[a-z]+s\b[^?]*\?\s*$")

#: a wish, not a request ("If only the hallway light came on by itself ...", "I wish we had one of
#: those fancy thermostats ...", "I'd turn it right up if Freya wasn't asleep.", dev60, dev61); not a
#: wish of what the assistant would do ("I wish you'd turn it down", "I wish to see the comments", BFCL)
_WISH = re.compile(r"^\W*(?:if\s+only|i\s+(?:do\s+|really\s+|just\s+)?wish)\b(?!\s+(?:you|to|for)\b)"
                   r"|\bif\s+it\s+(?:were|was)\s+up\s+to\s+me\b|\bif\s+i\s+had\s+my\s+way\b|\bi\s+(?:nearly|almost)\s+asked\b"
                   r"|\bi'd\s+[a-z' ]+\bif\s+[a-z']+\s+(?:wasn't|weren't|didn't|hadn't|wouldn't)\b")
#: a saying passed on, not an order ("Ten minutes for hard-boiled, six for runny, that's what my mother
#: always said.", dev61)
_A_SAYING = re.compile(r"[,.;\u2014-]\s*(?:that's|that\s+is)\s+what\s+(?:my\s+|our\s+|the\s+)?[a-z]+\s+(?:always\s+|used\s+to\s+)?"
                       r"(?:said|says|say|told\s+(?:me|us))\W*$")
#: the hours of a place or a thing, not the time now ("What time does the chippy shut on a Sunday?", dev56)
_HOURS_OF = re.compile(r"\bwhat\s+time\s+(?:does|do|is|are|will)\s+(?:the\s+)?[a-z' ]+?\s+(?:open|opens|close|closes|shut|shuts|start|starts"
                       r"|finish|finishes|end|ends|leave|leaves|arrive|arrives|get\s+in|kick\s+off)\b")


def asks_of_the_past(request: str) -> bool:
    """Does the line ask about the weather that was ("What was the weather like in Barcelona
    last week?")? No tool tells it."""
    low = lowered(request)
    return bool(_WEATHER_WORDS.search(low) and (_WAS.search(low) or _RECORDED.search(low)) and _PAST_TIME.search(low)
                and not _NOW_OR_LATER.search(low))


_WHY = re.compile(r"^(?:whatever|because|cos|since|as|so|though|although|even|nobody|no\s+one|everyone|before|until|till)\b")


def _a_name_alone(request: str, piece: str) -> bool:
    """Is the piece one word, a person's name ("Tom" of "..., Tom, don't put that on the list.")?"""
    word = piece.strip(" .,!?")
    return " " not in word and a_name(request, word)


def _held_back(request: str) -> str | None:
    """Why the line asks nothing now (see ``held_back``): a piece holds an order back, and no
    other piece orders, asks or names a thing to switch ("Don't add mince to the list, there's
    two packs in the freezer.")."""
    pieces = held_pieces(request)
    if any(why and p.startswith("not ") for p, why in pieces):
        return None  # a contrast names what is wanted ("Not this one, um, the next song.", dev47) or complains
    held = [why for _, why in pieces if why]
    # (a name said alone between commas calls its person: "We've still got loads of rice, Tom, don't
    # put that on the list.", dev61)
    plain = [re.sub(r"\bjust\s+", "", p) for p, why in pieces if not why and not _a_name_alone(request, p)]
    # every other piece tells (a reason: "there's two packs in the freezer") and orders nothing;
    # a piece of another kind may be an order in words no list here holds ("Close the project
    # ..., but don't send out any notifications", BFCL live_multiple_95)
    if not held or not all((STATEMENT.match(p) or _WHY.match(p) or a_thing_said(p) or (a_name(request, p.split()[0]) and NAME_TELLS.match(p)))
                           and not (an_order(p) or asked(p)) for p in plain):
        return None
    return held[0]


def asks_nothing(request: str) -> str | None:
    """Why the line asks for nothing although it names a tool's thing (see the module), or None."""
    low = lowered(request)
    pieces = cut_pieces(low)
    if said_to_someone_else(request):
        return "said to someone else"
    if why := _held_back(request):
        return why
    checks = (("done already", lambda: _done(request, low, pieces)), ("planned for later", lambda: _planned(request, low, pieces)),
              ("someone else does it", lambda: _someone_does_it(request, low, pieces)),
              ("liked as it is", lambda: a_piece_alone(_LIKED, low, pieces)), ("thanks", lambda: _thanked(low, pieces)))
    for why, found in checks:  # in turn, stopping at the first that holds
        if found():
            return why
    if takes_it_back(request):
        return "taken back"
    if TRAILS_OFF.search(low):
        return "trails off"
    if undecided(low):
        return "undecided"
    if _ABILITY.search(low):
        return "asks what I can do"
    if _HOURS_OF.search(low):
        return "another's hours"
    orders = any(an_order(p) for p in pieces[1:])
    if _A_SAYING.search(low) and not orders and not (pieces and ORDERS_PIECE.match(pieces[0])):
        return "a saying"  # (not after an order: "Give me a timer for a minute and forty-five, that's what the noodles say.")
    if _WISH.search(low) and not orders:
        return "a wish"
    if asks_of_the_past(request):
        return "the weather that was"
    # "My mate in Sydney says it's twelve degrees there ...", "No music after ten, ..." (dev63)
    return passed_on(request) or states_a_fact(request)
