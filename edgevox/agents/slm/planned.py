"""Calls a hook made from the request's own words, which the grounding hook does not check
again ("It's pitch black in the den." -> the light on, ``wants``; "Make that 8 minutes." -> the
timer cancelled and started again, ``follow_up``).

Its own module because ``grounding`` imports ``follow_up``: the hooks grounding builds on
mark their calls here without importing it back.
"""

from __future__ import annotations

from typing import Any

#: the grounding hook's name, under which its turn state is kept
GROUNDING = "grounding"
#: the key of that state holding the names of tools a hook has planned the call of
PLANNED = "planned"


def plan(ctx: Any, tool_name: str) -> None:
    """Mark the call of ``tool_name`` in this turn as one a hook made from the request."""
    ctx.state(GROUNDING).setdefault(PLANNED, set()).add(tool_name)
