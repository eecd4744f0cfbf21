"""Names said in the request: "a pasta timer", "8 minutes for the tea" -> ``label="pasta"``.

Measured on the home evaluation's dev split with Qwen2.5-Coder-0.5B: the model starts the
right timer and leaves its name at the schema's default ("timer") although the request
names it. Only a tool that makes or changes something (``start_timer``, not
``search_books(title=)``) names what it makes. A tool's *name parameter* is a string parameter called ``label``, ``name``,
``title`` or ``tag``, or one its description calls "a name" (read from the schema). When
the call leaves it at its default, empty, at the tool's own target word or at a filler a
transcript starts with ("uh timer six minutes for the noodles" -> "uh"), and the request
says a name in one of two English ways -- right before the tool's target word ("an egg
timer"), after "called"/"named" ("a timer called laundry"), after "for the/my" closing a
clause ("... for the roast." / "for the roast, one hour twenty" / "for the dough to prove,"),
as the thing that takes the time ("The fish wants eight minutes, ..."), or alone (or with one
more word) before a comma that opens the rest of the request naming the thing ("Cookies,
twelve minute timer.", "Lamb shoulder, four and a half hours, timer please.") --
that word is the name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from edgevox.agents.slm.amounts import NUMBER_WORDS, SECONDS, TENS
from edgevox.agents.slm.vocabulary import (
    FILLERS,
    GENERIC,
    HOME_PLACES,
    PLACE_KEYS,
    TIME_NAMES,
    WORD,
    changes_things,
    enum_of,
    heard_words,
    one_edit_apart,
    properties,
    stem,
    target_words,
)

_NAMES = frozenset({"label", "name", "title", "tag"})
#: words before a target word that describe it rather than name it
_NOT_NAMES = frozenset({"quick", "short", "long", "new", "another", "second", "other", "first", "next", "last",
                        "same", "simple", "little", "big", "countdown", "minutes", "hours", "seconds", "min",
                        "half", "quarter"})  # "An hour and a half timer for the bread" (dev34: named "half")
#: "for the dough to prove,", "for the scones on the timer.", "for the shepherd's pie.", "for the
#: slow cooker." (a name of two words, dev13)
_FOR = re.compile(r"\bfor\s+(?:the|my|our)\s+([a-z]+(?:\s+[a-z]+)?)(?:'s\s+[a-z]+|\s+to\s+[a-z]+|\s+(?:on|in)\s+(?:the|my|our)\s+[a-z]+)?"
                  r"\s*(?:[.!?,;:]|$)")
#: "The fish wants eight minutes, time it.": the thing that takes the time opens the request
_SUBJECT = re.compile(r"^\W*(?:the|my|our)\s+([a-z]+)\s+(?:wants|needs|takes|gets|has|will\s+take|should\s+have)\b")
#: "a timer called laundry", "named pasta"
_CALLED = re.compile(r"\b(?:called|named|labell?ed)\s+(?:the\s+)?([a-z]+)")
#: "Cookies, twelve minute timer.": one word said before a comma, the rest naming the thing
_HEAD = re.compile(r"^\s*([a-z]+)(?:\s+[a-z]+)?\s*,\s*(.+)$")  # "Lamb shoulder, four and a half hours, timer please."


def name_param(tool: Any) -> tuple[str, Any] | None:
    for key, schema in properties(tool).items():
        if not isinstance(schema, Mapping) or schema.get("type") != "string" or schema.get("enum"):
            continue
        if key.lower() in _NAMES or str(schema.get("description") or "").lower().startswith("a name"):
            return key, schema.get("default")
    return None


def said_name(request: str, tool: Any) -> str | None:
    """The name the request gives the thing the tool makes, or None."""
    low = request.lower().replace("-", " ")
    targets = _things(tool)
    words = re.findall(r"[a-z]+|\d+", low)
    for before, word in zip(words, words[1:], strict=False):
        if stem(word) in targets and before.isalpha() and _nameable(before, targets):
            return before
    for m in (_CALLED.search(low), _FOR.search(low), _SUBJECT.search(low)):
        if m and all(_nameable(w, targets) for w in m.group(1).split()):
            return m.group(1)
    m = _HEAD.match(low)
    if m and _nameable(m.group(1), targets) and {stem(w) for w in re.findall(r"[a-z]+", m.group(2))} & targets:
        return m.group(1)
    return None


def _things(tool: Any) -> set[str]:
    """The tool's target words less time units ("twenty *minutes*" names nothing)."""
    return target_words(tool) - {stem(u) for unit in SECONDS for u in (unit, unit + "s")}


