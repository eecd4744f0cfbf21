"""Grammar text surgery for triggered grammars: derivatives, renaming, serialising.

``derive_gbnf(g, "<tool_call>")`` is the grammar of what may follow once a string of ``g``
has begun with ``"<tool_call>"`` (the Brzozowski derivative, on the lowered rules of
``edgevox.grammars.parse_gbnf``). It lets a trigger be cut off any call grammar --
whatever builder wrote it -- so "prose, trigger, rest of the call" is one exact language
for both mask engines. Left recursion is rejected by the validator, so the derivative
of a rule never needs itself and the construction terminates.
"""

from __future__ import annotations

import re
from typing import Any

from edgevox.grammars.emit import rename_rules

__all__ = ["derive_gbnf", "rename_rules", "rename_lark", "gbnf_literal", "regex_escape", "gbnf_to_llg",
           "has_char_automaton"]

Element = tuple


def _matches(el: Element, cp: int) -> bool:
    ranges, negated = el[1], el[2]
    inside = any(lo <= cp <= hi for lo, hi in ranges)
    return inside != negated


def _nullable(rules: dict[int, list[tuple[Element, ...]]]) -> set[int]:
    null: set[int] = set()
    changed = True
    while changed:
        changed = False
        for rid, alts in rules.items():
            if rid in null:
                continue
            if any(all(e[0] == "r" and e[1] in null for e in alt) for alt in alts):
                null.add(rid)
                changed = True
    return null


def derive_gbnf(grammar: Any, prefix: str) -> str:
    """GBNF (root rule ``root``) for the rest of ``grammar``'s strings that begin with ``prefix``.

    Raises ``GrammarError`` when no string of the grammar begins with ``prefix``.
    """
    from edgevox.grammars import GrammarError, parse_gbnf

    from .engine import grammar_source

    text, root = grammar_source(grammar)
    parsed = parse_gbnf(text, root)
    d = _Deriver({k: list(v) for k, v in parsed.rules.items()}, dict(parsed.names))
    cur: int | None = parsed.symbols[root]
    for ch in prefix:
        cur = d.step(cur, ord(ch))
        if cur is None:
            raise GrammarError(f"no string of the grammar begins with {prefix!r}")
    return _serialise(d.rules, d.names, cur)


class _Deriver:
    """Derivative of lowered rules by one character at a time (new rules are added)."""

    def __init__(self, rules: dict[int, list[tuple[Element, ...]]], names: dict[int, str]):
        self.rules = rules
        self.names = names
        self.next_id = max(rules) + 1

    def step(self, rid: int, cp: int) -> int | None:
        self.cp = cp
        self.null = _nullable(self.rules)
        self.memo: dict[int, int | None] = {}
        self.busy: set[int] = set()
        return self._rule(rid)

    def _rule(self, rid: int) -> int | None:
        if rid in self.memo:
            return self.memo[rid]
        if rid in self.busy:  # only reachable through left recursion, which validation forbids
            from edgevox.grammars import GrammarError

            raise GrammarError("cannot take the derivative of a left-recursive rule")
        self.busy.add(rid)
        alts = [a for alt in self.rules[rid] for a in self._seq(alt)]
        self.busy.discard(rid)
        if not alts:
            self.memo[rid] = None
            return None
        nid = self.next_id
        self.next_id += 1
        self.rules[nid] = alts
        base = self.names.get(rid, "r")
        self.names[nid] = base if base.endswith("-rest") else f"{base}-rest"
        self.memo[rid] = nid
        return nid

    def _seq(self, seq: tuple[Element, ...]) -> list[tuple[Element, ...]]:
        if not seq:
            return []
        head, rest = seq[0], seq[1:]
        out: list[tuple[Element, ...]] = []
        if head[0] == "c":
            if _matches(head, self.cp):
                out.append(rest)
        elif head[0] == "r":
            d = self._rule(head[1])
            if d is not None:
                out.append((("r", d), *rest))
            if head[1] in self.null:
                out.extend(self._seq(rest))
        # a token element ("t") is never split by text
        return out


def _serialise(rules: dict[int, list[tuple[Element, ...]]], names: dict[int, str], root: int) -> str:
    """GBNF text for the rules reachable from ``root``.

    The lowering turned ``x*`` and ``x?`` into helper rules (``r_7 ::= x r_7 | ""``);
    they are folded back inline, so llguidance's converter can again make one lexeme of a
    terminal rule (a JSON string) instead of one Earley item per character.
    """

    def helper_body(rid: int) -> tuple[str, tuple[Element, ...]] | None:
        name = names.get(rid, "")
        alts = rules[rid]
        if "_" not in name or name.endswith("-rest") or rid == root or len(alts) != 2 or () not in alts:
            return None
        seq = alts[0] if alts[1] == () else alts[1]
        me = ("r", rid)
        if seq and seq[-1] == me and me not in seq[:-1]:
            return "*", seq[:-1]
        if me not in seq:
            return "?", seq
        return None

    def ref(rid: int) -> str:
        h = helper_body(rid)
        if h is None:
            return name(rid)
        return f"({_seq_text(h[1], ref)}){h[0]}"

    def name(rid: int) -> str:
        return "root" if rid == root else f"r{rid}-" + re.sub(r"[^A-Za-z0-9-]+", "-", names.get(rid, "r"))[:40]

    order, seen, todo = [], {root}, [root]
    while todo:
        rid = todo.pop(0)
        order.append(rid)
        stack = [e for alt in rules[rid] for e in alt]
        while stack:
            e = stack.pop()
            if e[0] != "r":
                continue
            h = helper_body(e[1])
            if h is not None:
                stack.extend(h[1])  # inlined: look through it
            elif e[1] not in seen:
                seen.add(e[1])
                todo.append(e[1])
    lines = []
    for rid in order:
        alts = [_seq_text(alt, ref) for alt in rules[rid]]
        lines.append(f"{name(rid)} ::= {' | '.join(alts)}\n")
    return "".join(lines)


