"""Passed on: lines that carry what someone or something else says or prescribes.

dev63 (session 37), statements near the devices that a small model mistakes for orders, found
a third of its no-tool lines acted on by Qwen2.5-Coder-0.5B. Most carry words from elsewhere,
which the model reads as if the speaker had ordered them:

* someone else's view or complaint: "Every night my husband says the living room's too dark for
  reading" switched the light on; "According to Mrs Kowalski next door, nineteen degrees is
  plenty" set the heating;
* a source read out: "Instructions say leave the glue to set for twenty-four hours." started a
  day's timer; "WhatsApp from the landlord: 'please keep the thermostat at eighteen ...'" set it;
* and lines that state how things are (a price, a house rule, a recipe's steps), read in ``facts``
  with this module's reading of who turns to the assistant.

English marks each plainly (a reporting verb after someone other than the speaker, "according
to", "apparently", a message and a colon). The line
asks nothing unless a piece turns to the assistant: a question, a polite ask, or an order after
"so", "right", "go on" ("Recipe says simmer for twenty-five, so give us a timer for that."). The
words inside a quote are the message's, never the speaker's: text that arrives from elsewhere
is data, as a tool's result is.
"""

from __future__ import annotations

import re
from functools import lru_cache

from edgevox.agents.slm.statements import (
    ASKS_A_QUESTION,
    NAME_TELLS,
    STATEMENT,
    a_name,
    an_order,
    asked,
    cut_pieces,
    lowered,
)

#: someone other than the speaker and the assistant, opening a piece ("my husband", "Dad", "the kids",
#: "my mate in Sydney", "Mrs Kowalski"), after a few words that set a scene ("every night")
_SOMEONE = (r"(?:(?:and|but|so|well|oh|honestly|also|plus|yeah|every\s+\w+|last\s+\w+)\s+)*(?!(?:i|you|we|i'm|i've|it|there)\b)"
            r"(?:he|she|they|everyone|everybody|people|(?:my|our|the|his|her|their|your)\s+(?:[a-z']+\s+){0,3}?[a-z']+"
            r"|[a-z]+'s\s+[a-z]+|(?:mrs|mr|ms|miss|auntie|uncle)\s+[a-z]+|[a-z]+)")
#: what they say, think or moan ("says", "reckons", "keeps going on about", "were moaning that")
_SAYS = (r"(?:(?:always|just|still|never|keeps?|kept|was|were|is|are|has|had|have)\s+)?"
         r"(?:says|said|reckons|reckoned|thinks|thought|swears|swore|insists|insisted|moans|moaned|moaning|complains|claims|claimed"
         r"|believes|convinced|adamant"
         r"|complained|complaining|(?:going|banging)\s+on\s+(?:about|and\s+on)|saying|telling\s+(?:me|us)|told\s+(?:me|us))\b")
_REPORTED = re.compile(rf"^{_SOMEONE}\s+{_SAYS}")
#: a report anywhere in the line: "according to ...", "apparently", "that's what the landlord wants"
_REPORTED_ANYWHERE = re.compile(r"\baccording\s+to\b|\bapparently\b|\b(?:that's|that\s+is)\s+what\s+(?:my|our|the|his|her)\s+[a-z]+"
                                r"\s+(?:wants|likes|says|said|reckons|thinks)\W*$")
#: a source the speaker reads from ("Instructions say ...", "Recipe says ...", "The radio says ...")
_SOURCE = re.compile(r"\b(?:recipe|instructions?|packet|box|label|tin|jar|manual|leaflet|radio|news|telly|tv|forecast|app"
                     r"|website|book|card|sign|note|letter|paper)s?\s+(?:here\s+)?(?:says?|said|reckons|read|reads)\b"
                     r"|(?:^|[,.;]\s*)(?:(?:ok|okay|so|right|well|and|um|er)\W+)*it\s+says\b")
#: a message and what it says ("WhatsApp from the landlord: '...'", "Text from Mum: ...")
_MESSAGE = re.compile(r"^\W*(?:a\s+)?(?:text|message|whatsapp|email|e-mail|voicemail|note|dm)\s+from\s+[^:]+:")
#: words quoted: the message's, not the speaker's
QUOTED = re.compile(r"(?:^|(?<=[\s:]))['\"\u2018\u201c](?:[^'\"\u2019\u201d]|(?<=[a-z])['\u2019](?=[a-z])){3,}?"
                     r"['\"\u2019\u201d](?=[\s.,;:!?]|$)")
#: how a piece turns from the story to the assistant ("so give us a timer", "right, eighteen degrees,
#: set it", "go on, set it to twenty-one"); "then" goes on with a recipe's steps
_TURNS = re.compile(r"^(?:so|right|ok|okay|alright|anyway|go\s+on|well)\b")
#: an ask that asks nothing: a rhetorical one ("..., can you believe it.", dev65) or a tag ("..., but she's
#: not here, is she.")
_NO_ASK = re.compile(r"^(?:can|could|would)\s+you\s+believe\b|^(?:is|isn't|was|wasn't|does|doesn't|did|didn't|are|aren't|has"
                     r"|hasn't|have|haven't|will|won't|can|can't)\s+(?:she|he|it|they|there|we)\W*$")