def _nameable(word: str, targets: set[str]) -> bool:
    return (word not in GENERIC and word not in _NOT_NAMES and word not in FILLERS and word.rstrip("s") not in SECONDS
            and stem(word) not in targets)


def fix_label(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments with the name the request says, or None when the call names it already
    (or the request gives none)."""
    param = name_param(tool)
    if param is None or not changes_things(tool):
        return None  # a tool that looks up ("search_books(title=)") names nothing it makes
    key, default = param
    held = arguments.get(key)
    # a length is no name where the tool takes the length itself (not cancel_timer's "the 10
    # minute timer", which names the timer by its length)
    timed = any(k.rstrip("s") in SECONDS for k in properties(tool))
    unnamed = isinstance(held, str) and _names_nothing(held, lengths=timed)
    if held not in (None, "", default) and not unnamed and not (isinstance(held, str)
                                                                and stem(held.lower()) in target_words(tool)):
        return None  # the model gave a name of its own: keep it
    name = said_name(request, tool)
    if name:
        return {**arguments, key: name}
    # a filler, a word that takes something back or a length is no name ("Set a timer for 10,
    # no, 15 minutes." -> label "no", dev19): the default
    return {**arguments, key: default} if unnamed and key in properties(tool) else None


#: the words a length is said in besides its unit ("twenty five", "an hour and a half")
_LENGTH_WORDS = frozenset(NUMBER_WORDS) | frozenset(TENS) | {"and", "a", "an", "half"}
#: words that take back what was said: never a name
_TAKING_BACK = frozenset("no nah nope wait sorry actually oops".split())


def _names_nothing(value: str, *, lengths: bool) -> bool:
    """Is ``value`` only fillers or words that take something back, or (with ``lengths``) a
    length or a piece of one ("15 minutes", "half")?"""
    words = re.findall(r"[a-z]+|\d+", value.lower())
    return bool(words) and (all(w in FILLERS or w in _TAKING_BACK for w in words)
                            or lengths and all(w.isdigit() or w in _LENGTH_WORDS or w.rstrip("s") in SECONDS for w in words))


def fix_respelt_name(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments with a one-word name the model spelt its own way put back as the request
    says it: "Weather, Lisbon." -> ``location="Lisboa"`` (dev12: the weather of a place not
    asked for). Only where the name is not said, is five letters or more, and exactly one word
    of the request, a proper name (capitalised), is one letter changed from it (never one added
    or dropped, nor a common word: "German" for "Germany", "sculpture" for "sculptures", "woman"
    for "women" are the model's right forms in BFCL); None otherwise."""
    said = re.findall(r"[A-Za-z]+", request)
    lower = {w.lower() for w in said}
    fixed = dict(arguments)
    for key, value in arguments.items():
        schema = properties(tool).get(key)
        if not isinstance(value, str) or not value.isalpha() or len(value) < 5 or schema is None \
                or enum_of(schema) or value.lower() in lower:
            continue
        near = {w for w in said if w[:1].isupper() and len(w) == len(value) and one_edit_apart(value.lower(), w.lower())}
        if len({w.lower() for w in near}) == 1:
            fixed[key] = near.pop()
    return fixed if fixed != arguments else None


#: a place's name said after its preposition: "in Melbourne", "for New York", "to Cardiff"
#: ("... bring a brolly to Cardiff.", dev21), "over Oslo" ("Is it going to rain over Oslo?", dev23)
_IN_A_PLACE = re.compile(r"\b(?:in|for|at|to|over)\s+([A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+){0,2})")


#: "Flying to Lisbon in the morning, will I need a jacket there?" (dev19): where the speaker goes
_GOING_TO = re.compile(r"\b(?i:fly(?:ing)?|go(?:ing)?|head(?:ing)?|travel(?:l?ing)?|driv(?:e|ing)|off|trip)\s+to\s+"
                       r"([A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+){0,2})")
#: the words after the last "in", "for" or "at" of a request ("... in new york today")
_IN_AT_THE_END = re.compile(r"\b(?:in|for|at)\s+([a-z][a-z' -]*?)\s*[?.!]*\s*$")
#: times said after a place ("in paris today")
_WHEN_SAID = frozenset("today tomorrow tonight now later this morning afternoon evening weekend week".split())
#: words after "in" that name no place ("in here", "in the morning", "in a minute")
_NOT_A_PLACE = frozenset("the a an my our your this that here there it general case minute hour bit while".split())


def fix_unsaid_place(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments of a tool that reads (the weather) with the place the request names ("Will
    I need a brolly in Melbourne tomorrow?", dev14) where the call set its place, the tool's
    first parameter, to nothing or left it out (the weather here, not there); None otherwise.
    Not a day ("on Friday") nor a room; not a place parameter among others ("city" of a sales
    tax: BFCL's right calls leave those out)."""
    if changes_things(tool):
        return None
    place = next((k for k in list(properties(tool))[:1] if k.lower() in PLACE_KEYS and not enum_of(properties(tool)[k])), None)
    given = str(arguments.get(place) or "").strip().lower() if place else ""
    if given in _EVERY_VALUE and place not in ((tool.parameters or {}).get("required") or ()) \
            and not re.search(rf"\b{given}\b", request.lower()):
        # "Is it going to rain later? Oh and put the hall light on." (dev32): the weather "in all",
        # a light's every-room value the request never says: the weather here
        return {**arguments, place: None}  # (not left out: an empty dict reads as no repair)
    empty = [place] if place and arguments.get(place) in (None, "") else []
    names = [m.group(1) for pattern in (_IN_A_PLACE, _GOING_TO) for m in pattern.finditer(request)
             if not {w.lower() for w in m.group(1).split()} & (TIME_NAMES | HOME_PLACES)]
    if not names and request == request.lower() and (m := _IN_AT_THE_END.search(request)):
        # a transcript in lower case: "whats the whether like in new york" (dev13), the last words
        words = [w for w in m.group(1).split() if w not in _WHEN_SAID]
        if words and not set(words) & (_NOT_A_PLACE | TIME_NAMES | HOME_PLACES | GENERIC | FILLERS):
            names = [" ".join(w.capitalize() for w in words)]
    if len(empty) != 1 or len(set(names)) != 1:
        return None
    return {**arguments, empty[0]: names[0]}



#: the values of a *where* enum that mean every place
_EVERY_VALUE = ("all", "everywhere", "whole house")
#: "all the lights", "all of the lamps", "every light": the thing in every place
_EVERY_THING = re.compile(r"\b(?:all\s+(?:of\s+)?(?:the\s+|my\s+|our\s+)?([a-z]+)|every\s+([a-z]+))\b")


def fix_every_room(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments with the every-place value of a string enum ("all") where the request
    says the tool's thing in every place ("all the lights off, I'm off to bed", dev19: the
    model chose the bedroom) and names none of the enum's places; None otherwise."""
    low = request.lower()
    things = {stem(w) for m in _EVERY_THING.finditer(low) for w in m.groups() if w}
    if not things & target_words(tool):
        return None
    said = f" {' '.join(re.findall(r'[a-z]+', low))} "
    for key, schema in properties(tool).items():
        values = [v for v in enum_of(schema) if isinstance(v, str)]
        every = next((v for v in values if v.lower() in _EVERY_VALUE), None)
        held = arguments.get(key)
        if every is None or not isinstance(held, str) or held == every:
            continue
        if any(f" {v.lower()} " in said for v in values if v != every):
            return None  # "all the lights in the kitchen": a place is said
        return {**arguments, key: every}
    return None


#: parameters that say where (a room)
_WHERE_KEYS = frozenset({"room", "rooms", "area", "zone", "floor", "where"})


def fix_said_room(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments with the one room the request says (homophones read as meant: "turn the
    hole way light on", dev19, where the model chose "all") in a where-parameter's string enum
    holding a value the request does not say; None otherwise."""
    said = f" {' '.join(re.findall(r'[a-z]+', heard_words(request, [tool]).lower()))} "
    for key, schema in properties(tool).items():
        held = arguments.get(key)
        values = [v for v in enum_of(schema) if isinstance(v, str) and v.strip()]
        if key.lower() not in _WHERE_KEYS or not isinstance(held, str) or held not in values \
                or f" {held.lower()} " in said:
            continue
        named = [v for v in values if f" {v.lower()} " in said]
        named = [v for v in named if not any(v != w and f" {v.lower()} " in f" {w.lower()} " for w in named)]
        if len(named) == 1:
            return {**arguments, key: named[0]}
    return None


#: the order copied into a thing's name: "put some Adele on" (dev30: "Playing put some Adele on."),
#: after a filler ("like, play some Afrobeats", dev32)
_ORDER_VERBS = frozenset("put stick pop chuck throw whack".split())  # what puts a thing on
_PUTS = "|".join(sorted(_ORDER_VERBS))
_ORDER_HEAD = re.compile(rf"^(?:(?:like|and|oh|so|um|uh)\W+)*(?:{_PUTS}|play|get)\s+(?:on\s+(?:(?:some|a\s+bit\s+of|the|a|an)\s+)?"
                         r"|(?:some|a\s+bit\s+of|the|a|an)\s+)", re.I)  # not a title: "Put Your Records On"
_ORDER_TAIL = re.compile(r"\s+on$", re.I)
#: the thing such an order puts on: "chuck some Kylie on", "stick on some grime"
_ORDERED_THING = re.compile(rf"\b(?:{_PUTS})\s+(?:on\s+)?(?:some|a\s+bit\s+of|the|a|an)\s+"
                            r"([A-Za-z][\w' -]*?)(?:\s+on)?\s*(?:[,.!?]|\bwould\b|\bplease\b|$)", re.I)
_PLAYS = frozenset("play playing put stick some listen to hear queue".split())


def fix_order_words(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The call's required free text without the order the model copied into it ("put some
    Adele on" -> "Adele"), for a tool that makes or changes something; None when there is none."""
    if not changes_things(tool):
        return None
    required = set((tool.parameters or {}).get("required") or ())
    props = properties(tool)
    fixed = {}
    for key in required:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip().lower() in _ORDER_VERBS and (m := _ORDERED_THING.search(request)):
            fixed[key] = m.group(1)  # "Chuck some Kylie on, would ya." -> "chuck" (dev21)
            continue
        if not isinstance(value, str) or props.get(key, {}).get("enum") or not _ORDER_HEAD.match(value):
            continue
        at = request.lower().find(value.strip().lower())
        before = WORD.findall(request.lower()[:at])[-1:] if at > 0 else []
        if at < 0 or set(before) & _PLAYS:
            continue  # "play Get Lucky": the title, after the order
        bare = _ORDER_TAIL.sub("", _ORDER_HEAD.sub("", value.strip())).strip()
        if bare and bare.lower() != value.strip().lower():
            fixed[key] = bare
    return {**arguments, **fixed} if fixed else None


#: a title said before "by" and the artist the call kept alone ("Play 22 by Taylor Swift." ->
#: "Taylor Swift", dev42), after the word that orders or names it
_TITLE_BY = re.compile(r"\b(?:play|on|meant|hear|queue|some|to)\s+((?:[\w'-]+\s+){1,5}?)by\s+$", re.I)
#: a number said right before the rest of the name ("some 90s hip hop" -> "hip hop", dev42)
_NUMBER_BEFORE = re.compile(r"\b(?:play|on|some|the|hear|meant)\s+(\d+(?:'?s)?|nineties|eighties|seventies|sixties|fifties)\s+$", re.I)
#: words of a title that name no title ("Play something by Adele", "some songs by Queen")
_NO_TITLE = frozenset("something anything song songs music stuff track tracks tune tunes album albums hits playlist "
                      "more everything whatever".split())


def fix_dropped_title(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The call's free text with the title or number the request says right before it, which
    the model dropped ("Play 21 by Adele." -> "Adele"; "some 90s hip hop" -> "hip hop"), for a
    tool that makes or changes something; None otherwise."""
    if not changes_things(tool):
        return None
    props = properties(tool)
    fixed = {}
    for key in (tool.parameters or {}).get("required") or ():
        value = arguments.get(key)
        if not isinstance(value, str) or not value.strip() or props.get(key, {}).get("enum"):
            continue
        at = request.lower().find(value.strip().lower())
        before = request[:at] if at > 0 else ""
        if (m := _TITLE_BY.search(before)) and not set(WORD.findall(m.group(1).lower())) & _NO_TITLE:
            fixed[key] = f"{m.group(1).strip()} by {value.strip()}"
        elif m := _NUMBER_BEFORE.search(before):
            fixed[key] = f"{m.group(1)} {value.strip()}"
    return {**arguments, **fixed} if fixed else None

