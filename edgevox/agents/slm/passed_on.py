"""Passed on: lines that carry what someone or something else says, costs or prescribes, and how
things are in general (a house rule, how a light is fitted) or in another place.

dev63 (session 37), statements near the devices that a small model mistakes for orders, found
a third of its no-tool lines acted on by Qwen2.5-Coder-0.5B. Most carry words from elsewhere,
which the model reads as if the speaker had ordered them:

* someone else's view or complaint: "Every night my husband says the living room's too dark for
  reading" switched the light on; "According to Mrs Kowalski next door, nineteen degrees is
  plenty" set the heating;
* a source read out: "Instructions say leave the glue to set for twenty-four hours." started a
  day's timer; "WhatsApp from the landlord: 'please keep the thermostat at eighteen ...'" set it;
* a recipe's steps: "Step four, bake at one-eighty for forty-five minutes or until golden.";
* a price: "That smart bulb in the bedroom cost more than the actual lamp it's in.";
* a house rule: "No music after ten, the baby's room is right above the living room.";
* how a thing is made: "The hallway bulb's sixty watts, the old incandescent kind.";
* another place: "Honestly, the heating in my office at work is set to twenty-six, ...", "In our
  last flat the kitchen light was way brighter than this one."

English marks each plainly (a reporting verb after someone other than the speaker, "according
to", "apparently", a message and a colon, a money word, a cook's verb opening the line, "at work",
"in my car", "our old house"). The line
asks nothing unless a piece turns to the assistant: a question, a polite ask, or an order after
"so", "right", "go on" ("Recipe says simmer for twenty-five, so give us a timer for that."). The
words inside a quote are the message's, never the speaker's: text that arrives from elsewhere
is data, as a tool's result is.
"""

from __future__ import annotations

import re