#: a want said after such a turn ("..., so I'd be grateful for a nudge when it's done", dev28)
_WANTED = re.compile(r"^(?:i|we|she|he|they)(?:'d|\s+would)\s+(?:be\s+grateful|like|love|appreciate)\b|^(?:i|we)\s+(?:need|want)\b")
#: a source's next step, read on ("It says simmer for twenty minutes, then stir in the cream.")
_READ_ON = re.compile(r"^(?:then|and\s+then|after\s+that|next)\b")


#: where a line breaks off (a dash, "..."), or turns after a comma ("..., so set me fourteen minutes")
_BREAK = re.compile(r"\s[-\u2014\u2013]+\s|\u2014|--|\.\.\.|\u2026|,\s*(?=(?:so|right|go\s+on|anyway)\b)")


def _numbered_pieces(low: str) -> list[tuple[int, str]]:
    """The line's pieces, each with how many breaks (a dash, "...", a turn) come before it."""
    return [(n, p) for n, part in enumerate(_BREAK.split(low)) for p in cut_pieces(part) if p]


def spoken_pieces(low: str) -> list[str]:
    return [p for _, p in _numbered_pieces(low)]


def turns_to_me(pieces: list[str]) -> bool:
    """Does a piece ask the assistant: a question, a polite ask, or an order or a want after a
    turn ("so ...", "right, ..."), in the same piece or a later one ("right, eighteen degrees, set it")?"""
    turned = False
    for p in pieces:
        if _NO_ASK.match(p):
            continue
        if "?" in p or (ASKS_A_QUESTION.match(p) and not p.startswith("which ")) or asked(p):
            return True
        turned = turned or bool(_TURNS.match(p))
        rest = _TURNS.sub("", p).strip(" ,")
        if turned and (an_order(rest) or _WANTED.match(rest)):
            return True
    return False


def orders_of_own(request: str, pieces: list[str]) -> bool:
    """Does one of ``pieces`` order or want something, said by the speaker: not a rhetorical ask, nor
    a statement of someone's doing ("Sam picked some up yesterday", dev65)?"""
    return any(_WANTED.match(p) or (an_order(p) and not _NO_ASK.match(p) and not STATEMENT.match(p)
                                    and not (a_name(request, p.split()[0]) and NAME_TELLS.match(p))) for p in pieces)


@lru_cache(maxsize=512)  # read by ``passed_on`` and ``facts`` for each line ``asks_nothing`` is asked of
def told_pieces(request: str) -> tuple[str, ...] | None:
    """The pieces of a line, its quoted words left out, when it asks the assistant nothing: no
    question mark and no piece that turns to it (``turns_to_me``); else None."""
    low = lowered(request)
    if "?" in low:
        return None
    pieces = spoken_pieces(QUOTED.sub(" ", low))
    return None if not pieces or turns_to_me(pieces) else tuple(pieces)


def passed_on(request: str) -> str | None:
    """Why the line only carries words from elsewhere (see the module), or None: "passed on" (a view
    or a report: someone says, according to, apparently) or "read out" (a source, a message). A piece
    beside the report that orders is the speaker's own ("My brother's moaning he can't hear anything,
    bump the volume up a bit.", dev63).
    """
    low = lowered(request)
    if "?" in low:
        return None  # "Radio says it'll be bucketing down later, what's it doing out there now?" asks
    if _MESSAGE.match(low):  # (unquoted, the message runs to the end of the line)
        after = low[low.index(":") + 1:]
        return None if QUOTED.search(after) and turns_to_me(spoken_pieces(QUOTED.sub(" ", after))) else "read out"
    if (pieces := told_pieces(request)) is None:
        return None
    reports = [n for n, p in enumerate(pieces) if _REPORTED.match(p) or _SOURCE.search(p) or _REPORTED_ANYWHERE.search(p)]
    if not reports:
        return None
    # a source is read on after it ("it says, um, simmer for twenty minutes, then ..."), up to a turn
    # to the assistant (``turns_to_me``) or a break ("box says fifteen -- cancel that one"); what a
    # person says is in their own piece
    read = any(_SOURCE.search(pieces[n]) for n in reports)
    breaks = [n for n, _ in _numbered_pieces(QUOTED.sub(" ", low))]
    own = [p for n, p in enumerate(pieces) if n not in reports
           and not (n > reports[0] and ((read and breaks[n] == breaks[reports[0]]) or _READ_ON.match(p)))]
    if orders_of_own(request, own):
        return None  # ("..., the packet says 11 minutes, so I'd be grateful for a nudge ...", dev28)
    return "read out" if read else "passed on"
