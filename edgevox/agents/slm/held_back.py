"""Held back: an order the speaker gives for later, under a condition, or not at all.

dev53 (the home evaluation, session 34), written about orders that must not run now, found
Qwen2.5-Coder-0.5B acting on the order inside each of these lines, whatever was around it
(44 % of its no-tool turns made a call):

* told not to: "Don't add mince to the list, there's two packs in the freezer." (mince added),
  "Please don't put the heating up, ..." (the heating set to 22), "No need for a timer, ...";
* under a condition: "If the baby starts crying, turn the music right down.", "Should it get
  above twenty four in here, drop the thermostat to twenty.";
* for later: "In forty minutes, switch the bedroom light off." (switched off at once, and a
  timer started), "Tomorrow morning at half six, put the heating up to twenty one.".

No tool waits for a time or an event, and nothing was asked of a thing the speaker said to
leave alone, so none of these may act now. English marks them plainly: "don't", "no need" or
"never mind" before the order; "leave" or "keep" it "as it is"; "if", "when", "once", "should
it" or "as soon as" opening a clause (not "if you could" or "when you get a moment": those are
manners); a time to come ("in forty minutes", "tomorrow", "at midnight"). A negative that asks
is no hold: "Don't forget the oat milk, stick it on the list", "Don't leave the garage light
burning all night, switch it off", "Why don't you put some jazz on?".

A line may hold one thing back and order another ("Don't touch the heating, but put the bathroom
light on at sixty."), so this module judges pieces: ``held_pieces`` cuts the line and says for
each piece why it is held back, or None for a piece said plainly. ``remarks`` answers a line
in words when every piece that orders is held back; ``grounding`` blocks a call that only held
pieces name.
"""

from __future__ import annotations

import re
from functools import lru_cache

from edgevox.agents.slm.vocabulary import IMPERATIVES

#: why a piece is held back
TOLD_NOT, LEFT_AS_IT_IS, UNDER_A_CONDITION, FOR_LATER = "told not to", "left as it is", "under a condition", "for later"
#: the reasons that wait for something no tool can wait for
WAITS = frozenset({UNDER_A_CONDITION, FOR_LATER})
HELD_BACK = WAITS | {TOLD_NOT, LEFT_AS_IT_IS}

#: words that may open a piece before what it says ("Oh, and please don't ...")
_OPENING = re.compile(r"^\W*(?:(?:oh|ah|and|also|so|um|uh|er|plus|then|ok|okay|actually|just|but|well|no(?!\s+need)|nah|please"
                      r"|honestly|seriously|wait|hmm|right|sorry|hang\s+on|hold\s+on)(?:\W+|$))*", re.I)
#: after "don't": verbs that ask for something ("don't forget to ...", "don't leave it on",
#: "don't let it burn", "don't keep it so cold"), and the subjects of a question ("Don't you ...?")
_ASKS_AFTER_DONT = frozenset("forget leave let keep worry mind be you we i they it there".split())
#: told not to: "don't" and its verb, "no need", "you don't have to", "never mind the ...",
#: "I don't want a timer" (not "I don't want the light on any more": that asks it off)
_TOLD_NOT = re.compile(
    r"^(?:(?:don't|dont|do\s+not)\s+(?:bother|worry\s+about|touch|change|mess\s+with|fiddle\s+with)\b"
    r"|(?:don't|dont|do\s+not|never)\s+(?:(?:go|ever|even|just)\s+)*(?P<verb>[a-z']+)"
    r"|(?:there's\s+|there\s+is\s+)?no\s+need\s+(?:to|for)\b"
    r"|you\s+(?:don't|do\s+not|dont)\s+(?:need|have)\s+to\b|you\s+(?:needn't|need\s+not)\b"
    # a contrast's other side ("Switch the office light off, not the hallway one", dev55)
    r"|not\s+(?:the|that|this|my|our|a|an|any|too|so)\b"
    r"|(?:never\s*mind|forget(?:\s+about)?)\s+(?:the|my|our|about)\b"
    r"|i\s+(?:don't|do\s+not|dont)\s+(?:want|need)\s+(?:a|an|any|the)\b(?!.*\b(?:any\s*more|now)\b))")
