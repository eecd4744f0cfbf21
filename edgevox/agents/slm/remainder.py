"""Two actions in one sentence: the part of a request the calls left undone.

Measured on the home evaluation's tuning splits with Qwen2.5-Coder-0.5B: "Pause the music and
set the thermostat to 20.", "Play some jazz and set the volume to 30." and "Set the thermostat
to 21 and start a 15 minute timer." each made one call, for the first half, and the tool's own
sentence ended the turn. Demonstrations of lists of calls taught the list form only in part.

Here, after the calls of the first hop have run (succeeded, or been refused by the tool itself:
``refused``), the request is cut at its joins
("and", "then", "also", ";") and each part is compared by meaning with the tools' requests
(the relevance gate's index, ``relevance.ToolIndex``). A part clearly near a tool that no call
of the turn used (margin at least ``CALL_ABOVE`` over the no-tool lines, ``TRUST_LEAD`` ahead
of the runner-up) is still undone: the tools' sentences are said and one more hop must call
that tool, with the part repeated in a note. When the part is as near a second unused tool
("set a 10 minute timer": start_timer, cancel_timer 0.09 behind), the model chooses between
the two (``LLMRequest.allowed``) rather than the embedding alone. A part that names a device no tool serves, or
asks a question of a tool that changes things, is left alone (grounding no longer checks a
call once one has succeeded in the turn, so the checks it would make are made here first).

``default_slm_hooks()`` brings it for any tool set with ``readers_only``: there the extra hop
may only call a tool that looks things up. Measured offline on BFCL's right answers (the
first call given, the part and the tool from the embeddings alone, session 12): on
parallel_multiple 0-99 it names a tool the answer still needs in 61 cases and a wrong one in
2; on simple_python (400) and multiple (200) it never fires; on live_multiple it fires on 7
of 1053 one-call answers (without ``readers_only``, 11 -- "Payment_1_RequestPayment" among
them, an action nobody asked for).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.slm.amounts import spoken_numbers
from edgevox.agents.slm.grounding import is_question, unserved_devices
from edgevox.agents.slm.parts import MAX_PART_WORDS, parts_of, sentences_of
from edgevox.agents.slm.relevance import CALL_ABOVE, REDIRECT_NOTE, TRUST_LEAD, RelevanceGate
from edgevox.agents.slm.taken_back import takes_back as taken_back
from edgevox.agents.slm.vocabulary import (
    UNDO_WORDS,
    WORD,
    changes_things,
    enum_of,
    is_remark,
    may_act,
    properties,
    undoes,
)

#: the note of the extra hop (never stored in the session)
NOTE = 'Call {tool} for the rest of the request: "{part}", with the arguments it says.'
EITHER = 'Call {tool} or {other} for the rest of the request: "{part}", whichever it asks for.'
NOTE_HEADS = ("Call ",)
def comma_pieces(part: str) -> list[str]:
    """The pieces of ``part`` between its commas, of two words or more (none without a comma)."""
    pieces = [p.strip() for p in part.split(",")]
    return [p for p in pieces if len(p.split()) >= 2] if len(pieces) > 1 else []


_REDIRECT_HEAD = REDIRECT_NOTE.split("{")[0]
#: parameters that say where
_WHERE_KEYS = frozenset({"room", "rooms", "area", "zone", "floor", "where", "location", "place"})
#: words by which a part keeps a place as it is, or leaves it out ("..., not the kitchen")
_SPARES = frozenset("not except but leave keep apart".split())
#: a part's words that say what to do with the thing (a state or a level)
_SETS = frozenset("on off up down dim brighten bright brighter dimmer max full half low high".split())


def another_place(ctx: TurnContext, name: str, part: str, current: Any = None) -> bool:
    """Does ``part`` ask the tool a call of the turn used for a place none of its calls set
    ("Kitchen 60, hallway off.": the light called for the kitchen, the hallway's part undone)?
    The part names one value of a *where* parameter's string enum that no dispatched call of the tool
    holds, and says what to do there (a state or a number); not a place spared ("not the
    kitchen")."""
    tool = ctx.registry.get(name)
    words = WORD.findall(part.lower())
    if tool is None or _SPARES & set(words) or not (_SETS & set(words) or any(w.isdigit() for w in words)
                                                      or spoken_numbers(part)):
        return False
    said = f" {' '.join(words)} "
    for key, schema in properties(tool).items():
        if key.lower() not in _WHERE_KEYS:
            continue  # a place (a room), not any enum ("the volume up" holds no place)
        values = [v for v in enum_of(schema) if isinstance(v, str) and v.strip() and f" {v.lower()} " in said]
        held = {r.arguments.get(key) for r in ctx.records if r.name == name and r.dispatched}
        if current is not None and current.name == name and isinstance(current.arguments, dict):
            held.add(current.arguments.get(key))
        if len(values) == 1 and values[0] not in held and held:
            return True
    return False


def refused(result: Any) -> bool:
    """Did the tool itself run and refuse (raised: "'apples' is not on the shopping list")? The
    rest of the request still stands: "Take apples off the list and add pears." (dev18) had
    ended at the refusal and never added the pears. A call a hook blocked is not refused: the
    turn may redirect it."""
    return not getattr(result, "ok", True) and getattr(result, "error_type", None) == "exception"


class Remainder(Hook):
    """One more hop for the undone part of a two-action request (see the module docstring)."""

    name = "remainder"
    priority = 6  # after the relevance gate and grounding (before_tool), before the arguments' repairs

    def __init__(self, *, gate: RelevanceGate | None = None, call_above: float = CALL_ABOVE,
                 lead: float = TRUST_LEAD, readers_only: bool = False, rounds: int = 1, **kw: Any):
        """``readers_only``: the extra hop may only call tools that look things up (never one
        that may act: ``vocabulary.may_act``) -- for tool sets nobody has measured this on.
        ``rounds``: at most this many extra hops, each after the last one's calls ran
        (a request for three or four things)."""
        super().__init__(**kw)
        self.rounds = rounds
        self.gate = gate or RelevanceGate()
        self.call_above = call_above
        self.lead = lead
        self.readers_only = readers_only

    def undone(self, ctx: TurnContext, called: set[str], current: Any = None) -> tuple[tuple[str, ...], str] | None:
        """``(tools, part)`` of the first part of the request clearly for a tool no call used:
        one tool, or two unused ones too near each other to tell apart by meaning; or (not
        ``readers_only``) for a used tool at a place none of its calls set. ``current``: the
        result just returned (not yet among the turn's records)."""
        tools = list(ctx.registry)
        for part, rel in self._parts_by_meaning(ctx, commas=not self.readers_only) or ():
            (name, sim), (other, near) = rel.best, rel.second
            if name is not None and name in called and rel.margin >= self.call_above and not self.readers_only \
                    and len(part.split()) <= MAX_PART_WORDS and not is_question(part) \
                    and not unserved_devices(part, tools) and another_place(ctx, name, part, current):
                return (name,), part  # "Dining room off and bring the living room up to eighty" (dev19)
            if name is None or name in called or rel.margin < self.call_above or is_remark(part):
                continue  # (a remark, "Hmm, still chilly.", asks for nothing: dev15 read the weather for it)
            names = (name,) if sim - near >= self.lead else (name, other) if other and other not in called else ()
            if self.readers_only:
                names = tuple(n for n in names if not may_act(ctx.registry.get(n)))
            names = tuple(n for n in names if not self._undoes(ctx, n, called, part))
            if not names or len(part.split()) > MAX_PART_WORDS or unserved_devices(part, tools) or (
                    is_question(part) and any(changes_things(ctx.registry.get(n)) for n in names)):
                continue
            return names, part
        return None

    @staticmethod
    def _undoes(ctx: TurnContext, name: str, called: set[str], part: str) -> bool:
        """Would ``name`` undo a call of the turn (remove from the list just added to) when
        the part says no undoing? The rest of "Stick oat milk and a bag of basmati rice on the
        shopping list." sat nearest the remover (dev15: 2 of 2 such parts)."""
        tool = ctx.registry.get(name)
        if tool is None or set(WORD.findall(part.lower())) & UNDO_WORDS:
            return False
        return any((other := ctx.registry.get(n)) is not None and undoes(tool, other) for n in called)

    def asked_tools(self, ctx: TurnContext) -> set[str] | None:
        """The tools parts of the request are clearly for (margin at least ``call_above``;
        with ``readers_only``, only tools that look things up): the own layout may add calls
        of these to the envelope's. Offline on BFCL 0-99 (the envelope calling one tool, its
        own layout adding another) it let through 4 of the 11 such cases in
        parallel_multiple and none of the 5 in multiple, where the added tool was never
        asked for; through the agent it made parallel_multiple_70 and 73 right (session 14).
        None: one part, no view."""
        return self._plainly_asked(ctx, readers_only=self.readers_only)

    def _plainly_asked(self, ctx: TurnContext, *, readers_only: bool) -> set[str] | None:
        """The nearest tool of each part at least ``call_above`` ahead of the no-tool lines
        (a part of at most ``MAX_PART_WORDS``; with ``readers_only``, a tool that looks things
        up); None: one part, no view."""
        found = self._parts_by_meaning(ctx)
        if found is None:
            return None
        return {rel.best[0] for part, rel in found
                if rel.best[0] is not None and rel.margin >= self.call_above and len(part.split()) <= MAX_PART_WORDS
                and not (readers_only and may_act(ctx.registry.get(rel.best[0])))}

    def _parts_by_meaning(self, ctx: TurnContext, *, commas: bool = False) -> Iterator[tuple[str, Any]] | None:
        """Each part of a request of two parts or more, with how near each tool it is, read
        as asked for (``undone`` stops at the first undone part); None: one part, no tools,
        or no index. With ``commas``, a part's pieces between commas come after it: a reason
        said after a comma pulls the part away from its tool ("tell us the time, I'm gonna
        miss the bus", dev19: 0.21 from get_time, under ``call_above``)."""
        parts = parts_of(ctx.text)
        if commas and not taken_back(ctx.text):  # "Turn off the kitchen, sorry, the dining room light." is one
            parts = [piece for part in parts for piece in [part, *comma_pieces(part)]]
        if len(parts) < 2 or not len(ctx.registry):
            return None
        index = self.gate.index(ctx.registry)
        if index is None:
            return None
        return ((part, index.relevance(part)) for part in parts)

    @staticmethod
    def note(found: tuple[tuple[str, ...], str]) -> str:
        names, part = found
        if len(names) == 1:
            return NOTE.format(tool=names[0], part=part)
        return EITHER.format(tool=names[0], other=names[1], part=part)

    def after_tool(self, ctx: TurnContext, result: Any) -> HookResult | None:
        st = ctx.state(self)
        acted_before = any(r.dispatched and r.error is None and r.hop < ctx.hop for r in ctx.records)
        if st.get("rounds", 0) >= self.rounds or not (getattr(result, "ok", False) or refused(result)) or (
                acted_before and st.get("forced_hop") != ctx.hop):
            return None  # only the turn's first hop that acts (a blocked first call may be redirected)
            # or the extra hop this hook forced
        called = {r.name for r in ctx.records} | {result.name}
        found = self.undone(ctx, called, result)
        st["pending"] = found
        if found:
            ctx.more = self.note(found)
        elif ctx.more is not None and ctx.more.startswith(NOTE_HEADS):
            ctx.more = None  # a later call of the hop did the part (another hook's note stays)
        return None

    def story_tools(self, ctx: TurnContext) -> set[str] | None:
        """The tools that look things up which a sentence of a request told in several
        sentences plainly asks for (margin at least ``call_above``), once a turn; None: one
        sentence. The own layout writes the calls of a first hop that answered such a request
        in words (``own_layout``, "stories")."""
        st = ctx.state(self)
        if "story" not in st:
            st["story"] = (None if len(sentences_of(ctx.text)) < 2
                           else self._plainly_asked(ctx, readers_only=True) or set())
        return st["story"]

    def before_llm(self, ctx: TurnContext, request: Any) -> HookResult | None:
        st = ctx.state(self)
        found = st.pop("pending", None)
        note = self.note(found) if found else None
        redirected = not self.readers_only and any(n.startswith(_REDIRECT_HEAD) for n in request.notes)  # the undone part wins
        # over the gate's redirect of a call blocked beside it ("Dining room off and bring the
        # living room up to eighty, we're moving through.", dev19: the timer blocked, the living room again)
        if note is None or (note not in request.notes and not redirected) or st.get("rounds", 0) >= self.rounds \
                or not request.tools:
            return None  # the hop the tools' sentences made way for (not a say-less tool's wording hop)
        st["rounds"] = st.get("rounds", 0) + 1
        st["forced_hop"] = ctx.hop
        names = found[0]
        if len(names) == 1:
            request = dataclasses.replace(request, strategy=("single", names[0]), notes=[note])
        else:
            request = dataclasses.replace(request, strategy="required", allowed=names, notes=[note])
        return HookResult.replace(request, reason=f"the rest of the request: {' or '.join(names)}", counted=False)
