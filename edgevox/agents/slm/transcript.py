"""A transcript's plain slips of the recogniser mended before anything reads the request.

Speech recognisers split a word they do not know in two ("bed room", "nine teen"), write
a sound-alike ("turn of the light", "one our and thirty minutes", "sixty ate degrees") and
drop or swap a small word ("a minute in a half"). A 0.5B model reads such a line literally:
on dev38 (transcripts as a recogniser writes them) "the bed room as well" went on the
shopping list, "nine teen point five" set the heating to 9.5 and "fif teen per cent" to 50.

Only slips with one reading are mended: a split word whose halves join into a value a
tool's schema allows (so "bed room" only where a room is called "bedroom"), the halves of
a number ("nine teen"), a sound-alike where the sentence leaves no other sense ("turn of"
before a thing, not "a turn of phrase"). The mended line is what the model, the session
and every later hook see; `vocabulary.heard_words` keeps reading the softer idioms
("chuck it down") for the hooks alone, since the model does better with the words said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.slm.vocabulary import enum_of, one_edit_apart, properties

_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
_UNITS_AFTER = r"(?:hours?|minutes?|mins?|seconds?|secs?|degrees?|percent|per\s*cent|%|fahrenheit|celsius)"
_NUMBER_AFTER = rf"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|{_TENS.replace(' ', '|')})"

#: (pattern, replacement): each a slip with one reading in a request to a home speaker
SLIPS: tuple[tuple[re.Pattern[str], str], ...] = (
    # a teen heard as two words ("nine teen", "fif teen", "for teen"): "teen" alone is said of
    # no amount, and "for teen" only before a noun ("for teen readers"), so not before the end
    # of a sentence, a unit or a number
    (re.compile(r"(?i)\b(thir|fif|six|seven|eigh|eight|nine)\s+teen\b"), r"\1teen"),
    (re.compile(rf"(?i)\b(?:four|for|fore)\s+teen\b(?=\s*(?:[,.!?]|$|{_UNITS_AFTER}\b|point\b))"), "fourteen"),
    (re.compile(r"(?i)\beightteen\b"), "eighteen"),
    # a tens word then the sound of a unit ("sixty ate", "forty won"): a number, not a verb
    (re.compile(rf"(?i)\b({_TENS.replace(' ', '|')})\s+ate\b"), r"\1 eight"),
    (re.compile(rf"(?i)\b({_TENS.replace(' ', '|')})\s+won\b"), r"\1 one"),
    # "hour" heard as "our" right after a number and before more of the length
    (re.compile(rf"(?i)\b(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+our\b"
                rf"(?=\s+(?:and|timer|{_NUMBER_AFTER})\b|\s*[,.!?]?\s*$)"), r"\1 hour"),
    # "a minute in a half": "and" swallowed ("one and a half" is the only length so said)
    (re.compile(r"(?i)\b(minutes?|hours?|\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+in\s+a\s+half\b"),
     r"\1 and a half"),
    # "turn of the light", "switch it of": "of" after a switching verb is "off", except in
    # a turn of phrase, events or fate
    (re.compile(r"(?i)\b(turn|turned|turning|switch|switched|switching|shut|take|taking|knock)\s+"
                r"((?:it|them|that|this|everything|all)\s+)?of\b(?!\s+(?:phrase|events|fate|the\s+(?:century|year|tide)))"),
     r"\1 \2off"),
    (re.compile(r"(?i)\b(lights?|lamps?|music|it|them)\s+of(?=\s*[,.!?]?\s*$)"), r"\1 off"),
    # "i cant here a thing": "hear" after can't, "no weight" (no wait) opening a correction
    (re.compile(r"(?i)\b(can'?t|cannot|can\s+not|could\s+not|couldn'?t|barely)\s+here\b"), r"\1 hear"),
    (re.compile(r"(?i)^(\W*(?:no|oh|um|uh|er|sorry)\W+)weight\b"), r"\1wait"),
    # "knew york" (dev38): the places called new, never known
    (re.compile(r"(?i)\bknew\s+(?=(?:york|jersey|zealand|orleans|delhi|hampshire|mexico|england|haven)\b)"), "new "),
)


def enum_words(tools: Iterable[Any]) -> set[str]:
    """The string values the tools' schemas allow, in lower case ("bedroom", "dining room")."""
    return {v.lower() for t in tools for sch in properties(t).values() for v in enum_of(sch) if isinstance(v, str)}


def joinable_values(tools: Iterable[Any]) -> set[str]:
    """The one-word values of ``enum_words`` ("bedroom", "bathroom"): the words a recogniser
    may split in two that a call can hold whole."""
    return {v for v in enum_words(tools) if re.fullmatch(r"[a-z]{5,}", v)}


def respell_values(text: str, values: Iterable[str]) -> str:
    """``text`` with a value of several words said with one of them a letter off ("the dinning
    room" -> "the dining room") written as the value: the other words pin down which is meant,
    so a lone word one letter from a value ("cause" for "pause") is never touched."""
    spans = [(m.start(), m.end(), m.group()) for m in re.finditer(r"[a-z]+", text.lower())]
    mends: list[tuple[int, int, str]] = []
    for value in values:
        words = value.split()
        for i in range(len(spans) - len(words) + 1) if len(words) >= 2 else ():
            said = [w for _, _, w in spans[i:i + len(words)]]
            off = [(s, w) for s, w in zip(said, words, strict=True) if s != w]
            if len(off) == 1 and len(off[0][1]) >= 5 and one_edit_apart(*off[0]):
                mends.append((spans[i][0], spans[i + len(words) - 1][1], value))
    after = len(text) + 1
    for start, end, value in sorted(mends, reverse=True):
        if end <= after:  # two values over the same words: the later one alone
            text, after = text[:start] + value + text[end:], start
    return text


def join_split_values(text: str, values: Iterable[str]) -> str:
    """``text`` with each value of ``values`` said as two words ("bed room") joined."""
    for value in values:
        for cut in range(2, len(value) - 1):
            text = re.sub(rf"(?i)\b{value[:cut]}\s+{value[cut:]}\b", value, text)
    return text


def mend(text: str, tools: Iterable[Any] = ()) -> str:
    """``text`` with the slips of ``SLIPS`` and the split values of ``tools`` mended."""
    for pattern, meant in SLIPS:
        text = pattern.sub(meant, text)
    tools = list(tools)
    return respell_values(join_split_values(text, joinable_values(tools)), enum_words(tools))


class MendTranscript(Hook):
    """Mends a transcript's plain slips before the model reads it (see the module docstring)."""

    name = "transcript"
    priority = 1

    def on_run_start(self, ctx: TurnContext, text: str) -> HookResult | None:
        mended = mend(text, ctx.registry or ())
        if mended == text:
            return None
        return HookResult.replace(mended, reason=f"a recogniser's slip mended: {mended!r}")
