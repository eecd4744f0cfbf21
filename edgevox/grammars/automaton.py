"""The automaton of "text in which none of these words occurs", shared by the grammar
builders (``edgevox.grammars.emit.avoid_all_rules``) and the lazy triggered grammars
(``edgevox.llm.constrained.lazy``): each writes its own rules from the same states. It
lives in grammars, the lower stage, so imports flow one way: llm -> grammars.

A state is a proper prefix of a word (shortest first, then in order; "" is state 0): the
longest one the text read so far ends with, as in Aho-Corasick. Only the words'
characters can change the state; any other character goes back to state 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def avoid_automaton(words: Iterable[str]) -> tuple[list[str], dict[str, int], list[str],
                                                     Callable[[str, str], str | None]]:
    """``(states, index of each state, the words' characters sorted, step)``;
    ``step(state, ch)`` is the next state, or None when ``ch`` completes a word."""
    words = tuple(words)
    states = sorted({w[:k] for w in words for k in range(len(w))}, key=lambda p: (len(p), p))
    index = {p: i for i, p in enumerate(states)}
    chars = sorted({c for w in words for c in w})

    def step(state: str, ch: str) -> str | None:
        s = state + ch
        if any(s.endswith(w) for w in words):
            return None  # a word would occur
        return next(s[k:] for k in range(len(s) + 1) if s[k:] in index)  # "" is always a state

    return states, index, chars, step
