"""Currencies named in words where a currency parameter wants a code.

Measured through the agent on BFCL parallel_multiple 0-99 (session 15): "convert 10 dollars
to Euros" -> ``from_currency="dollars", to_currency="euros"``, where the API (and the
answer) takes "USD" and "EUR". A string parameter whose name says ``currency`` and whose
schema lists no allowed values gets the ISO 4217 code of a currency named in words
("US dollars", "yen", "pounds") or of a code written in small letters ("usd"). A name this
table does not know is left as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from edgevox.agents.slm.vocabulary import enum_of, properties

#: the currencies a request names most, by the names people say (ISO 4217 codes)
_CODES = {
    "USD": ("dollar", "us dollar", "u.s. dollar", "united states dollar", "american dollar", "buck"),
    "EUR": ("euro",),
    "GBP": ("pound", "british pound", "pound sterling", "sterling"),
    "JPY": ("yen", "japanese yen"),
    "CNY": ("yuan", "chinese yuan", "renminbi", "rmb"),
    "INR": ("rupee", "indian rupee"),
    "CAD": ("canadian dollar",),
    "AUD": ("australian dollar",),
    "CHF": ("swiss franc", "franc"),
    "MXN": ("mexican peso", "peso"),
    "KRW": ("won", "korean won", "south korean won"),
    "RUB": ("ruble", "rouble", "russian ruble"),
    "BRL": ("real", "brazilian real", "reais"),
}
_CODE_OF = {name: code for code, names in _CODES.items() for name in names}


def currency_code(value: str) -> str | None:
    """"US Dollars" -> "USD", "euros" -> "EUR", "usd" -> "USD"; None for anything else."""
    word = " ".join(value.strip().lower().replace("_", " ").split())
    if word.upper() in _CODES:
        return word.upper()
    for form in (word, word.removesuffix("s"), word.removesuffix("es")):
        if form in _CODE_OF:
            return _CODE_OF[form]
    return None


def fix_currency_code(request: str, tool: Any, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """Each currency parameter's named currency as its code (see the module docstring)."""
    fixed = dict(arguments)
    for key, schema in properties(tool).items():
        value = arguments.get(key)
        if "currency" not in key.lower() or not isinstance(value, str) or enum_of(schema):
            continue
        code = currency_code(value)
        if code is not None:
            fixed[key] = code
    return fixed if fixed != arguments else None
