"""Tool-call dialects, one module each: the single place their literal markers live.

A :class:`Format` says how one model family writes tool calls: the literal that opens a
call block and the one that closes it, every other literal of its markup, the trigger a
lazy grammar waits for, how argument values are spelled, an example, and which parser
reads it, and how its calls are laid out (``Layout``). The parser chain (detector markers),
the grammar builders (openers, examples, the call rule),
the lazy triggers of the presets and the speech filter all read these objects, so adding
a dialect is one module here (plus its detector and a preset line)::

    # edgevox/formats/mydialect.py
    from .base import Format, Layout
    FORMAT = Format(name="mydialect", style="json", begin="<call>", end="</call>",
                    layout=Layout(head="<call>", tail="</call>", sep="\\n"),
                    example='<call>{"name": "f", "arguments": {"a": 1}}</call>',
                    prompt_example='<call>{"name": "<tool name>", "arguments": {...}}</call>',
                    detector="mydialect")

then list the module in ``_MODULES`` below and name the format in a preset
(``wire_format = "mydialect"``).
"""

from __future__ import annotations

from importlib import import_module

from .base import Format, Layout, StructureInfo

_MODULES = ("hermes", "mistral", "llama32", "pythonic", "xlam", "granite", "phi4", "gemma",
            "functionary", "qwen3_coder", "json_fenced", "envelope")

FORMATS: dict[str, Format] = {}
for _m in _MODULES:
    for _f in import_module(f"{__name__}.{_m}").FORMATS:
        FORMATS[_f.name] = _f


def get_format(name: str) -> Format:
    """The format called ``name``; ValueError naming the known ones otherwise."""
    try:
        return FORMATS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown wire format {name!r}; expected one of {sorted(FORMATS)}") from None


def call_openers() -> tuple[str, ...]:
    """Every literal that opens a call block in some dialect and is never ordinary text
    (see ``Format.plain``), longest first."""
    found = {m for f in FORMATS.values() for m in f.openers if m not in f.plain}
    return tuple(sorted(found, key=lambda m: (-len(m), m)))


def trigger_table(name: str) -> dict[str, object]:
    """A preset's ``[trigger]`` table for the format called ``name`` (``{}`` when the format
    has nothing to wait for or is not known here: then the preset must give its own)."""
    fmt = FORMATS.get(name)
    info = fmt.structure_info() if fmt is not None else None
    if info is None:
        return {}
    table: dict[str, object] = {"begin": info.trigger}
    if info.end:
        table["end"] = info.end
    if info.at_start:
        table["at_start"] = True
    return table


def all_markers() -> tuple[str, ...]:
    """Every literal of every dialect's markup, longest first."""
    found = {m for f in FORMATS.values() for m in f.literals}
    return tuple(sorted(found, key=lambda m: (-len(m), m)))


__all__ = ["FORMATS", "Format", "Layout", "StructureInfo", "all_markers", "call_openers", "get_format", "trigger_table"]