#: left as it is: "Leave the bathroom light as it is", "Keep the heating where it is", "Leave the
#: garage light on" (not "Keep it at 20": that sets it)
_LEFT = re.compile(r"^(?:(?:i\s+)?(?:reckon|think)\s+(?:we\s+)?|we(?:'ll|\s+can|\s+should)?\s+|let's\s+)?(?:leave|keep)\s+(?:the|my|our|that|this|it|them)\b[^,.!?]*?"
                   r"\b(?:(?:where|as|the\s+way|like)\s+(?:it|they)\s+(?:is|are)|like\s+that|alone|be|on|off|going|running|playing)"
                   r"(?:\s+for\s+(?:now|the\s+moment|the\s+time\s+being|me|us|him|her|them))?$"
                   # "The garage can stay dark" (dev56)
                   r"|^(?:the|my|our)\s+(?:[a-z']+\s+){1,3}(?:can|will|should|may)\s+stay\s+(?:dark|off|on|as\s+it\s+is|where\s+it\s+is|like\s+that)$")
#: manners, not a condition: "if you could", "when you get a moment", "if that's ok", "once more"
_NOT_A_CONDITION = (r"(?!you\b|you're\b|you've\b|possible\b|poss\b|that's\b|that\b|this\b|it's\s+(?:ok|okay|alright|no\s+bother)\b"
                    r"|it(?:'s|\s+is)(?:\s+not|n't)\s+too\b|it\s+isn't\s+too\b"
                    r"|i\s+forget\b|more\b|again\b|not\b)")
#: a clause that puts the order under a condition or after an event ("If the baby starts crying",
#: "Should it get above twenty four", "Once the kids are asleep", "When the film finishes")
_CONDITION = re.compile(rf"^(?:if|whenever|once|unless|in\s+case|as\s+soon\s+as|when|after|should(?=\s+(?:it|the|we|they|he|she|there)\b))\s+{_NOT_A_CONDITION}")
#: a time to come, opening a line ("In forty minutes, ...", "Tomorrow morning at half six, ...",
#: "At midnight, ...", "Later, once I'm in bed, ...", "Tonight before bed, ...")
_NUMBER = r"(?:\d+|a|an|half\s+an|a\s+couple\s+of|a\s+few|[a-z]+(?:[\s-][a-z]+)?)"
_CLOCK = (r"(?:midnight|noon|midday|half\s+(?:past\s+)?[a-z0-9]+|quarter\s+(?:past|to)\s+[a-z0-9]+|\d{1,2}(?::\d\d)?\s*(?:am|pm|o'clock)?"
          r"|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?:\s+(?:o'clock|am|pm|thirty|fifteen|forty[\s-]five))?)")
_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_HOUR = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_LATER_OPENING = re.compile(rf"^(?:later|tomorrow|tonight\s+(?:before|after|at)|this\s+(?:evening|afternoon)\s+at"
                            rf"|(?:next|on|this\s+coming)\s+(?:{_DAY}|week|weekend)|{_DAY}\s+(?:morning|afternoon|evening|night)"
                            rf"|in\s+{_NUMBER}\s+(?:minutes?|mins?|hours?|hrs?)|at\s+{_CLOCK})\b")
#: a time to come said after the order ("... in ten minutes", "... at 7pm", "... tomorrow",
#: "... when I get home", "... once the kids are asleep"); not "for when" ("a timer for when the
#: pasta's done") and not a length of a timer ("a timer to go off in ten minutes")
_LATER_AFTER = re.compile(rf"\bin\s+{_NUMBER}\s+(?:minutes?|mins?|hours?|hrs?)(?:'?\s*time)?\b|\btomorrow\b"
                          rf"|\bat\s+(?:midnight|noon|midday|\d{{1,2}}(?::\d\d)?\s*(?:am|pm|o'clock)|[a-z]+\s+o'clock)\b"
                          # "at five p.m." and "off at eleven, would you" (dev57): an hour, with "p.m." or after a
                          # switch (not "Set the volume at ten": a level)
                          rf"|\bat\s+(?:\d{{1,2}}|{_HOUR})(?:\s+(?:thirty|fifteen|forty[\s-]five))?\s*[ap]\.m\b"
                          rf"|\b(?:on|off)\s+at\s+{_HOUR}(?:\s+(?:thirty|fifteen|forty[\s-]five))?(?=\s*(?:,|\.|!|$|would\b|please\b|tonight\b))"
                          rf"|(?<!\bfor\s)\b(?:when|whenever|once|as\s+soon\s+as|after|unless|if)\s+{_NOT_A_CONDITION}"
                          r"(?:(?i:the|it|i|i'm|i've|we|we're|he|she|they|my|our|anyone|someone|somebody|everyone)|[A-Z][a-z]+)\b")
