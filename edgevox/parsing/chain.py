"""The parser chain: detectors + think handling + content assembly.

Order of work for one text (``analyse``):

1. Every configured detector runs on the raw text. Where spans overlap, a span with a call
   beats one with only rejections, which beats an empty one; among equals the detector
   listed first in ``parsers`` wins, then the earlier span.
2. Think blocks are located, ignoring think tags inside call spans. A think block that never
   closes ends where the first call inside it starts (the implicit end); a closed block keeps
   the calls made inside it and the reasoning around them.
3. The detectors run again on the text with think blocks removed; new spans that do not
   overlap the raw ones are mapped back to raw offsets and added.
4. Calls are checked against ``tools`` (unknown names become rejections), stringified
   arguments are decoded where the schema wants non-strings, and a call identical to an
   earlier call made inside a think block is dropped as its duplicate.
5. The text is cut into regions (content, reasoning, tag, span); content and reasoning are
   joined by ``Joiner``, which tidies whitespace only where something was cut out.

``hold`` is where a streamed reply stops being decided: everything before it is classified
exactly as it will be whatever text follows (see ``streaming.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ._values import coerce_to_schema
from .base import DETECTORS, SPAN_SINK, Detector, MultiDetector, lean_first, resolve_overlaps
from .lean import join_cut
from .types import (
    MAX_INPUT_CHARS,
    ParseResult,
    RejectedCall,
    Span,
    ToolCall,
    ToolIndex,
    as_tool_index,
)

DEFAULT_THINK_TAGS: tuple[tuple[str, str], ...] = (("<think>", "</think>"),)
#: Used when ``parsers`` is None: every built-in format, most specific first.
DEFAULT_PARSERS: tuple[str, ...] = (
    "qwen3_coder",
    "qwen25",
    "functionary",
    "mistral",
    "granite",
    "phi4",
    "gemma",
    "llama32",
    "xlam",
    "pythonic",
    "envelope",
)


class Joiner:
    """Concatenates kept text pieces; only where something was cut out is whitespace tidied.

    Whitespace inside a piece is kept verbatim. Where markup or reasoning was cut, the
    whitespace around the cut becomes one separator: a blank line if either side had a
    blank line, a newline if either side had a newline, else a space. Leading and trailing
    whitespace of the whole is dropped. Feeding a piece in chunks gives the same text as
    feeding it whole, and ``text`` only ever grows: what the streaming parser emitted is
    always a prefix of the final content.
    """

    __slots__ = ("_parts", "_ws", "_run", "_nl", "_cut", "_started", "_text")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._ws = ""  # whitespace since the last kept character, verbatim
        self._run = ""  # the part of it since the last cut
        self._nl = 0  # most newlines on one side of a cut since the last kept character
        self._cut = False
        self._started = False
        self._text: str | None = ""

    def feed(self, s: str) -> None:
        if not s:
            return
        core_end = len(s.rstrip())
        if core_end == 0:
            self._ws += s
            self._run += s
            return
        lead = s[: len(s) - len(s.lstrip())]
        self._ws += lead
        self._run += lead
        if self._started:
            self._parts.append(self._sep() if self._cut else self._ws)
        self._parts.append(s[len(lead):core_end])
        self._text = None
        self._ws = self._run = s[core_end:]
        self._nl = 0
        self._cut = False
        self._started = True

    def cut(self) -> None:
        self._nl = max(self._nl, self._run.count("\n"))
        self._run = ""
        self._cut = True

    def _sep(self) -> str:
        n = max(self._nl, self._run.count("\n"))
        return "\n\n" if n >= 2 else "\n" if n == 1 else " "

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self._parts)
        return self._text


@dataclass
class Region:
    start: int
    end: int
    kind: str  # "content" | "reasoning" | "tag" | "span"
    span: Span | None = None


@dataclass
class Think:
    open_start: int
    inner_start: int
    inner_end: int
    close_end: int  # == inner_end when unclosed
    closed: bool
    implicit: bool = False


@dataclass
class Analysis:
    text: str
    regions: list[Region]
    spans: list[Span]
    hold: int
    hold_raw: int  # hold before trailing whitespace was excluded
    extra_rejected: list[RejectedCall] = field(default_factory=list)
    #: (span start, key) of calls made inside think blocks, for the draft de-duplication
    drafted: list[tuple[int, str]] = field(default_factory=list)
    #: (start, end) of every candidate span any detector produced, winners and losers
    #: (filled when ``want_hold``): a re-parse may not start inside one of them
    seen: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Config:
    """Resolved chain settings (detector instances, tags), reused across calls."""

    detectors: list[Detector]
    think_tags: tuple[tuple[str, str], ...]
    tools: ToolIndex | None
    think_open: bool = False
    markers: tuple[str, ...] = ()
    trigger_chars: frozenset[str] = frozenset()
    always_reparse: bool = False
    #: every think tag; a reply containing none of them may take the lean path
    think_strings: tuple[str, ...] = ()
    #: a string every think tag contains ("think>" for <think>/</think>): one test where
    #: it is absent, instead of one per tag
    think_probe: str = ""
    #: the detectors with multi-format ones opened into their parts (for ``lean_first``)
    lean_detectors: tuple[Detector, ...] = ()


def make_config(
    parsers: Sequence[str | type[Detector]] | str | None,
    tools: Any,
    think_tags: Iterable[tuple[str, str]] | None,
    think_open: bool = False,
) -> Config:
    """Validate the chain settings. Bad settings (not model text) raise ValueError/TypeError."""
    index = as_tool_index(tools)
    if parsers is None:
        parsers = DEFAULT_PARSERS
    if isinstance(parsers, str) or (isinstance(parsers, type) and issubclass(parsers, Detector)):
        parsers = (parsers,)
    dets: list[Detector] = []
    for p in parsers:
        if isinstance(p, str):
            cls = DETECTORS.get(p)
            if cls is None:
                raise ValueError(f"unknown parser {p!r}; known: {', '.join(sorted(DETECTORS))}")
        elif isinstance(p, type) and issubclass(p, Detector):
            cls = p
        else:
            raise TypeError(f"parsers must be names or Detector subclasses, got {p!r}")
        dets.append(cls(index))
    tags = tuple(think_tags) if think_tags is not None else DEFAULT_THINK_TAGS
    for pair in tags:
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(t, str) and t for t in pair)):
            raise ValueError(f"think_tags must be (open, close) pairs of non-empty strings, got {pair!r}")
    markers = {m for d in dets for m in d.markers if m}
    markers.update(t for pair in tags for t in pair)
    triggers = {c for d in dets for c in d.trigger_chars}
    always = any(not d.markers and not d.trigger_chars for d in dets)
    return Config(
        dets, tags, index, think_open, tuple(sorted(markers, key=len, reverse=True)), frozenset(triggers), always,
        tuple(dict.fromkeys(t for pair in tags for t in pair)), _common_part([t for pair in tags for t in pair]),
        _parts_of(dets),
    )


def _common_part(strings: list[str]) -> str:
    """The longest string every one of ``strings`` contains ("" when none, or no strings)."""
    if not strings:
        return ""
    short = min(strings, key=len)
    for size in range(len(short), 0, -1):
        for i in range(len(short) - size + 1):
            part = short[i:i + size]
            if all(part in s for s in strings):
                return part
    return ""


def _parts_of(dets: Iterable[Detector]) -> tuple[Detector, ...]:
    """A multi-format detector's lean reading is its parts' in order: flat, one call less."""
    out: list[Detector] = []
    for d in dets:
        if isinstance(d, MultiDetector) and type(d).lean is MultiDetector.lean:
            out += _parts_of(d._parts)
        else:
            out.append(d)
    return tuple(out)


def _detect_all(cfg, text: str, sink: list[Span] | None) -> list[Span]:
    """Every configured detector on `text`, overlaps resolved; candidates go to `sink`."""
    token = SPAN_SINK.set(sink)
    try:
        return resolve_overlaps([_safe_detect(d, text) if d.could_match(text) else [] for d in cfg.detectors])
    finally:
        SPAN_SINK.reset(token)


def _safe_detect(det: Detector, text: str) -> list[Span]:
    try:
        spans = det.detect(text)
    except Exception as e:  # noqa: BLE001 - a detector bug must not take the reply down
        return [Span(0, 0, [RejectedCall(None, "", f"detector {type(det).__name__} failed: {e!r}")])]
    n = len(text)
    return [s for s in spans if isinstance(s, Span) and 0 <= s.start <= s.end <= n]


def _safe_pending(det: Detector, text: str) -> int | None:
    try:
        p = det.pending(text)
    except Exception:  # noqa: BLE001
        return 0
    return p if isinstance(p, int) and 0 <= p <= len(text) else None


def _inside(pos: int, spans: list[Span]) -> bool:
    return any(s.start <= pos < s.end for s in spans)


def _find_thinks(
    text: str, tags: tuple[tuple[str, str], ...], spans: list[Span], think_open: bool, pos: int = 0,
) -> tuple[list[Think], list[tuple[int, int]]]:
    """Think blocks from ``pos`` on, plus stray closing tags (``</think>`` with no opener):
    both never spoken."""
    n = len(text)
    blocks: list[Think] = []
    orphans: list[tuple[int, int]] = []
    pending_open: tuple[int, int, str] | None = (pos, pos, tags[0][1]) if think_open and tags else None
    while True:
        if pending_open is None:
            best = None
            for o, c in tags:
                k = text.find(o, pos)
                while k >= 0 and _inside(k, spans):
                    k = text.find(o, k + 1)
                if k >= 0 and (best is None or k < best[0]):
                    best = (k, k + len(o), c)
            for _o, c in tags:  # stray closers before the next opener
                k = text.find(c, pos, best[0] if best else n)
                while k >= 0:
                    if not _inside(k, spans):
                        orphans.append((k, k + len(c)))
                    k = text.find(c, k + len(c), best[0] if best else n)
            if best is None:
                return blocks, orphans
            pending_open = best
        start, inner, close = pending_open
        pending_open = None
        k = text.find(close, inner)
        while k >= 0 and _inside(k, spans):
            k = text.find(close, k + 1)
        if k < 0:
            blocks.append(Think(start, inner, n, n, closed=False))
            return blocks, orphans
        blocks.append(Think(start, inner, k, k + len(close), closed=True))
        pos = k + len(close)


def _strip_map(text: str, cuts: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int, int]], list[int], bool]:
    """Text without the ``cuts``: (stripped text, kept pieces as (stripped_start, raw_start,
    length), stripped positions where something was removed, whether the text ends in a cut)."""
    pieces: list[tuple[int, int, int]] = []
    out: list[str] = []
    joins: list[int] = []
    pos = 0
    s_pos = 0
    for a, b in sorted(cuts):
        if a > pos:
            out.append(text[pos:a])
            pieces.append((s_pos, pos, a - pos))
            s_pos += a - pos
        if b > pos:
            if not joins or joins[-1] != s_pos:
                joins.append(s_pos)
            pos = b
    if pos < len(text):
        out.append(text[pos:])
        pieces.append((s_pos, pos, len(text) - pos))
    return "".join(out), pieces, joins, pos >= len(text)


def _to_raw(pos: int, pieces: list[tuple[int, int, int]], end: bool = False) -> int:
    for s, r, ln in pieces:
        if s <= pos < s + ln or (end and s < pos <= s + ln):
            return r + (pos - s)
    return pieces[-1][1] + pieces[-1][2] if pieces else 0


def analyse(
    text: str,
    cfg: Config,
    want_hold: bool = False,
    *,
    drafted: frozenset[str] = frozenset(),
    think_open: bool | None = None,
) -> Analysis:
    """Classify ``text`` (already within MAX_INPUT_CHARS) into regions and spans.

    ``drafted`` and ``think_open`` let the streaming parser analyse only the undecided
    tail of a reply: the keys of calls already made while thinking, and whether the tail
    starts inside a think block.
    """
    think_open = cfg.think_open if think_open is None else think_open
    n = len(text)
    seen_raw: list[Span] = []
    raw = _detect_all(cfg, text, seen_raw if want_hold else None)
    extra: list[RejectedCall] = []
    for sp in raw:
        if sp.start == sp.end == 0 and sp.items:  # a failed detector's report
            extra.extend(sp.rejected)
    raw = [s for s in raw if s.end > s.start]

    thinks, orphans = _find_thinks(text, cfg.think_tags, raw, think_open) if cfg.think_tags else ([], [])
    # Only the last block can be unclosed. When it ends at its first call, the text after
    # that call is looked at afresh: it may open another think block ("<think>a <call> <think>b").
    while thinks and not thinks[-1].closed and not thinks[-1].implicit:
        t = thinks[-1]
        first = next((s for s in raw if s.calls and t.inner_start <= s.start), None)
        if first is None:
            break
        t.inner_end = t.close_end = first.start
        t.implicit = True
        more, more_orphans = _find_thinks(text, cfg.think_tags, raw, False, first.end)
        thinks += more
        orphans += more_orphans

    # second pass: the text without think blocks
    cuts = [(a, b) for a, b in [(t.open_start, t.close_end) for t in thinks] + orphans if b > a]
    stripped_all: list[Span] = []
    unsure: list[tuple[int, int, bool]] = []  # (start, end, final) of every candidate, for hold
    if cuts:
        stext, pieces, joins, ends_in_cut = _strip_map(text, cuts)
        m = len(stext)

        def usable(sp: Span) -> bool:
            # The stripped pass only adds calls that start after a removed block (where the
            # context changed) and do not straddle one; a call still open at the end of the
            # stripped text while the reply itself ends inside a think block is not there yet.
            if sp.end <= sp.start or sp.start < joins[0]:
                return False
            if any(sp.start < j < sp.end for j in joins):
                return False
            return not (ends_in_cut and sp.end >= m and not sp.final)

        seen: list[Span] = []
        resolved = _detect_all(cfg, stext, seen if want_hold else None)
        for sp in resolved:
            if not usable(sp):
                continue
            a, b = _to_raw(sp.start, pieces), _to_raw(sp.end, pieces, end=True)
            mapped = Span(a, b, sp.items, sp.final, sp.pending_name, sp.say)
            if not any(mapped.start < o.end and o.start < mapped.end for o in raw):
                stripped_all.append(mapped)
        if want_hold:
            unsure += [(_to_raw(s.start, pieces), _to_raw(s.end, pieces, end=True), s.final) for s in seen if usable(s)]
            if not ends_in_cut:  # only the piece after the last removed block can still grow
                tail = stext[joins[-1]:]
                for d in cfg.detectors:
                    p = _safe_pending(d, tail)
                    if p is not None:
                        unsure.append((_to_raw(joins[-1] + p, pieces), n, False))
    spans = sorted(raw + stripped_all, key=lambda s: s.start)
    spans, think_keys = _check_calls(spans, thinks, cfg.tools, drafted)
    regions = _regions(n, thinks, orphans, spans)

    hold = hold_raw = n
    seen_all: list[tuple[int, int]] = []
    if want_hold:
        cands = unsure + [(s.start, s.end, s.final) for s in seen_raw]
        seen_all = [(a, b) for a, b, _ in cands]
        cands += [(p, n, False) for p in (_safe_pending(d, text) for d in cfg.detectors) if p is not None]
        tail = marker_tail(text, cfg.markers)
        if tail < n and not any(s.start <= tail < s.end and s.final for s in spans):
            cands.append((tail, n, False))
        points = [_undecided_from(cands)]
        for t in thinks:
            if t.implicit:  # a later </think> would turn the text after the call back into reasoning
                first = next((s for s in spans if s.start == t.inner_end), None)
                points.append(first.end if first is not None else t.inner_end)
        hold_raw = min([n, *points])
        hold = hold_raw
        while hold > 0 and text[hold - 1] in " \t\r\n\f\v":
            hold -= 1
    return Analysis(text, regions, spans, hold, hold_raw, extra, think_keys, seen_all)


def _undecided_from(cands: list[tuple[int, int, bool]]) -> int:
    """Start of the first cluster of overlapping candidates that holds an undecided one.

    Overlap resolution ties spans together: if an undecided span changes or vanishes, any
    span overlapping it (transitively) may win or lose, so the whole cluster is undecided.
    """
    best = 10**18
    cur_start = cur_end = -1
    cur_open = False
    for a, b, final in sorted(cands):
        b = max(b, a + 1)
        if a >= cur_end:
            if cur_open:
                return cur_start
            cur_start, cur_end, cur_open = a, b, not final
        else:
            cur_end = max(cur_end, b)
            cur_open = cur_open or not final
    if cur_open:
        best = cur_start
    return best


def marker_tail(text: str, markers: Iterable[str]) -> int:
    """Start of the longest tail of ``text`` that is a prefix of a marker (else len)."""
    n = len(text)
    prefixes = _prefixes(markers if isinstance(markers, tuple) else tuple(markers))
    for k in range(min(len(prefixes), n), 0, -1):
        if text[n - k:] in prefixes[k - 1]:
            return n - k
    return n


@lru_cache(maxsize=256)
def _prefixes(markers: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    """Every prefix of every marker, by length (index k-1: the prefixes of length k)."""
    longest = max((len(m) for m in markers), default=0)
    return tuple(frozenset(m[:k] for m in markers if len(m) >= k) for k in range(1, longest + 1))


def _check_calls(
    spans: list[Span], thinks: list[Think], tools: ToolIndex | None, before: frozenset[str] = frozenset()
) -> tuple[list[Span], list[tuple[int, str]]]:
    """Apply the tool list, schema coercion and think-draft de-duplication to span items."""
    out: list[Span] = []
    drafted: set[str] = set(before)
    think_keys: list[tuple[int, str]] = []
    for sp in spans:
        in_think = any(t.inner_start <= sp.start < t.inner_end for t in thinks)
        items = []
        for it in sp.items:
            if isinstance(it, ToolCall):
                name = it.name
                if tools is not None:
                    known = tools.resolve(name)
                    if known is None:
                        it = RejectedCall(name, _raw(it), f"unknown tool '{name}'; known tools: {tools.known_list() or '(none)'}")
                        items.append(it)
                        continue
                    args = coerce_to_schema(it.arguments, tools.param_types(known))
                    it = ToolCall(it.id, known, args)
                if in_think or drafted:
                    key = _key(it)
                    if in_think:
                        drafted.add(key)
                        think_keys.append((sp.start, key))
                    elif key in drafted:
                        continue  # the same call already made while thinking
            items.append(it)
        out.append(Span(sp.start, sp.end, items, sp.final, sp.pending_name, sp.say))
    return out, think_keys


def _key(c: ToolCall) -> str:
    try:
        return c.name + "\x00" + json.dumps(c.arguments, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return c.name + "\x00" + repr(c.arguments)


def _raw(c: ToolCall) -> str:
    try:
        return json.dumps({"name": c.name, "arguments": c.arguments}, ensure_ascii=False)
    except (TypeError, ValueError):
        return c.name


def _regions(n: int, thinks: list[Think], orphans: list[tuple[int, int]], spans: list[Span]) -> list[Region]:
    if not thinks and not orphans:  # the usual reply: content around the (disjoint, sorted) spans
        out: list[Region] = []
        pos = 0
        for sp in spans:
            if sp.start > pos:
                out.append(Region(pos, sp.start, "content"))
            out.append(Region(sp.start, sp.end, "span", sp))
            pos = sp.end
        if pos < n:
            out.append(Region(pos, n, "content"))
        return out
    base: list[tuple[int, int, str]] = []
    for t in thinks:
        if t.inner_start > t.open_start:
            base.append((t.open_start, t.inner_start, "tag"))
        if t.inner_end > t.inner_start:
            base.append((t.inner_start, t.inner_end, "reasoning"))
        if t.close_end > t.inner_end:
            base.append((t.inner_end, t.close_end, "tag"))
    base += [(a, b, "tag") for a, b in orphans]
    base.sort()
    layer: list[Region] = []
    pos = 0
    for a, b, k in base:
        if a > pos:
            layer.append(Region(pos, a, "content"))
        if b > max(a, pos):
            layer.append(Region(max(a, pos), b, k))
        pos = max(pos, b)
    if pos < n:
        layer.append(Region(pos, n, "content"))
    out: list[Region] = []
    si = 0
    covered = 0
    for r in layer:  # overlay the spans: they win over everything
        pos = max(r.start, covered)
        while pos < r.end:
            while si < len(spans) and spans[si].end <= pos:
                si += 1
            nxt = spans[si] if si < len(spans) else None
            if nxt is not None and nxt.start <= pos:
                out.append(Region(nxt.start, nxt.end, "span", nxt))
                pos = covered = nxt.end
                si += 1
            else:
                stop = min(r.end, nxt.start) if nxt is not None else r.end
                out.append(Region(pos, stop, r.kind))
                pos = stop
    return out


def assemble(regions: list[Region], text: str, content: Joiner, reasoning: Joiner, start: int = 0, stop: int | None = None) -> None:
    """Feed the regions' text between ``start`` and ``stop`` into the joiners."""
    stop = len(text) if stop is None else stop
    for r in regions:
        if r.end <= start:
            continue
        if r.start >= stop:
            break
        a, b = max(r.start, start), min(r.end, stop)
        if r.kind == "content":
            reasoning.cut()
            content.feed(text[a:b])
        elif r.kind == "reasoning":
            content.cut()
            reasoning.feed(text[a:b])
        else:
            content.cut()
            reasoning.cut()
            if r.span is not None and r.span.say is not None:
                content.feed(r.span.say)
                content.cut()


