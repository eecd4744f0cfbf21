"""The detector base class and the name -> class registry."""

from __future__ import annotations

import re
from contextvars import ContextVar
from typing import ClassVar

from .types import Span, ToolIndex

#: Where a bare JSON value or a pythonic list may start: the start of the text, the start of
#: a line, or after a colon ("Here you go: [...]"). Anything mid-sentence is prose.
LINE_START = r"(?:^|(?<=\n)|(?<=:))[ \t]*"


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

    ``detect`` must not raise on any input; the chain guards it anyway.
    """

    name: ClassVar[str] = ""
    markers: ClassVar[tuple[str, ...]] = ()
    trigger_chars: ClassVar[str] = ""

    def __init__(self, tools: ToolIndex | None = None):
        self.tools = tools

    def detect(self, text: str) -> list[Span]:
        raise NotImplementedError

    def pending(self, text: str) -> int | None:
        return None


class MultiDetector(Detector):
    """A detector made of several others (first one wins where they overlap)."""

    parts: ClassVar[tuple[type[Detector], ...]] = ()

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        if "markers" not in cls.__dict__:
            cls.markers = tuple(dict.fromkeys(m for p in cls.parts for m in p.markers))
        if "trigger_chars" not in cls.__dict__:
            cls.trigger_chars = "".join(sorted({c for p in cls.parts for c in p.trigger_chars}))

    def __init__(self, tools: ToolIndex | None = None):
        super().__init__(tools)
        self._parts = [p(tools) for p in self.parts]

    def detect(self, text: str) -> list[Span]:
        return resolve_overlaps([part.detect(text) for part in self._parts])

    def pending(self, text: str) -> int | None:
        found = [p for p in (part.pending(text) for part in self._parts) if p is not None]
        return min(found) if found else None


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
    ranked = [(_weight(sp), g, sp.start, sp) for g, spans in enumerate(groups) for sp in spans]
    sink = SPAN_SINK.get()
    if sink is not None:
        sink.extend(r[3] for r in ranked)
    ranked.sort(key=lambda r: r[:3])
    kept: list[Span] = []
    for *_, sp in ranked:
        if not any(sp.start < o.end and o.start < sp.end for o in kept):
            kept.append(sp)
    kept.sort(key=lambda s: s.start)
    return kept


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
