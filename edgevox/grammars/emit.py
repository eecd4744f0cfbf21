"""Small helpers that write GBNF text: literals, character classes, rule sets, and the
"free text that never contains X" automaton used for think blocks and replies."""

from __future__ import annotations

import re

from .automaton import avoid_automaton

__all__ = ["lit", "char_class", "RuleSet", "avoid_rules", "avoid_all_rules", "rule_names",
           "rename_rules"]

_SIMPLE = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _esc(cp: int) -> str:
    if cp < 0x20 or cp == 0x7F:
        return f"\\x{cp:02X}"
    if 0xD800 <= cp <= 0xDFFF:  # not encodable as UTF-8 text; llama.cpp takes the escape
        return f"\\u{cp:04X}"
    return chr(cp)


def lit(text: str) -> str:
    """``text`` as a GBNF string literal (``""`` for the empty string)."""
    out = []
    for ch in text:
        out.append(_SIMPLE.get(ch) or _esc(ord(ch)))
    return '"' + "".join(out) + '"'


_CLASS_SPECIAL = {"\\": "\\\\", "]": "\\]", "[": "\\[", "-": "\\-", "^": "\\x5E",
                  "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _class_char(cp: int) -> str:
    ch = chr(cp)
    return _CLASS_SPECIAL.get(ch) or _esc(cp)


def char_class(ranges: list[tuple[int, int]] | str, negated: bool = False) -> str:
    """A GBNF ``[...]`` class from code point ranges (or from the characters of a string)."""
    if isinstance(ranges, str):
        ranges = [(ord(c), ord(c)) for c in sorted(set(ranges))]
    if not ranges:
        raise ValueError("empty character class")
    parts = []
    for lo, hi in ranges:
        if lo == hi:
            parts.append(_class_char(lo))
        elif hi == lo + 1:
            parts.append(_class_char(lo) + _class_char(hi))
        else:
            parts.append(_class_char(lo) + "-" + _class_char(hi))
    return "[" + ("^" if negated else "") + "".join(parts) + "]"


_NAME_BAD = re.compile(r"[^A-Za-z0-9-]+")
_DEF = re.compile(r"^([A-Za-z0-9-]+)[ \t]*::=", re.M)


def rule_names(gbnf: str) -> set[str]:
    """Names defined in a GBNF text (used to keep generated names clear of static ones)."""
    return set(_DEF.findall(gbnf))


_GBNF_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\[(?:\\.|[^\]\\])*\]|\{[^}]*\}|#[^\n]*|<[^>\n]*>'
                         r'|[A-Za-z0-9-]+|\s+|.', re.S)


def rename_rules(gbnf: str, prefix: str) -> str:
    """``gbnf`` with every rule name prefixed (literals, classes, repetitions untouched), so
    a user's or a derived grammar can sit beside generated rules without a name clash."""
    out = []
    for m in _GBNF_TOKEN.finditer(gbnf):
        tok = m.group(0)
        if tok[0].isalnum() or (tok[0] == "-" and len(tok) > 1):
            out.append(prefix + tok)
        elif tok[0] != "#":
            out.append(tok)
    return "".join(out).rstrip("\n") + "\n"


class RuleSet:
    """Generated rules with unique, GBNF-legal names (letters, digits and '-')."""

    def __init__(self, reserved: set[str] | None = None) -> None:
        self.rules: dict[str, str] = {}
        self.reserved = set(reserved or ())

    def name(self, hint: str) -> str:
        base = _NAME_BAD.sub("-", hint).strip("-")[:48].strip("-") or "r"
        cand, n = base, 1
        while cand in self.rules or cand in self.reserved:
            n += 1
            cand = f"{base}-{n}"
        self.rules[cand] = ""  # reserved until defined
        return cand

    def define(self, name: str, body: str) -> str:
        self.rules[name] = body
        return name

    def add(self, hint: str, body: str) -> str:
        return self.define(self.name(hint), body)

    def text(self) -> str:
        missing = [k for k, v in self.rules.items() if not v]
        if missing:
            raise RuntimeError(f"rules reserved but never defined: {missing}")
        return "".join(f"{k} ::= {v}\n" for k, v in self.rules.items())


