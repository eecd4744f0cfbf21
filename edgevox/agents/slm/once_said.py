"""A number the request says once, copied into a second call's optional parameter.

Measured through the agent on BFCL parallel_multiple 0-99 (session 18): "the magnetic field
produced by a wire carrying a current of 4 amps with a distance of 2 m ... the voltage
difference ... 3 m apart, assuming the electric field is 5 N/C" was called as
``calculate_magnetic_field(current=4, distance=2, permeability=5)`` and
``calculate_voltage_difference(electric_field=5, distance=3)``. The 5 is said once, as the
electric field; the magnetic field's permeability is optional and was never said.

So on the turn's first hop that acts, when one number the request says exactly once is held
by two calls or more under different parameter names, and in at least one of them the
parameter is required, the calls where it fills an *optional* parameter lose that argument:
the tool's own default applies, as when the request says nothing. Nothing is ever added or
changed, only a copy dropped. Offline on BFCL's right answers (parallel_multiple and parallel
0-99, multiple 0-199, live_multiple 0-399, live_parallel_multiple and live_parallel), no right
call loses an argument; on the agent's pm 0-99 calls it fires once (the case above).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.slm.vocabulary import is_number

#: a number as said: "4", "2.5", "500,000" (not a piece of a word or of a longer number)
_SAID = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?")


def said_once(request: str) -> set[float]:
    """The numbers the request says exactly once."""
    counts = Counter(float(m.replace(",", "")) for m in _SAID.findall(request))
    return {n for n, k in counts.items() if k == 1}


def copies(request: str, calls: list[tuple[str, Any]], required: dict[str, set[str]]) -> list[tuple[int, str]]:
    """``(call index, parameter)`` of each optional parameter holding a copy of a number the
    request says once and another call holds under a required parameter of another name."""
    once = said_once(request)
    held: dict[float, list[tuple[int, str]]] = {}
    for i, (_, args) in enumerate(calls):
        for key, value in (args.items() if isinstance(args, dict) else ()):
            if is_number(value) and float(value) in once:
                held.setdefault(float(value), []).append((i, key))
    out: list[tuple[int, str]] = []
    for places in held.values():
        if len({i for i, _ in places}) < 2 or len({k for _, k in places}) < 2:
            continue
        optional = [(i, k) for i, k in places if k not in required.get(calls[i][0], set())]
        if len(optional) < len(places):  # some call holds it where it is required: that is its place
            out += optional
    return out


class OnceSaid(Hook):
    """Drops a once-said number's copies from other calls' optional parameters (see the
    module docstring)."""

    name = "once_said"
    priority = 13  # after listed_items' calls for each listed item, before the units' repairs

    def after_llm(self, ctx: TurnContext, output: Any) -> HookResult | None:
        if len(output.calls) < 2 or output.retry or ctx.successes():
            return None  # one call, or not the turn's first hop that acts
        calls = [(c.name, c.arguments) for c in output.calls]
        required = {}
        for name, _ in calls:
            tool = ctx.registry.get(name)
            required[name] = set((tool.parameters or {}).get("required") or ()) if tool is not None else set()
        dropped = copies(ctx.text, calls, required)
        if not dropped:
            return None
        gone = {(i, key) for i, key in dropped}
        kept = [dataclasses.replace(c, arguments={k: v for k, v in c.arguments.items() if (i, k) not in gone})
                if any(j == i for j, _ in gone) else c for i, c in enumerate(output.calls)]
        return HookResult.replace(output.replace(calls=kept),
                                  reason=", ".join(f"{output.calls[i].name}.{k}" for i, k in dropped))
