"""A practical regex subset -> GBNF, for structured output in "regex mode".

Supported: literals, escapes (``\\n \\t \\xHH \\uHHHH``, escaped punctuation), classes
``[...]``/``[^...]`` with ranges, ``\\d \\w \\s`` and their negations (ASCII meanings), ``.``
(anything but a newline, as in Python), groups ``(...)``, ``(?:...)``, ``(?P<n>...)``,
alternation, ``? * + {m} {m,} {,n} {m,n}`` (a lazy ``?`` suffix is accepted and means
nothing for a full match), and ``^``/``$`` at the very ends. The whole output must match.
Everything else (backreferences, lookaround, ``\\b``, inline flags, possessive
quantifiers) raises :class:`GrammarError` -- silently approximating would break the promise.
"""

from __future__ import annotations

from .emit import char_class, lit
from .gbnf import MAX_REPETITION, GrammarError

__all__ = ["regex_to_gbnf"]

_MAXCP = 0x10FFFF
_DIGIT = [(0x30, 0x39)]
_WORD = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_SPACE = [(0x09, 0x0D), (0x20, 0x20)]
_SHORTHAND = {"d": (_DIGIT, False), "D": (_DIGIT, True), "w": (_WORD, False), "W": (_WORD, True),
              "s": (_SPACE, False), "S": (_SPACE, True)}
_CHAR_ESC = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "0": "\0"}