#: verbs that fetch a reading ("Give me the UV index for Tokyo for tomorrow", BFCL multiple_64): not changes
_FETCHES = frozenset({"give", "get", "bring"})
#: a piece that orders a change: only an order can wait ("Tomorrow's weather for Lyon." reads the
#: forecast; "Add butter and flour to the list, I'm baking tomorrow." adds them now)
_ORDER = re.compile(rf"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
                    rf"(?:{'|'.join(sorted((IMPERATIVES - _FETCHES) | {'go', 'bump', 'drop', 'dim', 'crank', 'raise', 'lower'}))})\b")
#: where the text an order writes begins ("add todo with content go to sleep at 9 pm", BFCL
#: live_simple_57): a time said in it is the text's
_TEXT_OF_IT = re.compile(r"\b(?:saying|content|verbatim|titled|called|named|message|note|todo|reminder)\b|:|(?<!\w)['\"\u201c]")
_QUESTION = re.compile(r"^\W*(?:what|what's|whats|how|how's|when's|where|where's|who|who's|which|is|are|will|was|did|does|do\s+you)\b")
_LENGTH_OF_A_TIMER = re.compile(r"\b(?:timer|countdown|shout|nudge|buzz|wake\s+me|let\s+me\s+know|tell\s+me)\b")


def _straight_quotes(request: str) -> str:
    return request.replace("’", "'")


def _sentences(request: str) -> list[str]:
    # (not after "a.m." or "p.m.": "Put the heating on for 6 a.m. tomorrow.", dev61)
    return [s for s in re.split(r"(?<=[.!?;])(?<![ap]\.m\.)\s+", _straight_quotes(request).strip()) if s.strip()]


def _cut(sentence: str) -> list[str]:
    """A sentence cut at its commas and joins, each piece without its opening words."""
    return [p for p in (_OPENING.sub("", piece).strip(" .!?;") for piece in
                        re.split(r"[,;:]|\s+-+\s+|\s[\u2014\u2013]\s|\band\b|\bbut\b", sentence)) if p]


def _told_not(piece: str) -> bool:
    m = _TOLD_NOT.match(piece.lower())
    return bool(m) and (m["verb"] is None or m["verb"] not in _ASKS_AFTER_DONT)


def _later(pieces: list[str]) -> str | None:
    """Why a sentence's order waits: a piece of the sentence is a condition or opens on a time to
    come, or the order itself says one ("Turn the lights off in ten minutes"); or None."""
    orders = [p for p in pieces if _ORDER.match(p.lower()) or _ORDER.match(_LATER_OPENING.sub("", p.lower()).strip())]
    if not orders:
        return None
    if any(_CONDITION.match(p.lower()) for p in pieces):
        return UNDER_A_CONDITION
    if any(_LATER_OPENING.match(p.lower()) for p in pieces):
        return FOR_LATER
    for order in orders:
        m = _LATER_AFTER.search(order)
        if m is None or (m.group(0).lower().startswith("in ") and _LENGTH_OF_A_TIMER.search(order.lower())):
            continue  # "Set a timer to go off in ten minutes": the timer's length
        return UNDER_A_CONDITION if m.group(0).lower().split()[0] in ("if", "unless") else FOR_LATER
    return None


def unheld(request: str) -> str:
    """The request without its held-back pieces, as it was written ("Don't go back, go forward
    a track." -> "go forward a track"), or the request itself when nothing is held back or all
    of it is."""
    pieces = _held(request)
    kept = [p for p, why in pieces if not why]
    return request if len(kept) in (0, len(pieces)) else ", ".join(kept)


def held_pieces(request: str) -> list[tuple[str, str | None]]:
    """The line's pieces, each with why it is held back ("told not to", "left as it is",
    "under a condition", "for later") or None when it is said plainly."""
    return [(p.lower(), why) for p, why in _held(request)]


@lru_cache(maxsize=512)
def _held(request: str) -> tuple[tuple[str, str | None], ...]:
    """``held_pieces`` as written; kept per line, since grounding, the gate, the planner and
    ``remarks`` each ask of the same line, grounding once for every tool."""
    out: list[tuple[str, str | None]] = []
    for sentence in _sentences(request):
        # the conditions' capitalised names ("If Liam isn't home") are read before lower-casing
        pieces = _cut(sentence)
        # a question waits for nothing ("What's the weather tomorrow?")
        waits = None if sentence.rstrip().endswith("?") or _QUESTION.match(sentence.lower()) \
            else _later(_cut(_TEXT_OF_IT.split(sentence, maxsplit=1)[0]))
        for piece in pieces:
            low = piece.lower()
            why = waits or (TOLD_NOT if _told_not(low) else LEFT_AS_IT_IS if _LEFT.match(low) else None)
            out.append((piece, why))
    return tuple(out)

