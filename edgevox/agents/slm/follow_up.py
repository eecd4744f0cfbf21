"""Follow-ups: "And the dining room too." right after a light call is that call again, for
the dining room.

Measured on the home evaluation's tuning splits with Qwen2.5-Coder-0.5B: a line that names
only a new place after an action ("And the office.", "Same for the hallway.", "Do the
bedroom as well.") went to the weather (blocked, the turn missed) in 6 of 7 cases. The
sentence alone says nothing of a tool; what it means is in the turn before. So when the
previous turn's last call succeeded and the new request says nothing but one value of one
of that tool's enum parameters (a room) and glue words ("and", "too", "same for", "as
well", "what about"), the call is made again with that value and its other arguments
kept (the brightness of "Same for the hallway."); the same for a new name said alone after a
call that held one ("And in Rome?" after the weather in Madrid). The model's hop is forced to that tool,
and the hook writes the arguments. Anything else in the request ("Turn off the kitchen
too.", "Make it warmer.") leaves the turn to the model.

Everything comes from the registry (the tool's enum values) and the session; the glue
words are generic English, written here.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.slm.amounts import (
    DOWN_WORDS,
    NUMBER_WORDS,
    TENS,
    TOKEN,
    UP_WORDS,
    fix_duration,
    spoken_numbers,
    value_range,
)
from edgevox.agents.slm.parts import ASIDE, sentences_of, without_asides
from edgevox.agents.slm.planned import plan
from edgevox.agents.slm.vocabulary import (
    FILLERS,
    GENERIC,
    HOME_PLACES,
    PLACE_KEYS,
    TIME_NAMES,
    WORD,
    enum_of,
    is_number,
    is_remark,
    properties,
    stem,
    target_words,
    undoes,
)

#: words that carry no request of their own in a follow-up ("and the office too", "what about ...")
GLUE = frozenset("""
and too also same as well for what how about do does the a an then instead please now with in at of
to my our one ones that there here oh ok okay again while you re are it
""".split())


def previous_call(messages: list[dict[str, Any]], text: str, *, refused: bool = False) -> tuple[str, dict[str, Any]] | None:
    """The last call of the turn before this one, when it succeeded: ``(name, arguments)``.
    With ``refused``, also when the tool itself ran and refused ("'3 onions' is not on the
    shopping list": "And the 2 peppers too." still means the remover, dev42)."""
    msgs = list(messages)
    if msgs and msgs[-1].get("role") == "user" and msgs[-1].get("content") == text:
        msgs = msgs[:-1]  # this turn's own message
    results: dict[str, bool] = {}
    for m in reversed(msgs):
        role = m.get("role")
        if role == "user":
            return None  # the previous turn made no call
        if role == "tool":
            content = str(m.get("content") or "")
            results[str(m.get("tool_call_id"))] = '"error"' not in content[:12] or (refused and '"error_type":"exception"' in content)
        elif role == "assistant" and m.get("tool_calls"):
            last = m["tool_calls"][-1]
            fn = last.get("function") or {}
            if not results.get(str(last.get("id"))):
                return None
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except ValueError:
                return None
            return (fn.get("name"), args) if isinstance(fn.get("name"), str) and isinstance(args, dict) else None
    return None


#: words that take the call before back ("No, the office.", dev24, after the bedroom's light)
_TAKING_BACK = frozenset("no nah nope actually sorry wait oops i meant mean rather instead".split())


def retarget(text: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """``arguments`` with one enum parameter set to the value ``text`` names, when that value
    and glue words (or words taking the call back) are all the text says (and the value is a
    new one); else None."""
    words = WORD.findall(text.lower())
    said = f" {' '.join(words)} "
    hits = [(key, value) for key, schema in properties(tool).items() for value in enum_of(schema)
            if isinstance(value, str) and value.strip() and f" {value.lower()} " in said]
    if len({key for key, _ in hits}) != 1:
        return None  # no value, or values of two parameters: not a plain re-target
    key, value = max(hits, key=lambda kv: len(kv[1]))
    rest = [w for w in words if w not in GLUE and w not in _TAKING_BACK and w not in WORD.findall(value.lower())]
    if rest or arguments.get(key) == value:
        return None
    return {**arguments, key: value}


#: "And in Rome?", "What about Lisbon?", "How about for New York?", "And over in Zagreb?" (dev21):
#: a new name, nothing else
#: words said capitalised after "No," or "Sorry," that name nothing ("No, Thanks.")
_NOT_NAMES = frozenset("thanks thank okay ok please nothing yes yeah yep never cheers fine good great forget leave ta abeg kindly".split())
#: or a name said instead ("sorry, Melbourne", dev26; "No, I said Tracy Chapman.", dev44), the
#: openers piled up or not ("No, sorry, Bloc Party, not Blur.", dev49)
_NEW_NAME = re.compile(r"^\W*(?i:and|what about|how about|and what about|and how about|(?:(?:sorry|no|nah|oops|actually|i meant)\W*)+(?:i meant|i said)?)"
                       r"\s+(?i:(?:over|out|up|down)\s+)?(?i:in\s+|for\s+|at\s+)?"
                       r"([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2})"
                       # which one, said after it ("No, I said The Kills, the other band.", dev46)
                       r"(?:\s*,\s*(?i:the\s+other\s+(?:one|band|group|artist|singer|city|place|town)))?\s*[?.!]*\s*$")


#: the same in a transcript written all in lower case ("and new york too", "no the rolling stones",
#: dev38): after "and"/"what about" or a word taking the call back then "the" or "I meant/said"
_NEW_NAME_HEARD = re.compile(r"^\W*(?:(and|what\s+about|how\s+about|and\s+what\s+about|and\s+how\s+about)"
                             r"|(?:sorry|no|nah|oops|actually)\W+(?:i\s+(?:meant|said)\s+|the\s+))"
                             r"\s*(?:(?:over|out|up|down)\s+)?(?:in\s+|for\s+|at\s+)?"
                             r"([a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)(\s+(?:too|as\s+well|also))?\s*[?.!]*\s*$")
#: words no name said alone is made of ("and the other one too", "what about tomorrow", "and goodnight";
#: "and louder too" after the music, dev38, had played "louder")
_NOT_IN_NAMES = GENERIC | HOME_PLACES | TIME_NAMES | _NOT_NAMES | UP_WORDS | DOWN_WORDS | frozenset(
    "darker quiet loud pause stop skip resume mute unmute again light lights lamp lamps heating heat volume music timer "
    "other same last first next previous tomorrow today tonight morning afternoon evening night weekend week later "
    "goodnight goodbye bye hello hi".split())


#: a follow-up that opens as a correction ("No, ...", "Sorry, ...")
_CORRECTION_OPENS = re.compile(r"^\W*(?:sorry|no|nah|oops|actually|i\s+meant)\b", re.I)


def retarget_name(text: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """``arguments`` with the one string argument that held a name ("Madrid", or any place:
    the model wrote "prague" for "Prague, what's the weather doing there?", dev11) set to the
    new name ``text`` says ("And in Rome?"), or None. In a transcript with no capitals the
    name is any free text the call held ("the beetles" -> "no the rolling stones"), and its
    words must be none that a name is not made of."""
    heard = text == text.lower()
    m = (_NEW_NAME_HEARD if heard else _NEW_NAME).match(text)
    name = m and (m.group(2) if heard else m.group(1))
    if not name or name.split()[0].lower() in TIME_NAMES | _NOT_NAMES or heard and set(name.split()) & _NOT_IN_NAMES:
        return None
    # heard: any free text after a taking back or with "too"; a bare "and X" only for a place
    any_text = heard and (not m.group(1) or bool(m.group(3)))
    # a correction ("No, sorry, Bloc Party") re-targets any free text: the model may have written the
    # name before in lower case ("blur", dev49); a bare "And in Rome?" only a name or a place
    corrected = _CORRECTION_OPENS.match(text) is not None
    names = [k for k, v in arguments.items() if isinstance(v, str) and (v[:1].isupper() or k.lower() in PLACE_KEYS or any_text or corrected)
             and k in properties(tool) and not enum_of(properties(tool)[k])]
    if len(names) != 1 or arguments[names[0]] == name:
        return None
    return {**arguments, names[0]: name}


#: one more item for the list call before: "And the 2 peppers too." (dev42: the model said the
#: peppers were not on the list, and called nothing), "Oh, and some bread as well."
_ONE_MORE = re.compile(r"^\W*(?:(?:oh|ah|um|uh|right|ok|okay)\W+)*(?:and|plus|also)\s+(?:the\s+|some\s+|a\s+|an\s+)?"
                       r"([a-z0-9][\w' -]*?)(?:\s+(?:too|as\s+well|also))?\s*[?.!]*\s*$", re.I)


def retarget_item(text: str, tool: Any, arguments: Mapping[str, Any], registry: Any = ()) -> dict[str, Any] | None:
    """``arguments`` with the item ``text`` adds after "and" (``_ONE_MORE``), for a tool that
    takes one free-text value and nothing else (a list's), when the item is no word of a
    place, a time, or the thing of another tool of ``registry`` ("and the weather too"); else None."""
    props = properties(tool)
    m = _ONE_MORE.match(text)
    if m is None or len(props) != 1 or not isinstance(arguments.get(key := next(iter(props))), str) or enum_of(props[key]):
        return None
    item = m.group(1).strip()
    words = set(WORD.findall(item.lower())) - {"of", "dozen", "couple", *NUMBER_WORDS}  # "two tubs of cream cheese"
    others = set().union(*(target_words(t) for t in registry if t.name != tool.name))
    if not words or words & _NOT_IN_NAMES or {stem(w) for w in words} & others or item.lower() == arguments[key].strip().lower():
        return None
    return {**arguments, key: item}


#: what a bare new number may come with ("Nah, twenty two.", "Make that 70 instead.")
_NUMBER_GLUE = GLUE | FILLERS | frozenset("""
nah no nope actually make that it instead rather sorry wait change degrees degree percent oops i meant mean said
""".split())


def retarget_number(text: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """``arguments`` with the one number the previous call set (a temperature, a timer's
    minutes) changed to the one number ``text`` says with nothing else ("Nah, twenty two."
    after the thermostat at 20; "No, 17, I said 17.", dev42: the same number said twice), or None."""
    numbers = list(dict.fromkeys(spoken_numbers(text)))
    props = properties(tool)
    held = [k for k, v in arguments.items()
            if k in props and is_number(v) and v]
    if len(numbers) != 1 or len(held) != 1:
        return None
    key = held[0]
    unit = {key.lower(), key.lower().rstrip("s")}  # "Make that 50 minutes." after minutes=40
    words = TOKEN.findall(text.lower().replace("-", " "))
    rest = [w for w in words if not w[0].isdigit() and w not in NUMBER_WORDS and w not in TENS
            and w not in _NUMBER_GLUE and w.rstrip("s") not in unit]
    new = int(numbers[0]) if float(numbers[0]).is_integer() else numbers[0]
    return None if rest or arguments[key] == new else {**arguments, key: new}


#: what a bare new length may come with ("Hang on, make it an hour and twenty.", dev24)
_LENGTH_GLUE = _NUMBER_GLUE | frozenset("""
hang hold on half quarter hour hours hr hrs minute minutes min mins second seconds sec secs
""".split())


def retarget_length(text: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """``arguments`` with the length of a timed call changed to the one length ``text`` says
    with nothing else ("Hang on, make it an hour and twenty." after a timer of an hour: two
    of its numbers, so not ``retarget_number``'s), or None."""
    words = TOKEN.findall(text.lower().replace("-", " "))
    if any(not w[0].isdigit() and w not in NUMBER_WORDS and w not in TENS and w not in _LENGTH_GLUE for w in words):
        return None
    return fix_duration(text, tool, arguments)


#: the words of a move by a step after a setting ("Up two degrees.", "drop it by three", "Knock it
#: down two degrees."): a way, its verbs, and the step's unit
_STEP_UP = UP_WORDS | frozenset({"raise", "increase"})
_STEP_DOWN = DOWN_WORDS | frozenset({"drop", "reduce", "decrease"})
_STEP_GLUE = _NUMBER_GLUE | _STEP_UP | _STEP_DOWN | frozenset("""
by knock bump turn put take bring go on nudge push notch notches points point just another
""".split())


def retarget_step(text: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """``arguments`` with the one number the previous call set moved by the one step ``text``
    says with its way and nothing else ("Up two degrees." after the thermostat at 19 -> 21;
    "drop it by three" after 70 Fahrenheit -> 67), or None. The model read these alone and
    reached for another tool (dev12, dev13: 3 of 3 missed). A remark before it on how the room
    feels ("Hmm, still chilly. Bump that up two more.", dev15) is no other order."""
    sentences = [p for p in re.split(r"(?<=[.!?])\s+", text.strip()) if p]
    if len(sentences) > 1 and all(is_remark(p) for p in sentences[:-1]):
        text = sentences[-1]
    numbers = spoken_numbers(text)
    words = TOKEN.findall(text.lower().replace("-", " "))
    up, down = bool(set(words) & _STEP_UP), bool(set(words) & _STEP_DOWN)
    held = [k for k, v in arguments.items() if k in properties(tool) and is_number(v) and v]
    if len(numbers) != 1 or len(held) != 1 or up == down:
        return None
    if [w for w in words if not w[0].isdigit() and w not in NUMBER_WORDS and w not in TENS and w not in _STEP_GLUE]:
        return None
    key = held[0]
    value = float(arguments[key]) + (numbers[0] if up else -numbers[0])
    bounds = value_range(properties(tool)[key])
    if bounds and not bounds[0] <= value <= bounds[1]:
        return None
    return {**arguments, key: int(value) if value.is_integer() else value}


#: "Right, go on.", "Carry on." after a pause (dev24): what was paused, going again
_RESUME = re.compile(r"^\W*(?:(?:right|alright|all\s+right|ok|okay|oh|um|uh|yeah|yep|good|fine|cool|great|thanks|cheers)\W+)*"
                     r"(?:go\s+on|carry\s+on|continue|resume|keep\s+(?:going|playing)|unpause|play\s+on|back\s+on|start\s+(?:it\s+)?again)"
                     r"(?:\W+(?:then|now|please|again))*\W*$")
_PAUSED = frozenset({"pause", "paused", "stop"})
_GOING = ("play", "resume", "unpause", "continue")


def retarget_resume(text: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """``arguments`` with the enum value that paused (``action="pause"``) set to the one that
    goes on (``"play"``, ``"resume"``) when ``text`` only says to go on, or None."""
    if not _RESUME.match(text.lower()):
        return None
    for key, schema in properties(tool).items():
        values = [str(v) for v in enum_of(schema) if isinstance(v, str)]
        if str(arguments.get(key, "")).lower() in _PAUSED and (going := [v for v in values if v.lower() in _GOING]):
            return {**arguments, key: going[0]}
    return None


#: "Actually, scrap it.", "Cancel that.": the call just made, undone
_UNDO = re.compile(r"^\W*(?:(?:actually|no|nah|oh|wait|hmm|um|uh|sorry|ok|okay|on\s+second\s+thought)\W+)*"
                   r"(?:(?:scrap|cancel|kill|delete|drop|ditch|bin|undo|forget|get\s+rid\s+of)\s+(?:it|that|this)(?:\s+one)?"
                   # "Actually take that off again." after an item added (dev21)
                   r"|(?:take|cross|strike|knock|scratch)\s+(?:it|that|this)(?:\s+one)?\s+(?:back\s+)?off(?:\s+(?:the|my|our)\s+list)?)"
                   # "Actually scrap it, they're done already." (dev13): why, said after
                   r"(?:\W+(?:they|it|that|we|i)(?:'re|'s|'ve|'m|\s+are|\s+is|\s+was|\s+were|\s+have)\s+"
                   r"(?:done|ready|finished|cooked|sorted|out|fine|over)(?:\s+(?:already|now|early))?)?"
                   r"(?:\W+(?:again|actually|then|please|now|after\s+all|i(?:'ve)?\s+changed\s+my\s+mind|never\s+mind))*\W*$")


def undo(text: str, registry: Any, tool: Any, arguments: Mapping[str, Any]) -> tuple[Any, dict[str, Any]] | None:
    """(tool, arguments) that undo the previous call when ``text`` only says to scrap it
    ("Actually, scrap it." after ``start_timer(label="pasta")`` -> ``cancel_timer(label="pasta")``):
    the one other tool of the same thing whose name starts with cancel/remove/delete, given the
    previous call's values of the parameters they share; None otherwise."""
    if not _UNDO.match(text.lower()):
        return None
    return undoing_call(registry, tool, arguments)


def undoing_call(registry: Any, tool: Any, arguments: Mapping[str, Any]) -> tuple[Any, dict[str, Any]] | None:
    """(the one registry tool that undoes ``tool``, ``arguments``' values of the parameters
    they share), or None when no tool or several do."""
    undoers = [t for t in registry if undoes(t, tool)]
    if len(undoers) != 1:
        return None
    undoer = undoers[0]
    return undoer, {k: v for k, v in arguments.items() if k in properties(undoer)}


#: "Wait, not apples, pears.", "No, not the pasta, the rice.": the previous call's thing swapped
_NOT_THAT = r"^\W*(?:(?:wait|no|nah|sorry|actually|oh|oops)\W+)*not\s+(?:the\s+|my\s+)?{old}\W+(?:i\s+(?:meant|said)\s+|it's\s+|the\s+)?(.+?)\W*$"
#: words that say a follow-up corrects the call before rather than adds to it ("Make that 8 minutes.")
_CORRECTS = re.compile(r"\b(?:make\s+(?:that|it)|change\s+(?:that|it)|no|nah|not|actually|instead|i\s+meant|sorry|rather"
                       r"|oops|whoops|my\s+bad|i\s+said)\b")  # "Oops, 20 minutes, not 2 hours." (dev34), "Wait, I said 7 minutes." (dev36)
#: ", not fifty" closing a line: what it says before corrects the call ("Wait, fifteen, not fifty.",
#: dev47), though ``core_of`` reads it without that tail
_NOT_THE_OLD = re.compile(r",\s*not\s+(?:the\s+)?[\w' -]+?\W*$", re.I)
#: the one-off note of the hop that makes the corrected call after the undo
REDO_NOTE = "Now call {tool} again, as the user just corrected it."  # not "Call ...": the remainder's notes


#: "Oops, I meant pears, 6 pears." (dev40): the thing meant, said alone (up to a comma)
_MEANT = re.compile(r"^\W*(?:(?:oops|whoops|sorry|no|nah|actually|wait)\W+)*i\s+meant\s+(?:the\s+|some\s+)?"
                    r"([a-z][a-z' -]*?)\s*(?:,.*)?[.!?]*$")
#: what a thing meant is never: a number, a length, a word that names nothing
_NOT_A_THING = GENERIC | frozenset(NUMBER_WORDS) | frozenset(TENS) | frozenset(
    "hour hours minute minutes second seconds degrees percent".split())


def retarget_thing(text: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """``arguments`` with the one free-text argument the text takes back set to the one it
    says instead ("Wait, not apples, pears." after adding apples -> pears; "Oops, I meant
    pears." -> pears), or None."""
    free = [key for key, value in arguments.items() if isinstance(value, str) and value.strip()
            and key in properties(tool) and not enum_of(properties(tool)[key])]
    for key in free:
        m = re.match(_NOT_THAT.format(old=re.escape(arguments[key].lower())), text.lower())
        if m and 0 < len(m.group(1).split()) <= 3 and m.group(1) != arguments[key].lower():
            return {**arguments, key: m.group(1)}
    meant = _MEANT.match(text.lower())
    if len(free) == 1 and meant and 0 < len(words := meant.group(1).split()) <= 3 and not set(words) & _NOT_A_THING \
            and meant.group(1) != arguments[free[0]].lower():
        return {**arguments, free[0]: meant.group(1)}
    return None


def corrects(text: str, args: Mapping[str, Any] | None, thing: Mapping[str, Any] | None) -> bool:
    """Does the follow-up ``text`` correct the call before (so a thing it made is undone
    first) rather than add another like it ("And bread." after milk)?"""
    return thing is not None or (args is not None and bool(_CORRECTS.search(text.lower())))


#: what wraps a follow-up without changing it: a sound, an apology, "would you", a word for the listener
_OPENING = re.compile(r"^\W*(?:(?:oh|ah|um|uh|well)\W+)*(?:(?:i'm|i\s+am)\s+(?:so\s+|very\s+|terribly\s+)?(?=sorry\b))?", re.I)
_ASKING = re.compile(r"^(?:(?:would|could|can|will)\s+you\s+(?:please\s+)?)", re.I)
#: (and the thanks and pleas of other Englishes: "and the kitchen as well, ta", "make it 35 abeg", dev32)
_CLOSING = re.compile(r"(?:\s*,\s*(?:dear|love|thanks|mate|sweetheart|darling|pet)|\s*,?\s*\b(?:please|pls|ta|cheers|abeg))\W*$", re.I)


def core_of(text: str, arguments: Mapping[str, Any]) -> str:
    """The follow-up ``text`` without what wraps it: the sentences after it that tell of
    someone, a sound or an apology before it, "would you", a word for the listener after it,
    ", not <the value before>" after the new one, and the previous call's own value said
    again as "it" ("Oh, would you take the bananas back off, dear? My grandson ..." -> "take
    it back off"; "Oh, I'm so sorry, I meant Dubai, not Dublin. My son's ..." -> "sorry, I
    meant Dubai", dev28), and the pieces after its last comma that tell of someone or say what
    is not meant ("no, make that 18, it's brown rice"; "sorry, Dublin Ohio, not Ireland, my
    cousin lives there", dev30)."""
    sentences = sentences_of(text)
    core = sentences[0] if len(sentences) > 1 and all(ASIDE.match(s) for s in sentences[1:]) else text
    core = _ASKING.sub("", _OPENING.sub("", core.strip()))
    core = _CLOSING.sub("", core.rstrip(" ?.!"))
    core = without_asides(core)  # "..., it's brown rice", "..., my cousin lives there", "..., not Ireland" (dev30)
    for value in (v for v in arguments.values() if isinstance(v, str) and v.strip()):
        core = re.sub(rf",?\s+not\s+(?:the\s+)?{re.escape(value)}\W*$", "", core, flags=re.I)
        core = re.sub(rf"\b(?i:(?:the\s+|those\s+|my\s+)?{re.escape(value)})\b(?!\s+[A-Z])", "it", core)  # not "Dublin Ohio"
    return core.strip()


class FollowUp(Hook):
    """Re-targets the previous turn's call when the request names only a new value for it
    (see the module docstring)."""

    name = "follow_up"
    priority = 3  # before the relevance gate and grounding: the turn's tool is decided here

    def before_llm(self, ctx: TurnContext, request: Any) -> HookResult | None:
        st = ctx.state(self)
        if ctx.hop > 0 and (redo := st.pop("redo", None)) and request.tools and REDO_NOTE.format(tool=redo[0]) in request.notes:
            st["call"] = redo  # the corrected call, after the undo of the one it replaces
            return HookResult.replace(dataclasses.replace(request, strategy=("single", redo[0]), notes=[]),
                                      reason=f"{redo[0]} redone with {redo[1]}", counted=False)
        if ctx.hop != 0 or not request.tools:
            return None
        messages = getattr(ctx.session, "messages", [])
        done = previous_call(messages, ctx.text)
        prev = done or previous_call(messages, ctx.text, refused=True)  # a refused call is re-targeted, never undone
        tool = ctx.registry.get(prev[0]) if prev else None
        if tool is None:
            return None
        text = ctx.text
        thing, number, resumed, args = self._retargets(text, tool, prev[1], ctx.registry)
        undone = undo(text, ctx.registry, tool, prev[1]) if args is None and done else None
        if args is None and undone is None and (core := core_of(text, prev[1])) != text:
            text = core  # the follow-up inside what wraps it
            thing, number, resumed, args = self._retargets(text, tool, prev[1], ctx.registry)
            undone = undo(text, ctx.registry, tool, prev[1]) if args is None and done else None
        if args is not None and done and (corrects(text, number, thing) or (number and _NOT_THE_OLD.search(ctx.text))) \
                and (undoer := undoing_call(ctx.registry, tool, prev[1])):
            # a timer or an item made before and corrected now ("Make that 8 minutes.", dev19):
            # undone first, then made again as corrected (not a second timer beside the first)
            st["then"] = (tool.name, args)
            plan(ctx, tool.name)
            tool, args = undoer
            plan(ctx, tool.name)
        elif undone is not None:
            tool, args = undone
        elif args is not None and args is resumed:
            plan(ctx, tool.name)  # "Right, go on." names nothing of the player: grounded by the pause before
        if args is None:
            return None
        st["call"] = (tool.name, args)
        return HookResult.replace(dataclasses.replace(request, strategy=("single", tool.name)),
                                  reason=f"{tool.name} again with {args}")

    @staticmethod
    def _retargets(text: str, tool: Any, arguments: Mapping[str, Any], registry: Any) -> tuple[Any, Any, Any, Any]:
        """``(thing, number, resumed, args)``: what ``text`` swaps in the call before, each way."""
        thing = retarget_thing(text, tool, arguments)
        number = retarget_number(text, tool, arguments) or retarget_length(text, tool, arguments)
        resumed = retarget_resume(text, tool, arguments)
        args = (retarget(text, tool, arguments) or retarget_name(text, tool, arguments) or retarget_item(text, tool, arguments, registry)
                or thing or number or retarget_step(text, tool, arguments) or resumed)
        return thing, number, resumed, args

    def after_tool(self, ctx: TurnContext, result: Any) -> HookResult | None:
        st = ctx.state(self)
        then = st.pop("then", None)
        if then is not None and ctx.hops_left > 0:
            st["redo"] = then
            ctx.more = REDO_NOTE.format(tool=then[0])
        return None

    def before_tool(self, ctx: TurnContext, call: Any) -> HookResult | None:
        planned = ctx.state(self).pop("call", None)
        if planned is None or planned[0] != call.name:
            return None
        return HookResult.replace(dataclasses.replace(call, arguments=dict(planned[1])), counted=False)
