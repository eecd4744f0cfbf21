"""Values the request ties to a parameter by name, put under another one of the same call.

Measured through the agent on BFCL parallel_multiple 0-99 (session 15): "a rectangular
playground with a length of 50 meters and a width of 30 meters" -> ``width=50, length=30``;
"the time difference between Beijing and Tokyo" -> ``city_1="Tokyo", city_2="Beijing"``.
The model has every value right and two of them in each other's place. Two repairs, each
of which only ever exchanges two values the call already holds:

- *Said by name*: a number parameter whose name the request says once, right before a
  number ("a width of 30", "width: 30", "the width is 30"), holds a number the request
  says after another parameter's name, and that other parameter holds this one's number:
  the two are exchanged.
- *Numbered pair*: two string parameters named as a pair (``city_1``/``city_2``,
  ``team1``/``team2``) hold two values the request says once each, in the opposite order:
  they are put in the order said.

A number said as part of a list ("sides of 3, 4 and 5", "seasons 2018 and 2020") binds to
nothing: which number is whose is then the call's to say.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from edgevox.agents.slm.amounts import declares_number
from edgevox.agents.slm.vocabulary import is_number, properties

#: words between a parameter's name and its number: "a width of 30", "the width is 30"
_LINK = r"(?:\s+(?:of|is|was|were|at|equal\s+to|equals|about|around|approximately|exactly))*\s*[:=]?\s*"
#: a number, possibly money ("$500,000"); not a percentage, not the first of a list
_NUMBER = r"(-?\$?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?!\d|\.\d)(?![\d.,]*\s*%)(?!\s*[a-z]*\s*(?:,|and|or|to)\s*\$?\d)"
_PAIR = re.compile(r"^(.*?[a-z])_?([12])$", re.IGNORECASE)


def name_words(key: str) -> list[str]:
    """The words of a parameter's name: ``netIncome``/``net_income`` -> ["net", "income"]."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", key)
    return [w for w in re.split(r"[_\W\d]+", spaced.lower()) if w]


def said_after_name(request: str, key: str) -> list[float | None]:
    """For each time the request says the parameter's name, the lone number right after it
    (None where no number follows)."""
    words = name_words(key)
    if not words or sum(len(w) for w in words) < 4:  # "x", "n", "id": not a name a request says
        return []
    name = re.compile(r"\b" + r"[\s_-]+".join(map(re.escape, words)) + r"s?\b", re.IGNORECASE)
    out: list[float | None] = []
    for mention in name.finditer(request):
        number = re.match(_LINK + _NUMBER, request[mention.end():], re.IGNORECASE)
        out.append(float(number.group(1).replace("$", "").replace(",", "")) if number else None)
    return out


def fix_swapped_named(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """Two number parameters holding each other's numbers, as the request ties them by name:
    ``a`` is named once with its number, which ``b`` holds, and ``a`` holds a number said
    after ``b``'s name ("a length of 50 ... a width of 30 ... a side length of 5":
    ``width=50, length=30`` -> ``width=30, length=50``)."""
    keys = [k for k, schema in properties(tool).items() if declares_number(schema) and is_number(arguments.get(k))]
    said = {k: said_after_name(request, k) for k in keys}
    for a in keys:
        if len(said[a]) != 1 or said[a][0] is None:
            continue
        for b in keys:
            if b == a or set(name_words(a)) & set(name_words(b)):
                continue
            held_a, held_b = float(arguments[a]), float(arguments[b])
            if held_b == said[a][0] != held_a and held_a in said[b]:
                return {**arguments, a: arguments[b], b: arguments[a]}
    return None


def fix_numbered_order(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """A numbered pair of string parameters holding two said values in the reverse order."""
    pairs: dict[str, dict[str, str]] = {}
    for key in properties(tool):
        m = _PAIR.match(key)
        if m:
            pairs.setdefault(m.group(1).lower(), {})[m.group(2)] = key
    text = request.lower()
    fixed = dict(arguments)
    for pair in pairs.values():
        if len(pair) != 2:
            continue
        first, second = arguments.get(pair["1"]), arguments.get(pair["2"])
        if not isinstance(first, str) or not isinstance(second, str) or not first.strip() or not second.strip():
            continue
        a, b = first.strip().lower(), second.strip().lower()
        if a in b or b in a or text.count(a) != 1 or text.count(b) != 1:
            continue
        if text.index(b) < text.index(a):
            fixed[pair["1"]], fixed[pair["2"]] = second, first
    return fixed if fixed != arguments else None