def _normalize(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out, nxt = [], 0
    for lo, hi in _normalize(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= _MAXCP:
        out.append((nxt, _MAXCP))
    return out


class _RegexParser:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0

    def err(self, msg: str) -> GrammarError:
        return GrammarError(f"regex {self.p!r} at {self.i}: {msg}")

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < len(self.p) else ""

    def parse(self) -> str:
        p = self.p
        if p.startswith("^"):
            self.i = 1
        end = len(p)
        if p.endswith("$") and not self._escaped(end - 1):
            end -= 1
        self.p = p[:end]
        expr = self.alt()
        if self.i < len(self.p):
            raise self.err("unbalanced ')'")
        self.p = p
        return expr

    def _escaped(self, j: int) -> bool:
        n = 0
        while j - 1 - n >= 0 and self.p[j - 1 - n] == "\\":
            n += 1
        return n % 2 == 1

    def alt(self) -> str:
        seqs = [self.seq()]
        while self.peek() == "|":
            self.i += 1
            seqs.append(self.seq())
        if len(seqs) == 1:
            return seqs[0]
        return "(" + " | ".join(seqs) + ")"

    def seq(self) -> str:
        items: list[tuple[str, str]] = []  # ("char", c) | ("expr", gbnf)
        while self.i < len(self.p) and self.peek() not in "|)":
            items.append(self.quantified())
        out: list[str] = []
        buf = ""
        for kind, text in items:
            if kind == "char":
                buf += text
            else:
                if buf:
                    out.append(lit(buf))
                    buf = ""
                out.append(text)
        if buf:
            out.append(lit(buf))
        return " ".join(out) if out else '""'

    def _quantifier(self) -> tuple[int, int | None] | None:
        c = self.peek()
        if c == "*":
            self.i += 1
            return 0, None
        if c == "+":
            self.i += 1
            return 1, None
        if c == "?":
            self.i += 1
            return 0, 1
        if c == "{":
            j = self.p.find("}", self.i)
            body = self.p[self.i + 1 : j] if j > 0 else ""
            lo_s, comma, hi_s = body.partition(",")
            if j < 0 or not (lo_s.isdigit() or (comma and lo_s == "")) or not (hi_s.isdigit() or hi_s == ""):
                return None  # a literal "{", as in Python
            if not comma and not lo_s:
                return None
            lo = int(lo_s) if lo_s else 0
            hi = (int(hi_s) if hi_s else None) if comma else lo
            self.i = j + 1
            return lo, hi
        return None

    def quantified(self) -> tuple[str, str]:
        atom = self.atom()
        q = self._quantifier()
        if q is None:
            return atom
        lo, hi = q
        if self.peek() == "?":
            self.i += 1  # lazy: irrelevant for a full match
        elif self.peek() == "+":
            raise self.err("possessive quantifiers are not supported")
        if self.peek() in ("*", "+", "?") or (self.peek() == "{" and self._lookahead_quant()):
            raise self.err("multiple repeat")
        if hi is not None and hi < lo:
            raise self.err(f"bad repetition {{{lo},{hi}}}")
        if lo > MAX_REPETITION or (hi is not None and hi > MAX_REPETITION):
            raise self.err(f"repetition counts above {MAX_REPETITION} are not supported")
        kind, text = atom
        item = lit(text) if kind == "char" else text
        if hi is None:
            suffix = {0: "*", 1: "+"}.get(lo, f"{{{lo},}}")
        elif (lo, hi) == (0, 1):
            suffix = "?"
        else:
            suffix = f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"
        if hi == 0:
            return "expr", '""'
        return "expr", item + suffix

    def _lookahead_quant(self) -> bool:
        save = self.i
        try:
            return self._quantifier() is not None
        finally:
            self.i = save

    def atom(self) -> tuple[str, str]:
        c = self.peek()
        if c == "(":
            self.i += 1
            if self.peek() == "?":
                if self.p.startswith("?:", self.i):
                    self.i += 2
                elif self.p.startswith("?P<", self.i):
                    j = self.p.find(">", self.i)
                    if j < 0:
                        raise self.err("unterminated group name")
                    self.i = j + 1
                else:
                    raise self.err("lookaround, inline flags and other (?...) groups are not supported")
            inner = self.alt()
            if self.peek() != ")":
                raise self.err("missing ')'")
            self.i += 1
            return "expr", f"({inner})"
        if c == "[":
            return "expr", self.char_class()
        if c == ".":
            self.i += 1
            return "expr", "[^\\n]"
        if c == "\\":
            return self.escape()
        if c in "*+?":
            raise self.err("nothing to repeat")
        if c == "{" and self._lookahead_quant():
            raise self.err("nothing to repeat")
        if c in "^$":
            raise self.err("anchors are only supported at the very start and end")
        self.i += 1
        return "char", c

    def escape(self) -> tuple[str, str]:
        self.i += 1
        e = self.peek()
        if not e:
            raise self.err("trailing backslash")
        if e in _SHORTHAND:
            self.i += 1
            ranges, neg = _SHORTHAND[e]
            return "expr", char_class(ranges, negated=neg)
        return "char", chr(self._escape_char())

    def _escape_char(self) -> int:
        e = self.peek()
        self.i += 1
        if e in _CHAR_ESC:
            return ord(_CHAR_ESC[e])
        width = {"x": 2, "u": 4, "U": 8}.get(e)
        if width:
            digits = self.p[self.i : self.i + width]
            if len(digits) != width or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise self.err(f"\\{e} needs {width} hex digits")
            self.i += width
            return int(digits, 16)
        if e.isalnum():
            raise self.err(f"escape \\{e} is not supported (backreferences, \\b, \\A, \\Z ...)")
        return ord(e)

    def char_class(self) -> str:
        self.i += 1
        neg = False
        if self.peek() == "^":
            neg = True
            self.i += 1
        ranges: list[tuple[int, int]] = []
        first = True
        while True:
            c = self.peek()
            if not c:
                raise self.err("unterminated character class")
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            if c == "\\" and self.peek(1) in _SHORTHAND:
                ranges_, neg_ = _SHORTHAND[self.peek(1)]
                self.i += 2
                ranges.extend(_complement(ranges_) if neg_ else ranges_)
                continue
            lo = self._class_char()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.i += 1
                if self.peek() == "\\" and self.peek(1) in _SHORTHAND:
                    raise self.err("bad character range")
                hi = self._class_char()
                if hi < lo:
                    raise self.err("bad character range")
                ranges.append((lo, hi))
            else:
                ranges.append((lo, lo))
        ranges = _normalize(ranges)
        if not ranges:
            raise self.err("empty character class")
        if neg and ranges == [(0, _MAXCP)]:
            raise self.err("character class matches nothing")
        return char_class(ranges, negated=neg)

    def _class_char(self) -> int:
        c = self.peek()
        if c == "\\":
            self.i += 1
            if self.peek() == "b":
                self.i += 1
                return 8
            return self._escape_char()
        self.i += 1
        return ord(c)


def regex_to_gbnf(pattern: str) -> str:
    """The GBNF expression for a full match of ``pattern``."""
    if not isinstance(pattern, str):
        raise GrammarError(f"regex must be a str, not {type(pattern).__name__}")
    return _RegexParser(pattern).parse()
