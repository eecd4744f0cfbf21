"""Devices no tool serves (grounding's first check): the household devices a request names that
no tool's vocabulary mentions ("Turn on the fan in the office." is not the office light), a
device's own setting said before a tool's word ("TV volume to 20."), and which tools act on
one device (the player and the volume are both the speaker's).

The device list is generic knowledge (``vocabulary.DEVICES``); what is served comes from the
registry.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import Any

from edgevox.agents.slm.vocabulary import (
    DEVICES,
    HOME_PLACES,
    UNITS,
    WORD,
    stem,
    target_words,
    tool_words,
)

#: a device's word said as a place, not the device
_NO_DEVICE = re.compile(r"\bnext[\s-]+door\b|\bdoor\s+to\s+door\b"
                        r"|\btubs?\s+of\b")  # "2 tubs of cream cheese" (dev42): a measure, no hot tub


def device_compound(request: str, tools: Iterable[Any], tool: Any) -> bool:
    """Does ``request`` name a device no tool serves right before a word of the tool's name
    ("TV volume" for ``set_volume``, "oven temperature"): that device's own setting? Not a place
    that is also a device ("garage light")."""
    unserved = unserved_devices(request, tools)
    named = {stem(w) for w in re.split(r"[_.\s]+", tool.name.lower()) if w}
    # (the two words within one piece: "... over the extractor fan, volume to seventy", dev65, is the speakers')
    pairs = [pair for piece in re.split(r"[,.;:!?\u2014\u2013]|\s-+\s", request.lower())
             for pair in itertools.pairwise(WORD.findall(piece))]
    return bool(unserved) and any(stem(a) in unserved and a not in HOME_PLACES and stem(b) in named for a, b in pairs)


def unserved_devices(request: str, tools: Iterable[Any]) -> set[str]:
    """The devices ``request`` names that no tool's vocabulary mentions (as stems)."""
    served = set().union(*(tool_words(t) for t in tools))
    low = _NO_DEVICE.sub(" ", request.lower())  # "my baby is sleeping next door" (dev26) names no door
    named = {stem(w) for w in WORD.findall(low)} & {stem(d) for d in DEVICES}  # "TV": short words too
    return named - served


def acted_on(request: str) -> tuple[str, str] | None:
    """The thing an order opens on, and the word after it: "Heat the oven to 220." ->
    ("oven", "to"); None when the request does not open "<verb> the/my/our <thing>"."""
    m = re.match(r"\W*(?:please\s+)?[a-z]+\s+(?:the|my|our)\s+([a-z]+)(?:\s+([a-z]+))?", request.lower())
    return (m.group(1), m.group(2) or "") if m else None


def same_device(tool: Any, other: Any) -> bool:
    """Do two tools act on one device or thing (a target word beyond ``_SHARED`` in common:
    the player and the volume on the speaker, the list's adder and remover)?"""
    return bool(target_words(tool) & target_words(other) - _SHARED)


def device_words(tool: Any, tools: Iterable[Any]) -> set[str]:
    """The things other tools of the same device act on: "Doorbell's going, hold the music a sec."
    (dev21) pauses the music that ``play_music`` names and ``media_control`` plays on."""
    return set().union(*(target_words(t) - UNITS - _SHARED for t in tools
                         if t.name != tool.name and same_device(t, tool)))


#: target words two tools may share without acting on one device (a temperature is set on the
#: thermostat and read from the weather)
_SHARED = frozenset({"temperature", "home", "item", "level", "current", "target"})


#: PLANNED -- names of tools a hook has made the call of from the request's own words
#: (``slm.planned``): not checked again


def device_word(request: str, tools: Iterable[Any]) -> str:
    """The first word of ``request`` naming a device no tool serves ("that": none)."""
    stems = unserved_devices(request, tools)
    for word in re.findall(r"[A-Za-z]+", request):
        if stem(word.lower()) in stems:
            return word.lower()
    return "that"
