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
import re
from collections.abc import Iterator
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.slm.amounts import JOIN, spoken_numbers
from edgevox.agents.slm.devices import same_device, unserved_devices
from edgevox.agents.slm.grounding import held_back_call, withdrawn
from edgevox.agents.slm.not_about import why_not
from edgevox.agents.slm.parts import MAX_PART_WORDS, parts_of, sentences_of, without_asides
from edgevox.agents.slm.questions import is_question
from edgevox.agents.slm.relevance import CALL_ABOVE, TRUST_LEAD, RelevanceGate, ordered_tools
from edgevox.agents.slm.services import asks_elsewhere
from edgevox.agents.slm.statements import terse_order
from edgevox.agents.slm.vocabulary import (
    UNDO_WORDS,
    WORD,
    changes_things,
    enum_of,
    heard_words,
    is_number,
    is_remark,
    may_act,
    properties,
    stem,
    target_words,
    undoes,
)

#: how far ahead of the no-tool lines a part must be for a tool of the same device as a call
#: of the turn (``Remainder._beside_a_call``; home only)
SIBLING_ABOVE = 0.15
#: how far behind the nearest tool a part must sit from the tool a later call of the hop used,
#: for that call to be taken back (``Remainder.before_tool``)
AWAY = 0.25
#: how far ahead of the no-tool lines a later part that names what its tool reads must be, said
#: after the verb of the part before it (``Remainder._asked_alongside``; home only)
READ_ALONGSIDE_ABOVE = 0.05
#: how far ahead of the no-tool lines a part that opens on the verb of one tool's name must be
#: (``Remainder._opens_on_a_verb``; home only)
VERB_ABOVE = 0.02
#: words that may open a part before its verb ("then", "oh and", "also")
_OPENS = re.compile(r"^\W*(?:(?:oh|and|then|also|plus|now|so|and\s+then|please|could\s+you|can\s+you)\W+)*")
#: a part with no verb of its own: an article and a noun ("the weather in Rome")
_NOUN_PHRASE = re.compile(r"^\W*(?:the|a|an|today's|tomorrow's|tonight's)\s+\w")
#: the note of the extra hop (never stored in the session)
NOTE = 'Call {tool} for the rest of the request: "{part}", with the arguments it says.'
EITHER = 'Call {tool} or {other} for the rest of the request: "{part}", whichever it asks for.'
NOTE_HEADS = ("Call ",)
#: a second one of a thing ("and a 10 minute one for the garlic bread")
_ANOTHER = re.compile(r" (?:(?<!ty )one|another) ")  # not "twenty one" (dev28)
#: a part that asks to be told when a thing of the turn is over ("..., tell me when it's up",
#: dev24: the timer's own signal, not the time now)
_TOLD_WHEN = re.compile(r"\b(?:tell|let|give|ping|buzz|alert|warn|shout|call)\b[\w\s']*?\bwhen\s+(?:it|that|they|time|the\s+\w+)"
                        r"(?:'s|'re|\s+is|\s+are|\s+has|\s+have)?\s+(?:up|done|over|finished|ready|gone\s+off|through)\b")
#: a part that tells of someone ("My late husband used to love her records.", dev28: said after
#: "put on some Ella Fitzgerald?", it skipped the track)
_OF_SOMEONE = re.compile(r"^\W*(?:my|our|his|her|their|he|she|they)\b")


def tells_of_someone(part: str, registry: Any) -> bool:
    """Does ``part`` open on someone ("my", "he", "they") and name nothing a tool works on?"""
    if not _OF_SOMEONE.match(part.lower()):
        return False
    named = set().union(*(target_words(t) for t in registry))
    return not {stem(w) for w in WORD.findall(part.lower())} & named


def _one_word_join(text: str) -> bool:
    """Is a word said alone after a join ("next song and louder")?"""
    return any(len(p.strip(' ,.!?"').split()) == 1 for s in sentences_of(text) for p in JOIN.split(s)[1:])


def asks(text: str, part: str) -> bool:
    """Is ``part`` of the request ``text`` a question? A part that goes on a sentence it does not
    open asks only when that sentence does: the "?" of "would you turn the music down a touch
    and pop the bathroom light on?" (dev28) belongs to the polite request."""
    if not is_question(part):
        return False
    head = part.strip().lower()
    for sentence in sentences_of(text):
        low = sentence.lower()
        if head.rstrip("?").strip() in low and not low.lstrip(" \"'").startswith(head[:12]):
            return is_question(sentence)
    return True


