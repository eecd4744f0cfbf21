"""Wants: what a complaint, a bare "more" or "mute" asks of the home, made into the call.

Measured on the home evaluation's tuning splits with Qwen2.5-Coder-0.5B: the model reads a
request by its words, not by what the speaker wants. "It's way too dark in the hallway."
switched the hallway light *off*; "It's too quiet, I can't hear the music." and "Mute the
speakers." stopped the music; "I can't see a thing in the bathroom." got a reply in words;
"Bit more." after the volume and "Hmm, a little cooler." after the thermostat went to the
weather. What such a line wants is plain English, written here (not read from any
evaluation): a *complaint* about a state wants the opposite ("too dark", "pitch black",
"can't see" -> more light; "too loud" -> less sound; "freezing in here" -> more heat), a
*comparative* wants its own way ("brighter", "quieter", "cooler"), "mute" wants the sound's
bottom, a bare "more"/"less"/"up"/"down" right after an action wants it again, further, and
"we're (nearly) out of X" wants X on the list.

The tool is the one registry tool whose target words name the quantity (light, volume,
thermostat/temperature); the arguments come from its schema, the request and the previous
call, or the turn is left to the model:

* an up/down enum parameter ("change") takes the direction;
* a boolean parameter ("on") is switched on for more light, with the place from the request
  (a value of the tool's *where* enum it says) or the previous call of the same tool;
* a numeric parameter the previous call of the same tool set moves one step (a tenth of its
  range, else 1: 22 degrees "a little cooler" -> 21);
* "mute" sets the one ranged parameter to its bottom;
* a call whose required words are only the tool's own ("Carry on playing the song." ->
  ``play_music("song")``) becomes the player's action the request says ("carry on" -> play,
  "go back" -> previous), a value of another tool's enum;
* a player's command alone ("Skip this one.", "Unpause it.") is that action;
* "out of X" / "low on X" calls the one tool that adds to a list (``add_…``, a target word
  "list", one required parameter) with X.

A request that says a number ("too warm, knock it down to 18"), asks a question, or is about
the outside ("it's freezing out") is left to the model. Planned like ``follow_up``: the first
hop is forced to the tool and the hook writes the arguments; grounding is told the call is
the request's own (it may share no word with "It's pitch black ...", and dishwasher tablets
name a device no tool serves).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.slm import planned as planned_calls
from edgevox.agents.slm.amounts import (
    JOIN,
    NUMBER_WORDS,
    TENS,
    fix_duration,
    said_numbers,
    said_step,
    spoken_numbers,
    the_ranged_parameter,
    time_params,
    value_range,
)
from edgevox.agents.slm.devices import same_device, unserved_devices
from edgevox.agents.slm.follow_up import GLUE, previous_call
from edgevox.agents.slm.held_back import unheld
from edgevox.agents.slm.labels import name_param
from edgevox.agents.slm.questions import is_question
from edgevox.agents.slm.remarks import asks_nothing
from edgevox.agents.slm.taken_back import without_taken_back
from edgevox.agents.slm.telling import only_tells
from edgevox.agents.slm.vocabulary import (
    DEVICES,
    FILLERS,
    GENERIC,
    HOME_PLACES,
    ROOM_OF,
    SERVICES,
    WORD,
    boolean_params,
    changes_things,
    enum_of,
    is_number,
    properties,
    stem,
    target_words,
    without_idioms,
)

#: what names each quantity in a tool's target words (its name and first sentence)
ANCHORS = {"light": {"light", "lamp", "brightness"}, "sound": {"volume", "sound"},
           "heat": {"thermostat", "heating", "heater"}}  # not "temperature": the weather reads one
#: a state complained about -> (quantity, the way the speaker wants it to go)
STATES = {
    "dark": ("light", 1), "gloomy": ("light", 1), "black": ("light", 1), "bright": ("light", -1),
    "quiet": ("sound", 1), "loud": ("sound", -1), "noisy": ("sound", -1), "deafening": ("sound", -1),
    "cold": ("heat", 1), "freezing": ("heat", 1), "chilly": ("heat", 1), "hot": ("heat", -1),
    "warm": ("heat", -1), "boiling": ("heat", -1), "stuffy": ("heat", -1), "roasting": ("heat", -1),
}
#: "I can't see", "can't hear the music"
CANNOT = {"see": ("light", 1), "hear": ("sound", 1)}
#: a place likened to one that is dark, cold or hot ("The office is like a cave.")
SIMILES = {**dict.fromkeys(("cave", "dungeon", "tomb", "crypt", "cellar", "coal mine", "black hole"), ("light", 1)),
           **dict.fromkeys(("fridge", "freezer", "icebox", "igloo", "ice box", "the arctic", "antarctica"), ("heat", 1)),
           **dict.fromkeys(("sauna", "oven", "furnace", "greenhouse", "steam room", "the sahara", "a desert"), ("heat", -1))}
_LIKE = re.compile(r"\blike\s+(?:being\s+in\s+)?(?:an?\s+|the\s+)?(" + "|".join(sorted(SIMILES, key=len, reverse=True)) + r")\b")
#: a comparative or verb that says the way itself
COMPARATIVES = {
    "brighter": ("light", 1), "lighter": ("light", 1), "dimmer": ("light", -1), "darker": ("light", -1),
    "louder": ("sound", 1), "quieter": ("sound", -1), "softer": ("sound", -1),
    "warmer": ("heat", 1), "hotter": ("heat", 1), "cooler": ("heat", -1), "colder": ("heat", -1),
}
#: a bare way, for the action just done ("Bit more.", "A touch less.", "Up a notch.")
BARE = {"more": 1, "up": 1, "higher": 1, "less": -1, "down": -1, "lower": -1}
#: words a bare way may come with
_BARE_GLUE = frozenset("""
bit little notch touch tad slightly even just make go turn bring keep more much lot way yeah yes it
couple few notches degree degrees points steps by right
""".split()) | GLUE | FILLERS
#: how many steps a bare way says ("Up a couple more." after the thermostat at 67 -> 69)
_STEPS = {"couple": 2, "few": 3}
#: a complaint's frame: "too dark", "so loud", "it's freezing", "pitch black", "dark in here"
_FRAME = re.compile(r"\b(?:too|so|way|really|very|pretty|pitch|it's|its|it is|getting|bit)\s+(?:\w+\s+)?$")
#: "the speakers are deafening", "the hallway's dark": a state said of a thing (not "black"; not
#: heat: "my coffee is cold" is no complaint about the house)
_IS = re.compile(r"\w(?:'s|\s+is|\s+are)\s+(?:\w+ly\s+)?$")
_HERE = re.compile(r"^\s+(?:in here|in the\b)")
#: a state said of a thing it stands before, after "a"/"an" ("a really noisy parrot"): that
#: thing's, not the room's or the music's ("a bit loud in here" and "a bit dark, isn't it" are)
_OF_ANOTHER_THING = re.compile(r"\ban?\s+(?:(?:really|very|pretty|bit|little|right|proper|rather|quite)\s+)?$")
_A_NOUN_AFTER = re.compile(r"^\s+(?!(?:in|for|to|now|at|and|or|but|isn't|is|right|today|tonight|again|though|actually|here|there|out|outside|with|of|on|this|that|so)\b)[a-z]{3,}\b")
_OUTSIDE = re.compile(r"\b(?:outside|out there|out today|weather)\b|\bfreezing out\b")
_CANNOT = re.compile(r"\b(?:can't|cannot|can not|couldn't|can barely|can hardly|barely|hardly)\s+(see|hear)\b")
_UP_DOWN = ({"up", "increase", "raise", "higher", "more"}, {"down", "decrease", "lower", "less"})
#: a request with one of these verbs asks for something else too ("Put on some jazz, nothing too
#: loud."): left to the model
_OTHER_VERBS = frozenset("""
play put start add remove cancel stop pause skip resume book order call send open close lock remind
""".split())


_DETERMINERS = frozenset("a an the my our your his her their this that".split())


def _verbs(low: str) -> set[str]:
    """The words of ``low`` that may be verbs: not one after an article or a possessive ("a
    call", "the list": dev19's "I've got a call in five" orders no call)."""
    words = WORD.findall(low)
    return {w for i, w in enumerate(words) if i == 0 or words[i - 1] not in _DETERMINERS}

#: a time from now ("I've got a call in five", dev19): the number sets no level
_IN_A_WHILE = re.compile(r"\bin\s+(?:(?:a|about|like)\s+)?(?:\d+|" + "|".join(NUMBER_WORDS[1:]) + r")"
                         r"(?:\s+(?:min|mins|minutes?|secs?|seconds?|hours?))?\b", re.IGNORECASE)
#: what names a quantity in a line of a bare way ("Nudge the speakers up a touch.")
QUANTITY_WORDS = {**dict.fromkeys(("speaker", "speakers", "volume", "sound", "music"), "sound"),
                  **dict.fromkeys(("light", "lights", "lamp", "lamps", "brightness"), "light"),
                  **dict.fromkeys(("heating", "heat", "thermostat", "temperature"), "heat")}
#: verbs a bare way is said with
_NUDGES = frozenset("nudge bump push knock crank kick pump inch edge tick".split())


def wanted(request: str) -> tuple[str | None, int, bool] | None:
    """(quantity or None for a bare way, +1 more / -1 less, is it a complaint about a state)
    the request wants, or None."""
    low = without_idioms(request.replace("’", "'"))
    if (_OUTSIDE.search(low) or is_question(request)
            or (said_numbers(_IN_A_WHILE.sub(" ", request)) and said_step(request) is None)
            or _OTHER_VERBS & _verbs(low)):
        return None
    # a state said first ("The music's way too loud, I can't hear the baby monitor.", dev30: the
    # music is what is loud; the monitor is what cannot be heard)
    for m in re.finditer(r"[a-z]+", low):
        word = m.group(0)
        if word in STATES and _OF_ANOTHER_THING.search(low[:m.start()]) and _A_NOUN_AFTER.match(low[m.end():]):
            continue  # "The new neighbours have a really noisy parrot." (dev50): the parrot is noisy
        if word in STATES and (_FRAME.search(low[:m.start()]) or _HERE.match(low[m.end():])
                               or (word != "black" and STATES[word][0] != "heat" and _IS.search(low[:m.start()]))):
            return (*STATES[word], True)
    if m := _CANNOT.search(low):
        return (*CANNOT[m.group(1)], True)
    if m := _LIKE.search(low):
        return (*SIMILES[m.group(1)], True)
    words = WORD.findall(low)
    for word in words:
        if word in COMPARATIVES:
            return (*COMPARATIVES[word], False)
    ways = {BARE[w] for w in words if w in BARE}
    if len(ways) == 1 and all(w in _BARE_GLUE or w in BARE for w in words):
        return None, ways.pop(), False
    # "Nudge the speakers up a touch, please."; one clause of several ("Little one's asleep, turn
    # the music right down.", dev12): the others give the reason
    clauses = [WORD.findall(c) for c in _CLAUSES.split(low)] if _CLAUSES.search(low) else []
    for clause in [words] + clauses:
        if clause is not words and any(set(other) & _ORDERS for other in clauses if other is not clause):
            continue  # "Kitchen light on, music down.": the other clause orders something too
        ways = {BARE[w] for w in clause if w in BARE}
        named = {QUANTITY_WORDS[w] for w in clause if w in QUANTITY_WORDS}
        if len(ways) == 1 and len(named) == 1 and all(
                w in _BARE_GLUE or w in BARE or w in QUANTITY_WORDS or w in _NUDGES for w in clause):
            return named.pop(), ways.pop(), False
    return None


#: where a request's clauses part
_CLAUSES = re.compile(r"\s*[,;.!]\s*|\s+so\s+")
#: words of a clause that orders something of its own
_ORDERS = frozenset(QUANTITY_WORDS) | frozenset(BARE) | _OTHER_VERBS | frozenset(
    "on off set turn switch timer list weather time add".split())


def _tool_for(quantity: str, registry: Any) -> Any:
    anchors = {stem(w) for w in ANCHORS[quantity]}
    found = [t for t in registry if target_words(t) & anchors]
    return found[0] if len(found) == 1 else None


def _place(request: str, tool: Any) -> tuple[str, str] | None:
    """(where-parameter, value) the request names from a string enum, or None."""
    said = f" {' '.join(WORD.findall(request.lower()))} "
    hits = [(k, v) for k, s in properties(tool).items() for v in enum_of(s)
            if isinstance(v, str) and v.strip() and f" {v.lower()} " in said]
    if not hits:  # "I can barely see the hob." (dev14): the room of the thing named
        rooms = {room for thing, room in ROOM_OF.items() if f" {thing} " in said}
        hits = [(k, v) for k, s in properties(tool).items() for v in enum_of(s)
                if isinstance(v, str) and v.lower() in rooms] if len(rooms) == 1 else []
    return max(hits, key=lambda kv: len(kv[1])) if len({k for k, _ in hits}) == 1 else None


def arguments_for(tool: Any, way: int, request: str, before: Mapping[str, Any] | None, *,
                  complaint: bool = False) -> dict[str, Any] | None:
    """The call of ``tool`` that moves its quantity ``way`` (see the module docstring), or None.
    Only a complaint ("too dark") switches a light on: "brighter" of a light that may be on
    already is a brightness, which only the previous call can say."""
    props = properties(tool)
    for key, schema in props.items():  # an up/down enum
        values = [v for v in enum_of(schema) if isinstance(v, str)]
        pick = [v for v in values if v.lower() in _UP_DOWN[0 if way > 0 else 1]]
        if len(pick) == 1 and any(v.lower() in _UP_DOWN[1 if way > 0 else 0] for v in values):
            return {key: pick[0]}
    flags = boolean_params(tool)
    if len(flags) == 1 and way > 0 and complaint and not (before and before.get(flags[0]) is True):
        place = _place(request, tool) or next(((k, v) for k, v in (before or {}).items()
                                                if k in props and enum_of(props[k])), None)
        required = set((tool.parameters or {}).get("required") or ())
        if place is None and required - {flags[0]}:
            return None  # "It's too dark." with no room said or done before
        return {**({place[0]: place[1]} if place else {}), flags[0]: True}
    if before is None:
        return None
    moved = [(k, v) for k, v in before.items() if is_number(v) and k in props]
    if len(moved) != 1:
        return None
    key, value = moved[0]
    bounds = value_range(props[key])
    step = (bounds[1] - bounds[0]) / 10 if bounds else 1
    step *= max((_STEPS.get(w, 1) for w in WORD.findall(request.lower())), default=1)
    step = said_step(request) or step  # "Two degrees cooler."
    new = value + way * step
    if bounds:
        new = min(max(new, bounds[0]), bounds[1])
    if isinstance(value, int) or float(new).is_integer():
        new = int(round(new))
    return None if new == value else {**before, key: new}


#: what "mute" may be about that is not the speakers' volume
_MUTED_ELSEWHERE = frozenset("unmute timer timers alarm alarms phone mic microphone notification notifications call".split())


def mute_call(request: str, registry: Any) -> tuple[Any, dict[str, Any]] | None:
    """"Mute the speakers.", "Kill the sound, but leave the song playing." -> the sound tool
    with its one ranged parameter at the bottom."""
    low = request.lower()
    if not re.search(r"\b(?:mute|silence|(?:kill|cut)\s+(?:the\s+)?(?:sound|audio))\b|\bsound\s+off\b", low) \
            or set(WORD.findall(low)) & _MUTED_ELSEWHERE:
        return None
    tool = _tool_for("sound", registry)
    if tool is None or (ranged := the_ranged_parameter(tool)) is None:
        return None
    key, (low, _) = ranged
    return tool, {key: int(low) if float(low).is_integer() else low}


#: "Someone left the living room light on again." (dev18: the model switched it on): a light
#: complained of as left on wants it off (not "Leave the hall light on for me.": that keeps it on)
_LEFT_ON = re.compile(r"\b(?:left|keeps?\s+leaving|always\s+leaves?)\s+(?:the\s+|my\s+|our\s+|all\s+the\s+)?([a-z' -]+?)\s+on\b"
                      r"(?!\s+(?:purpose|the|my|our|a|an|top|it)\b)")


#: "Nobody's eating in the dining room tonight, no point that light being on." (dev21: an answer
#: in words): a light said to be on for nothing wants it off, in the room the request names
_NO_POINT_ON = re.compile(r"\bno\s+(?:point|need|sense)\s+(?:in\s+|for\s+|having\s+)?(?:the|that|this|those|these|my|our)?\s*"
                          r"([a-z' -]*?lights?)\s+(?:being\s+|staying\s+|left\s+)?on\b")
#: "Nobody's in the office any more and the light's still on, can you sort that out?" (dev24: the
#: model switched it on): a light still on, with something asked to be done about it, or said
#: on the way to bed or out ("I'm heading to bed and the kitchen light is still on.", dev36; "All 8
#: lights are still on and I'm off to bed.", dev42)
_STILL_ON = re.compile(r"(?:\b(?:the|that|this|those|these|my|our)\s+|\b(?=all\s))([a-z0-9' -]*?lights?)(?:'s|'re|\s+is|\s+are)\s+still\s+on\b")
#: (searched only where ``_STILL_ON`` is found: its words may come before or after it)
_DONE_WITH = re.compile(r"\b(?:sort|deal|fix|can\s+you|could\s+you|would\s+you|please|do\s+something)\b"
                        r"|\b(?:heading|going|off|gone)\s+(?:to\s+bed|up\s+to\s+bed|out|to\s+work)\b|\bleaving\b|\bbedtime\b")


def left_on_call(request: str, registry: Any) -> tuple[Any, dict[str, Any]] | None:
    """The light tool switched off in the room said, when a light is complained of as left on
    (or as on for nothing: the room then from the whole request)."""
    low = request.lower()
    still = _STILL_ON.search(low) if _DONE_WITH.search(low) else None
    if is_question(request) or not (m := _LEFT_ON.search(low) or _NO_POINT_ON.search(low) or still):
        return None
    tool = _tool_for("light", registry)
    switches = boolean_params(tool) if tool is not None else []
    if len(switches) != 1 or not {stem(w) for w in WORD.findall(m.group(1))} & {stem(w) for w in ANCHORS["light"]}:
        return None
    place = _place(m.group(1), tool) or (_place(request, tool) if m.re is not _LEFT_ON else None)
    return (tool, {place[0]: place[1], switches[0]: False}) if place else None


#: the whole line is the sound and a level: "Speakers at ninety.", "volume to 30 percent please"
_SOUND_LEVEL = re.compile(r"^\W*(?:(?:uh|um|er|ok|okay)\W+)*(?:the\s+)?(?:speakers?|volume|sound)\s+(?:at|to|on)\s+"
                          r"([a-z0-9 -]+?)\s*(?:percent|%)?(?:\s*,?\s*please)?\W*$")


def level_call(request: str, registry: Any) -> tuple[Any, dict[str, Any]] | None:
    """"Speakers at ninety." (the model: the next track) -> the sound tool's one ranged
    parameter at the number said, when the line says nothing else."""
    m = _SOUND_LEVEL.match(request.lower())
    numbers = spoken_numbers(m.group(1)) if m else []
    tool = _tool_for("sound", registry) if len(numbers) == 1 else None
    ranged = the_ranged_parameter(tool) if tool else None
    if ranged is None or not set(WORD.findall(m.group(1))) <= set(NUMBER_WORDS) | set(TENS):
        return None
    key, (lo, hi) = ranged
    value = numbers[0]
    return (tool, {key: int(value) if float(value).is_integer() else value}) if lo <= value <= hi else None


#: "We're nearly out of shampoo.", "We've run out of dishwasher tablets.", "I'm low on coffee.",
#: "We're clean out of cardamom pods." (dev21)
_OUT_OF = re.compile(r"\b(?:we|we're|were|we've|i'm|i've|i)\s+(?:are\s+|have\s+|am\s+)?(?:nearly\s+|almost\s+|all\s+|completely\s+|just\s+|clean\s+|right\s+|totally\s+|fresh\s+|plumb\s+)?"
                     r"(?:run\s+|ran\s+|running\s+|got\s+)?(?:out\s+of|low\s+on|short\s+of|short\s+on)\s+(?!the\b)"
                     r"(?:some\s+|any\s+)?([a-z][a-z' -]*?)\s*(?:[.!?,;]|\bagain\b|$)")
#: what one runs out of that is no shopping ("out of time", "out of here")
_NOT_ITEMS = frozenset("""
time here luck breath patience ideas battery space money options words energy daylight sun sunshine summer
holiday holidays guests visitors season
washing laundry ironing cleaning dishes chores homework work jobs episodes series
""".split())


#: "We've used the last of the ketchup.", "um we need more like toothpaste", "We could do with some rice.",
#: "I've just used the last of the washing-up liquid" (dev32)
_NEED = re.compile(r"\b(?:(?:we|i)(?:'ve|\s+have)?\s+(?:just\s+|already\s+)?used\s+(?:up\s+)?(?:the\s+)?last\s+of\s+|"
                   r"(?:we|we'll|we'd)\s+(?:need|could\s+use|could\s+do\s+with|will\s+need|would\s+need)\s+"
                   r"(?:some\s+)?(?:more\s+)?)(?:like\s+|the\s+|our\s+)?(?!to\b|a\b|an\b|it\b|that\b|this\b)"
                   r"([a-z][a-z' -]*?)\s*(?:[.!?,;]|\bagain\b|\bplease\b|$)")


#: "The kids have polished off all the cereal again.", "Who drank all the milk?" (dev12, session 20):
#: food or drink gone, said by what was done to all of it ("finished the book" is no shopping)
_ALL_GONE = re.compile(r"\b(?:polished\s+off|scoffed|(?:ate|eaten|drank|drunk|finished(?:\s+off)?|used\s+up)\s+(?=all\b))\s*"
                       r"(?:all\s+)?(?:of\s+)?(?:the\s+|our\s+|my\s+)?(?!it\b|that\b|them\b)([a-z][a-z' -]*?)\s*"
                       r"(?:[.!?,;]|\bagain\b|\band\b|$)")
#: "The last of the teabags went this morning.", "the last of the milk's gone"
_LAST_OF = re.compile(r"\bthe\s+last\s+of\s+(?:the\s+|our\s+|my\s+)?([a-z][a-z' -]*?)(?:'s)?\s+"
                      r"(?:went|is\s+gone|has\s+gone|gone|got\s+used|was\s+used|ran\s+out|is\s+finished|has\s+run\s+out)\b")


#: "We're down to our last 2 toilet rolls." (dev40): the thing itself, whatever is left of it
_DOWN_TO_LAST = re.compile(r"\b(?:we're|were|we\s+are|i'm|i\s+am)\s+(?:down\s+to|on)\s+(?:our|the|my)\s+(?:very\s+)?last\s+"
                           r"(?:\d+\s+|one\s+|two\s+|three\s+|few\s+|couple\s+(?:of\s+)?)?(?!one\b|bit\b)([a-z][a-z' -]*?)\s*(?:[.!?,;]|$)")


#: "... and we've no squash left." (dev19), "There's no more milk left."
_NONE_LEFT = re.compile(r"\b(?:we've|we\s+have|we've\s+got|we\s+got|there's|there\s+is|we're)\s+(?:got\s+)?no\s+(?:more\s+)?"
                        r"([a-z][a-z' -]*?)\s+left\b")


#: "scratch bread off the list", "Cross the eggs off my list." (dev14: "scratch bread of the list"
#: added "scratch bread"); one item only (several are left to the model)
_OFF_LIST = re.compile(r"\b(?:scratch|cross|strike|knock|rub|tick)\s+(?:the\s+|our\s+|my\s+)?([a-z][a-z' -]*?)\s+"
                       r"(?:off|of|from)\s+(?:the|my|our)\s+(?:shopping\s+|grocery\s+)?list\b")


#: an item put on the list in so many words, after the want: the item the request names
_PUT_ON_LIST = re.compile(r"\b(?:add|put|jot|jotting|write|writing|stick|pop|note)\b[\w\s']*?\b(?:on|to|onto)\s+"
                          r"(?:the|my|our)\s+(?:shopping\s+|grocery\s+)?list\b")


def list_call(request: str, registry: Any) -> tuple[Any, dict[str, Any]] | None:
    """"We're nearly out of shampoo." -> the one tool that adds an item to a list, with it.
    "We need more X" only when X is no word of any tool nor a device ("more light" is the lamp's).
    "Scratch X off the list." -> the one tool that removes an item from a list, with X."""
    low = request.lower().replace("’", "'")
    off = _OFF_LIST.search(low)
    if off and not re.search(r"\band\b|,", off.group(1)) and (remover := list_tool(registry, "remove|delete")):
        return remover[0], {remover[1]: off.group(1).strip()}
    m = (_OUT_OF.search(low) or _NEED.search(low) or _LAST_OF.search(low) or _ALL_GONE.search(low) or _NONE_LEFT.search(low)
         or _DOWN_TO_LAST.search(low))
    if m is None or m.group(1).split()[0] in _NOT_ITEMS or (adder := list_adder(registry)) is None:
        return None
    item = m.group(1).strip()
    if (put := _PUT_ON_LIST.search(low[m.end():])) and item not in put.group(0):
        return None  # "We've run out of loo roll. Would you mind jotting toilet paper down on the list?" (dev28)
    words = WORD.findall(item)
    if m.re in (_NEED, _LAST_OF, _ALL_GONE, _NONE_LEFT, _DOWN_TO_LAST) and (
            {stem(w) for w in words} & (set().union(*(target_words(t) for t in registry if t is not adder[0])) | set(SERVICES))
            or stem(words[-1]) in {stem(d) for d in DEVICES}):  # a device's, not "dishwasher tablets" (dev50)
        return None
    return adder[0], {adder[1]: item}


#: how people say a player's own actions (an enum value of a tool: play, previous, next)
TRANSPORT = {"carry on": "play", "continue": "play", "keep playing": "play", "resume": "play", "unpause": "play",
             "go back": "previous", "back one": "previous", "last one": "previous", "skip": "next", "freeze": "pause",
             "move on": "next", "back up where": "play", "pick up where": "play", "left off": "play",
             # dev11 (session 19): "Next tune, please." / "Start the music up again from where it
             # stopped." -> play_music("next") / ("up"); "Back up one track." -> a timer
             "next": "next", "pause": "pause", "where it stopped": "play", "up again": "play", "back up one": "previous",
             "paws the": "pause", "paws it": "pause",  # a transcript's "paws the music" (dev15) played "paws"
             # dev12 (session 20): "Play the song before this one again." -> play_music("song before
             # this one again"); "Get the tunes going again where they left off." -> play_music("tunes")
             "before this one": "previous", "the one before": "previous", "going again": "play",
             # dev26 (session 26): "can the music wait for now" skipped the track
             "music wait": "pause", "song wait": "pause", "on hold": "pause", "hold the music": "pause",
             # dev32 (session 28): "Sick of this track." stopped the music
             **dict.fromkeys((f"{tired} this {played}" for tired in ("sick of", "tired of", "fed up with", "fed up of", "bored of")
                              for played in ("song", "track", "tune")), "next")}


#: what any player plays, whatever the tool calls it ("the tunes": dev12)
_PLAYED = ("song", "songs", "track", "tracks", "tune", "tunes", "music")


def names_nothing(tool: Any, arguments: Mapping[str, Any], said: Iterable[str] = ()) -> bool:
    """Are the call's required strings only the tool's own words ("the song", "last song"), or
    those of the player's command ``said`` ("Pick the music back up" -> query "back up")?"""
    required = set((tool.parameters or {}).get("required") or ())
    strings = [v for k, v in arguments.items() if k in required and isinstance(v, str)]
    own = target_words(tool) | {"last", "this", "that", "current", "same"} | {stem(w) for w in (*said, *_PLAYED)}
    return bool(strings) and all(stem(w) in own or w in GENERIC for v in strings for w in WORD.findall(v.lower()))


#: what a player's command may come with ("Skip this one.", "Unpause it, please.")
_PLAYER_GLUE = frozenset("this one it song track tune tunes music please nah no yeah yes actually just".split()) | GLUE | FILLERS \
    | frozenset("can could we hear listen again".split())  # "Can we hear the one before this again?" (dev34)


#: a remark that takes the line back ("hang on, no, nothing, sorry, carry on", dev30: go on talking)
_NEVER_MIND = frozenset("no nah nothing never nevermind sorry forget".split())


#: a word that holds the listener before the player's action
_WAIT_OPENER = re.compile(r"^\W*(?:(?:hang|hold)\s+on|wait|quick)\s*,\s*", re.I)


def transport_plan(request: str, registry: Any) -> tuple[Any, dict[str, Any]] | None:
    """"Skip this one." / "Unpause it." (the model: no call, or ``pause``) -> the player's
    action, when the request says nothing else, or says it in its last piece after a remark
    that orders nothing and names no tool's thing ("ooh that last one was lovely, go back to
    it", dev30), or in its first piece before such a reason ("Next one, this is the remix.")."""
    request = _WAIT_OPENER.sub("", request)  # "Hang on, pause that, the doorbell's going." (dev49)
    found = _transport_said(request, registry)
    head, _, last = request.rpartition(",")
    if found is None and _only_a_remark(head, registry) and not _NEVER_MIND & set(WORD.findall(head.lower())):
        found = _transport_said(last, registry)  # "I hate this song, skip it" names the player's
    first, _, reason = request.partition(",")
    if found is None and _only_a_remark(reason, registry):
        found = _transport_said(first, registry)  # the reason after it: "Go back one, I wanna hear that Lizzo bit again." (dev46)
    return found


def _only_a_remark(text: str, registry: Any) -> bool:
    """Is ``text`` something said beside a player's action: words, no other verb of an order and
    no thing of a tool but what a player plays?"""
    low = text.lower()
    return bool(text.strip()) and not _OTHER_VERBS & _verbs(low) and not (
        {stem(w) for w in WORD.findall(low)} - {stem(w) for w in _PLAYED} & set().union(*(target_words(t) for t in registry)))


def _transport_said(request: str, registry: Any) -> tuple[Any, dict[str, Any]] | None:
    """The player's action ``request`` says with nothing else (``transport_plan``), or None."""
    words = WORD.findall(request.lower().replace("'", ""))
    low = f" {' '.join(words)} "
    said = {phrase: value for phrase, value in TRANSPORT.items() if f" {phrase} " in low}
    if len(set(said.values())) != 1:
        return None
    rest = [w for w in words if w not in _PLAYER_GLUE and not any(w in p.split() for p in said)]
    action = next(iter(said.values()))
    hits = [(t, k) for t in registry for k, sch in properties(t).items() if action in enum_of(sch)]
    return (hits[0][0], {hits[0][1]: action}) if len(hits) == 1 and not rest else None


#: a song said to be tiresome, which wants the next one: "this song's played 4 times today, I'm sick
#: of it", "I'm so tired of this track"
_FED_UP = re.compile(r"\b(?:song|track|tune|one)\b.*\b(?:sick|tired|fed\s+up|bored)\s+(?:of|with)\s+(?:it|this|that)\b"
                     r"|\b(?:sick|tired|fed\s+up|bored)\s+(?:of|with)\s+(?:this|that)\s+(?:song|track|tune|one)\b")


def transport_call(request: str, registry: Any, call: Any) -> tuple[Any, dict[str, Any]] | None:
    """"Carry on playing the song." -> ``play_music("song")`` names nothing to play: the
    player's action the request says instead (``media_control("play")``), or None. A call of
    the player with another action than the one the request says ("Freeze the music." ->
    ``stop``) gets the said one."""
    tool = registry.get(call.name)
    if tool is None or not isinstance(call.arguments, dict) or unserved_devices(without_idioms(request), list(registry)):
        return None  # "Skip the fan." is no player's command (someone at the door is no door)
    low = f" {' '.join(WORD.findall(request.lower()))} "
    phrases = [said for said in TRANSPORT if f" {said} " in low]
    actions = {TRANSPORT[said] for said in phrases}
    if not actions and _FED_UP.search(request.lower()):
        actions = {"next"}  # "This song's played 4 times today, I'm sick of it." (dev42: stopped)
    if len(actions) != 1:
        return None
    (action,) = actions
    for key, schema in properties(tool).items():
        values = [v for v in enum_of(schema) if isinstance(v, str)]
        if action in values and call.arguments.get(key) == action:
            return tool, dict(call.arguments)  # the call the request says in its own words ("move on" -> next)
        if action in values and call.arguments.get(key) is not None \
                and not any(f" {v.lower()} " in low for v in values if v != action):  # "stop ... and go back one"
            return tool, {**call.arguments, key: action}
    if not names_nothing(tool, call.arguments, [*" ".join(phrases).split(), action]):
        return None  # (the action's own name names nothing to play: "go back" -> play_music("previous"), dev47)
    hits = [(t, k) for t in registry if t is not tool for k, sch in properties(t).items() if action in enum_of(sch)]
    return (hits[0][0], {hits[0][1]: action}) if len(hits) == 1 else None


#: "turn the music down a touch", "bring the sound up": the sound's way, not the player's
_SOUND_WAY = re.compile(r"\b(?:turn|bring|knock|put|take|crank|nudge)\s+(?:the\s+|that\s+|this\s+)?"
                        r"(?:music|sound|tunes|song|speakers?)\s+(?:back\s+)?(down|up)\b")


def sound_way_call(request: str, registry: Any, call: Any) -> tuple[Any, dict[str, Any]] | None:
    """"would you turn the music down a touch and pop the bathroom light on?" (dev28) ->
    ``media_control("stop")``: a call of the player (a tool with a "stop" or "pause" enum
    value) when the request says the music's way down or up and no action of the player ->
    the sound's tool, that way."""
    tool = registry.get(call.name)
    m = _SOUND_WAY.search(request.lower())
    if tool is None or m is None or not isinstance(call.arguments, dict):
        return None
    players = [v for sch in properties(tool).values() for v in enum_of(sch) if v in ("stop", "pause")]
    low = f" {' '.join(WORD.findall(request.lower()))} "
    if not players or any(f" {phrase} " in low for phrase in (*TRANSPORT, "stop", "pause", "play")):
        return None
    sound = _tool_for("sound", registry)
    args = arguments_for(sound, 1 if m.group(1) == "up" else -1, request, None) if sound is not None else None
    return (sound, args) if args else None


#: things bought by a name with "and" in it: one item, not two
COMPOUNDS = frozenset({"salt and pepper", "mac and cheese", "fish and chips", "salt and vinegar crisps", "peanut butter and jelly",
                       "sweet and sour sauce", "half and half", "bread and butter pickles"})
#: the note of the hop for the next item (never stored in the session)
ITEM_NOTE = 'Add the next item the user listed: "{item}".'


def list_tool(registry: Any, verbs: str) -> tuple[Any, str] | None:
    """(the one tool whose name opens on one of ``verbs`` ("add", "remove|delete") and that
    is for a list, its one required parameter), or None."""
    found = [t for t in registry if re.match(rf"(?:{verbs})(?:\b|_)", t.name.lower()) and stem("list") in target_words(t)
             and len((t.parameters or {}).get("required") or ()) == 1]
    return (found[0], found[0].parameters["required"][0]) if len(found) == 1 else None


#: the verbs of a part of a request that put a thing on a list, and that take one off
#: ("Get the Vegemite off the list, we've got heaps.", dev21, had added it: "get" then takes off)
_PUTS_ON = re.compile(r"\b(?:add|put|buy|stick|pop|need)\b|\bget\b(?!.*\b(?:off|rid)\b)")
_TAKES_OFF = re.compile(r"\b(?:remove|delete|scratch|cross|strike)\b|\bget\s+rid\b|\b(?:take|knock|rub|get)\b.*\b(?:off|out)\b"
                        r"|\bno_need\b|\balready\s+(?:bought|got)\b")
#: a need said not to be ("they don't need to be on the shopping list anymore", dev26: "need"
#: read as adding), read as one word before the verbs are looked for
_NO_NEED = re.compile(r"\b(?:don't|dont|do\s+not|doesn't|does\s+not|no\s+longer|won't|will\s+not)\s+need\b(?:\s+to\s+(?:buy|get)\b)?")


def list_way_said(request: str, item: str) -> str | None:
    """"add" or "remove": what the one part of ``request`` that says ``item`` does with it
    ("Take apples off the list and add pears." -> apples: "remove"), or None."""
    words = {stem(w) for w in WORD.findall(item.lower())}  # "avocado" of "the 4 avocados" (dev40)
    parts = [p for p in JOIN.split(request.lower()) if words and words <= {stem(w) for w in WORD.findall(p)}]
    if len(parts) != 1:
        return None
    part = _NO_NEED.sub(" no_need ", parts[0])
    puts, takes = bool(_PUTS_ON.search(part)), bool(_TAKES_OFF.search(part))
    return "add" if puts and not takes else "remove" if takes and not puts else None


def list_call_turned(request: str, registry: Any, call: Any) -> tuple[Any, dict[str, Any]] | None:
    """The list call the other way round when the part that says its item does the other thing
    (dev18: "Take apples off the list and add pears." added apples), or None."""
    adder, remover = list_adder(registry), list_tool(registry, "remove|delete")
    if adder is None or remover is None or call.name not in (adder[0].name, remover[0].name):
        return None
    mine, other = (adder, remover) if call.name == adder[0].name else (remover, adder)
    item = call.arguments.get(mine[1]) if isinstance(call.arguments, dict) else None
    way = list_way_said(request, item) if isinstance(item, str) else None
    if way is None or (way == "add") == (mine is adder):
        return None
    return other[0], {other[1]: item}


def list_adder(registry: Any) -> tuple[Any, str] | None:
    """(the one tool that adds an item to a list, its one required parameter), or None."""
    return list_tool(registry, "add")


#: where a request lists what goes on a list: "add X and Y to the list", "shopping list: X and Y"
_LISTED = (re.compile(r"\b(?:add|put|get|buy|stick|pop)\s+(.+?)\s+(?:to|on|onto)\s+(?:the|my|our)\s+(?:\w+\s+)?list\b"),
           # "note down mozzarella and basil for the next shop"
           re.compile(r"\b(?:note\s+down|write\s+down|jot\s+down|add|put\s+down|remember)\s+(.+?)\s+(?:for|on)\s+(?:the|my|our)\s+"
                      r"(?:next\s+|weekly\s+|big\s+)?(?:shop|shopping|groceries|grocery\s+run)\b"),
           # "Shopping list: eggs, milk" -- the list named first, not "... off the shopping list, nobody
           # ate it, and add spinach instead" (dev50: "nobody ate it" went on the list)
           re.compile(r"(?:^|[.!?]\s+)\W*(?:(?:the|my|our)\s+)?(?:(?:shopping|grocery)\s+)?list\s*[:,]\s*(?:add\s+)?(.+?)\s*[.!?]*$"))


#: how much of an item, said before it ("a bag of basmati rice", dev15): not part of its name
_AMOUNT_OF = re.compile(r"^(?:a|an|some|two|three|a\s+couple\s+of)\s+(?:(?:bag|box|packet|pack|tin|can|bottle|jar|loaf|loaves"
                        r"|carton|bunch|tub|pot|punnet|dozen)s?\s+of\s+)?")


def listed_items(request: str, value: Any) -> list[str] | None:
    """"apples and peanut butter" -> ["apples", "peanut butter"]: the items the request lists
    where the call's value is one of them or all ("Put bananas and oat milk on the list." with
    the model's "bananas"), each short (1-3 words); else None."""
    if not isinstance(value, str) or not value.strip():
        return None
    low = request.lower()
    spans = [m.group(1) for rx in _LISTED if (m := rx.search(low))]
    words = set(WORD.findall(value.lower()))
    span = next((sp for sp in spans if words <= set(WORD.findall(sp))), None)
    if span is None:
        said = " ".join(WORD.findall(value.lower()))
        if f" {said} " not in f" {' '.join(WORD.findall(low))} ":
            return None
        span = value.lower()
    span = " ".join(WORD.findall(span)) if "," not in span else span.strip(" .")
    if span in COMPOUNDS:
        return None
    items = [_AMOUNT_OF.sub("", p.strip()) for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", span) if p.strip()]
    items = without_taken_back(items)  # "apples, I mean pears" (dev16): one item, pears
    if len(items) < 2 or any(not 1 <= len(WORD.findall(i)) <= 3 for i in items):
        return None
    return items


#: "Okay, now stop it." (dev36, after the volume of the music: a timer cancelled, named "bossa nova")
_STOP_IT = re.compile(r"^\W*(?:(?:ok|okay|right|alright|and|oh|now)\W+)*(stop|pause)\s+(?:it|that|this)(?:\s+(?:now|please|then))?\W*$")


def stop_it_call(request: str, registry: Any, previous: tuple[str, dict[str, Any]] | None) -> tuple[Any, dict[str, Any]] | None:
    """The player's stop (or pause) for "stop it" right after a call of the player or its
    device (the volume); None after any other call ("stop it" after a timer is the timer's)."""
    m = _STOP_IT.match(request.lower())
    before = registry.get(previous[0]) if m and previous else None
    hits = [(t, k) for t in registry for k, sch in properties(t).items() if m and m.group(1) in enum_of(sch)]
    if before is None or len(hits) != 1 or not (hits[0][0].name == before.name or same_device(hits[0][0], before)):
        return None
    return hits[0][0], {hits[0][1]: m.group(1)}


_LENGTH = r"(?:\d+|[a-z]+(?:[ -][a-z]+)?)\s*(?:minutes?|mins?|hours?|hrs?|seconds?|secs?)"
#: a name and a length and nothing else, either way round: "Pizza, 12 min.", "20 minutes, the
#: roast" (dev42: "pizza" was played)
_NAMED_LENGTH = (re.compile(rf"^\W*(?:the\s+)?([a-z][a-z' -]{{1,24}}?)\s*[,:-]\s*({_LENGTH})\W*$"),
                 re.compile(rf"^\W*({_LENGTH})\s*[,:-]\s*(?:for\s+)?(?:the\s+|my\s+)?([a-z][a-z' -]{{1,24}}?)\W*$"),
                 # a length needed for a thing: "I need eight minutes for these soft-boiled eggs." (dev44: answered in words)
                 re.compile(rf"^\W*(?:i|we)\s+(?:need|want|'d\s+like)\s+(?:a\s+|an\s+)?({_LENGTH})\s+(?:for|on)\s+"
                            rf"(?:the\s+|my\s+|our\s+|these\s+|those\s+|this\s+|that\s+)?([a-z][a-z' -]{{1,30}}?)\W*$"))


def _worked_on(registry: Any) -> set[str]:
    """The stems of what the registry's tools work on: their things and their enum values (a
    name or a title made of none of them is free text of the request's own)."""
    return set().union(*(target_words(t) for t in registry)) | {stem(str(v).lower()) for t in registry
                                                                for sch in properties(t).values() for v in enum_of(sch)}


#: a title put on, said in capitals and nothing else: "Put on 99 Red Balloons." (dev42: the volume
#: went up), "Stick on Abbey Road."
_TITLE_ON = re.compile(r"^\W*(?:(?:please|can\s+you|could\s+you)\s+)?(?i:put|stick|throw|whack|pop|bung)\s+on\s+"
                       r"((?:\d+\s+)?[A-Z][\w'-]*(?:\s+(?:[A-Z][\w'-]*|of|the|in|on|a|and|to|my|\d+))*)\W*$")


def title_call(request: str, registry: Any) -> tuple[Any, dict[str, Any]] | None:
    """The one tool that plays what is named, with a title the request puts on (``_TITLE_ON``),
    when no word of the title is a thing a tool works on, a value of an enum or a device."""
    m = _TITLE_ON.match(request.strip())
    if m is None:
        return None
    title = m.group(1)
    if {stem(w) for w in WORD.findall(title.lower())} & (_worked_on(registry) | {stem(d) for d in DEVICES} | HOME_PLACES):
        return None
    players = [(t, k) for t in registry if {stem("song"), stem("music")} & target_words(t) and changes_things(t)
               for k in (t.parameters or {}).get("required") or () if not enum_of(properties(t).get(k))]
    return (players[0][0], {players[0][1]: title}) if len(players) == 1 else None


def named_length_call(request: str, registry: Any) -> tuple[Any, dict[str, Any]] | None:
    """The one tool that times things, with the name and the length of a line that says only
    those two (``_NAMED_LENGTH``; or says it needs the length for the thing), when the name is no word any tool works on; else None."""
    low = request.lower()
    m = next((m for rx in _NAMED_LENGTH if (m := rx.match(low))), None)
    if m is None:
        return None
    name = m.group(1) if m.re is _NAMED_LENGTH[0] else m.group(2)
    if {stem(w) for w in WORD.findall(name)} & _worked_on(registry) or set(WORD.findall(name)) & (GENERIC | FILLERS):
        return None
    timers = [t for t in registry if time_params(t) and name_param(t)]
    if len(timers) != 1:
        return None
    key = name_param(timers[0])[0]
    args = fix_duration(request, timers[0], {key: name.strip()})
    return (timers[0], args) if args else None


def plan(request: str, registry: Any, previous: tuple[str, dict[str, Any]] | None) -> tuple[Any, dict[str, Any]] | None:
    """(tool, arguments) the request wants (see the module docstring), or None."""
    if asks_nothing(request) or only_tells(request):
        return None  # "Kids, turn that music down!" (dev44): said to someone else; "We left the garage
        # light on for a whole week once ..." (dev56): a story, not the light left on now
    request = unheld(request)  # "Don't go back, go forward a track." (dev55): the player's back was planned
    if bought := list_call(request, registry):
        return bought
    if player := transport_plan(request, registry) or stop_it_call(request, registry, previous):
        return player  # before the devices: dishwasher tablets are bought, not a dishwasher
    # the noise one cannot hear over is not what the request is about ("hear the song over the dishwasher")
    # "I can't hear a thing over the washing machine." (dev16): the noise's name runs to the clause's end
    # or said with "with ... going" ("I can barely hear this song, you know, with the washing machine going.", dev32)
    heard = re.sub(r"\b(hear\b.*?)\s+(?:over|with)\s+(?:the|my|our|all\s+the)\s+[\w' -]+", r"\1", request.lower())
    if unserved_devices(heard, list(registry)):
        return None  # "The fan is too loud.": not ours
    if muted := mute_call(request, registry) or level_call(request, registry) or left_on_call(request, registry) \
            or named_length_call(request, registry) or title_call(request, registry):
        return muted
    want = wanted(request)
    if want is None:
        return None
    quantity, way, complaint = want
    before_tool = registry.get(previous[0]) if previous else None
    if quantity is None:
        tool = before_tool  # "Bit more." is about the action just done
    else:
        tool = _tool_for(quantity, registry)
    if tool is None:
        return None
    before = previous[1] if previous and before_tool is tool else None
    args = arguments_for(tool, way, request, before, complaint=complaint)
    return (tool, args) if args is not None else None


class Wants(Hook):
    """Makes the call a complaint, a comparative, a bare "more", "mute" or "out of X" wants
    (see the module docstring): the first hop is forced to the tool and the hook writes the
    arguments. A list call of several items ("apples and peanut butter") adds the first, and
    one more hop per item adds the next (``TurnContext.more``)."""

    name = "wants"
    priority = 3  # with follow_up, before the relevance gate and grounding: the turn's tool is decided here

    def before_llm(self, ctx: TurnContext, request: Any) -> HookResult | None:
        st = ctx.state(self)
        if st.get("items") and request.tools and ITEM_NOTE.format(item=st["items"][0][2]) in request.notes:
            tool, key, item = st["items"].pop(0)
            st["call"] = (tool, {key: item})
            return HookResult.replace(dataclasses.replace(request, strategy=("single", tool), notes=[]),
                                      reason=f"the next item: {item}", counted=False)
        if ctx.hop != 0 or not request.tools or not isinstance(request.strategy, str) or request.strategy == "none":
            return None  # a later hop, no tools, or a hop another hook has already forced
        planned = plan(ctx.text, ctx.registry, previous_call(getattr(ctx.session, "messages", []), ctx.text))
        if planned is None:
            return None
        tool, args = planned
        st["call"] = (tool.name, args)
        planned_calls.plan(ctx, tool.name)
        return HookResult.replace(dataclasses.replace(request, strategy=("single", tool.name)),
                                  reason=f"{tool.name} with {args}")

    def before_tool(self, ctx: TurnContext, call: Any) -> HookResult | None:
        planned = ctx.state(self).pop("call", None)
        if planned is not None and planned[0] == call.name:
            call = dataclasses.replace(call, arguments=dict(planned[1]))
            return self._one_item(ctx, call) or HookResult.replace(call, counted=False)
        if ctx.successes():
            return None
        if (turned := list_call_turned(ctx.text, ctx.registry, call)) is not None:
            tool, args = turned
            planned_calls.plan(ctx, tool.name)
            return HookResult.replace(dataclasses.replace(call, name=tool.name, arguments=args),
                                      reason=f"the list's other way said: {tool.name} with {args}")
        if (instead := transport_call(ctx.text, ctx.registry, call) or sound_way_call(ctx.text, ctx.registry, call)) is not None:
            tool, args = instead
            planned_calls.plan(ctx, tool.name)
            return HookResult.replace(dataclasses.replace(call, name=tool.name, arguments=args),
                                      reason=f"the player's command said: {tool.name} with {args}")
        return self._one_item(ctx, call)

    def _one_item(self, ctx: TurnContext, call: Any) -> HookResult | None:
        """The call with the first of the items it lists (the others wait for their hops), or
        None when it lists one."""
        adder = list_adder(ctx.registry)
        if adder is None or adder[0].name != call.name or not isinstance(call.arguments, dict):
            return None
        items = listed_items(ctx.text, call.arguments.get(adder[1]))
        if ctx.successes() or not items:
            return None
        ctx.state(self)["items"] = [(call.name, adder[1], item) for item in items[1:]]
        return HookResult.replace(dataclasses.replace(call, arguments={**call.arguments, adder[1]: items[0]}),
                                  reason=f"{len(items)} items, one call each")

    def after_tool(self, ctx: TurnContext, result: Any) -> HookResult | None:
        items = ctx.state(self).get("items")
        if items and getattr(result, "ok", False):
            ctx.more = ITEM_NOTE.format(item=items[0][2])
        return None
