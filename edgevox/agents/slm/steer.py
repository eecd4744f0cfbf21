"""Hooks that, after a failed call, choose how the next hop decodes.

The argument-shape hint forces the failed tool's own grammar for the retry; the
unknown-tool hint forces the tool the model meant, or an answer in words. Both keep the
choice in the turn's hook state until the next hop's ``before_llm`` applies it once.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, TurnContext


class SteersNextHop(Hook):
    """A hook whose ``steer`` sets the next hop's strategy (``("single", tool)``: that
    tool's grammar; ``"none"``: an answer in words), applied unless that hop offers no tools."""

    #: the reason the applied steer is recorded under
    steer_reason = "steer the retry"

    def steer(self, ctx: TurnContext, strategy: Any) -> None:
        ctx.state(self)["next"] = strategy

    def before_llm(self, ctx: TurnContext, request: Any) -> HookResult | None:
        nxt = ctx.state(self).pop("next", None)
        if nxt is None or request.strategy == "none":
            return None
        return HookResult.replace(dataclasses.replace(request, strategy=nxt), reason=self.steer_reason, counted=False)
