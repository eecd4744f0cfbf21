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

dev47 (session 32), people who change their mind while they speak, found one more: a line
taken back in the same breath ("Kitchen light off -- wait, no, I'm still washing up."). After
the take-back comes what the speaker finally wants: nothing, when only a keep ("leave it
running") or a reason follows (``takes_it_back``); a whole new request, which
``transcript`` then hands the model alone (``restarted``); or a thing alone ("-- no,
mozzarella"), which ``taken_back`` puts in the call.

English marks each of these plainly (a past verb after its subject, "'ll" or "going to" with a
time to come, a name and a comma before an order, "I love this", "leave ... where it is",
"last week"), and every such line must hold no piece that orders or asks the assistant. These
are rules over words, not meaning: ``relevance`` has the line answered in words, and
``grounding`` blocks a call of a tool that changes things on it ("Okay.").
"""

from __future__ import annotations

import re
from functools import lru_cache

from edgevox.agents.slm.amounts import said_numbers
from edgevox.agents.slm.held_back import held_pieces
from edgevox.agents.slm.taken_back import BREAK
from edgevox.agents.slm.vocabulary import FELT, HOME_PLACES, IMPERATIVES, WORD

#: a piece of a line that orders or asks for something
ORDERS_PIECE = re.compile(rf"^\W*(?:please\s+)?(?:{'|'.join(sorted(IMPERATIVES))}|"
                          r"tell|let's|let\s+me|can|could|would|will|i\s+need|i\s+want|"
                          r"(?:i|we|he|she|they)'d\s+(?:like|love)|i\s+would|i'll\s+(?:want|need)|we\s+(?:need|want))\b")

#: words that may open a piece before what it says ("Oh, and just turn ...")
_OPENING = re.compile(r"^\W*(?:(?:oh|ah|and|also|so|like|um|uh|er|plus|then|right|ok|okay|actually|just|now|but|instead"
                      r"|yeah|well|no|nah|wait|hmm|hang\s+on)(?:\W+|$))*")
#: a request to the assistant anywhere in a line ("..., can you ...", "please")
_ASKED = re.compile(r"\b(?:can|could|would|will)\s+(?:you|we|ya)\b|\bplease\b|\bany\s+chance\b|\bhow\s+about\b"
                    r"|\bi'd\s+(?:like|love)\b|\bi\s+(?:want|need)\b|\blet's\b|\bmind\s+(?:putting|turning|switching|setting|adding)\b")
#: a piece that tells, by its subject ("the baby's asleep", "it was our first dance"), or only thanks
_STATEMENT = re.compile(r"^(?:i|i'm|i've|i'd|we|we're|we've|we'd|he|he's|she|she's|they|they're|it|it's|its|that|that's"
                        r"|this|there|there's|the|my|our|his|her|their|you|you're|[a-z]+'s|forget"
                        r"|thanks|thank\s+you|cheers|ta|mate|don't\s+worry|no\s+worries|no\s+rush|no\s+bother"
                        r"|(?:on|from|with|via|using)\s+(?:the|my|his|her|their|our|a)\s+(?:app|phone|remote|laptop|tablet))\b")
#: a thing and its new state ("the bedroom light off"), and the verbs that make it a statement
_STATE_ORDER = re.compile(r"^(?:[a-z']+\s+){1,4}(?:on|off|out|up|down)\W*$")
#: (a liking said of someone: "the cat likes it on", dev53, tells why, not what to switch)
_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|been|likes|wants|needs|prefers|loves|hates)\b|'(?:s|re|ve|m)\b|ed\b")
#: food gone, wanted on the list again ("we just ran out of toilet paper", "the last of the ketchup")
_GONE = re.compile(r"\b(?:ran|run|running)\s+out\b|\bout\s+of\b|\bthe\s+last\s+of\b|\bagain\b")

#: a terse order, a thing and what it is to be, with no verb: "Kitchen light to 50", "Heating to
#: 20", "Timer 6 minutes for the eggs", "Hallway light off" (dev50: blocked beside a question)
_TERSE_ORDER = re.compile(r"^(?:[a-z'-]+\s+){1,3}?(?:(?:to|at)\s+[\w-]+|[\w-]+\s+(?:minutes?|mins?|hours?|hrs?|seconds?|secs?"
                          r"|percent|per\s+cent|degrees?)|on|off|up|down)\b")
#: a piece that says how a thing is ("the lights at 40 are lovely"), not what it is to be
_TELLS_HOW = re.compile(r"\b(?:is|are|was|were|looks?|seems?|feels?|sounds?)\b|'(?:s|re)\b")
_NO_THING = frozenset("""i i'm i've we we're we've you he she they it it's that that's this there there's what who if when
once because since as got have has had use used is are was were be been how how's what's where where's which why up down on off""".split())

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
_CALLED = re.compile(r"^\W*(?:(?:hey|right)\s+|(?P<oi>oi)\W+)?(?P<who>you\s+lot|(?:mr|mrs|ms|miss|dr|auntie|uncle)\.?\s+[a-z]+|[a-z]+)"
                     r"\s*(?:,|[\u2014\u2013]|-{1,2}(?=\s))\s*(?P<rest>.+)")  # "Raj — put ... on from your phone" (dev56)
#: what is asked of a person called by name is their own doing: "can you ..., on your way?", "put
#: the Beyonce album on when you've got a sec" (dev46)
_OF_A_PERSON = re.compile(r"\b(?:your|yourself|you've|you're|(?:when|once|before|if)\s+you)\b")
#: a second word the speaker calls someone by ("Jess, love, ...")
_ENDEARMENT = re.compile(r"^(?:love|dear|darling|mate|pet|hun|babe|sweetie|sweetheart|pal)\W+")
#: an offer made to a person called by name: their wish is asked, not the assistant told
#: ("Grandad, do you want the heating up a bit?", "Mrs Patel, would you like it a bit warmer?", dev56)
_OFFERED_TO = re.compile(r"^(?:do|did)\s+you\s+(?:want|fancy|need)\b|^would\s+you\s+(?:like|prefer)\b|^(?:shall|should)\s+i\b")
#: words that open a line with a comma and call nobody (fillers, the assistant's usual names, the home's
#: places and things)
_NOT_A_PERSON = HOME_PLACES | frozenset("""
hey ok okay right yes yeah yep no nope nah please so well alright sorry thanks thank cheers ta um uh er oh ah actually
listen look wait hmm great cool lovely perfect and also then now next first last again hi hello morning evening night
assistant computer jarvis alexa google siri nabu vox edgevox mycroft cortana bixby friday
lights light lamp music timer volume heating thermostat weather list shopping
""".split())

#: thanks, for something or not
_THANKS = re.compile(r"^(?:thanks|thank\s+you|cheers|ta)(?:\s+(?:so\s+much|a\s+lot|mate|love|for\s+.+))?$")
#: liked as it is ("I love this Stevie Wonder track", "I actually quite like it")
_LIKED = re.compile(r"^i\s+(?:(?:really|just|absolutely|actually|quite|do|so|totally)\s+)*(?:love|like|adore|enjoy)\s+"
                    r"(?:it|that|this|them|(?:this|that|the)\s+(?:[a-z']+\s+){0,3}?(?:song|track|tune|one|album|playlist|band|record))\W*$")

#: the weather that was: the weather tool tells now and the forecast
_WEATHER_WORDS = re.compile(r"\b(?:weather|temperature|rain|rained|raining|snow|snowed|sunny|hot|cold|warm|windy)\b")
_WAS = re.compile(r"\b(?:was|were|been|did|had)\b")
_PAST_TIME = re.compile(r"\b(?:yesterday|last\s+(?:night|week|weekend|month|year|summer|winter|spring|autumn|fall)"
                        r"|ever\s+recorded|on\s+record|the\s+other\s+day|while\s+we\s+were\s+away|been\s+like)\b")
_RECORDED = re.compile(r"\b(?:ever\s+recorded|on\s+record)\b")
_NOW_OR_LATER = re.compile(r"\b(?:today|tomorrow|tonight|now|later|forecast|this\s+(?:afternoon|evening))\b")


def _low(request: str) -> str:
    return request.lower().replace("’", "'")


def _pieces(low: str) -> list[str]:
    """The line cut at its stops, commas and joins, each without its opening words (not at "so":
    "The kitchen light's so bright, I actually quite like it.")."""
    return [p for p in (_OPENING.sub("", piece).strip() for piece in
                        re.split(r"[,;.!?]|\band\b|\bbut\b|\bwhen\b|\bbecause\b|\bcos\b", low)) if p]


def _asked(low: str) -> bool:
    return bool(_ASKED.search(low))


def _no_other_order(pieces: list[str], own: str) -> bool:
    """Is every other piece of the line a statement, not an order, an ask or a thing named
    ("Timer for an hour, the lamb's just gone in.": the timer is ordered)?"""
    return all(p == own or (_STATEMENT.match(p) and not ORDERS_PIECE.match(p) and not _switched(p)) for p in pieces)


#: a subject before the verb tells ("he comes down", dev55), not orders
_SUBJECT_FIRST = re.compile(r"^(?:he|she|they|we|i|you)(?:'ll|'d|\s+(?:will|might|could|would))?\s+[a-z]+s?\b")


def _switched(piece: str) -> bool:
    """A thing and its new state, with no verb ("the bedroom light off"): an order."""
    return bool(_STATE_ORDER.match(piece)) and not _VERB.search(piece) and not _SUBJECT_FIRST.match(piece)


def _capitalised(request: str, word: str) -> bool:
    """Is ``word`` written with a capital in ``request`` (a name, not a thing)?"""
    return bool(re.search(rf"\b{re.escape(word[:1].upper() + word[1:])}\b", request))


def _a_name(request: str, word: str) -> bool:
    """Is ``word`` a person's name: written with a capital, and no filler, assistant or thing of the home?"""
    return word not in _NOT_A_PERSON and _capitalised(request, word)


def complains(low: str) -> bool:
    """Does the line say how a room feels, or "too" ("the bedroom is too dark")? A complaint wants something."""
    return bool({"too", *FELT} & set(WORD.findall(low)))


def _a_piece_alone(rx: re.Pattern[str], low: str, pieces: list[str]) -> bool:
    """Does a piece match ``rx`` with every other piece a statement, and nothing asked?"""
    return any(rx.match(p) and _no_other_order(pieces, p) for p in pieces) and not _asked(low)


def _opens_alone(rx: re.Pattern[str], low: str, pieces: list[str]) -> bool:
    """Does the line open on a piece matching ``rx``, then say only statements, asking nothing?"""
    return len(pieces) >= 2 and bool(rx.match(pieces[0])) and _no_other_order(pieces, pieces[0]) and not _asked(low)


def _done(request: str, low: str, pieces: list[str]) -> bool:
    """A piece tells what was done already ("I already switched the office light off.")."""
    for piece in pieces:
        m = _DONE.match(piece)
        if not m:
            continue
        person = re.fullmatch(_PEOPLE, m["who"]) is not None
        thing = " " in m["who"]
        if not person and not thing and not _a_name(request, m["who"]):
            continue  # "Heating set to 20." orders; a thing said as the subject is no report
        if (m["verb"] in _PAST_AS_PRESENT.split() or not person) and not _BEFORE_NOW.search(low):
            continue  # "I put ..." and "Sam's switched ..." need their "yesterday", "just"
        if _no_other_order(pieces, piece) and not _asked(low) and not _GONE.search(low) and not complains(low):
            return True
    return False


def _planned(request: str, low: str, pieces: list[str]) -> bool:
    """A piece tells what someone will do later ("I'll put some jazz on after dinner.")."""
    for piece in pieces:
        m = _PLAN.match(piece)
        if not m or not _LATER.search(low):
            continue
        if re.fullmatch(_PEOPLE, m["who"]) is None and not _a_name(request, m["who"]):
            continue
        if _no_other_order(pieces, piece) and not _asked(low):
            return True
    return False


def _someone_does_it(request: str, low: str, pieces: list[str]) -> bool:
    """A piece tells what someone else will do or is doing now ("Jamie said he'd ...", "My
    daughter's adding ... from her phone")."""
    for piece in pieces:
        m = _TOLD_PLAN.match(piece) or _DOING_IT.match(piece)
        if m and (re.fullmatch(_PEOPLE, m["who"]) is not None or _a_name(request, m["who"])) \
                and _no_other_order(pieces, piece) and not _asked(low):
            return True
    return False


def said_to_someone_else(request: str) -> bool:
    """Does the line call people as a group, then order or ask them ("Kids, turn that music
    down!"), or a person by name, then ask them of their own doing ("Tom, can you switch the
    hallway light off on your way?")? A name is a capitalised word that is no filler, no usual
    name of an assistant and no thing of the home; every line opens on a capital, so the ask
    must be the person's own ("Previous, please." calls nobody)."""
    low = _low(request)
    m = _CALLED.match(low)
    if not m or m["who"] in _NOT_A_PERSON:
        return False
    rest = _OPENING.sub("", m["rest"])
    if m["who"] in _GROUPS or m["who"].startswith("you"):
        return bool(ORDERS_PIECE.match(rest) or _asked(rest))
    if not _capitalised(request, m["who"].split()[-1]):
        return False
    rest = _OPENING.sub("", _ENDEARMENT.sub("", rest))  # "Jess, love, add hummus to your list ..." (dev56)
    if _OFFERED_TO.match(rest):
        return True
    if m["oi"]:  # "Oi, Marcus, turn that music down" (dev56): "oi" calls a person
        return bool(ORDERS_PIECE.match(rest) or _asked(rest))
    # their own doing, asked or ordered in any words ("Danny, just hit the hallway switch on your
    # way past.", "Sophie, what's the time on your watch?", dev56), but not a statement to them
    return bool(_OF_A_PERSON.search(rest)) and not (_STATEMENT.match(rest) and not ORDERS_PIECE.match(rest)
                                                    and not _ASKS_A_QUESTION.match(rest))


#: a word of praise said before the thanks ("Brilliant, thanks, it's warmer already.", dev49)
_PRAISE_FIRST = frozenset("brilliant great perfect lovely awesome amazing fab fantastic ace nice superb wonderful".split())


def _thanked(low: str, pieces: list[str]) -> bool:
    """Thanks, then only statements ("Cheers for the timer, the banana bread came out perfect.")."""
    while len(pieces) > 2 and pieces[0] in _PRAISE_FIRST:
        pieces = pieces[1:]
    return _opens_alone(_THANKS, low, pieces) and not complains(low)


#: a line that trails off before its thing ("Hmm, I need a timer for the...", dev46): nothing to do yet
_TRAILS_OFF = re.compile(r"\b(?:the|a|an|for|to|of|my|some|on|in|at|with)\s*(?:\.\.\.|…|-{2,}|[\u2014\u2013])"
                         r"(?:\W*(?:um|uh|er|erm|hmm|ah))*\W*$")  # "Volume to... er... hmm." (dev58)
#: the speaker has not decided, or has forgotten what they wanted ("Maybe some music? I dunno... let me
#: think about it.", "Should I add biscuits? ... I'll decide at the shop.", dev58)
_UNDECIDED = re.compile(r"\b(?:i\s+(?:dunno|don't\s+know|can't\s+decide|haven't\s+decided|can't\s+remember)|i'll\s+(?:decide|think|see)"
                        r"|i'll\s+sort\s+it\s+(?:out\s+)?myself|let\s+me\s+think|give\s+me\s+a\s+(?:minute|sec|second|moment)"
                        r"|not\s+sure\s+yet|we'll\s+see|(?:i've|i\s+have)\s+(?:\w+\s+)?forgotten)\b")
#: a question about what the assistant can do at all ("Can you play stuff from Spotify, or is it just
#: the radio?", "Can you do timers in seconds as well, or just minutes?", dev56)
_ABILITY = re.compile(r"^\W*(?:can|could|do)\s+you\s+[^?,]*,\s+or\s+(?:just|only|is\s+it|are\s+(?:you|they)|do\s+you)\b[^?]*\?\s*$"
                      r"|^\W*(?:can|do)\s+you\s+(?:do|handle|understand|support)\s+(?:[a-z]+\s+){0,2}[a-z]+s\b[^?]*\?\s*$")
#: the hours of a place or a thing, not the time now ("What time does the chippy shut on a Sunday?", dev56)
_HOURS_OF = re.compile(r"\bwhat\s+time\s+(?:does|do|is|are|will)\s+(?:the\s+)?[a-z' ]+?\s+(?:open|opens|close|closes|shut|shuts|start|starts"
                       r"|finish|finishes|end|ends|leave|leaves|arrive|arrives|get\s+in|kick\s+off)\b")
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
#: a break in speech after something said, and the sounds that may come before a take-back
#: the sounds a speaker makes before what they say next
_SOUND = r"(?:oh|ah|hmm|eh|er|um|uh|ugh|ooh)"
_AFTER_A_BREAK = rf"(?<=\w)(?:[.?!;]|{BREAK})\s*(?:{_SOUND}\W+)*"
_TAKEN_BACK = re.compile(rf"{_AFTER_A_BREAK}{_BACK}")
#: a piece that keeps things as they are, after a take-back ("keep them", "leave it running", "don't")
_KEPT = re.compile(r"^(?:don't|do\s+not|dont)(?:\s+bother)?$|^(?:leave|keep)\s+(?:it|them|that|this)\b(?:\s+(?:running|on|off|going|playing|be|alone|as\s+it\s+is|where\s+it\s+is"
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
_BACK_TOO = (r"(?:(?:just\s+|only\s+)?(?:kidding|joking)|ignore\s+(?:me|that)|cancel\s+that|don't\s+worry|it\s+doesn't\s+matter"
             r"|(?:it's|they're|that's)\s+fine)")
_TAKEN_BACK_TOO = re.compile(rf"{_AFTER_A_BREAK}{_BACK_TOO}\b")
_TAKEN_BACK_ALONE = re.compile(rf"^{_BACK_TOO}$")
#: a question the speaker asks of themselves or of others, not of the assistant ("what am I doing",
#: "are we doing the barbie Sunday or not?", "will anyone eat them?", dev58)
_ASKS_ONESELF = re.compile(r"^(?:(?:what|why|how|where|when|who)\s+)?(?:am|was|were|do|did|have|had|should|shall|will|would|are|is)\s+"
                           r"(?:i|we|anyone|anybody|they|he|she)\b")
_SOUNDS = re.compile(rf"^(?:{_SOUND}\W+)*")
#: not now, said after a take-back ("-- actually, no, not tonight, I've got a banging headache.", dev58)
_NOT_NOW = re.compile(r"^(?:not\s+(?:tonight|now|today|yet|right\s+now|just\s+now|at\s+the\s+moment)|(?:maybe\s+)?later"
                      r"|another\s+time|nothing|sh+|shush)$")  # "... Papa is sleeping. Later.", "Shh. Nothing." (dev58)
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
    low = _low(request)
    backs = [*_TAKEN_BACK.finditer(low), *_TAKEN_BACK_TOO.finditer(low)]
    back = max(backs, key=lambda m: m.start()) if backs else None  # the last take-back: the speaker's final word
    if back is None or not [p for p in _pieces(low[:back.start()]) if not _KEPT.match(p) and not _BACK_ALONE.match(p)
                            and not _UNDONE.match(p)]:
        return False  # "No, forget it.", "No, cancel that, forget it." take back the turn before: the caller's to read
    rest = _SOUNDS.sub("", low[back.start():].lstrip(",.?!;-\u2014\u2013\u2026 "))
    # "-- oh, wait, I swore I was giving it up. No coffee." (dev58): no more of what was said before
    if (no := re.search(r"(?:^|[.,;!]\s*)no\s+([a-z]+(?:\s+[a-z]+)?)\W*$", rest)) and re.search(rf"\b{no[1]}\b", low[:back.start()]):
        rest = rest[:no.start()]
        if not _pieces(rest):
            return True  # the refusal was the take-back itself
    said = _pieces(rest)
    if not said or _asked(rest) or _WISHED.search(rest) or complains(rest):
        return False
    return not any(_asks_again(request, p) for p in said)


def _asks_again(request: str, piece: str) -> bool:
    """Does a piece said after a take-back ask again: anything but a statement, a "don't ...", a
    question to oneself, words that gain time, a take-back said again, or a person's doing?"""
    if piece.startswith(("don't", "do not", "dont")) or _GAINS_TIME.match(piece) or _ASKS_ONESELF.match(piece) \
            or _TAKEN_BACK_ALONE.match(piece) or _KEPT.match(piece) or _BACK_ALONE.match(piece) or _NOT_NOW.match(piece) \
            or _COURTESY.match(piece) or piece in ("sorry", "my bad", "oops"):
        return False
    if ORDERS_PIECE.match(piece) or _switched(piece) or _a_thing_alone(piece):
        return True
    # a person's doing ("Gran already bought a sack of it"), not a name said instead ("-- er, no, Coldplay.")
    return not (_STATEMENT.match(piece) or (_a_name(request, piece.split()[0]) and _NAME_TELLS.match(piece)))


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


def terse_order(low: str) -> bool:
    """A thing and what it is to be, said with no verb (``_TERSE_ORDER``), naming an amount or a
    switch: "Kitchen light to 50" orders; "things to do" does not."""
    m = _TERSE_ORDER.match(low)
    return bool(m) and not _TELLS_HOW.search(low) and not {w for w in m.group(0).split()[:-1] if w in _NO_THING or w.endswith("'s")} and (
        bool(said_numbers(m.group(0))) or m.group(0).split()[-1] in ("on", "off", "up", "down")
        or bool(re.search(r"\b(?:max|maximum|full|half|min|minimum)\b", m.group(0))))

#: thanks, a greeting or praise said alone before an order ("Cheers, that's grand, and the hallway
#: light off while you're at it", "Night night, thanks for everything today, and the bedroom light
#: off please", dev50: the model said "You're welcome." and did nothing)
_COURTESY = re.compile(r"^(?:(?:thanks|thank\s+you|cheers|ta)(?:\s+(?:so\s+much|a\s+lot|mate|love|pal|darling|for\s+.+))?"
                       r"|(?:good\s+)?(?:morning|afternoon|evening|night)(?:\s+(?:all|everyone|love|mate))?|night\s+night"
                       r"|hi|hiya|hello|hey(?:\s+there)?|(?:that's\s+|that\s+is\s+)?(?:lovely|brilliant|great|perfect|grand"
                       r"|fab|ace|nice|super|spot\s+on|smashing)(?:\s+(?:thanks|cheers))?)$")
#: what may close an order said after courtesy ("... off please", "... while you're at it")
_ORDER_TAIL = re.compile(r"(?:\s+(?:please|too|as\s+well|while\s+you're\s+at\s+it|would\s+you|would\s+ya|will\s+you|thanks))+\W*$")


def after_courtesy(request: str) -> str | None:
    """The order after thanks, a greeting or praise said alone at the line's start, or None. The
    courtesy is dropped so the model reads the order, not a thanks to answer."""
    low = _low(request)
    if len(low) != len(request):
        return None
    start = 0
    for cut in re.finditer(r"[,;.!?]|\band\b", low):
        piece = _OPENING.sub("", low[start:cut.start()]).strip()
        if piece and not _COURTESY.match(piece):
            break
        start = cut.end()
    rest = low[start:]
    if not start or not rest.strip():
        return None
    first = _OPENING.sub("", re.split(r"[,;.!?]", rest)[0]).strip()
    bare = _ORDER_TAIL.sub("", first)
    if not (ORDERS_PIECE.match(first) or _switched(bare) or terse_order(bare)) or _COURTESY.match(first):
        return None
    return _OPENING.sub("", request[start:]).strip() or None


def restarted(request: str) -> str | None:
    """The words after the line's last take-back, when they make a request of their own: an order
    that points back at nothing, or a question ("Office light off -- no, the garage, the garage light
    off." -> "the garage, the garage light off.", "What's the weather -- no, I mean the time, what time
    is it?" -> "the time, what time is it?", dev47). The model read the taken-back half as well and
    acted on it; a thing alone ("-- no, mozzarella") is ``taken_back``'s to put in the call."""
    low = _low(request)
    backs = list(_CORRECTING.finditer(low))
    if not backs or len(low) != len(request) or not _pieces(low[:backs[-1].start()]):
        return None
    rest = low[backs[-1].end():]
    orders = [p for p in _pieces(rest) if ORDERS_PIECE.match(p) or _switched(p) or _PLAYER_MOVE.match(p)]
    if len(rest.split()) < 2 or _ADDED.search(rest) or not (orders or _ASKS_WHAT.search(rest)):
        return None
    if any(_POINTS_BACK.search(_ONE_OF_A_ROW.sub("", p)) for p in orders) or takes_it_back(request):
        return None  # (a line taken back whole, "-- no, it's fine, carry on", restarts nothing)
    return request[backs[-1].end():].strip()


#: a thing named with no verb ("just the living room"): after a take-back, the thing meant instead
_DETERMINED = re.compile(r"^(?:the|my|our|his|her|their|this|that|these|those)\b")
_ANY_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|been|will|would|can|could|do|does|did|won't|can't)\b"
                       r"|'(?:s|re|ve|ll|m|d)\b|\w{3}ed\b")


def _a_thing_alone(piece: str) -> bool:
    return bool(_DETERMINED.match(piece)) and not _ANY_VERB.search(piece)


def _a_thing_said(piece: str) -> bool:
    """A thing named with no verb, as a false start says it ("A timer for the pizza... oh, the
    oven's got its own, don't bother.", dev49)."""
    return bool(re.match(r"(?:a|an|some|the|my|our)\b", piece)) and not _ANY_VERB.search(piece)


def minds_nothing(request: str) -> bool:
    """Does the line open with "never mind" and then only say why ("Oh, forget it, the rice
    cooker beeps on its own.", dev46: a timer cancelled, the weather read), or say it twice
    over? Not right after an action, where it may take the action back (the caller's to know)."""
    low = _low(request)
    pieces = _pieces(low)
    # (or said twice over: "Scratch that, um, scratch all of it.", dev47)
    return _opens_alone(_NEVER_MIND, low, pieces) or (len(pieces) >= 2 and all(_NEVER_MIND.match(p) for p in pieces))


def asks_of_the_past(request: str) -> bool:
    """Does the line ask about the weather that was ("What was the weather like in Barcelona
    last week?")? No tool tells it."""
    low = _low(request)
    return bool(_WEATHER_WORDS.search(low) and (_WAS.search(low) or _RECORDED.search(low)) and _PAST_TIME.search(low)
                and not _NOW_OR_LATER.search(low))


#: a piece that asks something: a question's first word ("..., what time is it?")
_ASKS_A_QUESTION = re.compile(r"^(?:what|what's|whats|how|how's|when|when's|where|where's|who|who's|which|is|are|will|can|could"
                              r"|would|do|does|did)\b")


_WHY = re.compile(r"^(?:whatever|because|cos|since|as|so|though|although|even|nobody|no\s+one|everyone|before|until|till)\b")


def _held_back(request: str) -> str | None:
    """Why the line asks nothing now (see ``held_back``): a piece holds an order back, and no
    other piece orders, asks or names a thing to switch ("Don't add mince to the list, there's
    two packs in the freezer.")."""
    pieces = held_pieces(request)
    if any(why and p.startswith("not ") for p, why in pieces):
        return None  # a contrast names what is wanted ("Not this one, um, the next song.", dev47) or complains
    held = [why for _, why in pieces if why]
    plain = [re.sub(r"\bjust\s+", "", p) for p, why in pieces if not why]
    # every other piece tells (a reason: "there's two packs in the freezer") and orders nothing;
    # a piece of another kind may be an order in words no list here holds ("Close the project
    # ..., but don't send out any notifications", BFCL live_multiple_95)
    if not held or not all((_STATEMENT.match(p) or _WHY.match(p) or _a_thing_said(p))
                           and not (ORDERS_PIECE.match(p) or _switched(p) or _asked(p) or terse_order(p)) for p in plain):
        return None
    return held[0]


#: the subject a telling piece opens on: a pronoun (not "you": that may be the assistant), or a
#: thing's or a person's noun phrase ("the garage light", "my nan", "Kev's", "me dad")
_TELLING_SUBJECT = re.compile(r"^(?:i|i've|i'd|i'll|i'm|we|we've|we'd|we'll|we're|he|he's|she|she's|they|they're|they've|it|it's"
                              r"|that|that's|there|there's|(?:the|my|our|his|her|their|this|that|those|these|me)\s+[a-z']+|[a-z]+'s"
                              # the family, named as a recogniser may write them, lower-cased ("dad said ...")
                              r"|(?:mum|mam|mom|dad|nan|nana|gran|granny|grandma|grandad|grandpa|auntie|uncle)\s+(?=[a-z]+(?:ed|s)\b|said|had|will|'ll|always|never))\b")
#: a past, a habit, a plan or a maybe, a taste, a wish, something done by oneself
_TELLS_OF = re.compile(r"\b(?:was|were|been|had|did|said|told|reckons?|thinks?|thought|always|never|usually|used\s+to|once"
                       r"|last\s+(?:night|week|year|winter|summer|time)|yesterday|might|maybe|probably|gonna|going\s+to|will|'ll"
                       r"|wish|wished|love|loves|loved|hate|hates|prefer|prefers|best|worst|favourite|perfect|brilliant|great"
                       r"|lovely|enough|plenty|myself|himself|herself|themselves|already|apparently|sweet\s+spot|spot\s+on"
                       r"|just\s+right|\w{3,}ed)\b|\b[a-z]+'s\s+(?:\w+ing)\b")
#: what shows a line wants something now although it tells: a need or a mood, a room too dark, cold
#: or loud, food run out, the list, a timer for something, "more", "again", "I said" (a correction),
#: "I wonder" (a question); each of these asked for a call in a tuned line that otherwise tells
_WANTS_NOW = re.compile(r"(?<!might\s)(?<!'ll\s)(?<!will\s)(?<!may\s)(?<!probably\s)\b(?:need|needs|want|wants|wanna|fancy|mood|feel\s+like|could\s+do\s+with|could\s+use"
                        r"|would\s+(?:be|go|cheer|help)|'d\s+(?:like|love|be)|can't\s+(?:see|hear)|hardly|barely|dark|bright|cold"
                        r"|warm|hot|freezing|loud|quiet|black|pitch|out\s+of|ran\s+out|run\s+out|last\s+of|finished|used\s+up"
                        r"|polished\s+off|(?:no|none)\s+(?:\w+\s+)?left|all\s+gone"
                        r"|(?:on|onto|to|off|from)\s+(?:the|my|our)\s+(?:shopping\s+)?list|list\s*:|shopping\s+list"
                        r"|timer\s+for|please|i\s+mean|i\s+meant|(?<!for\s)now|instead(?!\s+of)|(?<!no\s)more|less|too|wonder|sick\s+of|fed\s+up|i\s+said|can\s+be"
                        r"|could\s+be|should\s+be|appreciate|if\s+you\s+(?:could|can|would)|looking\s+for)\b")
#: a name and what its person did or does ("Dad said ...", "Kev reckons ..."); a line's first word is
#: always capitalised, so "Calculate the ..." (BFCL simple_python_46) is no name: no such verb follows
_NAME_TELLS = re.compile(r"^[a-z]+\s+(?:[a-z]+ed|[a-z]+s|said|had|has|is|was|will|'ll|might|always|never|usually|used|already|just)\b")
#: a thing and the state it is wanted in, with no one who did it ("the air conditioner turned on
#: with cool mode.", BFCL live_simple_44)
_THING_IN_A_STATE = re.compile(r"^\W*(?:the|my|our)\s+(?:[a-z']+\s+){1,3}(?:turned|switched|set|put)\s+(?:on|off|to|up|down)\b")
#: where and when a story is set, before its subject ("Last winter we had ...", "Back home in Chennai we ...")
_SCENE = re.compile(r"^(?:last\s+\w+|yesterday(?:\s+(?:morning|afternoon|evening))?|once|years\s+ago|as\s+a\s+(?:kid|child)|later(?:\s+on)?"
                    r"|back\s+(?:home|then)(?:\s+in\s+\w+)?|when\s+i\s+was\s+(?:a\s+)?\w+|in\s+the\s+old\s+days)\s+")
#: words said aside, between a story's pieces ("..., no bother.", "..., apparently.")
_ASIDES = frozenset("bother worries problem probs ta cheers mate love grand fine apparently anyway honestly".split())
#: a thing said and how it is ("jazz on a sunday morning is just the best"), and the pieces that
#: drop their subject ("might paint the office at the weekend", "drives me mad", "not even once")
_BEING = re.compile(rf"^(?!(?:{'|'.join(sorted(IMPERATIVES | {'find', 'show', 'tell', 'search', 'look', 'check', 'fetch'}))})\b)"
                    r"(?:(?!who\b|which\b|that\b)[a-z'-]+\s+){1,5}(?:is|are|was|were)\b")
_NO_SUBJECT = re.compile(r"^(?:might|drives|makes|sounds|looks|not\s+even|never\s+again)\b")
#: a maybe or a plan, not a switch ordered ("I might stick some Nina Simone on", dev56)
_MAYBE = re.compile(r"\b(?:might|may|will|'ll|would|gonna|going\s+to)\b")
#: a question tagged on to a statement, closing the line ("..., hasn't it.")
_TAG_QUESTION = re.compile(r",\s*(?:isn't|hasn't|wasn't|doesn't|didn't|aren't|weren't|won't|haven't|hadn't|innit)\s+(?:it|they|he|she|we|you|there)\W*$")
#: verbs of orders no list here holds, seen opening a tuned request ("Bin the pasta timer, ...",
#: "Back one track, ...", "Pick the music back up ...", "Every light in the house on, ...")
_ORDERS_TOO = frozenset("bin ditch back pick go every".split())


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
    low = _low(request)
    if "?" in low or _asked(low) or complains(low) or _WANTS_NOW.search(low) or not _TELLS_OF.search(low) \
            or _THING_IN_A_STATE.match(low):
        return False
    low = _TAG_QUESTION.sub("", low)  # "The thermostat's been on twenty all week, hasn't it." (dev57) tells
    pieces = [_SCENE.sub("", q) for part in re.split(r"\s[-\u2014\u2013]+\s|\u2014|--", low) for q in _pieces(part)]
    pieces = [p for p in pieces if p and p not in _ASIDES]
    if not pieces or _ASKS_A_QUESTION.match(pieces[0]):
        return False
    if any(ORDERS_PIECE.match(p) or _switched(p) or terse_order(p) or p.split()[0] in _ORDERS_TOO
           or (re.search(r"\b(?:on|off)$", p) and not _VERB.search(p) and not _MAYBE.search(p)) for p in pieces):
        return False
    # (a piece of a word or two after the first goes on with a list: "... the bread and eggs")
    return all(_TELLING_SUBJECT.match(p) or _STATEMENT.match(p) or (_a_name(request, p.split()[0]) and _NAME_TELLS.match(p))
               or _BEING.match(p) or _NO_SUBJECT.match(p) or (n and len(p.split()) <= 2) for n, p in enumerate(pieces))


def _undecided(request: str, low: str) -> bool:
    """Does the line end undecided ("I dunno", "I'll decide at the shop", "I've completely
    forgotten") after only weighing something (a question, "maybe", "or"), with no order after?"""
    m = _UNDECIDED.search(low)
    if m is None or not (_HEDGED.search(low[:m.start()]) or not low[:m.start()].strip(" ,.!?-")):
        return False
    after = [p for p in _pieces(low[m.end():]) if not _GAINS_TIME.match(p)]
    return not any(ORDERS_PIECE.match(p) or _switched(p) or terse_order(p) or _a_thing_alone(p) for p in after)


def asks_nothing(request: str) -> str | None:
    """Why the line asks for nothing although it names a tool's thing (see the module), or None."""
    low = _low(request)
    pieces = _pieces(low)
    if said_to_someone_else(request):
        return "said to someone else"
    if why := _held_back(request):
        return why
    checks = (("done already", lambda: _done(request, low, pieces)), ("planned for later", lambda: _planned(request, low, pieces)),
              ("someone else does it", lambda: _someone_does_it(request, low, pieces)),
              ("liked as it is", lambda: _a_piece_alone(_LIKED, low, pieces)), ("thanks", lambda: _thanked(low, pieces)))
    for why, found in checks:  # in turn, stopping at the first that holds
        if found():
            return why
    if takes_it_back(request):
        return "taken back"
    if _TRAILS_OFF.search(low):
        return "trails off"
    if _undecided(request, low):
        return "undecided"
    if _ABILITY.search(low):
        return "asks what I can do"
    if _HOURS_OF.search(low):
        return "another's hours"
    return "the weather that was" if asks_of_the_past(request) else None
