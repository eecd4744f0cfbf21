"""Evaluation sets: JSONL items, where they live, and the fixed dev/test split.

An item is one conversation (usually one turn)::

    {"id": "r012", "kind": "terse",
     "turns": [{"say": "Light off across our hallway.",
                "expect": [{"name": "set_light", "args": {"room": "hallway", "on": false}}]}]}

``expect`` is ``"none"`` (no tool fits: the assistant should act on nothing) or a list of
call specs; see ``edgevox.evals.judge`` for how arguments are matched.

The split is fixed by the text, not by a seed or the file order: an item is in **dev** when
the first 8 hex digits of the SHA-256 of its turns' texts (joined by " | "), read as a
number, are below 60 % of 2**32; otherwise in **test**. Adding an item never moves another
one; tune on dev only, report test as held out.

An item may name its split instead (``"split": "dev2"`` to ``"dev65"``): tuning
sets written later, to catch rules that fit only dev's phrasings (dev3 mostly of lines no tool serves;
dev4 written in session 6 over the outside set's topics and run once before any change, as a
fresh estimate of how the shipped agent does on phrasings it was not tuned on; dev5 the same,
written at the start of session 7; dev6 the same, written later by a helper that never opened
the held-out files; dev7 the same again, by another such helper; dev8 the same again, in session 9;
dev9 the same again, by a later such helper; dev10 the same again, by yet another such helper;
dev11 the same again, written in session 19 by a helper that never opened the held-out files;
dev12 the same again, session 20, by a helper that also never read the agent's rules; dev13 and dev14
the same again, session 21; dev15 the same again, session 22, with every item that repeats a line of
another file dropped unread; dev16 and dev17 the same again, session 23, in the terse style
of a smart speaker: dev16 tuned on, dev17 run only before and after the session's rules; dev18 the same again, later in
session 23, weighted to lines to be left alone, follow-ups and corrections, tuned on; dev19 and
dev20 the same again, session 24, by two helpers that saw neither each other's split nor any
other file, with every line a stock phrase would repeat dropped: dev19 tuned on, dev20 run only
before and after the session's rules; dev21 and dev22 the same again, session 25: dev21 tuned
on, dev22 run only before and after; dev23, session 25, from sentence templates a helper wrote
from the schemas alone, in the style of Home Assistant's templated intents, tuned on; dev24 and dev25 the
same as dev21 and dev22 again, session 26, each topped up with 30 lines no tool serves after the
lines other files repeat were dropped: dev24 tuned on, dev25 run only before and after; dev26 and
dev27 the same again, later in session 26, in the style of hurried and second-language speech,
made-up wake words and unpunctuated transcripts: dev26 tuned on, dev27 run only before and after;
dev28 and dev29 the same again, session 27, half in long-winded polite speech (reasons, hedges,
older speakers and children), half in the clipped phrasing of smart-home command sets, with many
devices no tool serves named precisely: dev28 tuned on, dev29 run only before and after; dev30 and
dev31 the same again, later in session 27, people in the middle of something (cooking, hosting,
putting children to bed) with remarks, asides and corrections mid-sentence around the request,
and chatter that only mentions a device: dev30 tuned on, dev31 run only before and after; dev32 and
dev33 the same again, session 28, everyday speech across English-speaking regions (US, UK, Irish,
Scottish, Australian, Indian, South African, Nigerian) with disfluencies, false starts and questions
mixed with orders, and lines no tool serves worded close to requests: dev32 tuned on, dev33 run
only before and after; dev34 and dev35 the same again, later in session 28, short plain commands as
daily users of a Home Assistant voice satellite say them, weighted to the outside set's topics (timers
in every spoken form, quantities on the list, devices no tool serves driven with a light's verbs):
dev34 tuned on, dev35 run only before and after; dev36 and dev37 the same again, conversations of two
to four turns (follow-ups, corrections, thanks and questions about what was just done, other requests
mid-conversation; an item is kept when its first line repeats no other file's): dev36 tuned on, dev37
run only before and after; dev38 and dev39 the same again, session 29, raw speech-recognition transcripts:
lower case, little punctuation, sound-alike words, split and run-together words, dropped small words,
numbers as a recogniser writes them, wake-word fragments and fillers: dev38 tuned on, dev39 run only
before and after; dev40 and dev41 the same again, later in session 29, every line carrying an amount
said the many ways people say one (lengths, times of day that are no length, brightness and volume
in words, decimals and Fahrenheit, quantities on the list, numbers in lines no tool serves): dev40
tuned on, dev41 run only before and after); dev42 and dev43 in session 30, every line an amount again,
aimed at where a number pulls the agent astray (titles and items with numbers, two amounts in a
line, levels and lengths said oddly, numbers in lines that ask for nothing): dev42 tuned on, dev43
run only before and after; dev44 and dev45 in session 31, the line between asking and not
asking (lines that sound like a request and ask for nothing: done already, someone else's plan, said
to another person, a leave-alone, a how or whether question, an opinion; asks that do not sound like
a command): dev44 tuned on, dev45 run only before and after, and dev46, the same style again,
run first at the rules dev44 led to, then tuned on; dev47 and dev48 in session 32, people who change
their mind while they speak (self-corrections, false starts, hesitations, and requests taken back,
left undecided or broken off): dev47 tuned on, dev48 run only before and after, and dev49, the same
style again, run first at the rules dev47 led to, then tuned on; dev50 and dev51 in session 33, lines
that carry more than one thing (two orders, an order and a question, an order and something no
tool does, an order wrapped in thanks or chatter, two things no tool serves): dev50 tuned on, dev51
run only before and after, and dev52, the same style again, run first at the rules dev50 led to,
then tuned on; dev53 and dev54 in session 34, orders that must not run now and lines that sound
negative but do ask (told not to, under a condition, for later, reported; "don't forget to ...",
"not the kitchen, the bedroom"): dev53 tuned on, dev54 run only before and after, and dev55, the same
style again, run first at the rules dev53 led to, then tuned on; dev56, dev57 and dev58 in session 35,
written again in the styles of the three kept-aside splits still above the unwanted bar (dev45's
line between asking and not asking, dev43's amounts, dev48's changes of mind): tuned on, with dev45,
dev43 and dev48 as their kept-aside measures; and dev59, the three styles mixed, run only before and
after; dev60, dev61 and dev62 in session 36: dev60 in dev59's three styles mixed and dev61 in a fourth,
the home as people talk in it through a day (remarks, stories, moans, talk to others, with requests
hidden among them), tuned on, and dev62, the four styles mixed, run only before and after; dev63, dev64 and dev65 in session 37, all
statements near the devices that a small model mistakes for orders (opinions passed on, prices,
recipes, the weather of another day, what the radio says, house rules), with requests among them:
dev63 and dev65 tuned on, dev64 run only before and after).
They are never part of dev, test or "all".
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: splits an item may name itself (tuning sets outside the hashed dev/test split)
NAMED_SPLITS = ("dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "dev8", "dev9", "dev10", "dev11", "dev12", "dev13", "dev14", "dev15", "dev16", "dev17", "dev18",
               "dev19", "dev20", "dev21", "dev22", "dev23",
               "dev24", "dev25", "dev26", "dev27", "dev28", "dev29", "dev30", "dev31", "dev32", "dev33", "dev34", "dev35", "dev36", "dev37", "dev38", "dev39", "dev40", "dev41",
               "dev42", "dev43", "dev44", "dev45", "dev46", "dev47", "dev48", "dev49",
               "dev50", "dev51", "dev52", "dev53", "dev54", "dev55",
               "dev56", "dev57", "dev58", "dev59", "dev60", "dev61", "dev62", "dev63", "dev64", "dev65")
SPLITS = ("dev", "test", "all", *NAMED_SPLITS)
DEV_SHARE = 0.6


class EvalDataError(ValueError):
    """A malformed evaluation file: named by file and line."""


@dataclass
class Turn:
    say: str
    expect: list[dict[str, Any]] | None  # None: no tool fits


@dataclass
class Item:
    id: str
    kind: str
    turns: list[Turn]
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def split(self) -> str:
        named = self.extra.get("split")
        return named if named in NAMED_SPLITS else split_of(" | ".join(t.say for t in self.turns))


def split_of(text: str) -> str:
    """``"dev"`` or ``"test"``: a fixed function of the text (see the module docstring)."""
    h = int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16)
    return "dev" if h < DEV_SHARE * 2 ** 32 else "test"


def mixed(items: list[Item]) -> list[Item]:
    """Dev first, then test; within each a fixed mix of every kind (ordered by a hash of the
    id, not the file order), so that ``--limit N`` takes a fair sample rather than the
    first N greetings."""
    def key(it: Item) -> tuple[bool, str]:
        return it.split != "dev", hashlib.sha256(it.id.encode("utf-8")).hexdigest()
    return sorted(items, key=key)


def evals_dir() -> Path:
    """The evaluation data: inside the installed wheel, else the checkout's top-level ``evals/``."""
    packaged = Path(__file__).resolve().parent.parent / "_data" / "evals"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "evals"