def truncation_note(length: int) -> RejectedCall:
    return RejectedCall(None, "", f"reply truncated: {length} characters exceed the limit of {MAX_INPUT_CHARS}; text after it was ignored")


def result_of(a: Analysis, total_len: int) -> ParseResult:
    content, reasoning = Joiner(), Joiner()
    assemble(a.regions, a.text, content, reasoning)
    calls = [c for s in a.spans for c in s.calls]
    rejected = [r for s in a.spans for r in s.rejected] + a.extra_rejected
    if total_len > MAX_INPUT_CHARS:
        rejected.append(truncation_note(total_len))
    r = reasoning.text
    return ParseResult(calls=calls, content=content.text, reasoning=r or None, fallback_mode=bool(calls), rejected=rejected)


def parse_tool_calls(
    text: str,
    parsers: Sequence[str | type[Detector]] | str | None = None,
    tools: Any = None,
    think_tags: Iterable[tuple[str, str]] | None = DEFAULT_THINK_TAGS,
    *,
    think_open: bool = False,
) -> ParseResult:
    """Recover tool calls, speakable content and reasoning from one model reply.

    ``parsers``: detector names in priority order (None: every built-in format).
    ``tools``: OpenAI tool dicts, bare function dicts, objects with ``.name``, or names;
    None accepts any name. ``think_tags``: (open, close) pairs; ``think_open=True`` when the
    prompt already opened a think block (the reply starts inside it).

    Never raises on any ``text`` (non-str input is converted with ``str``); raises
    ValueError/TypeError only for invalid settings.
    """
    try:  # the settings as given: a lookup costs less than building the checked key
        fast: tuple | None = (parsers, tuple(tools) if type(tools) is list else tools, think_tags, think_open)
        cfg = _FAST_CONFIGS.get(fast)
    except TypeError:
        fast, cfg = None, None
    if cfg is None:
        key = _config_key(parsers, tools, think_tags, think_open)
        cfg = _cached_config(key) if key is not None else make_config(parsers, tools, think_tags, think_open)
        if key is not None and fast is not None and len(_FAST_CONFIGS) < 64:
            _FAST_CONFIGS[fast] = cfg
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    if not cfg.think_open and len(text) <= MAX_INPUT_CHARS:
        r = lean_result(cfg, text)
        if r is not None:
            return r
    return full_result(cfg, text)


