"""A line that asks several things, and which call is whose: a call that takes its word from
another part of the line (``from_another_part``: "start a fifteen minute timer and uh turn off
the office light" -> ``cancel_timer("office")``), a call one piece asks for while the line as
a whole asks what no tool does (``grounded_by_a_piece``), a call switched the other way from its
piece (``switched_as_said``), and the hop's second call of a tool that strays from its first
(``strays_from``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from edgevox.agents.slm.amounts import JOIN, said_numbers
from edgevox.agents.slm.not_about import parts_of_values, why_not, wordy
from edgevox.agents.slm.places import WHERE
from edgevox.agents.slm.questions import line_pieces
from edgevox.agents.slm.services import asks_another_service
from edgevox.agents.slm.statements import an_order
from edgevox.agents.slm.vocabulary import (
    UNITS,
    WORD,
    content_words,
    enum_of,
    is_number,
    properties,
    stem,
    target_words,
    tool_words,
)


def from_another_part(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> bool:
    """Two actions in one sentence ("start a fifteen minute timer and uh turn off the office
    light"): does the call take a word-string argument ("office") only from parts of the
    request that are not about its tool, but about another one (``cancel_timer("office")``:
    the second part is the light's, by the thing it names)? Only a request of one sentence
    (what a person says at once; not a paragraph of tasks) and two parts or more."""
    return bool(taken_from_another_part(request, tool, arguments, tools))


def without_the_other_parts_words(request: str, tool: Any, arguments: Mapping[str, Any],
                                  tools: Iterable[Any]) -> dict[str, Any] | None:
    """The call less the optional arguments it took from another part, when a number it keeps
    is said ("set a timer for ten minutes and like whats the weather doing" ->
    ``start_timer(minutes=10, label="weather")``: the timer without the name); None when a
    required argument was taken or nothing said is left (``cancel_timer("office")`` -> nothing)."""
    taken = taken_from_another_part(request, tool, arguments, tools)
    required = set((tool.parameters or {}).get("required") or ())
    if not taken or taken & required:
        return None
    kept = {k: v for k, v in arguments.items() if k not in taken}
    if all(is_number(arguments[k]) and not isinstance(arguments[k], bool) for k in taken):
        return kept  # a number from the other part ("set a twenty minute timer and uh turn off the
        # bedroom light" -> the light at 20 percent): the call without it stands on its own words
    said = said_numbers(request)
    if not any(is_number(v) and v and float(v) in said for v in kept.values()):
        return None
    return kept


def taken_from_another_part(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> set[str]:
    """The names of the word-string arguments of ``from_another_part``."""
    if re.search(r"[.!?]\s+\S", request.strip()):
        return set()
    parts = [p for p in (p.strip(" ,.") for p in JOIN.split(request)) if len(p.split()) >= 2]
    if len(parts) < 2:
        return set()
    own = target_words(tool)
    others = [t for t in tools if t.name != tool.name]

    def about_another(part: str) -> bool:
        said = content_words(part)
        if not said & own and asks_another_service(part, tool):
            return True  # "... and order me a pizza from Domino's" (dev52: the pizza went on the list)
        return not said & own and why_not(part, tool, arguments, tools) is not None and any(
            said & (target_words(t) - UNITS) and why_not(part, t, {}, tools) is None for t in others)

    taken = set()
    for key, value in arguments.items():
        if isinstance(value, str) and wordy(value):
            words = WORD.findall(value.lower())
            holding = [p for p in parts if all(re.search(rf"\b{re.escape(w)}\b", p.lower()) for w in words)]
        elif is_number(value) and not isinstance(value, bool) and value:
            # "Turn off the bedroom and bathroom lights, and set the heating to 17 overnight." (dev52):
            # the bathroom light at 17 percent
            holding = [p for p in parts if float(value) in said_numbers(p)]
        else:
            continue
        if holding and all(about_another(p) for p in holding):
            taken.add(key)
    return taken


#: what a piece says of a switch: the call's ``True``/``False`` must be the piece's
_SWITCHED_ON = frozenset({"on", "up"})


_SWITCHED_OFF = frozenset({"off", "out", "kill"})


def grounded_by_a_piece(request: str, tool: Any, arguments: Mapping[str, Any], tools: Iterable[Any]) -> bool:
    """Is the call, blocked by the line as a whole, the whole of one of its pieces (cut at joins)?
    "Lock the back door and switch the garage light off." (dev50): the lock is no tool's, the
    light is; "Read me the news headlines then play some Miles Davis." The piece must name the
    tool's own thing, or a name the call holds that it puts on ("Boil the kettle and put some Nina
    Simone on.", dev52; "Book a table at Dishoom for Friday, and put it in my calendar." grounds no
    list), ground the call alone and say what it holds: each place and text it names, its switch
    ("off" for ``False``; "on" or a number it sets for ``True``) -- "Turn the TV off and set the
    living room lights to 10" does not switch the living room light off."""
    pieces = line_pieces(request)
    if len(pieces) < 2:
        return False
    props = properties(tool)

    def says_it(piece: str) -> bool:
        words = set(WORD.findall(piece.lower()))
        stems = {stem(w) for w in words}
        numbers = said_numbers(piece)
        for key, value in arguments.items():
            if isinstance(value, bool):
                if not (words & (_SWITCHED_ON if value else _SWITCHED_OFF)
                        or (value and any(is_number(v) and not isinstance(v, bool) and float(v) in numbers
                                          for v in arguments.values()))):
                    return False
            elif isinstance(value, str) and value.strip() and (key in props or not props):
                if not {stem(w) for w in WORD.findall(value.lower())} <= stems:
                    return False
        return True

    own = tool_words(tool) - parts_of_values(tool, request)
    required = set((tool.parameters or {}).get("required") or ())
    names = [v for k, v in arguments.items() if k in required and isinstance(v, str) and _named(v, request)]

    def names_it(piece: str) -> bool:
        low = piece.lower()
        return bool(content_words(piece) & own) or (bool(_PUT_ON.search(low)) and any(v.lower() in low for v in names))

    return any(names_it(p) and why_not(p, tool, arguments, tools) is None and says_it(p) for p in pieces)


#: a thing put on ("put some Nina Simone on", "stick on some Motown"): started, as a record is
_PUT_ON = re.compile(r"\b(?:put|stick|pop|whack|bung|chuck|throw)\b(?:\s+on\b|.*\bon\W*$)")


def _named(value: str, request: str) -> bool:
    """Is ``value`` said in ``request`` as a name, each word with a capital ("Nina Simone")?"""
    words = value.split()
    return bool(words) and all(re.search(rf"\b{re.escape(w[:1].upper() + w[1:])}\b", request) for w in words)


def _said(value: Any, request: str) -> bool:
    return isinstance(value, str) and bool(words := set(WORD.findall(value.lower()))) \
        and words <= set(WORD.findall(request.lower()))


def strays_from(request: str, tool: Any, arguments: Mapping[str, Any], before: list[tuple[str, dict]]) -> bool:
    """Does this call stray from a call of the same tool the hop made before it: the same place
    set otherwise ("All the lights on, upstairs and down." -> ``room="all", on=True`` then
    ``on=False``), or, in a request that asks for one action (no "and", "then", "also"), a
    place the request never says where that call took the one it says ("Desk lamp, office,
    twenty." -> the office light, then the kitchen light off)? Both ran on dev11 (session 19).
    In any request, a place never said, set otherwise than the said one was ("Kitchen light on
    and close the blinds." -> every light off, dev50).
    Only tools with a *where* enum (``room``)."""
    where = [k for k, sch in properties(tool).items() if k.lower() in WHERE and enum_of(sch)]
    if not where:
        return False
    one_action = not JOIN.search(request)  # "Lights off in the kitchen and the lounge." asks two
    for name, args in before:
        if name != tool.name:
            continue
        if all(args.get(k) == arguments.get(k) for k in where) and any(
                k not in where and v is not None and args.get(k) is not None and v != args[k]
                for k, v in arguments.items()):
            return True
        if one_action and any(args.get(k) != arguments.get(k) and _said(args.get(k), request)
                              and not _said(arguments.get(k), request) for k in where):
            return True
        if any(args.get(k) != arguments.get(k) and _said(args.get(k), request) and not _said(arguments.get(k), request)
               for k in where) and any(k not in where and v is not None and args.get(k) is not None and v != args[k]
                                       for k, v in arguments.items()):
            return True  # "Kitchen light on and close the blinds." (dev50) -> then every light off
    return False


#: where a piece breaks at a comma or a dash
_BREAKS = re.compile(r"\s*(?:[,;]|\s[-\u2014\u2013]+\s|\u2014)\s*")
#: a switch said of "it" or "them" ("kill it", "switch them off", "turn it on")
_POINTS_BACK = re.compile(r"\b(?:kill|switch|turn|flick|put|knock|shut)\s+(?:it|them)\b|\b(?:it|them)\s+(?:on|off)\b")
#: on no longer wanted: "I don't want the kitchen light on any more, we've finished eating." (dev55: switched on)
_UNWANTED_ON = re.compile(r"\b(?:don't|do\s+not|dont)\s+(?:want|need)\b[^,.]*\bon\s+(?:any\s*more|now)\b")


def _switch_words(pieces: list[str], own: set[str], *, ordered: bool = False) -> tuple[str, set[str]]:
    """The pieces that name the tool's thing, joined, and their words ("kill" said as "off"). With
    ``ordered``, also those that point back at it with a switch ("kill it"), and of them only the ones
    that order while others only tell; none when there is no such choice."""
    named = [p for p in pieces if content_words(p) & own]
    if ordered:
        named += [p for p in pieces if p not in named and _POINTS_BACK.search(p.lower())]
        orders = [p for p in named if an_order(p.lower())]
        named = orders if 0 < len(orders) < len(named) else []  # (no such choice: nothing said plainly)
    joined = " , ".join(named)
    words = set(WORD.findall(joined.lower()))
    return joined, words | ({"off"} if "kill" in words else set())


def switched_as_said(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The call switched off, without the numbers its pieces never say, when it switches on and
    the pieces that name the tool's thing say "off" and never "on" ("Set an alarm for 6:30 and
    turn all the lights off." -> every light on at 40 percent, dev52); else None. (And the other
    way round.) "Turn the TV off and set the living room lights to 10": the light's piece says
    neither."""
    own, line = tool_words(tool), request
    request, words = _switch_words(line_pieces(line) or [line], own)
    if ("on" in words) == ("off" in words):
        # both or neither: the pieces cut finer, at commas and dashes, and of them the ones that order
        # beside ones that tell ("Tom says the garage light's been on all day -- kill it, would you.", dev65)
        finer = [q for p in line_pieces(line) or [line] for q in _BREAKS.split(p) if q.strip()]
        request, words = _switch_words(finer, own, ordered=True)
    if ("on" in words) == ("off" in words):
        return None
    said_on = "on" in words and not _UNWANTED_ON.search(request.lower())
    switches = [k for k, v in arguments.items() if isinstance(v, bool) and v != said_on]
    if len(switches) != 1 or sum(isinstance(v, bool) for v in arguments.values()) != 1:
        return None
    said = said_numbers(request)
    return {k: (said_on if k == switches[0] else v) for k, v in arguments.items()
            if said_on or not (is_number(v) and not isinstance(v, bool) and float(v) not in said)}
