"""What a registry's tools are for, as words: the vocabulary grounding compares a request with.

Everything here is read from the registry (a tool's name, the first sentence of its
description, its parameter names, enum values and ``@tool(examples=)`` requests) or is
generic knowledge written here (words that name no device, household devices, verbs any
device takes, verbs that change something). Nothing comes from an evaluation's
utterances. Words are compared by a crude stem (lights/light, heating/heat).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from edgevox.agents.demonstrations import first_sentence
from edgevox.agents.slm.slips import mend_slips

WORD = re.compile(r"[a-z]+")
#: words that say nothing about *which* device or service is meant
GENERIC = frozenset("""
a an the to of in on off for and or but with at by from into out up down over it its this that
these those there here is are was be been am do does did can could would will should may might
i me my we our you your he she they them please pls thanks thank ta abeg kindly cheers just now then so some any all
every what which who how when where why yes no not turn set make get put switch give let tell
want need like know see go going have has had one two three four five six seven eight nine ten
bit little more less very really much many again also too
""".split())

#: Household devices and appliances, singular and plural (generic knowledge, written here).
#: Those no tool's vocabulary mentions are the devices a request may name that no tool serves.
DEVICES = frozenset("""
fan fans blind blinds shade shades curtain curtains shutter shutters awning awnings drape drapes
door doors gate gates window windows lock locks vacuum vacuums hoover roomba robot mower mowers
lawnmower sprinkler sprinklers irrigation tv tvs television telly channel oven ovens stove
cooktop microwave dishwasher washer dryer fridge refrigerator freezer kettle toaster camera
cameras doorbell humidifier dehumidifier purifier plug plugs outlet outlets socket sockets
printer computer laptop car jacuzzi tub fireplace projector console router fountain grill machine machines
lawn lawns garden pool hedge rail rails ac aircon blanket blankets
""".split())
#: devices that hold a room's temperature: a tool that sets one may serve them ("Crank the
#: aircon down to twenty-four.", dev14), no other tool does ("Turn the AC on in the bedroom.",
#: dev16, switched the bedroom light on)
CLIMATE_DEVICES = frozenset({"ac", "aircon"})
#: things that stand in one room of most homes (generic knowledge, written here): "I can barely
#: see the hob." is about the kitchen's light
ROOM_OF = {
    "hob": "kitchen", "stove": "kitchen", "cooker": "kitchen", "worktop": "kitchen", "worktops": "kitchen",
    "countertop": "kitchen", "chopping board": "kitchen", "bed": "bedroom", "wardrobe": "bedroom",
    "desk": "office", "keyboard": "office", "sofa": "living room", "couch": "living room",
    "shower": "bathroom", "bathtub": "bathroom", "bath": "bathroom", "workbench": "garage",
}
#: the first word of a tool's name that undoes what another tool of the same thing made
UNDOERS = frozenset({"cancel", "remove", "delete", "stop", "clear"})
#: words a request says to undo or take away ("take the milk off", "scratch the eggs")
UNDO_WORDS = UNDOERS | frozenset("off scratch cross strike scrap kill drop ditch undo forget rid".split())
#: words that end a thing running ("Bin the pizza timer.", dev16), read only where a call that
#: makes one holds nothing the request says
ENDING_WORDS = UNDO_WORDS - {"off"} | frozenset("bin nix abort end halt".split())  # not "off": "goes off"
#: capitalised words that name a time, not a place or a thing ("What about Friday?")
TIME_NAMES = frozenset("""
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
september october november december christmas easter i
""".split())
#: parameters that hold a place's name, whatever its case ("location": "prague")
PLACE_KEYS = frozenset("location city place town country region where".split())
#: Services a home assistant is often asked for (generic knowledge, written here): a request
#: naming one that no tool's vocabulary mentions asks for what no tool does
SERVICES = frozenset("""
remind reminder reminders taxi taxis uber cab takeaway takeout voicemail voicemails answerphone
email emails recipe recipes text texts sms calendar diary ring order appointment appointments
""".split())
#: words a transcript may start with that say and name nothing ("uh, is the light on", "uh timer six minutes")
FILLERS = frozenset("uh um er erm hmm ah hey oh ok okay so well".split())
#: the words of a remark on how a room feels or sounds, said before a step or as a part
#: of a request ("Hmm, still chilly. Bump that up two more.")
REMARK_WORDS = FILLERS | frozenset("""
still too bit a little so very really it's its it is quite getting rather bloody way far nope no not yet
chilly cold cool freezing nippy warm hot boiling stuffy dark dim gloomy bright glaring loud quiet noisy
""".split())
#: how a room feels or sounds, and the thing of the home that word is about ("I'm roasting in
#: here, I'd rather it was about 18.", dev30: names the heating without saying it)
FELT = {**dict.fromkeys("chilly cold freezing nippy warm hot boiling roasting stuffy baking sweltering".split(), "heat"),
        **dict.fromkeys("dark dim gloomy glaring".split(), "light"),
        **dict.fromkeys("loud quiet noisy deafening".split(), "volume")}
#: the verbs an order opens on ("turn the ...", "chuck ... on the list")
IMPERATIVES = frozenset("""turn switch set put play add start cancel stop pause skip dim make give stick chuck bung whack kill
flip flick knock lower raise mute resume bring pop get crank take remove""".split())
#: verbs many devices take: they do not say which device is meant
ACTIONS = frozenset("""
start stop cancel delete pause resume play skip add remove control run running raise lower increase decrease
clear change
""".split())
#: what only doors, windows, blinds and locks do
OPENERS = frozenset({"open", "opens", "close", "closes", "shut", "lock", "unlock"})
#: rooms and places of a home beyond the common ones (generic knowledge, written here): a
#: request naming one the registry does not know is about a place it does not have
PLACES = frozenset("""
attic loft basement cellar conservatory porch patio pantry laundry nursery utility mudroom foyer den
balcony deck shed driveway closet playroom gym sunroom workshop yard backyard terrace greenhouse garden
""".split())
#: every room or place of a home, common ones too: "in the den" is a room, "in the form of"
#: or "at the center of" is not
HOME_PLACES = PLACES | frozenset("""
kitchen bedroom bathroom living dining office hallway hall garage den study lounge toilet
upstairs downstairs landing cloakroom bedrooms bathrooms
""".split())

#: A tool that changes something (it cannot answer a question about a state): its name or
#: its description starts with one of these verbs. Tools that compute, look up or tell
#: ("calculate_area", "get_weather") may answer questions.
CHANGERS = frozenset("""
set sets start starts stop stops cancel cancels add adds remove removes delete deletes play plays pause turn
turns switch switches control controls open opens close closes lock locks unlock unlocks send sends create
creates update updates book books order orders buy buys move moves enable disable activate deactivate
dim brighten increase decrease change changes mute unmute skip arm disarm record schedule
""".split())


#: spoken short forms of a tool's words ("Temp 19.", "Vol up.")
SHORT_FORMS = {"temp": "temperature", "temps": "temperature", "vol": "volume",
               "brolly": "umbrella", "brollies": "umbrella"}  # British "brolly" (dev16)


def stem(word: str) -> str:
    """A crude stem, enough to match lights/light and heating/heat (and temp/temperature)."""
    word = SHORT_FORMS.get(word, word)
    for suffix in ("ing", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


#: units an amount is said in, as stems: "for 5 minutes" measures, it names no thing a tool acts on
UNITS = frozenset(stem(w) for unit in ("minute", "hour", "second", "percent", "degree", "celsius", "fahrenheit")
                  for w in (unit, unit + "s"))


#: phrases whose words name no device or service: an illness ("I think I'm coming down with a
#: cold": not the weather), a visitor ("someone's at the door": not a door to open), a trick or
#: a way to behave ("Can you play dead?", "play it cool", "Let's play a game.": no music)
IDIOMS = re.compile(
    r"\ba\s+(?:bad\s+|nasty\s+|head\s+|chest\s+|heavy\s+|stinking\s+)?cold\b(?=\s*(?:$|[.,!?;:]|and\b|or\b|so\b|but\b))"
    r"|\b(?:someone|somebody|someone's|somebody's|there's\s+someone|there's\s+somebody|who's|someone\s+is|somebody\s+is)"
    r"\s+(?:at\s+the\s+(?:front\s+|back\s+)?door)\b"
    r"|\bplay(?:ing)?\s+(?:dead|nice|fair|along|(?:a\s+|some\s+|another\s+)?games?"
    # the game's name goes with it ("Play a game of twenty questions with Noah", dev44: played as music)
    r"(?:\s+of\s+[a-z0-9' -]+?(?=\s+with\b|\s*[.,!?;]|\s*$))?(?:\s+with\s+[a-z]+)?"
    r"|hard\s+to\s+get|the\s+fool|it\s+(?:cool|safe|by\s+ear))\b"
    # "I can't hear myself think" (dev15) says it is too loud, not too quiet
    r"|\b(?:can't|cannot|can\s+not)\s+hear\s+myself\s+think\b"
    # soon, not a length: "I'm on a video call in a minute" (dev46: a one-minute timer beside the light)
    r"|\b(?:on|in)\s+a\s+(?:video\s+)?call\s+in\s+a\s+(?:minute|sec|second|moment|mo|bit)\b"
    r"|\b(?:i'm|i\s+am|we're|we\s+are|i'll\s+be|we'll\s+be)\s+(?:[a-z]+\s+){0,3}?in\s+a\s+(?:minute|sec|second|moment|mo)\b")


def one_edit_apart(a: str, b: str) -> bool:
    """Are two words one letter apart (one changed, added or dropped)? A transcript's spelling
    of a room it knows ("set the dinning room light too thirty", dev12) is that room; the
    model's "Lisboa" for the "Lisbon" said (dev12) is the name said."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