#: configs of settings made only of names and strings (see ``_config_key``), by the settings as given
_FAST_CONFIGS: dict[tuple, Config] = {}


def _config_key(parsers: Any, tools: Any, think_tags: Any, think_open: bool) -> tuple | None:
    """A hashable key for settings made only of names and strings (else None: not cached).

    Tool dicts may be mutated between calls, so only names (or no list) are cached.
    """
    if isinstance(parsers, str) or parsers is None:
        p = parsers
    elif isinstance(parsers, (tuple, list)) and all(isinstance(x, str) for x in parsers):
        p = tuple(parsers)
    else:
        return None
    if tools is None:
        t = None
    elif isinstance(tools, (tuple, list)) and all(isinstance(x, str) for x in tools):
        t = tuple(tools)
    else:
        return None
    try:
        tags = None if think_tags is None else tuple(tuple(pair) for pair in think_tags)
        hash(tags)
    except TypeError:
        return None
    return (p, t, tags, bool(think_open))


@lru_cache(maxsize=64)
def _cached_config(key: tuple) -> Config:
    p, t, tags, think_open = key
    return make_config(p, list(t) if t is not None else None, tags, think_open)


def full_result(cfg: Config, text: str) -> ParseResult:
    """The whole chain (``analyse``), whatever the text."""
    total = len(text)
    a = analyse(text[:MAX_INPUT_CHARS], cfg)
    return result_of(a, total)