def _delta(s: str, k: int, c: str) -> int:
    """KMP transition: longest prefix of ``s`` that is a suffix of ``s[:k] + c``."""
    t = s[:k] + c
    for n in range(min(len(s), len(t)), 0, -1):
        if t.endswith(s[:n]):
            return n
    return 0


def avoid_rules(rs: RuleSet, hint: str, forbidden: str, *, followed_by: str | None = None,
                nonempty: bool = False, not_first: str = "") -> str:
    """Add rules for "any text that does not contain ``forbidden``"; return the start rule.

    A right-linear automaton (one rule per matched prefix length), so llama.cpp's parse
    stack stays flat however long the text gets. ``followed_by``: the literal that comes
    right after the text -- the text may then not end in a way that makes ``forbidden``
    appear *before* that literal ends (matters only for self-overlapping strings).
    ``nonempty``: the start rule requires at least one character. ``not_first``
    (with ``nonempty``): characters the text may not begin with.
    """
    if not forbidden:
        raise ValueError("forbidden string must not be empty")
    m = len(forbidden)
    chars = sorted(set(forbidden))
    names = [rs.name(hint if k == 0 else f"{hint}-{k}") for k in range(m)]
    start = rs.name(f"{hint}-first") if nonempty else names[0]

    def can_end(k: int) -> bool:
        if followed_by is None:
            return True
        state = k
        for idx, ch in enumerate(followed_by):
            state = _delta(forbidden, state, ch)
            if state == m:
                return idx == len(followed_by) - 1
        return True

    def alternatives(k: int, excluded: str = "") -> list[str]:
        by_target: dict[int, list[str]] = {}
        special = list(excluded)  # characters that do not simply fall back to state 0
        for ch in chars:
            j = _delta(forbidden, k, ch)
            if j != 0:
                special.append(ch)
                if j < m and ch not in excluded:
                    by_target.setdefault(j, []).append(ch)
        alts = [f"{char_class(''.join(special), negated=True)} {names[0]}"]
        for j in sorted(by_target):
            group = by_target[j]
            atom = lit(group[0]) if len(group) == 1 else char_class("".join(group))
            alts.append(f"{atom} {names[j]}")
        return alts

    for k in range(m):
        alts = alternatives(k)
        if can_end(k):
            alts.append('""')
        rs.define(names[k], " | ".join(alts))
    if nonempty:
        rs.define(start, " | ".join(alternatives(0, not_first)))
    return start


def avoid_all_rules(rs: RuleSet, hint: str, forbidden: list[str] | tuple[str, ...], *,
                    followed_by: str | None = None) -> str:
    """Rules for "any text in which none of ``forbidden`` occurs"; return the start rule.

    The several-strings form of :func:`avoid_rules` (one string goes there): states are the
    prefixes of the forbidden strings, a state the longest one the text ends with, so the
    rules stay right-linear. ``followed_by``: the literal after the text, which may
    complete a forbidden string only with its own last character (an end tag). No
    forbidden strings: any text at all.
    """
    words = sorted({w for w in forbidden if w})
    if len(words) == 1:
        return avoid_rules(rs, hint, words[0], followed_by=followed_by)
    if not words:
        return rs.add(hint, "[^\\x00]*")
    states, index, chars, step = avoid_automaton(words)
    names = [rs.name(hint if i == 0 else f"{hint}-{i}") for i in range(len(states))]

    def can_end(state: str) -> bool:
        for i, ch in enumerate(followed_by or ""):
            nxt = step(state, ch)
            if nxt is None:
                return i == len(followed_by) - 1
            state = nxt
        return True

    for p in states:
        special, by_target = [], {}
        for ch in chars:
            nxt = step(p, ch)
            if nxt != "":
                special.append(ch)
            if nxt:
                by_target.setdefault(index[nxt], []).append(ch)
        alts = [f"{char_class(''.join(special), negated=True)} {names[0]}"]
        for j, group in sorted(by_target.items()):
            atom = lit(group[0]) if len(group) == 1 else char_class("".join(group))
            alts.append(f"{atom} {names[j]}")
        if can_end(p):
            alts.append('""')
        rs.define(names[index[p]], " | ".join(alts))
    return names[0]