from edgevox.agents.slm.statements import (
    ASKS_A_QUESTION,
    NAME_TELLS,
    STATEMENT,
    a_name,
    an_order,
    asked,
    complains,
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
_QUOTED = re.compile(r"(?:^|(?<=[\s:]))['\"\u2018\u201c](?:[^'\"\u2019\u201d]|(?<=[a-z])['\u2019](?=[a-z])){3,}?"
                     r"['\"\u2019\u201d](?=[\s.,;:!?]|$)")
#: money ("forty quid", "a tenner", "six pound each", "costs", "the bill")
_MONEY = re.compile(r"\b(?:quid|pounds?|pence|dollars?|bucks|euros?|cents|rupees|tenner|fiver|costs?|costing|price[sd]?|pricey"
                    r"|bills?|paid|pay|paying|spent|spend|expensive|cheap|cheaper|dearer)\b|[\u00a3$\u20ac]\s*\d"
                    # a price by the piece ("Eggs are four fifty a dozen", dev63)
                    r"|(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty"
                    r"|seventy|eighty|ninety|hundred))\w*\s+(?:a|per|each)\s+(?:dozen|kilo|pack|loaf|bottle|tin|pint|litre)\b")
#: another place than this home: the device spoken of is not one the assistant serves ("the heating in my
#: office at work", "the speaker in my car", "In our last flat the kitchen light was ...", dev63)
_ANOTHER_PLACE = re.compile(r"\b(?:at|from)\s+work\b|\bin\s+(?:my|our|his|her|their|the)\s+car\b"
                            r"|\b(?:in|at)\s+(?:my|our|his|her|their)\s+(?:last|old|previous|first|other)\s+(?:flat|house|place|home|apartment)\b"
                            r"|^(?:my|our|his|her|their)\s+(?:last|old|previous|first)\s+(?:flat|house|place|home|apartment)\b"
                            r"|\b(?:at|in)\s+(?:my|our|his|her|their)\s+(?:mum|mom|mam|dad|nan|gran|parents|sister|brother|mate|friend)(?:'s|s')"
                            # away, later ("In August we'll be in Spain", dev65), and a device that was ("the old microwave")
                            r"|\b(?:we'll|we\s+will|i'll|i\s+will)\s+be\s+(?:in|at|away)\b|\bon\s+holiday\b|\babroad\b"
                            r"|\b(?:the|my|our)\s+old\s+(?:speaker|microwave|oven|thermostat|lights?|lamp|radio|boiler|heating|stereo|telly|tv)\b")
#: the speaker there now: the place is where the request is about ("No, sorry, not Dublin -- Kilkenny,
#: I'm at my sister's.", dev58, asks for Kilkenny's weather)
_THERE_NOW = re.compile(r"\b(?:i'm|i\s+am|we're|we\s+are)\s+(?:at|in)\b")
#: the most words of a remark about prices or fittings said at once (longer is a document to process)
_SAID_AT_ONCE = 30
#: how a light or a device is made or fitted ("The hallway bulb's sixty watts", "on the same circuit as
#: the extractor fan", dev63): no tool changes that
_HARDWARE = re.compile(r"\b(?:bulbs?|watts?|wattage|circuit|wiring|wired|fuse|fitting|socket|chandelier|dimmer\s+switch)\b")
#: a rule of the house ("No music after ten, ...", "Lights off by eleven on school nights, Arjun, that's the
#: deal.", dev63): what holds at its hour, not an order now
_HOUSE_RULE = re.compile(r"^\W*no\s+[a-z]+\s+(?:after|before|past)\s+\w+|\b(?:that's|that\s+is)\s+the\s+(?:deal|rule|rules|law)\b"
                         r"|\bthe\s+(?:plan|rule)\s+is\b")
#: another person's list, not the household's the tool keeps ("Oat milk's on Ashleigh's list, not ours", dev63)
_ANOTHERS_LIST = re.compile(r"\b(?!the\b|today's\b|this\s+week's\b)[a-z]+'s\s+(?:old\s+|own\s+)?(?:shopping\s+)?list\b")
#: the weather of another day, told ("Saturday's meant to be gorgeous", "tomorrow'll be freezing"): the
#: weather tool tells now and today; a statement of another day asks it nothing
_ANOTHER_DAY = re.compile(r"\b(?:tomorrow|the\s+weekend|next\s+week|(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday"
                          r"|sunday)s?)\b")
_WILL_BE = re.compile(r"\b(?:(?:meant|supposed|going|due|set)\s+to\s+(?:be|get|rain|snow|pour)|gonna\s+be|'ll\s+be|will\s+be"
                      r"|looks?\s+like|looking|down\s+as|says|predicts|forecast)\b")
_WEATHER = re.compile(r"\b(?:weather|forecast|rain|raining|snow|snowing|sunny|sun|hot|cold|warm|windy|wet|dry|frost|frosty|freezing"
                      r"|roasting|boiling|scorcher|storms?|showers|cloudy|miserable|minus|degrees|bucketing|pouring|gorgeous)\b")
#: measures of a room or a thing ("The living room's about twenty square metres")
_MEASURE = re.compile(r"\bsquare\s+(?:metres|meters|feet|foot)\b|\b[\w-]+\s+by\s+[\w-]+\s+(?:metres|meters|feet|foot)\b|\b(?:centimetres|centimeters|metres|meters|inches|feet)\s+(?:wide|long|high|tall|across)\b")
#: someone else's device ("their heating's on a timer", "My boss runs her heating at sixteen", dev65): the
#: household's are "the", "my", "our"
_THEIRS = re.compile(r"\b(?:his|her|their)\s+(?:heating|thermostat|lights?|lamps?|music|timer|speaker|playlist|shopping\s+list)\b")
#: people who do a thing their way ("Uncle Ravi does the tandoori chicken forty-five minutes", dev65)
_PERSON = (r"(?:(?:my|our|his|her|their)\s+)?(?:mum|mam|mom|dad|nan|nana|gran|granny|grandma|grandad|grandpa|boss|husband|wife"
           r"|partner|flatmate|roommate|housemate|brother|sister|son|daughter|kids|neighbours?|neighbors?|landlord|mate|friend"
           r"|boyfriend|girlfriend|colleague|teacher|(?:uncle|auntie|aunt)\s+[a-z]+)")
_THEIR_WAY = re.compile(rf"^{_PERSON}\s+(?:always\s+|usually\s+|just\s+)?(?:does|makes|cooks|bakes|roasts|runs|keeps|puts|sets|leaves"
                        r"|wears|likes|loves|hates|prefers|swears\s+by)\b")
#: no need ("we barely need the lights in there at all", dev65)
_NO_NEED = re.compile(r"\b(?:barely|hardly|never|don't\s+even|rarely)\s+(?:need|use|bother\s+with)\b")
#: enough already ("we've got, um, a dozen already", "there's a twelve-pack in the garage", dev65)
_ENOUGH = re.compile(r"\b(?:we've\s+got|we\s+have|we\s+got|there's|there\s+are|there\s+is)\s+(?:[a-z,']+\s+){0,3}?"
                     r"(?:already|loads|plenty|heaps|tons|(?:a|one|two)\s+[\w-]*pack)\b")
_SHORT = re.compile(r"\b(?:no|none|not|out|only|last|low|running)\b")
#: a past with its time, complaint or not ("Fourteen minutes was too long for the scones last time", dev65)
_PAST_TIME = re.compile(r"\b(?:last\s+(?:time|night|week|month|year|weekend|christmas|winter|summer)|yesterday|years\s+ago)\b")
_PAST_VERB = re.compile(r"\b(?:was|were|had|did|came|went|got|took|made|\w{3,}ed)\b")
_NOW = re.compile(r"\b(?:now|again|still|today|tonight|currently|right\s+now)\b")
#: a cook's verbs opening a step ("bake at one-eighty", "simmer for twenty", "rub the butter in")
_COOKS = re.compile(r"^(?:(?:step\s+[a-z0-9-]+|first|then|next|after\s+that|and|right|so|ok|okay|now)\W+)*(?:bake|simmer|stir|whisk|fold|knead"
                    r"|rub|chop|season|drain|sprinkle|grill|roast|fry|saute|sear|marinate|beat|cream|poach|steam|cool\s+(?:on|in)\s+(?:a|the)\s+(?:rack|tin|fridge)"
                    r"|chill|rest|prove|glaze|baste|grate|slice|dice|peel|melt|pour|leave\s+(?:it|the\s+\w+)\s+to)\b")
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
#: a line about money that tells: it opens on its subject ("That smart bulb in the bedroom cost more
#: ...", "Forty quid a week on gas"), not on a verb ("Calculate the compound interest on $5000",
#: BFCL simple_python_131); and no one wants anything ("I like to send $100 to Mary", live_multiple_892)
_TELLS_A_PRICE = re.compile(r"^(?:the|my|our|that|this|these|those|his|her|their|a|an|[a-z]+'s|i|we|he|she|they|it|it's|that's"
                            r"|there's|\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|sixty"
                            r"|seventy|eighty|ninety|hundred)\b|^(?:[a-z']+\s+){1,5}?(?:is|are|was|were|cost|costs)\b")
_WANTS = re.compile(r"\b(?:like|love|want|wants|need|needs)\s+to\b|\b(?:i'd|we'd)\s+like\b")


#: where a line breaks off (a dash, "..."), or turns after a comma ("..., so set me fourteen minutes")
_BREAK = re.compile(r"\s[-\u2014\u2013]+\s|\u2014|--|\.\.\.|\u2026|,\s*(?=(?:so|right|go\s+on|anyway)\b)")


def _pieces(low: str) -> list[str]:
    return [p for part in _BREAK.split(low) for p in cut_pieces(part) if p]


def _breaks_before(low: str) -> list[int]:
    """For each of ``_pieces(low)``, how many breaks (a dash, "...") come before it."""
    return [n for n, part in enumerate(_BREAK.split(low)) for p in cut_pieces(part) if p]


def _turns_to_me(pieces: list[str]) -> bool:
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


def _orders_of_own(request: str, pieces: list[str]) -> bool:
    """Does one of ``pieces`` order or want something, said by the speaker: not a rhetorical ask, nor
    a statement of someone's doing ("Sam picked some up yesterday", dev65)?"""
    return any(_WANTED.match(p) or (an_order(p) and not _NO_ASK.match(p) and not STATEMENT.match(p)
                                    and not (a_name(request, p.split()[0]) and NAME_TELLS.match(p))) for p in pieces)


def passed_on(request: str) -> str | None:
    """Why the line only carries words from elsewhere (see the module), or None: "passed on" (a view
    or a report: someone says, according to, apparently), "read out" (a source, a message), "a
    recipe" (a cook's steps), "a house rule" (what holds at its hour), "another place" (a device at work, in
    the car, in an old home), "another's list", "another day's weather", "someone else's" (their device, their way), "no need",
    "enough already", "the past", "how it is made" (a bulb's watts, a circuit), "a price". A piece beside the report that orders is the speaker's own
    ("My brother's moaning he can't hear anything, bump the volume up a bit.", dev63)."""
    low = lowered(request)
    if "?" in low:
        return None  # "Radio says it'll be bucketing down later, what's it doing out there now?" asks
    if _MESSAGE.match(low):  # (unquoted, the message runs to the end of the line)
        after = low[low.index(":") + 1:]
        return None if _QUOTED.search(after) and _turns_to_me(_pieces(_QUOTED.sub(" ", after))) else "read out"
    pieces = _pieces(_QUOTED.sub(" ", low))
    if not pieces or _turns_to_me(pieces):
        return None
    reports = [n for n, p in enumerate(pieces) if _REPORTED.match(p) or _SOURCE.search(p) or _REPORTED_ANYWHERE.search(p)]
    if reports:
        # a source is read on after it ("it says, um, simmer for twenty minutes, then ..."), up to a turn
        # to the assistant (``_turns_to_me``); what a person says is in their own piece
        read = any(_SOURCE.search(pieces[n]) for n in reports)
        breaks = _breaks_before(_QUOTED.sub(" ", low))  # (a reading ends at a break: "box says fifteen -- cancel that one")
        own = [p for n, p in enumerate(pieces) if n not in reports
               and not (n > reports[0] and ((read and breaks[n] == breaks[reports[0]]) or _READ_ON.match(p)))]
        if _orders_of_own(request, own):
            return None  # ("..., the packet says 11 minutes, so I'd be grateful for a nudge ...", dev28)
        return "read out" if any(_SOURCE.search(pieces[n]) for n in reports) else "passed on"
    if _COOKS.match(" ".join(pieces)) and all(_COOKS.match(p) or not an_order(p) for p in pieces):
        return "a recipe"  # (not "Boil the kettle and put some Nina Simone on.", dev52)
    if _HOUSE_RULE.search(low):
        return "a house rule"
    own_orders = _orders_of_own(request, [p for p in pieces if not (_ANOTHER_PLACE.search(p) or _THEIRS.search(p))])
    if _WEATHER.search(low) and _ANOTHER_DAY.search(low) and _WILL_BE.search(low) and not own_orders \
            and _TELLS_A_PRICE.match(pieces[0]):
        return "another day's weather"
    if _ANOTHERS_LIST.search(low) and not own_orders:
        return "another's list"
    if (_THEIRS.search(low) or any(_THEIR_WAY.match(p) for p in pieces)) and not own_orders:
        return "someone else's"
    if _NO_NEED.search(low) and not own_orders:
        return "no need"
    if _ENOUGH.search(low) and not _SHORT.search(low) and not own_orders:
        return "enough already"
    if _ANOTHER_PLACE.search(low) and not own_orders and not _THERE_NOW.search(low) and not _WANTS.search(low):
        return "another place"
    if len(low.split()) > _SAID_AT_ONCE:
        return None  # a document, not a remark (BFCL live_simple_164: a page about a company)
    if (_HARDWARE.search(low) or _MEASURE.search(low)) and _TELLS_A_PRICE.match(pieces[0]) and not own_orders and not complains(low):
        return "how it is made"
    if _MONEY.search(low) and _TELLS_A_PRICE.match(pieces[0]) and not _WANTS.search(low) \
            and not any(an_order(p) for p in pieces):
        return "a price"
    if _PAST_TIME.search(low) and _PAST_VERB.search(low) and not _NOW.search(low) and not own_orders:
        return "the past"
    return None
