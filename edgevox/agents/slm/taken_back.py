"""Taken back: a name the speaker corrects in the same breath is not what they asked for.

"Turn off the kitchen, sorry, the dining room light." and "Add apples, I mean pears, to the
shopping list." (the home evaluation's dev16, session 23) each made two calls with
Qwen2.5-Coder-0.5B: the kitchen light switched off as well as the dining room's, and "apples"
added beside "i mean pears". Spoken self-repair has a plain shape in English -- the thing
said, a word that takes it back ("sorry", "I mean", "no wait", "or rather") after a comma, a
dash or an ellipsis (dev47), the thing meant -- so a string value the call holds that the
request says right before such a word is the thing *taken back*: it becomes the thing said
after the word (for a parameter with listed values, the listed value said there), and a
value that opens with the taking-back words ("i mean pears") loses them. Numbers taken back
are ``amounts.corrected``'s.

Two calls that end up the same are one action; ``unit_args`` runs the second only once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from edgevox.agents.slm.vocabulary import enum_of, properties

#: where speech breaks off, as a recogniser writes it: a comma, a dash, an ellipsis ("Office light
#: off -- no, the garage", dev47)
BREAK = r"(?:,|\s*(?:-{2,}|\s-|[\u2014\u2013]|\.\.\.|\u2026))"
#: the words that take back what was just said, after a break or (for "I mean", "or rather",
#: "no wait") without one; an "oh" may come first ("-- oh, no, ...")
_MARK = (rf"(?:{BREAK}\s*(?:oh\s*,?\s*)?(?:no|nah|sorry|wait|actually|oops|hang\s+on)(?:\s*,?\s*(?:no|sorry|wait|actually|i\s+mean|hang\s+on))*\s*,?"
         r"|,?\s*(?:i\s+mean|or\s+rather|no\s+wait|no\s+sorry|make\s+that)\s*,?)\s+")
_MARK_SAID = re.compile(_MARK)
_OPENS_WITH_MARK = re.compile(r"^\s*(?:(?:no|nah|sorry|wait|actually|oops|hang\s+on|i\s+mean|or\s+rather|make\s+that)\b\W*)+")
#: where the thing meant ends: a comma or full stop, or a word that starts what is done with it
_MEANT_ENDS = re.compile(r"[,.;!?]|(?:^|\s+)(?:to|on|onto|from|off|in|into|for|please|and|then|light|lights|lamp)\b")
_ARTICLES = re.compile(r"^(?:(?:just|only|the|my|our|a|an|some)\s+)+")


def meant_instead(request: str, value: str) -> str | None:
    """The words said after ``value`` was taken back ("apples, I mean pears," -> "pears"), or
    None when the request does not take ``value`` back."""
    low = request.lower()
    # the value and up to three words of what is done with it ("tea towels on the list, no hang
    # on, bin bags", dev19)
    m = re.search(rf"\b{re.escape(value.lower())}(?:\s+\w+){{0,3}}{_MARK}", low)
    if m is None:
        return None
    meant = _said_after(low[m.end():])
    if not meant or meant == value.lower():
        return None
    at = low.find(meant, m.end())
    # as the request writes it ("Newcastle", not "newcastle"), where lower-casing kept the length
    return request[at:at + len(meant)] if at >= 0 and len(low) == len(request) else meant


def _said_after(rest: str) -> str | None:
    """The thing said after a taking-back word: up to where what is done with it starts."""
    rest = _ARTICLES.sub("", rest)
    end = _MEANT_ENDS.search(rest)
    meant = (rest[:end.start()] if end else rest).strip()
    return meant if meant and len(meant.split()) <= 4 else None


#: a switch said one way, taken back and said the other ("the hallway light off, er, I mean on", dev49)
_SWITCH_TAKEN_BACK = re.compile(rf"\b(on|off){_MARK}(on|off)\b")


def fix_taken_back(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments with each string value the request takes back set to the one meant, the
    taking-back words cut from a value that opens with them, and a switch taken back ("off, I
    mean on") set the other way; None when nothing changes."""
    props = properties(tool)
    fixed = dict(arguments)
    switched = _SWITCH_TAKEN_BACK.search(request.lower())
    for key, value in arguments.items():
        if isinstance(value, bool) and switched and props.get(key, {}).get("type") == "boolean" \
                and value == (switched[1] == "on") and switched[1] != switched[2]:
            fixed[key] = switched[2] == "on"
            continue
        if not isinstance(value, str) or not value.strip() or key not in props:
            continue
        if (opened := _OPENS_WITH_MARK.match(value.lower())) and (said := _MARK_SAID.search(request.lower())):
            if value[opened.end():].strip():
                fixed[key] = value[opened.end():].strip()  # "i mean pears" -> "pears"
            elif (meant := _said_after(request.lower()[said.end():])) and not enum_of(props[key]):
                fixed[key] = meant  # "Add courgettes, no, aubergines ..." (dev21): an item "no"
            continue
        meant = meant_instead(request, value)
        if meant is None:
            continue
        listed = [str(v) for v in enum_of(props[key]) if isinstance(v, str)]
        if listed:
            said = [v for v in listed if re.match(rf"{re.escape(v.lower())}\b", meant)]
            if said:
                fixed[key] = max(said, key=len)  # "the dining room light" -> "dining room"
        else:
            fixed[key] = meant
    return fixed if fixed != dict(arguments) else None


def without_taken_back(items: list[str]) -> list[str]:
    """A list as said, less each item the next one takes back: ["apples", "i mean pears"] ->
    ["pears"], ["courgettes", "no", "aubergines"] -> ["aubergines"]."""
    kept: list[str] = []
    for item in items:
        opened = _OPENS_WITH_MARK.match(item.lower())
        if opened and item[opened.end():].strip():
            kept = kept[:-1] + [item[opened.end():].strip()]
        elif opened:  # the words alone, between commas: ["courgettes", "no", "aubergines"] (dev21)
            kept = kept[:-1]
        else:
            kept.append(item)
    return kept