def _turn(raw: Any, where: str) -> Turn:
    if not isinstance(raw, dict) or not isinstance(raw.get("say"), str) or not raw["say"].strip():
        raise EvalDataError(f"{where}: a turn needs a non-empty 'say' text")
    exp = raw.get("expect")
    if exp == "none":
        return Turn(raw["say"], None)
    if not isinstance(exp, list) or not exp or not all(isinstance(c, dict) and ("name" in c or "any" in c)
                                                       for c in exp):
        raise EvalDataError(f"{where}: 'expect' must be \"none\" or a list of call specs")
    return Turn(raw["say"], exp)


def load_items(path: str | Path) -> list[Item]:
    """Read one JSONL file of items; a bad line raises ``EvalDataError`` naming it."""
    path = Path(path)
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{n}"
        try:
            raw = json.loads(line)
        except ValueError as exc:
            raise EvalDataError(f"{where}: not JSON ({exc})") from None
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not isinstance(raw.get("turns"), list) \
                or not raw["turns"]:
            raise EvalDataError(f"{where}: an item needs an 'id' and a non-empty 'turns' list")
        turns = [_turn(t, where) for t in raw["turns"]]
        if "split" in raw and raw["split"] not in NAMED_SPLITS:
            raise EvalDataError(f"{where}: an item may name only the split {', '.join(NAMED_SPLITS)}")
        extra = {k: v for k, v in raw.items() if k not in ("id", "kind", "turns")}
        items.append(Item(raw["id"], str(raw.get("kind", "")), turns, source=path.stem, extra=extra))
    return items


def load_set(name: str = "home", split: str = "all", root: str | Path | None = None) -> list[Item]:
    """All items of one evaluation set (every ``*.jsonl`` in its folder), of one split
    ("all": dev and test, not a named tuning split)."""
    if split not in SPLITS:
        raise EvalDataError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    folder = Path(root) if root is not None else evals_dir() / name
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise EvalDataError(f"no evaluation data in {folder}")
    items = [it for f in files for it in load_items(f)]
    ids = [it.id for it in items]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise EvalDataError(f"duplicate item ids: {', '.join(sorted(dup))}")
    return [it for it in items if it.split == split or (split == "all" and it.split in ("dev", "test"))]
