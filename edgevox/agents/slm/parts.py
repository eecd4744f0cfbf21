"""A request cut into its parts: sentences, then the joins within them.

Why a module of its own: the remainder hook looks for a part the calls left undone, the
own layout for a story's sentences that ask for a tool, and the relevance gate for a part
plainly near a tool in a request it would otherwise answer in words; all three cut a request
the same way, and the gate comes before the remainder in the import order.
"""

from __future__ import annotations

import re

from edgevox.agents.slm.amounts import JOIN

#: a longer "part" is a paragraph of context or instructions, not half of a spoken request
MAX_PART_WORDS = 30
#: the end of a sentence: ".", "?" or "!", space, and a capital (or a quote) starting the next;
#: not after a title, an abbreviation or an initial ("Doe vs. Smith", "Dr. Lee", "Acme Inc. Ltd",
#: "some A. R. Rahman songs", dev32)
SENTENCE_END = re.compile(r"(?<=[.?!])(?<!\b[A-Z]\.)(?<!\bvs\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)"
                          r"(?<!\bMt\.)(?<!\bJr\.)(?<!\bSr\.)(?<!\bNo\.)(?<!\bInc\.)(?<!\bLtd\.)(?<!\bCo\.)"
                          r"\s+(?=[A-Z\"'])")


def sentences_of(text: str) -> list[str]:
    """The request's sentences of two words or more (a quoted request unquoted first)."""
    return [s for s in SENTENCE_END.split(text.strip().strip('"')) if len(s.split()) >= 2]


def every_sentence(text: str) -> list[str]:
    """Every sentence of a line, cut after ``?``, ``!`` and ``.`` (not an initial's) whatever
    follows, one word or more: unlike ``sentences_of``, a transcript's next sentence may open
    in lower case ("is it meant to be lashing later? oh and stick the hall light on", dev32)."""
    return [s for s in re.split(r"(?<=[?!.])(?<!\b[A-Z]\.)\s+", text.strip()) if s.strip()]


def parts_of(text: str) -> list[str]:
    """The request cut at its sentence ends and its joins, parts of two words or more ("Pause
    the music and set the thermostat to 20." -> ["Pause the music", "set the thermostat to 20"]).

    Why sentences too: a request told as a story ("Imagine you are a chemist ... What would be
    the final temperature of the mixture? Later, you obtain another gas sample ... Can you
    calculate the mass of this gas sample?") has few joins, so its parts ran past
    ``MAX_PART_WORDS`` and no undone part was found. Measured offline (session 17, the first
    call of BFCL's right answer given, as in ``slm.remainder``'s notes): on parallel_multiple 0-99
    the remainder names a tool the answer still needs in 71 cases (61 cut at joins alone) and
    a wrong one in 2 (2); simple_python, multiple (0-199) and parallel (0-99) still never; on
    live_multiple 0-399 a tool not in the answer in 8 cases (5), each one that looks things up."""
    parts = [p.strip(' ,."') for s in sentences_of(text) for p in JOIN.split(s)]
    return [p for p in parts if len(p.split()) >= 2]


#: a sentence or a comma piece that tells of someone or of the speaker ("My son's flying there.",
#: "..., I'm getting in the bath", "..., the baby's asleep"): it asks for nothing
ASIDE = re.compile(r"^\W*(?:my|our|his|her|their|he|she|they|i|i'm|i've|we|we're|it's|that's"
                   r"|the\s+[a-z]+(?:'s|\s+(?:is|are|was|were|has|have)))\b", re.I)  # "..., the baby's asleep" (dev34)
#: ... unless it says what the speaker meant ("I meant Dubai")
_MEANT = re.compile(r"\W*i\s+(?:meant|mean|said|wanted)\b", re.I)


def without_asides(text: str) -> str:
    """``text`` without the comma pieces at its end that tell of someone, or say what is not
    meant ("no, make that 18, it's brown rice" -> "no, make that 18"; "put some Adele on, I'm
    getting in the bath" -> "put some Adele on")."""
    pieces = [p.strip() for p in text.split(",")]
    while len(pieces) > 1 and ((ASIDE.match(pieces[-1]) and not _MEANT.match(pieces[-1]))
                               or re.match(r"not\s", pieces[-1], re.I)):
        pieces.pop()
    return ", ".join(pieces)