def _seq_text(alt: tuple[Element, ...], ref: Any) -> str:
    parts: list[str] = []
    run: list[int] = []  # consecutive single characters become one literal (one lexeme)

    def flush() -> None:
        if run:
            parts.append(gbnf_literal("".join(chr(c) for c in run)))
            run.clear()

    for e in alt:
        if e[0] == "c" and not e[2] and len(e[1]) == 1 and e[1][0][0] == e[1][0][1]:
            run.append(e[1][0][0])
            continue
        flush()
        if e[0] == "c":
            parts.append("." if e[2] and not e[1] else _char_class(e[1], e[2]))
        elif e[0] == "r":
            parts.append(ref(e[1]))
        else:
            parts.append(("!" if e[2] else "") + f"<[{e[1]}]>")
    flush()
    return " ".join(parts) if parts else '""'


def _esc_cp(cp: int, special: str) -> str:
    ch = chr(cp)
    if ch in special:
        return "\\" + ch
    if ch == "\n":
        return "\\n"
    if ch == "\t":
        return "\\t"
    if ch == "\r":
        return "\\r"
    if cp < 0x20 or cp == 0x7F:
        return f"\\x{cp:02X}"
    if 0xD800 <= cp <= 0xDFFF:
        return f"\\u{cp:04X}"
    return ch


def gbnf_literal(s: str) -> str:
    """``s`` as a GBNF string literal."""
    return '"' + "".join(_esc_cp(ord(c), '"\\') for c in s) + '"'


def _char_class(ranges: tuple, negated: bool) -> str:
    body = []
    for lo, hi in ranges:
        a = _esc_cp(lo, "\\]-[^") if lo != 0x5E else "\\x5E"
        if lo == hi:
            body.append(a)
        else:
            b = _esc_cp(hi, "\\]-[^") if hi != 0x5E else "\\x5E"
            body.append(f"{a}-{b}")
    return "[" + ("^" if negated else "") + "".join(body) + "]"


_LARK_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/(?:\\.|[^/\\\n])*/|%[^\n]*|[A-Za-z_][A-Za-z0-9_]*'
                         r'|\s+|.', re.S)


def rename_lark(lark: str, prefix: str) -> str:
    """Lark text (from ``gbnf_to_lark``) with rules and terminals prefixed; the
    ``%llguidance`` header and comments are dropped."""
    out = []
    for m in _LARK_TOKEN.finditer(lark):
        tok = m.group(0)
        if tok[0] == "_" or tok[0].isalpha():
            out.append((prefix.upper() if tok.isupper() else prefix.lower()) + tok)
        elif tok.startswith("//") or tok.startswith("%"):
            continue
        else:
            out.append(tok)
    return "".join(out).strip("\n") + "\n"


def regex_escape(s: str) -> str:
    """``s`` as a literal inside a Lark ``/regex/`` (Rust regex syntax, ``/`` escaped)."""
    out = []
    for ch in s:
        if ch in r"\.+*?()|[]{}^$#&-~/ " or not ch.isprintable():
            out.append(f"\\x{{{ord(ch):X}}}")
        else:
            out.append(ch)
    return "".join(out)


_ANY = re.compile(r'"(?:\\.|[^"\\])*"|/\./')


def gbnf_to_llg(gbnf: str) -> str:
    """llguidance's GBNF -> Lark conversion with llama.cpp's meaning of ``.``.

    The converter writes GBNF ``.`` as the regex ``/./``, which does not match a newline;
    in llama.cpp ``.`` is any character. (``.*`` replies would lose every line break.)
    """
    from llguidance.gbnf_to_lark import gbnf_to_lark

    lark = gbnf_to_lark(gbnf)
    return _ANY.sub(lambda m: "/(?s:.)/" if m.group(0) == "/./" else m.group(0), lark)


def has_char_automaton(gbnf: str, root: str = "root") -> bool:
    """Does the grammar encode a character-level automaton over several rules?

    That is how "free text that never contains X" is written in GBNF (``a ::= [^<] a |
    "<" a-1 | ""`` ...). llama.cpp runs it exactly; llguidance lexes each character
    separately and greedily, so a longer literal that shares a prefix (``"<tool_call>"``)
    shadows the one-character path and text like ``<td`` is wrongly refused. Such grammars
    go to llama.cpp's engine. (A plain repetition ``x ::= [0-9] x | ""`` is one rule, not
    an automaton, and does not count.)
    """
    from edgevox.grammars import parse_gbnf

    rules = parse_gbnf(gbnf, root).rules
    edges: dict[int, set[int]] = {}
    for rid, alts in rules.items():
        ok = all(len(a) == 0 or (a[0][0] == "c" and (len(a) == 1 or (len(a) == 2 and a[1][0] == "r")))
                 for a in alts)
        if ok:
            edges[rid] = {a[1][1] for a in alts if len(a) == 2}
    for rid in edges:  # a cycle through another automaton-like rule
        seen, todo = {rid}, [x for x in edges[rid] if x != rid]
        while todo:
            x = todo.pop()
            if x == rid:
                return True
            if x in seen or x not in edges:
                continue
            seen.add(x)
            todo.extend(edges[x])
    return False