_UNKNOWN = object()


def lean_result(cfg: Config, text: str) -> ParseResult | None:
    """The lean path (see ``lean.py``): the same result as :func:`full_result` for a reply
    with no think tag whose calls the detectors' ``lean`` reads, and all name known tools;
    None otherwise."""
    if cfg.think_probe in text:
        for s in cfg.think_strings:
            if s in text:
                return None
    dets = cfg.lean_detectors
    try:
        if len(dets) == 1:  # (one call less than ``lean_first``, and what it would return)
            found = dets[0].lean(text)
            if found is None and not dets[0].could_match(text):
                found = []
        else:
            found = lean_first(dets, text)
    except Exception:  # noqa: BLE001 - a lean reader's bug: the full chain reports it
        return None
    if found is None:
        return None
    tools = cfg.tools
    calls: list[ToolCall] = []
    pieces: list[str] = []
    pos = 0
    schemas = tools.schemas if tools is not None else None
    for a, b, cs in found:
        pieces.append(text[pos:a])
        pos = b
        if schemas is None:
            calls += cs
            continue
        for c in cs:
            schema = schemas.get(c.name, _UNKNOWN)  # one lookup decides
            if schema is _UNKNOWN:  # not as written (perhaps "functions.name")
                known = tools.resolve(c.name)  # type: ignore[union-attr]
                if known is None:
                    return None  # the full chain words the rejection
                c = ToolCall(c.id, known, coerce_to_schema(c.arguments, tools.param_types(known)))  # type: ignore[union-attr]
            elif schema:  # a schema may want values decoded (None, {}: nothing to check)
                c = ToolCall(c.id, c.name, coerce_to_schema(c.arguments, tools.param_types(c.name)))  # type: ignore[union-attr]
            calls.append(c)
    pieces.append(text[pos:])
    return ParseResult(calls, join_cut(pieces), None, bool(calls), [])
