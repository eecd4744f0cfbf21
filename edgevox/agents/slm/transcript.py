"""A transcript's plain slips of the recogniser mended before anything reads the request.

Speech recognisers split a word they do not know in two ("bed room", "nine teen"), write
a sound-alike ("turn of the light", "one our and thirty minutes", "sixty ate degrees") and
drop or swap a small word ("a minute in a half"). A 0.5B model reads such a line literally:
on dev38 (transcripts as a recogniser writes them) "the bed room as well" went on the
shopping list, "nine teen point five" set the heating to 9.5 and "fif teen per cent" to 50.

Only slips with one reading are mended: the fixed ones of `slips.SLIPS` (the halves of a
number, a sound-alike where the sentence leaves no other sense: "turn of" before a thing,
not "a turn of phrase"), and from the registry a split word whose halves join into a value
a tool's schema allows ("bed room" only where a room is called "bedroom") or a value of
several words with one a letter off ("the dinning room"). A line the speaker restarted after
taking its start back is read from the restart (``changed_mind.restarted``: "Office light off -- no,
the garage, the garage light off.", dev47, switched both lights off); a line that opens with thanks, a greeting or praise and then orders
is read from the order ("Cheers, that's grand, and the hallway light off while you're at it", dev50:
answered "You're welcome."). The mended line is what
the model, the session and every later hook see; `vocabulary.heard_words` keeps reading the
softer idioms ("chuck it down") for the hooks alone, since the model does better with the
words said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.slm.changed_mind import restarted
from edgevox.agents.slm.slips import mend_slips
from edgevox.agents.slm.statements import after_courtesy
from edgevox.agents.slm.vocabulary import enum_values, one_edit_apart


def joinable_values(values: Iterable[str]) -> set[str]:
    """The one-word values of ``values`` ("bedroom", "bathroom"): the words a recogniser may
    split in two that a call can hold whole."""
    return {v for v in values if re.fullmatch(r"[a-z]{5,}", v)}


def respell_values(text: str, values: Iterable[str]) -> str:
    """``text`` with a value of several words said with one of them a letter off ("the dinning
    room" -> "the dining room") written as the value: the other words pin down which is meant,
    so a lone word one letter from a value ("cause" for "pause") is never touched."""
    spans = [(m.start(), m.end(), m.group()) for m in re.finditer(r"[a-z]+", text.lower())]
    present = {w for _, _, w in spans}
    mends: list[tuple[int, int, str]] = []
    for value in values:
        words = value.split()
        if len(words) < 2 or not present & set(words):
            continue  # (all but one of its words must be said as they are)
        for i in range(len(spans) - len(words) + 1):
            said = [w for _, _, w in spans[i:i + len(words)]]
            off = [(s, w) for s, w in zip(said, words, strict=True) if s != w]
            if len(off) == 1 and len(off[0][1]) >= 5 and one_edit_apart(*off[0]):
                mends.append((spans[i][0], spans[i + len(words) - 1][1], value))
    after = len(text) + 1
    for start, end, value in sorted(mends, reverse=True):
        if end <= after:  # two values over the same words: the later one alone
            text, after = text[:start] + value + text[end:], start
    return text


#: two words side by side, the second looked at without being taken (it may open the next pair)
_PAIR = re.compile(r"\b([a-z]{2,})\s+(?=([a-z]{2,})\b)", re.IGNORECASE)


def join_split_values(text: str, values: Iterable[str]) -> str:
    """``text`` with each value of ``values`` said as two words ("bed room") joined. One pass
    over the words, whatever the number of values (a BFCL tool may allow hundreds)."""
    wanted = set(values)
    out, last = [], 0
    for m in _PAIR.finditer(text):
        if m.start() >= last and (m.group(1) + m.group(2)).lower() in wanted:
            out.append(text[last:m.start()] + (m.group(1) + m.group(2)).lower())
            last = m.end() + len(m.group(2))
    return "".join(out) + text[last:]


def mend(text: str, tools: Iterable[Any] = ()) -> str:
    """``text`` with the slips of ``slips.SLIPS`` and the split values of ``tools`` mended, and
    read from its restart when the speaker took back the start (``changed_mind.restarted``), or from
    its order when thanks or a greeting opened it (``statements.after_courtesy``)."""
    values = enum_values(tools)
    slipless = mend_slips(text)
    read = restarted(slipless) or after_courtesy(slipless) or slipless
    return respell_values(join_split_values(read, joinable_values(values)), values)


class MendTranscript(Hook):
    """Mends a transcript's plain slips before the model reads it (see the module docstring)."""

    name = "transcript"
    priority = 1

    def on_run_start(self, ctx: TurnContext, text: str) -> HookResult | None:
        mended = mend(text, ctx.registry or ())
        if mended == text:
            return None
        return HookResult.replace(mended, reason=f"a recogniser's slip mended: {mended!r}")
