"""The detector base class and the name -> class registry."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right, insort
from collections.abc import Sequence
from contextvars import ContextVar
from typing import ClassVar

from .types import Span, ToolCall, ToolIndex

#: Where a bare JSON value or a pythonic list may start: the start of the text, the start of
#: a line, or after a colon ("Here you go: [...]"). Anything mid-sentence is prose.
LINE_START = r"(?:^|(?<=\n)|(?<=:))[ \t]*"


def _openings_of(cls: type[Detector]) -> tuple[str, ...]:
    if not cls.markers and not cls.trigger_chars:
        return ()
    return tuple(dict.fromkeys((*cls.markers, *cls.trigger_chars)))


class Detector:
    """Finds one wire format's tool calls in a text.

    Subclasses implement :meth:`detect`, returning spans with their offsets so the chain
    can cut the markup out of what is spoken. ``markers`` are the literal strings that
    open or close the format's markup: when a streamed reply ends with a prefix of one,
    that tail is held back. :meth:`pending` reports the start of a candidate that more
    text could still turn into a call (e.g. an unbalanced ``{`` at the start of a line).

    ``trigger_chars`` are characters that may start a candidate without any marker (``{``
    for bare JSON): the streaming parser re-parses when one arrives. A detector with
    neither markers nor trigger characters is re-run on every streamed delta.

    ``openings`` are the strings at least one of which any text the detector finds
    something in contains (by default its markers and trigger characters; empty: no such
    promise). The chain skips a detector whose openings are all absent, so a reply pays
    only for the formats it could be written in: a substring test costs far less than a
    detector's scan.

    ``detect`` must not raise on any input; the chain guards it anyway.

    :meth:`lean` is the one-shot fast path (see ``lean.py``): the spans of a reply written
    plainly in this format, or None when the full :meth:`detect` must decide.
    ``spans_at_openings`` promises that every span ``detect`` returns starts at one of the
    ``openings`` (a multi-format detector relies on it to rule a part out cheaply).
    """

    name: ClassVar[str] = ""
    markers: ClassVar[tuple[str, ...]] = ()
    trigger_chars: ClassVar[str] = ""
    openings: ClassVar[tuple[str, ...]] = ()
    spans_at_openings: ClassVar[bool] = False

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        if "openings" not in cls.__dict__:
            cls.openings = _openings_of(cls)

    def __init__(self, tools: ToolIndex | None = None):
        self.tools = tools

    def could_match(self, text: str) -> bool:
        """False only when ``detect(text)`` is sure to find nothing (no opening present)."""
        if not self.openings:
            return True
        for o in self.openings:
            if o in text:
                return True
        return False

    def detect(self, text: str) -> list[Span]:
        raise NotImplementedError

    def pending(self, text: str) -> int | None:
        return None

    def lean(self, text: str) -> list[LeanSpan] | None:
        """``(start, end, calls)`` of every span :meth:`detect` would return, when they are
        all plain calls and the text holds nothing else this detector would read; None
        when unsure (the full chain then decides). Must not raise."""
        return None


#: a span the lean path found: (start, end, the calls in it)
LeanSpan = tuple[int, int, list[ToolCall]]


def prose_has(text: str, spans: list[LeanSpan], needles: tuple[str, ...]) -> bool:
    """True when one of ``needles`` starts in the text outside ``spans`` (sorted, disjoint)."""
    pos = 0
    for a, b in [*((s[0], s[1]) for s in spans), (len(text), len(text))]:
        for o in needles:
            if text.find(o, pos, a + len(o) - 1) >= 0:
                return True
        pos = b
    return False


def lean_first(detectors: Sequence[Detector], text: str) -> list[LeanSpan] | None:
    """The lean spans of several detectors in priority order.

    The first detector whose ``lean`` finds spans reads the text (those before it were
    sure to find nothing). Every later one that could match must start its spans at an
    opening, and none of its openings may stand in the prose: then all its spans start
    inside the calls found, which outrank them.
    """
    found: list[LeanSpan] | None = None
    for d in detectors:
        if found is None:
            spans = d.lean(text)
            if spans is None:
                if d.could_match(text):
                    return None
            elif spans:
                found = spans
        elif d.could_match(text) and (not d.spans_at_openings or prose_has(text, found, d.openings)):
            return None
    return found if found is not None else []


class MultiDetector(Detector):
    """A detector made of several others (first one wins where they overlap)."""

    parts: ClassVar[tuple[type[Detector], ...]] = ()

    def __init_subclass__(cls, **kw: object) -> None:
        if "markers" not in cls.__dict__:
            cls.markers = tuple(dict.fromkeys(m for p in cls.parts for m in p.markers))
        if "trigger_chars" not in cls.__dict__:
            cls.trigger_chars = "".join(sorted({c for p in cls.parts for c in p.trigger_chars}))
        if "openings" not in cls.__dict__:
            own = [p.openings for p in cls.parts]
            cls.openings = () if not all(own) else tuple(dict.fromkeys(o for p in own for o in p))
        super().__init_subclass__(**kw)

    def __init__(self, tools: ToolIndex | None = None):
        super().__init__(tools)
        self._parts = [p(tools) for p in self.parts]

    def detect(self, text: str) -> list[Span]:
        return resolve_overlaps([part.detect(text) if part.could_match(text) else [] for part in self._parts])

    def pending(self, text: str) -> int | None:
        found = [p for p in (part.pending(text) for part in self._parts) if p is not None]
        return min(found) if found else None

    def lean(self, text: str) -> list[LeanSpan] | None:
        return lean_first(self._parts, text)


#: When set, every span passed to resolve_overlaps is also appended here, including those
#: that lose: the streaming parser must know about them (a loser can come back).
SPAN_SINK: ContextVar[list[Span] | None] = ContextVar("edgevox_span_sink", default=None)


def resolve_overlaps(groups: list[list[Span]]) -> list[Span]:
    """Merge span lists given in priority order into non-overlapping spans.

    Spans that carry an answer (``say``) beat spans that carry a call, which beat spans
    that carry only rejections, which beat empty ones (a
    format that parses a region beats one that merely recognised its opening tag); among
    equals the earlier group wins, then the earlier start.
    """
    sink = SPAN_SINK.get()
    if sink is None:  # the usual case, one format found something: nothing to rank
        found = [g for g in groups if g]
        if not found:
            return []
        if len(found) == 1 and _disjoint_in_order(found[0]):
            return list(found[0])
    ranked = [(_weight(sp), g, sp.start, sp) for g, spans in enumerate(groups) for sp in spans]
    if sink is not None:
        sink.extend(r[3] for r in ranked)
    ranked.sort(key=lambda r: r[:3])
    kept: list[Span] = []
    starts: list[int] = []  # the kept non-empty spans, disjoint, by start
    ends: list[int] = []
    points: list[int] = []  # where the kept empty spans stand
    for *_, sp in ranked:
        a, b = sp.start, sp.end
        i = bisect_left(starts, b if b > a else a)
        if i and ends[i - 1] > a:  # the nearest kept span before b reaches past a
            continue
        j = bisect_right(points, a)
        if j < len(points) and points[j] < b:
            continue
        kept.append(sp)
        if b > a:
            starts.insert(i, a)
            ends.insert(i, b)
        else:
            insort(points, a)
    kept.sort(key=lambda s: s.start)
    return kept


def _disjoint_in_order(spans: list[Span]) -> bool:
    end = -1
    for sp in spans:
        if sp.start < end or sp.end <= sp.start:
            return False
        end = sp.end
    return True


def _weight(sp: Span) -> int:
    if sp.say is not None:  # an answer object is the outer structure: what it quotes is text
        return -1
    if sp.calls:
        return 0
    return 1 if sp.items else 2


DETECTORS: dict[str, type[Detector]] = {}
_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")


def register_detector(name: str, cls: type[Detector], replace: bool = False) -> type[Detector]:
    """Add a detector class under ``name`` (usable in ``parsers=``). Returns ``cls``.

    Raises TypeError for anything that is not a Detector subclass and ValueError for a bad
    name or a name already taken by another class (unless ``replace``).
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"detector name must be a non-empty identifier-like string, got {name!r}")
    if not (isinstance(cls, type) and issubclass(cls, Detector)):
        raise TypeError(f"detector {name!r} must be a subclass of edgevox.parsing.Detector, got {cls!r}")
    old = DETECTORS.get(name)
    if old is not None and old is not cls and not replace:
        raise ValueError(f"detector {name!r} is already registered ({old.__name__}); pass replace=True")
    DETECTORS[name] = cls
    return cls
