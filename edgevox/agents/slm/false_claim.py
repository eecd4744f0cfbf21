"""False claims: a reply may not say something was done that no call of the turn did.

Measured on Qwen2.5-Coder-0.5B (issue 14): "Set a timer for 12 minutes for the pasta" made
no call and replied "I'm setting a timer"; after demonstrations, "Hallway lights are on."
with no call; "The garage light is now turned off." after the call switched it on.

The check (``claims.unbacked``) runs on every reply that carries no calls. The first time in
a turn, with a hop left, the generation is discarded and the model tries again with a note
(nothing was done; call the tool if an action was asked for), and this time it must call:
measured on the home evaluation's dev split, follow-ups ("And pears.", "Kill the timer.")
were claimed in words and then, asked again freely, claimed again. The grounding hook
stands behind the forced call: a call not about the request is blocked and the turn ends
in words. If the retry
claims again, or no hop is left, the reply is said from the results instead: what the
successful calls returned, or that nothing was done. In ``run_stream`` a sentence is held
from its first word that a claim needs until it is complete and checked, so a false claim
is never spoken; other text streams a few words late (``_HoldClaims``).

A reading said with no call that read it ("The current local time is 10:30 AM.",
``claims.made_up_readings``) is treated the same way, with its own note: the retry must call,
so the time or the weather comes from the tool that reads it. Where no tool of the registry
reads that kind at all (``claims.unreadable_readings``: "The time is currently 12:00 PM." with
only a travel-time calculator), there is nothing to retry with: the reply becomes an honest
"I can't tell the time from here." (``Phrases.cannot_read``). Likewise a device no tool is for,
said to be acted on ("The window is open." for "Could you open the window?", dev11): the reply
becomes grounding's "Sorry, I can't control the window." (or "I can't check that." to a question).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, StreamFilter, TurnContext
from edgevox.agents.slm.claims import (
    READING_TRIGGERS,
    READINGS,
    TRIGGERS,
    made_up_readings,
    unbacked,
    unreadable_readings,
    unserved_claims,
)
from edgevox.agents.slm.grounding import REPLIES
from edgevox.agents.slm.questions import is_question
from edgevox.agents.slm.remarks import asks_nothing
from edgevox.agents.slm.telling import only_tells
from edgevox.agents.slm.vocabulary import changes_things
from edgevox.agents.speech import summarise

NOTE = ("Nothing has been done yet: no tool was called. If the user asked for an action, call the tool "
        "for it now; otherwise answer in words without saying that anything was done.")
READING_NOTE = ("No tool was called, so that {kind} was made up. Call the tool that tells the {kind} now, "
                "or say that you cannot tell.")
_END = re.compile(r"[.!?\n]")
_TOKEN = re.compile(r"[\w'’]+|\s+|[^\w\s]")


def from_results(ctx: TurnContext) -> str:
    """A truthful reply made from the turn's successful calls (or: nothing was done)."""
    ok = ctx.successes()
    if not ok:
        return ctx.agent.phrases.not_done
    said = "; ".join(f"{r.name.replace('_', ' ')}: {summarise(r.result, limit=80)}" for r in ok[-3:])
    return ctx.agent.phrases.done.format(summary=said)


#: a name a reply quotes ("The item '3 onions' is not on the shopping list.")
_QUOTED = re.compile(r"(?<!\w)['\"‘“]([^'\"’”]{2,40})['\"’”](?!\w)")


def misnamed_refusal(text: str, ctx: TurnContext) -> str | None:
    """When every call of the turn was refused by its tool and ``text`` quotes a value no call
    of the turn held ("And the 2 peppers too." answered "The item '3 onions' is not on the
    shopping list.", dev42: the turn before's refusal repeated): the refusals said as the tools
    gave them; else None."""
    refused = [r for r in ctx.records if r.dispatched and r.error and r.error_type == "exception"]
    if not refused or ctx.successes():
        return None
    held = {str(v).strip().lower() for r in ctx.records for v in (r.arguments or {}).values() if isinstance(v, str)}
    if not any(q.strip().lower() not in held for q in _QUOTED.findall(text)):
        return None
    said = [re.sub(r"^\w+(?:Error|Exception):\s*", "", r.error).rstrip(".") for r in refused]
    return " ".join(f"Sorry, {e}." for e in dict.fromkeys(said))