#: idioms said for a tool's word (a recogniser's plain slips are ``slips.SLIPS``, mended for the
#: model too), read by the hooks alone
HEARD = (  # a name the speaker calls the assistant by, first ("Computer, play some jazz.", "hey house which
         # lights are on", dev26): no device and no home named
         (re.compile(r"(?i)^\W*(?:(?:hey|hi|ok|okay|yo)\s+(?:house|home|computer|assistant|jarvis|alexa|siri|google|speaker)"
                     r"|(?:computer|assistant|jarvis|alexa|siri))\b\W*"), ""),
         # and the idioms of rain, read as the word ("is it going to chuck it down?", dev19)
         (re.compile(r"\b(?:chuck|bucket|tip|pour|piss|pelt|teem|lash)(?:s|ed|ing)?\s+(?:it\s+)?down\b"), "rain"),
         # regional words for the weather ("is it meant to be lashing later?", "Is it gonna be a
         # scorcher in Perth this arvo?", dev32)
         (re.compile(r"\b(?:lashing|bucketing|drizzly|drizzling|mizzling)\b"), "rain"),
         (re.compile(r"\bscorch(?:er|ing)\b"), "sunny"), (re.compile(r"\bthis\s+arvo\b"), "later"),
         # "Ninety minutes on the clock for the ham, please." (dev21): a length on the clock is a timer
         (re.compile(r"\b((?:minutes?|mins?|hours?|hrs?|seconds?|secs?)\s+)on\s+the\s+clock\b"), r"\1on the timer"),
         # "Kill the tunes, mate." (dev21): the music
         (re.compile(r"\b(the|some|those|these|my|our|your)\s+tunes\b"), r"\1 music"),
         # "what's it doing in Perth this arvo?" (dev24): the weather somewhere, asked as what "it" does
         (re.compile(r"\b(what's|whats|what\s+is)\s+it\s+doing\s+(?=(?:out|outside|over|in|at|down|up)\b)"), r"\1 the weather "),
         # "chuck on some Midnight Oil, mate" (dev24), "Stick on some grime" (dev21): something put
         # on to hear, not a thing switched on
         (re.compile(r"\b(?:chuck|bung|whack|stick|slap|throw)\s+on\s+(?=(?:some|a\s+bit\s+of)\s+(?!(?:lights?|lamps?|heat|heating"
                     r"|water|clothes|washing|wash|coats?|shoes|socks|sun\s*cream|sunscreen|make\s*up|weight)\b))"), "play "))


