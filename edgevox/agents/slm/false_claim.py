"""False claims: a reply may not say something was done that no call of the turn did.

Measured on Qwen2.5-Coder-0.5B (issue 14): "Set a timer for 12 minutes for the pasta" made
no call and replied "I'm setting a timer"; after demonstrations, "Hallway lights are on."
with no call; "The garage light is now turned off." after the call switched it on.

The check (``claims.unbacked``) runs on every reply that carries no calls. The first time in
a turn, with a hop left, the generation is discarded and the model tries again with a note
(nothing was done; call the tool if an action was asked for, else answer without claiming
one): it may now make the call it only talked about, or answer in words. If the retry
claims again, or no hop is left, the reply is said from the results instead: what the
successful calls returned, or that nothing was done. In ``run_stream`` each sentence is
held until it is complete and checked, so a false claim is never half spoken; for a voice
pipeline that speaks whole sentences anyway this costs nothing.
"""

from __future__ import annotations

from typing import Any

from edgevox.agents.hooks import Hook, HookResult, StreamFilter, TurnContext
from edgevox.agents.slm.claims import find_claims, unbacked
from edgevox.agents.speech import summarise

NOTE = ("Nothing has been done yet: no tool was called. If the user asked for an action, call the tool "
        "for it now; otherwise answer in words without saying that anything was done.")
_ENDS = ".!?\n"


def from_results(ctx: TurnContext) -> str:
    """A truthful reply made from the turn's successful calls (or: nothing was done)."""
    ok = ctx.successes()
    if not ok:
        return ctx.agent.phrases.not_done
    said = "; ".join(f"{r.name.replace('_', ' ')}: {summarise(r.result, limit=80)}" for r in ok[-3:])
    return ctx.agent.phrases.done.format(summary=said)


class _HoldClaims(StreamFilter):
    """Speaks sentence by sentence; from the first unbacked claim on, holds everything back
    (the hook decides what is said)."""

    def __init__(self, ctx: TurnContext):
        self.ctx = ctx
        self.buf = ""
        self.holding = False

    def feed(self, text: str) -> str:
        if self.holding:
            return ""
        self.buf += text
        cut = max(self.buf.rfind(c) for c in _ENDS) + 1
        if cut <= 0:
            return ""
        done, self.buf = self.buf[:cut], self.buf[cut:]
        if find_claims(done) and unbacked(done, self.ctx.records, self.ctx.registry):
            self.holding = True
            return ""
        return done


class FalseClaim(Hook):
    name = "false_claim"
    priority = 45  # last: it reads the reply speakable has cleaned, and defers to earlier retries

    def stream_filter(self, ctx: TurnContext) -> StreamFilter:
        return _HoldClaims(ctx)

    def after_llm(self, ctx: TurnContext, output: Any) -> HookResult | None:
        if output.calls or output.retry or not output.content.strip():
            return None
        reasons = unbacked(output.content, ctx.records, ctx.registry)
        if not reasons:
            return None
        st = ctx.state(self)
        st.setdefault("reasons", []).extend(reasons)
        safe = from_results(ctx)
        if st.get("retried") or ctx.hops_left <= 0:
            return HookResult.end(safe, reason="; ".join(reasons))
        st["retried"] = True
        return HookResult.replace(output.replace(retry=NOTE, fallback=safe), reason="; ".join(reasons))
