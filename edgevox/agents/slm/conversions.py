"""Unit conversions said aloud: "How many hours is 180 minutes?", "20 degrees Celsius in Fahrenheit?".

Measured on the home evaluation's tuning splits (sessions 17-19): the model refused every
conversion it was asked ("Sorry, I can't check that.", seven of eight) or made one up ("How
many centimetres in a foot?" -> 12.5). The factors are fixed facts, so they are worked out
here, like the sums of ``sums``. Only a request that is the conversion and nothing else is
read (an opener, the amount, the two units); anything more is left to the model.
"""

from __future__ import annotations

import re

from edgevox.agents.slm.amounts import SECONDS, numbers_in
from edgevox.agents.slm.sums import spoken
from edgevox.agents.slm.vocabulary import FILLERS

#: unit word (singular and plural) -> (dimension, size in the dimension's base unit)
_UNITS: dict[str, tuple[str, float]] = {}
_CANON: dict[str, str] = {}  # unit word -> its first, singular name
for _names, _dimension, _size in [
    (("second", "seconds", "sec", "secs"), "time", SECONDS["second"]),
    (("minute", "minutes", "min", "mins"), "time", SECONDS["minute"]),
    (("hour", "hours", "hr", "hrs"), "time", SECONDS["hour"]),
    (("day", "days"), "time", 24 * SECONDS["hour"]), (("week", "weeks"), "time", 7 * 24 * SECONDS["hour"]),
    (("millimetre", "millimetres", "millimeter", "millimeters", "mm"), "length", 0.001),
    (("centimetre", "centimetres", "centimeter", "centimeters", "cm"), "length", 0.01),
    (("metre", "metres", "meter", "meters"), "length", 1), (("kilometre", "kilometres", "kilometer", "kilometers", "km"), "length", 1000),
    (("inch", "inches"), "length", 0.0254), (("foot", "feet"), "length", 0.3048), (("yard", "yards"), "length", 0.9144),
    (("mile", "miles"), "length", 1609.344),
    (("gram", "grams", "g"), "mass", 0.001), (("kilogram", "kilograms", "kilo", "kilos", "kg"), "mass", 1),
    (("ounce", "ounces", "oz"), "mass", 0.028349523125), (("pound", "pounds", "lb", "lbs"), "mass", 0.45359237),
    (("stone",), "mass", 6.35029318),
    (("millilitre", "millilitres", "milliliter", "milliliters", "ml"), "volume", 0.001),
    (("litre", "litres", "liter", "liters"), "volume", 1),
]:
    for _word in _names:
        _UNITS[_word] = (_dimension, _size)
        _CANON[_word] = _names[0]
_SCALES = {"celsius": "C", "centigrade": "C", "fahrenheit": "F", "kelvin": "K"}
_PLURALS = {"foot": "feet", "inch": "inches", "stone": "stone"}

_FILLER = rf"(?:(?:{'|'.join(sorted(FILLERS))}),?\s+)*"  # "Well, how many ..."
_OPENER = rf"^{_FILLER}(?:what(?:'s|s| is| are)\s+|how much is\s+|convert\s+|change\s+)?"
_UNIT = r"([a-z]+)"
_AMOUNT = r"((?:minus\s+|-)?[\d.]+|(?:minus\s+)?[a-z]+(?:\s+[a-z]+){0,5}?)"
_FORMS = [
    # "how many hours is 180 minutes", "how many seconds are in an hour", "how many cm in a foot"
    ("many", re.compile(rf"^{_FILLER}how many\s+{_UNIT}\s+(?:are there\s+|is there\s+|are\s+|is\s+)?"
                        rf"(?:in\s+)?(?:(?:an?|one)\s+|{_AMOUNT}\s+)?(?:degrees?\s+)?{_UNIT}$")),
    # "convert 20 degrees celsius to fahrenheit", "what's 30 celsius in fahrenheit", "180 minutes in hours"
    ("to", re.compile(rf"{_OPENER}{_AMOUNT}\s+(?:degrees?\s+)?{_UNIT}\s+(?:to|in|into|as)\s+(?:degrees\s+)?{_UNIT}$")),
    # "what's minus forty in fahrenheit" (the other scale understood)
    ("scale", re.compile(rf"{_OPENER}{_AMOUNT}\s+(?:degrees\s+)?(?:in|to|into)\s+(?:degrees\s+)?(celsius|fahrenheit|centigrade)$")),
]


def _amount(said: str | None) -> float | None:
    if not said:
        return 1.0
    said = said.strip()
    sign = -1.0 if said.startswith(("minus", "-")) else 1.0
    said = re.sub(r"^(?:minus\s+|-)", "", said)
    if re.fullmatch(r"\d+(?:\.\d+)?", said):
        return sign * float(said)
    words = said.split()
    found = numbers_in(words)
    if len(found) != 1 or found[0][0] != 0 or found[0][2] != len(words):
        return None
    return sign * found[0][1]


def _temperature(value: float, source: str, target: str) -> float:
    celsius = {"C": value, "F": (value - 32) * 5 / 9, "K": value - 273.15}[source]
    return {"C": celsius, "F": celsius * 9 / 5 + 32, "K": celsius + 273.15}[target]


def _name(unit: str, value: float) -> str:
    """The unit's word for ``value`` of it: "1 foot", "3 hours", "20 degrees Celsius"."""
    if unit in _SCALES:
        return "kelvin" if unit == "kelvin" else "degrees " + ("Celsius" if _SCALES[unit] == "C" else "Fahrenheit")
    one = _CANON[unit]
    return one if abs(value - 1) < 1e-9 else _PLURALS.get(one, one + "s")


def convert(text: str) -> tuple[float, str, float, str] | None:
    """``(amount, its unit, value, the unit asked for)`` when ``text`` is a unit conversion and
    nothing else, else None."""
    low = re.sub(r"[?.!,]+\s*$", "", text.lower().replace("’", "'").strip())
    low = re.sub(r"(?<=\d)\s*°\s*([cf])\b", lambda m: " " + {"c": "celsius", "f": "fahrenheit"}[m.group(1)], low)
    low = re.sub(r"\s+", " ", low.replace("-", " ").replace(" please", ""))
    for kind, pattern in _FORMS:
        m = pattern.match(low)
        if m is None:
            continue
        if kind == "many":
            target, said, source = m.group(1), m.group(2), m.group(3)
        elif kind == "to":
            said, source, target = m.group(1), m.group(2), m.group(3)
        else:
            said, target = m.group(1), m.group(2)
            source = "fahrenheit" if _SCALES[target] == "C" else "celsius"
        amount = _amount(said)
        if amount is None:
            continue
        if source in _SCALES and target in _SCALES:
            if _SCALES[source] == _SCALES[target]:
                return None
            return amount, source, _temperature(amount, _SCALES[source], _SCALES[target]), target
        if source in _UNITS and target in _UNITS and _UNITS[source][0] == _UNITS[target][0] and source != target:
            return amount, source, amount * _UNITS[source][1] / _UNITS[target][1], target
    return None


def said(conversion: tuple[float, str, float, str]) -> str:
    """The reply: "180 minutes is 3 hours."."""
    amount, source, value, target = conversion
    return f"{spoken(amount)} {_name(source, amount)} is {spoken(value)} {_name(target, value)}."
