"""Sums and unit conversions are worked out, not left to a small model's guess.

A 0.5B model states wrong numbers with confidence (``sums``: 9 of 19 spoken sums of the home
evaluation's tuning splits answered wrongly or refused; ``conversions``: eight conversions
refused or made up). Such a request is answered before the model runs -- faster, and right.
The hook stands aside where a tool of the registry is for arithmetic: a calculator's call
is then the right answer (BFCL's math functions).
"""

from __future__ import annotations

import math

from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.slm.conversions import convert, said
from edgevox.agents.slm.sums import solve, spoken
from edgevox.agents.slm.vocabulary import stem, tool_words

#: words only a tool for arithmetic or conversion uses of itself (not "add" or "percent": a
#: shopping list adds, a light's brightness is in percent)
_MATHS = frozenset(stem(w) for w in "sum subtract subtraction multiply multiplication divide division quotient "
                   "calculate calculator calculation arithmetic math maths exponent compute equation "
                   "convert conversion converter".split())


class WorkedOut(Hook):
    """Answers a spoken sum or unit conversion before the model runs (see the module docstring)."""

    name = "worked_out"
    priority = 5

    def on_run_start(self, ctx: TurnContext, text: str) -> HookResult | None:
        conversion = convert(text)
        value = solve(text) if conversion is None else None
        if conversion is None and value is None:
            return None  # most turns: the registry's words are not read at all
        registry = ctx.registry
        if registry is not None and any(tool_words(t) & _MATHS for t in registry):
            return None
        if conversion is not None:
            return HookResult.end(said(conversion), reason="a conversion, worked out")
        if math.isinf(value):
            return HookResult.end("You can't divide by zero.", reason="a sum divided by zero")
        return HookResult.end(f"That's {spoken(value)}.", reason=f"a sum, worked out: {spoken(value)}")