#: a piece that only asks for the rest to be done ("Kindly do the needful and put on some A. R.
#: Rahman songs.", dev32: skipped the track for "do the needful")
_DO_THE_REST = re.compile(r"^\W*(?:(?:please|kindly|abeg)\s+)*(?:do\s+the\s+needful|do\s+me\s+a\s+favou?r)\W*$", re.I)


def orders_nothing(ctx: TurnContext, piece: str) -> bool:
    """Is ``piece`` of the request no order for another call: a remark, a question, a device no
    tool serves, a plea to do the rest, or a paragraph (over ``MAX_PART_WORDS``)?"""
    return (is_remark(piece) or len(piece.split()) > MAX_PART_WORDS or asks(ctx.text, piece)
            or bool(_DO_THE_REST.match(piece)) or bool(unserved_devices(piece, list(ctx.registry))))


#: a part that ends on a thing named before ("... and take coffee filters off it", dev44: the
#: removal, read alone, was nearest the list's adding, already called), and the thing it names
#: ("... and put Greek yoghurt on it instead", dev52: "on it" only after a verb that puts things on)
_OFF_IT = re.compile(r"\b(off|from|onto|to|on)\s+it(?:\s+(?:instead|too|as\s+well|please))?\W*$", re.I)
_PUT = re.compile(r"\b(?:put|stick|pop|add|chuck|bung)\b", re.I)
_THING_NAMED = re.compile(r"\b(?:the|my|our)\s+(?:[a-z]+\s+)?[a-z]+\b", re.I)


def _it_named(part: str, before: list[str]) -> str:
    """``part`` with a closing "off it" said of the thing the part before it names ("take coffee
    filters off the shopping list"), for reading it alone; else ``part``."""
    m = _OFF_IT.search(part)
    if m and m.group(1).lower() == "on" and not _PUT.search(part[:m.start()]):
        m = None  # "keep an eye on it": "it" is watched, not a list things go on
    things = _THING_NAMED.findall(before[-1]) if m and before else []
    return part[:m.start()] + f"{m.group(1)} {things[-1]}" if things else part


def _unserved(part: str, registry: Any, names: tuple[str, ...]) -> bool:
    """Does ``part`` name a device no tool serves, other than one a tool it orders by name works
    for ("set a five minute timer for the kettle", dev46: the kettle is timed, not switched)?"""
    return bool(unserved_devices(part, list(registry))) and not set(names) & ordered_tools(part, registry)