class _HoldClaims(StreamFilter):
    """What of a streamed reply may be spoken before the hook has seen it whole.

    A sentence's first ``LEAD`` words are held (a claim names its subject first: "I'm",
    "The garage light"); if a word a claim needs (``claims.TRIGGERS``: an action verb, a
    device, "done", "now") or a reading may need (``claims.READING_TRIGGERS``: "time",
    "weather", a digit) comes, the sentence is held until complete and checked whole;
    otherwise it streams word by word. From the first unbacked claim on, everything is held
    and the hook decides what is said. So a false claim is never spoken, and other text is
    at most a few words late.
    """

    LEAD = 5

    def __init__(self, ctx: TurnContext):
        self.ctx = ctx
        self.buf = ""  # received, not yet spoken
        self.said = ""  # spoken part of the current sentence
        self.words = 0  # words of the current sentence spoken
        self.hold = False  # the current sentence has a trigger word: wait for its end
        self.blocked = False

    def feed(self, text: str) -> str:
        if self.blocked:
            return ""
        self.buf += text
        out = ""
        while True:
            if self.hold:
                end = _END.search(self.buf)
                if end is None:
                    return out
                sentence = self.said + self.buf[:end.end()]
                if _problems(sentence, self.ctx)[0] or misnamed_refusal(sentence, self.ctx):
                    self.blocked = True
                    return out
                out += self.buf[:end.end()]
                self.buf, self.said, self.words, self.hold = self.buf[end.end():], "", 0, False
                continue
            commit, words, committed_words = 0, self.words, self.words
            for m in _TOKEN.finditer(self.buf):
                tok = m.group()
                if m.end() == len(self.buf) and tok[0].isalnum():
                    break  # a word may still grow
                if tok.lower() in TRIGGERS or tok.lower() in READING_TRIGGERS or tok[0].isdigit() \
                        or (tok[0] in "'\"‘“" and any(r.error_type == "exception" for r in self.ctx.records)):
                    self.hold = True
                    break
                words += tok[0].isalnum()
                if _END.fullmatch(tok):
                    commit, words, committed_words = m.end(), 0, 0
                elif tok.isspace() and commit == m.start() and words == committed_words:
                    # a blank right after spoken text carries no claim: pass it, so the
                    # speaker learns now that a sentence ended ("Hello!" + " ")
                    commit = m.end()
                elif words >= self.LEAD:
                    commit, committed_words = m.end(), words
            spoken, self.buf = self.buf[:commit], self.buf[commit:]
            ends = list(_END.finditer(spoken))
            self.said = spoken[ends[-1].end():] if ends else self.said + spoken
            self.words = committed_words
            out += spoken
            if not self.hold:
                return out


def _problems(text: str, ctx: TurnContext) -> tuple[list[str], str]:
    """Why ``text`` may not be said in this turn (unbacked action claims, else made-up
    readings), and the note the retry gets -- or, when no retry can help because no tool
    reads what was made up, the kind of reading ("time"), to say honestly it can't be told."""
    reasons = unbacked(text, ctx.records, ctx.registry)
    if reasons:
        return reasons, NOTE
    readings = made_up_readings(text, ctx.records, ctx.registry)
    if readings:
        kind = readings[0][0]
        return [f"states the {k} with no call that read it: {s!r}" for k, s in readings], READING_NOTE.format(kind=kind)
    unreadable = unreadable_readings(text, ctx.text, ctx.registry)
    if unreadable:
        return [f"states the {k} and no tool can read it: {s!r}" for k, s in unreadable], unreadable[0][0]
    return [], NOTE


class FalseClaim(Hook):
    name = "false_claim"
    priority = 45  # last: it reads the reply speakable has cleaned, and defers to earlier retries
    keeps_calls = True  # acts only on a reply without calls: a call written may start early

    def stream_filter(self, ctx: TurnContext) -> StreamFilter:
        return _HoldClaims(ctx)

    def after_llm(self, ctx: TurnContext, output: Any) -> HookResult | None:
        if output.calls or output.retry or not output.content.strip():
            return None
        reasons, note = _problems(output.content, ctx)
        if not reasons:
            fixed = misnamed_refusal(output.content, ctx)
            return HookResult.end(fixed, reason="a refusal said of another value") if fixed else None
        st = ctx.state(self)
        st.setdefault("reasons", []).extend(reasons)
        if note in READINGS:  # nothing could have read it: no retry, an honest reply
            return HookResult.end(ctx.agent.phrases.cannot_read.format(kind=note), reason="; ".join(reasons))
        unserved = unserved_claims(output.content, ctx.registry)
        if unserved:  # no tool is for that device: a retry could only call one that is not
            asked = is_question(ctx.text)
            said = REPLIES["question"] if asked else REPLIES["device"].format(device=unserved[0])
            return HookResult.end(said, reason="; ".join(reasons))
        if not ctx.successes() and (asks_nothing(ctx.text) or (only_tells(ctx.text) and any(map(changes_things, ctx.registry)))):
            # a line that asks nothing is never retried as a call ("Jamie said he'd switch the office
            # light off before he leaves.", dev53: the reply claimed it, the retry switched it off); nor
            # a line that only tells, where a setter is at hand ("Ciara said she'd hang it all out,
            # but I'll keep the timer anyway.", dev56: the retry cancelled the timer)
            return HookResult.end(ctx.agent.phrases.taken_back, reason="; ".join(reasons))
        safe = from_results(ctx)
        if st.get("retried") or ctx.hops_left <= 0:
            return HookResult.end(safe, reason="; ".join(reasons))
        st["retried"] = True
        st["force"] = not ctx.successes()
        return HookResult.replace(output.replace(retry=note, fallback=safe), reason="; ".join(reasons))

    def before_llm(self, ctx: TurnContext, request: Any) -> HookResult | None:
        if not ctx.state(self).pop("force", False) or request.strategy == "none" or not request.tools:
            return None
        return HookResult.replace(dataclasses.replace(request, strategy="required"), reason="call, not claim",
                                  counted=False)