#: other names of a common room (generic English, written here): "Whack the lounge light on."
#: and "Flick the bog light on." (dev21) are the living room's and the bathroom's lights, in a
#: home whose rooms have no such name
ROOM_NAMES = {"living room": ("lounge", "sitting room", "front room"),
              "bathroom": ("loo", "bog", "washroom", "restroom", "lavatory")}
#: ... but not the things named after them ("we're out of loo roll")
_NOT_THE_ROOM = r"(?!\s+(?:roll|rolls|paper|brush|cleaner|seat|standard)\b)"


def enum_values(tools: Iterable[Any]) -> set[str]:
    """The string values the tools' schemas allow, in lower case ("bedroom", "dining room")."""
    return {v.lower() for t in tools for sch in properties(t).values() for v in enum_of(sch) if isinstance(v, str)}


def heard_words(text: str, tools: Iterable[Any] = ()) -> str:
    """``text`` with a recogniser's slips (``slips.SLIPS``) and the idioms of ``HEARD`` read as
    the word meant, and another name of a room (``ROOM_NAMES``) as the room one of ``tools``
    has among its enum values, where none has the name said."""
    text = mend_slips(text)
    for pattern, meant in HEARD:
        text = pattern.sub(meant, text)
    values = enum_values(tools)
    for room, names in ROOM_NAMES.items():
        if room in values:
            for name in names:
                if name not in values:
                    text = re.sub(rf"\b{name}\b{_NOT_THE_ROOM}", room, text, flags=re.IGNORECASE)
    return text


def without_idioms(text: str) -> str:
    """``text`` less the phrases of ``IDIOMS``."""
    return IDIOMS.sub(" ", text.lower())


def content_words(text: str) -> set[str]:
    """The stems of the words of ``text`` that can say which device or service is meant."""
    return {stem(w) for w in WORD.findall(text.lower()) if len(w) > 2 and w not in GENERIC}


