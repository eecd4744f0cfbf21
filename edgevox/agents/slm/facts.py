"""Facts: lines that state how things are -- a price, a rule of the house, a recipe's steps, another
place, another day's weather, someone else's device -- and ask the assistant for nothing.

dev63 and dev65 (session 37), statements near the devices that a small model mistakes for orders,
found them acted on by Qwen2.5-Coder-0.5B: "That smart bulb in the bedroom cost more than the
actual lamp it's in." switched the bedroom light; "No music after ten, ..." set a light to 10 %;
"Step four, bake at one-eighty for forty-five minutes ..." started a timer; "My boss runs her
heating at sixteen ..." set the heating; "The office gets so much sun after lunch we barely need
the lights in there at all." switched the office light off.

Each is marked by its words (a money word, "no ... after ten", "that's the rule", a cook's verb
opening the line, "at work", "in my car", "our old house", "his/her/their heating", "barely need",
"last time"), and holds only if no piece of the speaker's own orders, asks or wants something
(``passed_on.told_pieces``, ``passed_on.orders_of_own``).
"""

from __future__ import annotations

import re

from edgevox.agents.slm.passed_on import orders_of_own, told_pieces
from edgevox.agents.slm.statements import an_order, complains, lowered

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
#: what another day will be, or is forecast to be
_WILL_BE = re.compile(r"\b(?:(?:meant|supposed|going|due|set)\s+to\s+(?:be|get|rain|snow|pour)|gonna\s+be|'ll\s+be|will\s+be"
                      r"|looks?\s+like|looking|down\s+as|says|predicts|forecast)\b")
#: words of the weather
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
#: short of it, not enough ("there's only one left", "we've got no milk"): the list may want it
_SHORT = re.compile(r"\b(?:no|none|not|out|only|last|low|running)\b")
#: a past with its time, complaint or not ("Fourteen minutes was too long for the scones last time", dev65)
_PAST_TIME = re.compile(r"\b(?:last\s+(?:time|night|week|month|year|weekend|christmas|winter|summer)|yesterday|years\s+ago)\b")
#: a verb of the past, and words of now that make the line today's ("the heating was off again")
_PAST_VERB = re.compile(r"\b(?:was|were|had|did|came|went|got|took|made|\w{3,}ed)\b")
_NOW = re.compile(r"\b(?:now|again|still|today|tonight|currently|right\s+now)\b")
#: a cook's verbs opening a step ("bake at one-eighty", "simmer for twenty", "rub the butter in")
_COOKS = re.compile(r"^(?:(?:step\s+[a-z0-9-]+|first|then|next|after\s+that|and|right|so|ok|okay|now)\W+)*(?:bake|simmer|stir|whisk|fold|knead"
                    r"|rub|chop|season|drain|sprinkle|grill|roast|fry|saute|sear|marinate|beat|cream|poach|steam|cool\s+(?:on|in)\s+(?:a|the)\s+(?:rack|tin|fridge)"
                    r"|chill|rest|prove|glaze|baste|grate|slice|dice|peel|melt|pour|leave\s+(?:it|the\s+\w+)\s+to)\b")
#: a line that tells opens on its subject ("That smart bulb in the bedroom cost more ...", "Forty quid
#: a week on gas"), not on a verb ("Calculate the compound interest on $5000", BFCL simple_python_131)
_OPENS_ON_A_SUBJECT = re.compile(r"^(?:the|my|our|that|this|these|those|his|her|their|a|an|[a-z]+'s|i|we|he|she|they|it|it's|that's"
                            r"|there's|\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|sixty"
                            r"|seventy|eighty|ninety|hundred)\b|^(?:[a-z']+\s+){1,5}?(?:is|are|was|were|cost|costs)\b")
#: a want anywhere in the line ("I like to send $100 to Mary", BFCL live_multiple_892; "I'll be in San
#: Ramon and want to go to a salon", live_multiple_773): it asks
_WANTS = re.compile(r"\b(?:like|love|want|wants|need|needs)\s+to\b|\b(?:i'd|we'd)\s+like\b")


def states_a_fact(request: str) -> str | None:
    """What the line states instead of asking (see the module), or None: "a recipe" (a cook's
    steps), "a house rule" (what holds at its hour), "another day's weather", "another's list",
    "someone else's" (their device, their way), "no need", "enough already", "another place" (a
    device at work, in the car, in an old home), "how it is made" (a bulb's watts, a circuit, a
    room's size), "a price", "the past" (with its time)."""
    if (pieces := told_pieces(request)) is None:
        return None
    low = lowered(request)
    if _COOKS.match(" ".join(pieces)) and all(_COOKS.match(p) or not an_order(p) for p in pieces):
        return "a recipe"  # (not "Boil the kettle and put some Nina Simone on.", dev52)
    if _HOUSE_RULE.search(low):
        return "a house rule"
    own_orders = orders_of_own(request, [p for p in pieces if not (_ANOTHER_PLACE.search(p) or _THEIRS.search(p))])
    if _WEATHER.search(low) and _ANOTHER_DAY.search(low) and _WILL_BE.search(low) and not own_orders \
            and _OPENS_ON_A_SUBJECT.match(pieces[0]):
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
    if (_HARDWARE.search(low) or _MEASURE.search(low)) and _OPENS_ON_A_SUBJECT.match(pieces[0]) and not own_orders and not complains(low):
        return "how it is made"
    if _MONEY.search(low) and _OPENS_ON_A_SUBJECT.match(pieces[0]) and not _WANTS.search(low) \
            and not any(an_order(p) for p in pieces):
        return "a price"
    if _PAST_TIME.search(low) and _PAST_VERB.search(low) and not _NOW.search(low) and not own_orders:
        return "the past"
    return None
