"""A recogniser for parsed GBNF that accepts exactly what llama.cpp's sampler accepts.

It runs llama.cpp's own algorithm -- a set of parse stacks advanced one character at a
time -- over the lowered rules from :mod:`edgevox.grammars.gbnf`, so "the matcher says
yes" means "llama.cpp could have produced this text". Used by the tests and by
:meth:`Grammar.matches` to check rendered calls; it is not on the decoding hot path.
"""

from __future__ import annotations

from .gbnf import ParsedGrammar, parse_gbnf

__all__ = ["GbnfMatcher"]

_Pos = tuple  # (rule_id, alt_index, element_index)
_Stack = tuple  # tuple of _Pos, bottom first


class GbnfMatcher:
    """``GbnfMatcher(gbnf_text_or_parsed).matches(text)`` -> bool."""

    def __init__(self, grammar: str | ParsedGrammar, root: str = "root", *, max_stacks: int = 20000) -> None:
        parsed = grammar if isinstance(grammar, ParsedGrammar) else parse_gbnf(grammar, root)
        self.rules = parsed.rules
        self.root_id = parsed.symbols[parsed.root if isinstance(grammar, ParsedGrammar) else root]
        self.max_stacks = max_stacks

    def _advance(self, stack: _Stack, out: set) -> None:
        """Expand rule references on top of ``stack`` until a character (or nothing) is on top."""
        rules = self.rules
        todo = [stack]
        seen = set()
        while todo:
            st = todo.pop()
            if st in seen:
                continue
            seen.add(st)
            if not st:
                out.add(st)
                continue
            rid, ai, ei = st[-1]
            el = rules[rid][ai][ei]
            if el[0] != "r":
                out.add(st)
                continue
            base = st[:-1]
            if ei + 1 < len(rules[rid][ai]):
                base = base + ((rid, ai, ei + 1),)
            sub = el[1]
            for bi, alt in enumerate(rules[sub]):
                todo.append(base + ((sub, bi, 0),) if alt else base)

    def initial(self) -> set:
        out: set = set()
        for ai, alt in enumerate(self.rules[self.root_id]):
            self._advance(((self.root_id, ai, 0),) if alt else (), out)
        return out

    def step(self, stacks: set, ch: str) -> set:
        cp = ord(ch)
        out: set = set()
        for st in stacks:
            if not st:
                continue
            rid, ai, ei = st[-1]
            el = self.rules[rid][ai][ei]
            if el[0] != "c":
                continue
            hit = any(lo <= cp <= hi for lo, hi in el[1])
            if hit == el[2]:  # negated sets match when no range hits
                continue
            nxt = st[:-1]
            if ei + 1 < len(self.rules[rid][ai]):
                nxt = nxt + ((rid, ai, ei + 1),)
            self._advance(nxt, out)
        if len(out) > self.max_stacks:
            raise RuntimeError(f"grammar too ambiguous for the recogniser ({len(out)} stacks)")
        return out

    def run(self, text: str) -> set:
        stacks = self.initial()
        for ch in text:
            stacks = self.step(stacks, ch)
            if not stacks:
                break
        return stacks

    def matches(self, text: str) -> bool:
        """True when the whole ``text`` is a sentence of the grammar (EOS allowed after it)."""
        return () in self.run(text)

    def is_prefix(self, text: str) -> bool:
        """True when ``text`` can still be continued into a sentence of the grammar."""
        return bool(self.run(text))
