"""Sums said aloud: read, worked out, said.

Measured on the home evaluation's tuning splits (sessions 17-19, Qwen2.5-Coder-0.5B): of nine
arithmetic questions the model answered in words, four were wrong -- "Nine squared." -> 36,
"Two hundred minus seventy?" -> 20, "What's eighteen times three?" -> 216, "um whats sixty
four divided by four" -> 15 -- and "a thousand take away three hundred and forty seven" was
refused. A reply that states a wrong number is a false statement like a false claim, and a
0.5B model cannot be prompted out of it.

``solve`` reads a request that is a sum and nothing else: an opener ("what's", "how much
is", "calculate"), then numbers in digits or words joined by plus / minus / take away /
times / multiplied by / divided by / over / to the power of, "squared", "cubed", "the square
root of", "N percent of", "half of", "a third of" -- and returns its value. It is a small
recursive-descent parser over words (never ``eval``); anything else in the request ("set a
timer for two times five minutes") and it returns None. The ``worked_out`` hook answers
such a request before the model runs.
"""

from __future__ import annotations

import math
import re

from edgevox.agents.slm.amounts import NUMBER_WORDS, SHARES, number_at
from edgevox.agents.slm.vocabulary import FILLERS

#: words a spoken sum may open with (after fillers), and close with
_OPENERS = ("what is", "what's", "whats", "how much is", "how much's", "calculate", "compute", "work out",
            "tell me", "what do you get for", "and",
            "add", "add up", "what's the sum of", "the sum of", "sum")  # "Add 17 and 25." (dev42: on the shopping list)
_FILLERS = FILLERS | {"please", "quick", "quickly"}
_CLOSERS = frozenset("please then exactly again".split())
#: operator words (longest first where one is the start of another)
_ADD = (("plus",), ("add",), ("and",))
_SUB = (("minus",), ("take", "away"), ("less",))
_MUL = (("times",), ("multiplied", "by"), ("lots", "of"), ("x",))
_DIV = (("divided", "by"), ("over",))
#: "a third of", "three quarters of": the shares a level may be said in, as sums read them
_SHARES = {(*share.split(), "of"): size for share, size in {**SHARES, "a half": 0.5}.items()}
_SYMBOLS = [(r"(?<=\d)\s*[x×*]\s*(?=\d)", " times "), (r"\s*[÷/]\s*", " divided by "), (r"\s*\+\s*", " plus "),
            (r"(?<=\d)\s+-\s+(?=\d)", " minus "), (r"\^", " to the power of "), (r"%", " percent"),
            (r"(?<=[a-z])-(?=[a-z])", " ")]


class _Fail(Exception):
    """The words are not a sum."""


class _Parser:
    """expr := term ((plus|minus) term)*; term := power ((times|divided by) power)*;
    power := unary (to the power of unary)?; unary := minus unary | root of unary | share of
    unary | number (percent of unary)? (squared|cubed)?"""

    def __init__(self, words: list[str]):
        self.words, self.i, self.ops = words, 0, 0

    def _at(self, *seq: str) -> bool:
        return tuple(self.words[self.i:self.i + len(seq)]) == seq

    def _take(self, options: tuple[tuple[str, ...], ...]) -> bool:
        for seq in options:
            if self._at(*seq):
                self.i += len(seq)
                self.ops += 1
                return True
        return False

    def expr(self) -> float:
        value = self.term()
        while True:
            if self._take(_ADD):
                value += self.term()
            elif self._take(_SUB):
                value -= self.term()
            else:
                return value

    def term(self) -> float:
        value = self.power()
        while True:
            if self._take(_MUL):
                value *= self.power()
            elif self._take(_DIV):
                divisor = self.power()
                if divisor == 0:
                    raise ZeroDivisionError
                value /= divisor
            else:
                return value

    def power(self) -> float:
        value = self.unary()
        if self._take((("to", "the", "power", "of"),)):
            exponent = self.unary()
            if abs(exponent) > 64 or abs(value) > 1e6:
                raise _Fail  # a number too long to say
            value = value ** exponent
        return value

    def unary(self) -> float:
        if self._take((("minus",), ("negative",))):
            return -self.unary()
        if self._take((("the", "square", "root", "of"), ("square", "root", "of"), ("root", "of"))):
            value = self.unary()
            if value < 0:
                raise _Fail
            return math.sqrt(value)
        for seq, share in _SHARES.items():
            if self._at(*seq):
                self.i += len(seq)
                self.ops += 1
                return share * self.unary()
        value = self.number()
        if self._take((("percent", "of"), ("per", "cent", "of"))):
            value = value / 100 * self.unary()
        if self._take((("squared",),)):
            value = value ** 2
        elif self._take((("cubed",),)):
            value = value ** 3
        return value

    def number(self) -> float:
        if self.i >= len(self.words):
            raise _Fail
        words = self.words
        found = number_at(words, self.i, articles=False)
        if found is None and words[self.i] in ("a", "an") and words[self.i + 1:self.i + 2] in (["thousand"], ["million"]):
            found = (1.0, 1)
        if found is None:
            raise _Fail
        value, width = found
        self.i += width
        if self._at("thousand") or self._at("million"):
            scale = 1000 if words[self.i] == "thousand" else 1_000_000
            value *= scale
            self.i += 1 + self._at("and")  # "a thousand and five": this "and" is the number's own
            rest = number_at(words, self.i, articles=False) if self.i < len(words) else None
            if rest is not None and rest[0] < scale:
                value += rest[0]
                self.i += rest[1]
            elif words[self.i - 1] == "and":
                self.i -= 1  # "a thousand and two hundred": let "and" add
        if self._at("point") and self.i + 1 < len(words) and words[self.i + 1] in NUMBER_WORDS[:10]:
            self.i += 1
            digits = ""
            while self.i < len(words) and words[self.i] in NUMBER_WORDS[:10]:
                digits += str(NUMBER_WORDS.index(words[self.i]))
                self.i += 1
            value = float(f"{int(value)}.{digits}")
        return value


def _words(text: str) -> list[str]:
    low = text.lower().replace("’", "'").replace(",", "").strip()
    for pattern, said in _SYMBOLS:
        low = re.sub(pattern, said, low)
    words = re.findall(r"\d+(?:\.\d+)?|[a-z']+", low)
    while words and words[0] in _FILLERS:
        words = words[1:]
    joined = " ".join(words)
    for opener in sorted(_OPENERS, key=len, reverse=True):
        if joined == opener or joined.startswith(opener + " "):
            words = words[len(opener.split()):]
            break
    while words and (words[-1] in _CLOSERS | _FILLERS or words[-2:] in (["for", "me"], ["for", "us"])):
        words = words[:-2] if words[-1] in ("me", "us") else words[:-1]  # "Quick, add 240 and 175 for me." (dev46)
    return words


def solve(text: str) -> float | None:
    """The value of ``text`` when it is a spoken sum and nothing else, else None (dividing by
    zero gives ``math.inf``: the hook says so)."""
    words = _words(text)
    if len(words) < 2:
        return None
    parser = _Parser(words)
    try:
        value = parser.expr()
    except ZeroDivisionError:
        return math.inf if parser.ops else None
    except (_Fail, OverflowError):
        return None
    if parser.i != len(words) or parser.ops == 0 or not math.isfinite(value):
        return None
    return value


def spoken(value: float) -> str:
    """``value`` as a reply says it: whole numbers whole, others to at most three decimals."""
    if abs(value - round(value)) < 1e-9:
        return f"{round(value):,}".replace(",", " ") if abs(value) >= 100_000 else str(round(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


__all__ = ["solve", "spoken"]
