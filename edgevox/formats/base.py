"""What every dialect module fills in (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class StructureInfo:
    """The call block's shape for a grammar engine: ``begin`` + calls + ``end``; a lazy
    grammar stays free until ``trigger`` appears (at the very start only, when ``at_start``)."""

    begin: str
    end: str
    trigger: str
    at_start: bool = False


@dataclass(frozen=True)
class Layout:
    """How a dialect lays out its calls: the grammar builders' call rule and the renderer of
    past calls both read it.

    ``call``: what one call is -- ``"object"`` (``{name_key: NAME, args_key: {...}}``),
    ``"python"`` (``NAME(k=v, ...)``), ``"args"`` (the arguments object alone: the name is
    in ``head``) or ``"params"`` (Qwen3-Coder's parameter tags). ``head``/``tail``: literals
    around one call (``{name}`` in ``head`` stands for the tool name). ``open``/``close``:
    literals around the block. ``sep``: between two calls as written; ``sep_gbnf``: the
    grammar's separator when it accepts more than ``sep`` (GBNF). ``newline_after``: the
    grammar allows a newline after the last call. ``block``: ``"plain"``; ``"either"`` (one
    call alone, or several inside ``open``/``close``); ``"fenced"`` (a code fence holding an
    object, a list, or one object per line).
    """

    call: str = "object"
    head: str = ""
    tail: str = ""
    name_key: str = "name"
    args_key: str = "arguments"
    open: str = ""
    close: str = ""
    sep: str = ", "
    sep_gbnf: str | None = None
    newline_after: bool = False
    block: str = "plain"
    #: what may follow a tool name's first letter when any name is allowed (a GBNF class)
    name_chars: str = "[A-Za-z0-9_.\\-]"


@dataclass(frozen=True)
class Format:
    """One tool-call dialect.

    ``begin``/``end``: the literals around a call block (``begin`` None for bare JSON or a
    bare list, ``end`` "" when nothing closes it). ``markers``: every other literal of the
    markup (inner tags); ``alt_open`` other literals that open a block. ``trigger``: what a lazy grammar waits for
    when it is not ``begin`` (a bare list's ``[``), with ``at_start`` when it counts only at
    the start of the reply. ``style``: how argument values are spelled (json, python,
    gemma). ``example``: one call in canonical form; ``prompt_example``: the template shown
    to a model in a system prompt. ``detector``: the parser that reads it. ``layout``: how
    calls are laid out (the call rule of its grammars and the rendering of past calls).
    """

    name: str
    style: str
    begin: str | None
    example: str
    prompt_example: str
    detector: str
    end: str = ""
    markers: tuple[str, ...] = field(default=())
    alt_open: tuple[str, ...] = field(default=())
    #: openers that are also ordinary text (a JSON code fence, a bare word): a call only
    #: when what follows says so, so no speech filter or "looks like a call" test uses them
    plain: tuple[str, ...] = field(default=())
    trigger: str | None = None
    at_start: bool = False
    layout: Layout = field(default=Layout())

    @property
    def bare(self) -> bool:
        return self.begin is None

    @property
    def openers(self) -> tuple[str, ...]:
        """Literals that open a call block (``begin`` and the alternative openers)."""
        return tuple(m for m in (self.begin, *self.alt_open) if m)

    @property
    def literals(self) -> tuple[str, ...]:
        """Every literal of the markup."""
        return tuple(dict.fromkeys(m for m in (self.begin, self.end, *self.alt_open, *self.markers) if m))

    def structure_info(self) -> StructureInfo | None:
        """Begin, end and trigger for a lazy grammar; None when the format has nothing to
        wait for (the envelope's first token already chooses)."""
        trigger = self.trigger or self.begin
        if not trigger:
            return None
        return StructureInfo(begin=self.begin or "", end=self.end, trigger=trigger, at_start=self.at_start)
