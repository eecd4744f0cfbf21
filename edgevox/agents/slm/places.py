"""Places a request names that a call must not put somewhere else (grounding's third check):
a room the registry has no word for ("Turn off the pantry light." -> every light), and a room
of the home that a tool which tells cannot read ("How warm is it in the bedroom?" -> the
weather, which is outside).

``WHERE`` says which parameters are places: an enum whose name says *where* (``room``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from edgevox.agents.data import leaves
from edgevox.agents.slm.vocabulary import (
    GENERIC,
    HOME_PLACES,
    PLACES,
    WORD,
    enum_of,
    one_edit_apart,
    properties,
    stem,
    target_words,
    tool_words,
)

#: "in the conservatory", "on my porch": where a request says something is
_PLACE = re.compile(r"\b(?:in|on|at)\s+(?:the|my|our)\s+([a-z]+)")


#: an enum parameter that says *where* (its values are places, so a place the request names must be one)
WHERE = frozenset({"room", "rooms", "location", "place", "area", "zone", "floor", "where"})


#: the first words of a request, up to its third ("Pool house light off." -> pool, house, light)
_OPENING = re.compile(r"\W*(?:(?:the|my|our)\s+)?([a-z]+)\s+([a-z]+)(?:\s+([a-z]+))?")


#: words before a light's name that say which light, not where ("the big light", "desk lamp")
_KINDS = frozenset("""
big main ceiling overhead desk reading night bedside floor table little small side all every both other
that this those these some fairy string christmas top bottom upstairs downstairs front back
""".split())


#: the home as a whole, said as a place ("in the whole flat", "throughout the house"), and the
#: values of a *where* enum that mean every place
_EVERYWHERE = re.compile(r"\b(?:whole|entire|all\s+(?:of\s+)?the|every\s+room\s+in\s+the|throughout\s+the)\s+"
                         r"(?:house|flat|home|apartment|place)\b|\beverywhere\b")


_ALL_VALUES = frozenset({"all", "everywhere", "whole house", "house", "home"})


def unknown_place(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> str | None:
    """The place a request names ("in the conservatory", "the pantry light", "the laundry
    room") when the call fills an enum
    parameter (``room``) with a value the request does not say and no tool knows that place:
    the model put the light of a room the home does not have on another one ("all")."""
    said = set(WORD.findall(request.lower()))
    chosen = [str(arguments[k]) for k, sch in properties(tool).items()
              if k.lower() in WHERE and enum_of(sch) and isinstance(arguments.get(k), str)]
    if not chosen or any(set(WORD.findall(v.lower())) <= said for v in chosen):
        return None
    if any(len(w) >= 4 and v.lower().startswith(w) and " " not in v for v in chosen for w in said):
        return None  # "I need the hall light on, I've got my hands full of laundry." (dev30): "hall" said
    if _EVERYWHERE.search(request.lower()) and any(v.lower() in _ALL_VALUES for v in chosen):
        return None  # "Lights off in the whole flat." (dev16) -> room "all": the home itself
    known = set().union(*(tool_words(t) for t in tools))
    low = request.lower()
    places = _PLACE.findall(low) + re.findall(r"\b([a-z]+)\s+room\b", low) + [w for w in said if w in PLACES] + [
        m.group(1) for m in re.finditer(r"\b(?:the|my|our)\s+([a-z]+)\s+([a-z]+)", low) if stem(m.group(2)) in target_words(tool)]
    # a place said in two words before the thing ("set the patty o lights to fifty", dev38: the
    # recogniser's "patio" in two)
    places += [m.group(1) for m in re.finditer(r"\b(?:the|my|our)\s+([a-z]+)\s+([a-z]+)\s+([a-z]+)", low)
               if m.group(1) not in _KINDS and stem(m.group(3)) in target_words(tool) and stem(m.group(2)) not in target_words(tool)]
    # the words that open a terse request before the thing ("Summerhouse lights on.", "Pool house light off.")
    if (m := _OPENING.match(low)) and m.group(1) not in _KINDS:
        if stem(m.group(2)) in target_words(tool) or (m.group(3) and stem(m.group(3)) in target_words(tool)):
            places.append(m.group(1))
    values = {w for k, sch in properties(tool).items() if k.lower() in WHERE
              for v in enum_of(sch) if isinstance(v, str) for w in WORD.findall(v.lower())}
    for place in places:
        if place not in GENERIC and stem(place) not in known \
                and not any(len(place) >= 4 and v.startswith(place) for v in values) \
                and not any(len(v) >= 5 and one_edit_apart(place, v) for v in values) \
                and f"{place}room" not in values:  # "hall" for "hallway", "dinning", "bed room" (dev13)
            after = re.search(rf"\b{place}\s+([a-z]+)", low)  # "wine cellar", "guest room": say both words
            nxt = after.group(1) if after else ""
            if nxt and nxt not in GENERIC and stem(nxt) not in target_words(tool) and stem(nxt) not in known | {"room"}:
                return f"{place} {nxt}"
            return f"{place} room" if nxt == "room" else place
    return None


#: a request about indoors, where an outdoor reading (the weather) says nothing
_OUTDOORS = frozenset(stem(w) for w in ("weather", "forecast"))


_INDOORS = re.compile(r"\b(?:inside|indoors|in\s+here|in\s+the\s+(?:house|flat|apartment))\b")


def home_place(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> str | None:
    """A place ``request`` names that the call of ``tool`` neither can take (no *where* enum
    of its own holding it) nor says in its arguments: a value of another tool's *where* enum
    ("bedroom"), or a place said with "in the ..." ("in the den")."""
    low = request.lower()
    own = {str(v).lower() for k, sch in properties(tool).items() if k.lower() in WHERE for v in enum_of(sch)}
    said = " ".join(str(v).lower() for v in leaves(dict(arguments)) if isinstance(v, str))
    if _INDOORS.search(low) and tool_words(tool) & _OUTDOORS and not (own & {"house", "home", "inside", "indoors"}):
        return "house"  # "What's the temperature inside the house?" (dev12): no weather reads it
    for place in re.findall(r"\bin\s+(?:the|my|our)\s+([a-z]+)", low):  # a room ("in the den"), not "in the form of"
        if place in HOME_PLACES and place not in own and place not in said:
            return place
    for other in tools:
        if other.name == tool.name:
            continue
        for key, sch in properties(other).items():
            if key.lower() not in WHERE:
                continue
            for value in (str(v).lower() for v in enum_of(sch) if isinstance(v, str)):
                if value not in GENERIC and value not in own and value not in said \
                        and re.search(rf"\b{re.escape(value)}\b", low):
                    return value
    return None