def comma_pieces(part: str) -> list[str]:
    """The pieces of ``part`` between its commas, of two words or more (none without a comma)."""
    pieces = [p.strip() for p in part.split(",")]
    return [p for p in pieces if len(p.split()) >= 2] if len(pieces) > 1 else []


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

    def undone(self, ctx: TurnContext, called: set[str], done: list[Any] = ()) -> tuple[tuple[str, ...], str] | None:
        """``(tools, part)`` of the first part of the request clearly for a tool no call used:
        one tool, or two unused ones too near each other to tell apart by meaning; else (home
        only) a part that asks for another call of a tool a call of ``done`` used, with
        values of its own (``_another``)."""
        joined = set(parts_of(ctx.text))
        seen: dict[str, Any] = {}  # each part's relevance, for ``_another`` (embedded once)
        for part, rel in self._parts_by_meaning(ctx, commas=not self.readers_only) or ():  # (home only: as measured)
            seen[part] = rel
            (name, sim), (other, near) = rel.best, rel.second
            if not self.readers_only and part in joined and (beside := self._beside_a_call(ctx, part, rel, called)):
                return (beside,), part
            if not self.readers_only and (verb := self._opens_on_a_verb(ctx, part, rel, called)):
                name, names_said = verb, True  # "..., then play Khruangbin" (dev50: 0.14 ahead by meaning)
            else:
                names_said = False
            bar = self.call_above if self.readers_only or not self._asked_alongside(ctx, part, name) else READ_ALONGSIDE_ABOVE
            bar = VERB_ABOVE if names_said else bar
            if name is None or name in called or rel.margin < bar or is_remark(part) or _TOLD_WHEN.search(part.lower()) \
                    or _DO_THE_REST.match(part) \
                    or tells_of_someone(part, ctx.registry):
                continue  # (a remark, "Hmm, still chilly.", asks for nothing: dev15 read the weather for it)
            names = ((name,) if names_said or sim - near >= self.lead or (other in called and self._says_verb(part, name))
                     else (name, other) if other and other not in called else ())
            if self.readers_only:
                names = tuple(n for n in names if not may_act(ctx.registry.get(n)))
            names = tuple(n for n in names if not self._undoes(ctx, n, called, part) and not self._not_its(ctx, part, n))
            if not names or len(part.split()) > MAX_PART_WORDS or _unserved(part, ctx.registry, names) or (
                    asks(ctx.text, part) and any(changes_things(ctx.registry.get(n)) for n in names)):
                continue
            return names, part
        return None if self.readers_only else self._verb_piece(ctx, called) or self._another(ctx, list(done), seen)

    @staticmethod
    def _not_its(ctx: TurnContext, part: str, name: str) -> bool:
        """Does the part ask for a service the tool is not ("Set an alarm for 6:30 and turn all
        the lights off.", dev52: after the lights, the alarm's part was asked of the timer, and a
        six-hour timer ran), or hold the tool's order back ("Don't cancel the rice timer, start a
        broccoli timer for eight minutes.", dev53: the rice timer's part was asked again)?"""
        tool = ctx.registry.get(name)
        return tool is not None and (asks_elsewhere(part, tool) or held_back_call(part, tool, {}, list(ctx.registry)) is not None)

    def _opens_on_a_verb(self, ctx: TurnContext, part: str, rel: Any, called: set[str]) -> str | None:
        """The unused tool whose name opens on the verb the part opens on, the only tool that does
        ("play Khruangbin": ``play_music``; not "set", which opens three), when the part sits at
        least ``VERB_ABOVE`` nearer it than the no-tool lines: the verb names the tool plainer than
        a name the embedding never saw ("Add coffee beans to the list, then play Khruangbin", dev50:
        0.14 ahead, under ``CALL_ABOVE``)."""
        words = WORD.findall(_OPENS.sub("", part.lower()))
        owners = [t.name for t in ctx.registry if words and t.name.split("_")[0].lower() == words[0]]
        if len(owners) != 1 or owners[0] in called or rel.tools.get(owners[0], -1.0) - rel.none < VERB_ABOVE:
            return None
        return owners[0]

    def _verb_piece(self, ctx: TurnContext, called: set[str]) -> tuple[tuple[str, ...], str] | None:
        """``((tool,), piece)`` for a piece between the commas of a one-part request that says
        the verb its nearest tool's name opens on, a tool no call used ("Correction: remove
        apples, add pears.", dev28: one part, so no part was read alone), or orders tersely
        ("Heating down to nineteen, lights off in the office, night", dev50), or asks a tool that
        looks things up ("Pause this a sec, what's the temperature out in Dublin?"); home only."""
        parts = parts_of(ctx.text)
        pieces = comma_pieces(parts[0]) if len(parts) == 1 else []
        index = self.gate.index(ctx.registry) if len(pieces) > 1 else None
        for piece in pieces if index is not None else ():
            rel = index.relevance(piece)
            name = rel.best[0]
            if name is None or name in called or rel.margin < self.call_above:
                continue
            tool = ctx.registry.get(name)
            asked = asks(ctx.text, piece)
            # a question is done only of a tool that looks things up and can answer it
            reads = asked and tool is not None and not changes_things(tool) \
                and why_not(piece, tool, {}, list(ctx.registry)) is None
            if (not (self._says_verb(piece, name) or terse_order(piece.lower()) or reads)
                    or is_remark(piece) or (asked and not reads) or unserved_devices(piece, list(ctx.registry))
                    or self._not_its(ctx, piece, name) or self._undoes(ctx, name, called, piece)):
                continue
            return (name,), piece
        return None

    def _another(self, ctx: TurnContext, done: list[Any], seen: dict[str, Any]) -> tuple[tuple[str, ...], str] | None:
        """``((tool,), part)`` for a piece of the request (cut at joins and commas) clearly for
        a tool a call of the turn used, that says a value of that tool's enums no call held
        ("Living room off, bedroom on.", dev21: one call, the living room's), or a new number
        for "another"/"one" of the thing ("set a 25 minute timer for the lasagne and a 10
        minute one for the garlic bread", dev24: one timer), and no value a call held (the
        piece a call served). ``seen``: the relevance of the pieces ``undone`` already embedded."""
        pieces = [q for part in parts_of(ctx.text) for q in [part, *comma_pieces(part)]]
        index = self.gate.index(ctx.registry) if len(pieces) > 1 and done else None
        for piece in pieces if index is not None else ():
            rel = seen[piece] if piece in seen else index.relevance(piece)
            name = rel.best[0]
            tool = ctx.registry.get(name) if name else None
            held = [r.arguments for r in done if r.name == name and isinstance(r.arguments, dict)]
            if tool is None or not held or rel.margin < self.call_above or orders_nothing(ctx, piece):
                continue
            said = f" {' '.join(WORD.findall(piece.lower()))} "
            enums = {str(v).lower() for s in properties(tool).values() for v in enum_of(s)
                     if isinstance(v, str) and v.strip() and f" {str(v).lower()} " in said}
            held_words = {str(v).lower() for a in held for v in a.values() if isinstance(v, str)}
            held_numbers = {float(v) for a in held for v in a.values() if is_number(v) and not isinstance(v, bool)}
            numbers = set(spoken_numbers(re.sub(r"\bone\b", " ", piece)))  # not "go back one" (dev30): the "one" is the thing
            if enums & held_words or numbers & held_numbers:
                continue  # the piece a call served
            if enums or (_ANOTHER.search(said) and numbers):
                return (name,), piece
        return None

    def _beside_a_call(self, ctx: TurnContext, part: str, rel: Any, called: set[str]) -> str | None:
        """The part's nearest tool, not yet called, when it acts on the device or thing a call of
        the turn acted on and the part is at least ``SIBLING_ABOVE`` ahead of the no-tool lines.
        A second order on the same thing is plainer than its embedding says: "Add feta and take
        the cucumbers off the list." (dev21: the remover 0.21 ahead, the adder 0.04 behind it),
        "Play some bossa nova and bring it down to 25." (the volume 0.19 ahead, the thermostat
        0.02 behind: "it" is the music)."""
        if orders_nothing(ctx, part) or tells_of_someone(part, ctx.registry):
            return None
        name = rel.best[0]
        tool = ctx.registry.get(name) if name else None
        if tool is None or name in called or rel.margin < SIBLING_ABOVE or self._undoes(ctx, name, called, part):
            return None
        if any((done := ctx.registry.get(n)) is not None and same_device(tool, done) for n in called):
            return name
        return self._takes_back_beside(ctx, part, rel, called)

    @staticmethod
    def _takes_back_beside(ctx: TurnContext, part: str, rel: Any, called: set[str]) -> str | None:
        """The unused tool that undoes a call of the turn, when the part says undoing and is
        at least ``SIBLING_ABOVE`` near that tool, though nearer another: "add rice to the list
        and take off the pasta" (dev26: the part alone sat nearest the timers, 0.40, the
        remover 0.16): the second order is on the list the first one named."""
        if not set(WORD.findall(part.lower())) & UNDO_WORDS:
            return None
        for name, sim in rel.tools.items():
            tool = ctx.registry.get(name)
            if (tool is not None and name not in called and sim - rel.none >= SIBLING_ABOVE
                    and any((done := ctx.registry.get(n)) is not None and undoes(tool, done) for n in called)):
                return name
        return None

    @staticmethod
    def _asked_alongside(ctx: TurnContext, part: str, name: str | None) -> bool:
        """Is ``part`` a thing to read, named after the verb of a part before it ("Tell me the
        time and the weather in Rome.", dev40: "the weather in Rome" sat 0.08 ahead of the
        no-tool lines, which hold questions about cities, and the weather was never read)? A
        later part that opens on an article and names what its nearest tool reads."""
        tool = ctx.registry.get(name) if name else None
        parts = parts_of(ctx.text)
        if tool is None or changes_things(tool) or part not in parts[1:] or not _NOUN_PHRASE.match(part.lower()):
            return False
        return bool({stem(w) for w in WORD.findall(part.lower())} & target_words(tool))

    @staticmethod
    def _says_verb(part: str, name: str) -> bool:
        """Does the part say the verb the tool's name opens on ("add pears" of
        ``add_to_shopping_list``)? Then a runner-up the turn called already ("Correction:
        remove apples, add pears.", dev28: the remover 0.12 behind) did another part."""
        return name.split("_")[0].lower() in WORD.findall(part.lower())

    @staticmethod
    def _undoes(ctx: TurnContext, name: str, called: set[str], part: str) -> bool:
        """Would ``name`` undo a call of the turn (remove from the list just added to) when
        the part says no undoing, or make again what a call of the turn undid when it does?
        The rest of "Stick oat milk and a bag of basmati rice on the shopping list." sat
        nearest the remover (dev15: 2 of 2 such parts)."""
        tool = ctx.registry.get(name)
        if tool is None:
            return False
        if set(WORD.findall(part.lower())) & UNDO_WORDS:  # the part a call that undoes served: not
            # the tool it undoes ("take the bananas back off" sat nearest the adder, dev28)
            return any((other := ctx.registry.get(n)) is not None and undoes(other, tool) for n in called)
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
        if (len(parts) < 2 and not (commas and parts and _one_word_join(ctx.text))) or not len(ctx.registry):
            return None  # (home: "next song and louder", dev26 -- "louder" is a part of one word)
        index = self.gate.index(ctx.registry)
        if index is None:
            return None
        if commas:
            parts = [piece for part in parts for piece in [part, *comma_pieces(part)]]
        # each part as heard ("is it meant to be lashing later?", dev32: the weather's -0.05 ahead
        # of the no-tool lines, "rain" +0.52), as the gate reads the whole request
        return ((part, index.relevance(heard_words(_it_named(part, parts[:n]), ctx.registry))) for n, part in enumerate(parts))

    @staticmethod
    def note(found: tuple[tuple[str, ...], str]) -> str:
        names, part = found
        part = without_asides(part)  # "put some Adele on, I'm getting in the bath": the model copied it whole
        if len(names) == 1:
            return NOTE.format(tool=names[0], part=part)
        return EITHER.format(tool=names[0], other=names[1], part=part)

    def before_tool(self, ctx: TurnContext, call: Any) -> HookResult | None:
        """A later call of a hop whose words come from a part plainly for another tool is taken
        back: "Bathroom light on and put some Adele on, I'm getting in the bath." (dev30) ->
        ``add_to_shopping_list("Adele")`` beside the light; the part is the music's (0.48 ahead
        of the no-tool lines, the list far behind), so the extra hop plays it (home only)."""
        if self.readers_only:
            return None
        hop_calls = ctx.state(self).setdefault("hop_calls", {})
        if not hop_calls.get(ctx.hop):
            hop_calls[ctx.hop] = 1  # the hop's first call: nothing beside it yet
            return None
        tool = ctx.registry.get(call.name)
        strings = [v.lower() for v in (call.arguments or {}).values() if isinstance(v, str) and len(v.strip()) >= 3] \
            if isinstance(call.arguments, dict) else []
        holders = [p for p in parts_of(ctx.text) if any(v in p.lower() for v in strings)]
        index = self.gate.index(ctx.registry) if tool is not None and changes_things(tool) and len(holders) == 1 else None
        if index is None or {stem(w) for w in WORD.findall(holders[0].lower())} & target_words(tool):
            return None
        rel = index.relevance(holders[0])
        name, sim = rel.best
        if name in (None, call.name) or rel.margin < self.call_above or sim - rel.tools.get(call.name, -1.0) < AWAY:
            return None
        return withdrawn(call, f"holds a part that is {name}'s")

    def after_tool(self, ctx: TurnContext, result: Any) -> HookResult | None:
        st = ctx.state(self)
        acted_before = any(r.dispatched and r.error is None and r.hop < ctx.hop for r in ctx.records)
        if st.get("rounds", 0) >= self.rounds or not (getattr(result, "ok", False) or refused(result)) or (
                acted_before and st.get("forced_hop") != ctx.hop):
            return None  # only the turn's first hop that acts (a blocked first call may be redirected)
            # or the extra hop this hook forced
        called = {r.name for r in ctx.records} | {result.name}
        done = [r for r in ctx.records if r.dispatched and r.error is None] + ([result] if getattr(result, "ok", False) else [])
        found = self.undone(ctx, called, done)
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
        if note is None or note not in request.notes or st.get("rounds", 0) >= self.rounds or not request.tools:
            return None  # the hop the tools' sentences made way for (not a say-less tool's wording hop)
        st["rounds"] = st.get("rounds", 0) + 1
        st["forced_hop"] = ctx.hop
        names = found[0]
        if len(names) == 1:
            request = dataclasses.replace(request, strategy=("single", names[0]), notes=[note])
        else:
            request = dataclasses.replace(request, strategy="required", allowed=names, notes=[note])
        return HookResult.replace(request, reason=f"the rest of the request: {' or '.join(names)}", counted=False)