def is_number(value: Any) -> bool:
    """An int or a float, and not a bool (which Python counts as an int): a number a call holds."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def properties(tool: Any) -> dict[str, Any]:
    return dict((tool.parameters or {}).get("properties") or {})


def boolean_params(tool: Any) -> list[str]:
    """The names of a tool's true/false parameters (a light's ``on``)."""
    return [k for k, s in properties(tool).items() if isinstance(s, Mapping) and s.get("type") == "boolean"]


def enum_of(schema: Any) -> list[Any]:
    """The allowed values of a parameter: its ``enum``, or those of its ``anyOf``/``oneOf``
    members (an optional ``Literal`` is ``anyOf: [{enum}, {null}]``)."""
    if not isinstance(schema, Mapping):
        return []
    if schema.get("enum"):
        return list(schema["enum"])
    return [v for part in (schema.get("anyOf") or schema.get("oneOf") or []) for v in enum_of(part)]


def _enums(tool: Any) -> tuple[set[str], set[str]]:
    """(names of enum parameters, their values) as content words."""
    names, values = set(), set()
    for key, schema in properties(tool).items():
        if enum_of(schema):
            names |= content_words(key.replace("_", " "))
            values |= content_words(" ".join(str(v) for v in enum_of(schema)))
    return names, values


def tool_words(tool: Any) -> set[str]:
    """What a tool is for, as content-word stems (see the module docstring)."""
    parts = [tool.name.replace("_", " ").replace(".", " "), first_sentence(tool.description or "")]
    parts.extend(key.replace("_", " ") for key in properties(tool))
    parts.extend(request for request, _ in getattr(tool, "examples", None) or [])
    parts.extend(getattr(tool, "phrasings", None) or ())  # other ways people ask for it
    return content_words(" ".join(parts)) | _enums(tool)[1]


def target_words(tool: Any) -> set[str]:
    """The thing a tool acts on: its name and the first sentence of its description, less
    the names and values of enum parameters (``set_light`` -> light, brightness; not room,
    kitchen: a fan in the kitchen is not a light) and verbs any device may take ("stop the
    lawnmower" is not about a timer)."""
    names, values = _enums(tool)
    said = content_words(tool.name.replace("_", " ").replace(".", " ") + " " + first_sentence(tool.description or ""))
    return said - names - values - {stem(w) for w in ACTIONS} - {"room"}


def undoes(tool: Any, other: Any) -> bool:
    """Does ``tool`` undo what ``other`` makes: another tool of the same thing whose name opens
    on a word of ``UNDOERS`` (``remove_from_shopping_list`` of ``add_to_shopping_list``)?"""
    return (tool.name != other.name and tool.name.split("_")[0].lower() in UNDOERS
            and bool(target_words(tool) & target_words(other)))


def is_remark(text: str) -> bool:
    """Is ``text`` only a remark on how a room feels or sounds ("Hmm, still chilly.")? A
    number is no remark word ("Still 18.")."""
    return set(re.findall(r"\d+|[a-z]+", text.lower().replace("’", "'"))) <= REMARK_WORDS


def changes_things(tool: Any) -> bool:
    """Does the tool change something (so a question about a state is not for it)?"""
    head = re.split(r"[_.\s]", tool.name.lower(), maxsplit=1)[0]
    words = WORD.findall((tool.description or "").lower())
    return head in CHANGERS or (bool(words) and words[0] in CHANGERS)


#: verbs of deals and bookings that a tool's name may hold anywhere ("Payment_1_RequestPayment")
_DEALS = frozenset("reserve reserves purchase purchases pay pays transfer transfers request requests submit rent hire".split())
_ACTING = CHANGERS | _DEALS


#: verbs of tools that look things up: a name's words before one of them are its namespace
READERS = frozenset("""
get find search list fetch calculate compute check lookup retrieve query show count estimate analyze predict
convert read view describe
""".split())


def may_act(tool: Any) -> bool:
    """Does the tool, by its name or description, perhaps do something in the world? Wider
    than ``changes_things``: a word of the name counts ("Events_3_BuyEventTickets"), unless a
    verb that looks things up comes after it: the words before it name the tool's namespace
    ("criminal_record.get_status", "OpenWeatherMap.get_current_weather",
    "entropy_change.calculate" read). Measured offline with session 12's method (the first call
    of BFCL's right answer given): the remainder names a tool the answer still needs in 72 of
    parallel_multiple 0-99 (71 before: parallel_multiple_28's offense lookup), a wrong one in 2
    (2); live_multiple 0-399 unchanged (0 and 8)."""
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", tool.name.replace(".", "_"))]
    last_reader = max((i for i, w in enumerate(words) if w in READERS), default=-1)
    return changes_things(tool) or any(w in _ACTING for w in words[last_reader + 1:])
