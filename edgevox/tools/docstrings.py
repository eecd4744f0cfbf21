"""Read a tool description and parameter descriptions out of a docstring.

Small models pick tools by their descriptions, so developers should not have to
repeat in decorators what their docstrings already say. Supported layouts:
Google (``Args:``), reST (``:param x:``) and NumPy (``Parameters`` + dashes).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_GOOGLE_PARAM_HEADERS = {
    "args",
    "arguments",
    "parameters",
    "params",
    "keyword args",
    "keyword arguments",
    "kwargs",
    "other parameters",
}
_GOOGLE_ANY_HEADER = re.compile(r"^(?P<indent>\s*)(?P<name>[A-Za-z][A-Za-z ]{1,30}):\s*$")
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}(?P<name>\w+)\s*(?:\([^)]*\))?\s*:(?P<desc>.*)$")
_REST_PARAM = re.compile(
    r"^\s*:(?:param|parameter|arg|argument|key|keyword)\s+(?P<spec>[^:]+?)\s*:(?P<desc>.*)$"
)
_REST_ANY_FIELD = re.compile(r"^\s*:\w+[^:]*:")
_NUMPY_RULE = re.compile(r"^\s*-{3,}\s*$")
_KNOWN_SECTIONS = _GOOGLE_PARAM_HEADERS | {
    "returns",
    "return",
    "yields",
    "raises",
    "examples",
    "example",
    "notes",
    "note",
    "see also",
    "warnings",
    "warning",
    "attributes",
    "references",
    "todo",
}


@dataclass
class ParsedDocstring:
    """``summary`` is the first paragraph on one line; ``params`` maps name -> description."""

    summary: str = ""
    params: dict[str, str] = field(default_factory=dict)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(parts: list[str]) -> str:
    return " ".join(p.strip() for p in parts if p.strip())


def _is_section_start(lines: list[str], i: int) -> bool:
    line = lines[i]
    m = _GOOGLE_ANY_HEADER.match(line)
    if m and m.group("name").strip().lower() in _KNOWN_SECTIONS:
        return True
    if i + 1 < len(lines) and line.strip() and _NUMPY_RULE.match(lines[i + 1]):
        return True
    return bool(_REST_ANY_FIELD.match(line))


def _summary(lines: list[str]) -> str:
    out: list[str] = []
    for i, line in enumerate(lines):
        if not line.strip():
            if out:
                break
            continue
        if _is_section_start(lines, i):
            break
        out.append(line)
    return _join(out)


def _google(lines: list[str], params: dict[str, str]) -> None:
    i = 0
    while i < len(lines):
        m = _GOOGLE_ANY_HEADER.match(lines[i])
        if not (m and m.group("name").strip().lower() in _GOOGLE_PARAM_HEADERS):
            i += 1
            continue
        header_indent = len(m.group("indent"))
        i += 1
        entry_indent: int | None = None
        current: str | None = None
        buf: list[str] = []
        while i < len(lines):
            line = lines[i]
            if line.strip():
                ind = _indent(line)
                if ind <= header_indent:
                    break
                if entry_indent is None:
                    entry_indent = ind
                em = _GOOGLE_ENTRY.match(line.strip()) if ind <= entry_indent else None
                if em:
                    if current is not None:
                        params.setdefault(current, _join(buf))
                    current, buf = em.group("name"), [em.group("desc")]
                elif current is not None:
                    buf.append(line)
            i += 1
        if current is not None:
            params.setdefault(current, _join(buf))


def _rest(lines: list[str], params: dict[str, str]) -> None:
    i = 0
    while i < len(lines):
        m = _REST_PARAM.match(lines[i])
        if not m:
            i += 1
            continue
        name = m.group("spec").split()[-1].lstrip("*")
        base = _indent(lines[i])
        buf = [m.group("desc")]
        i += 1
        while i < len(lines):
            line = lines[i]
            if line.strip() and (_indent(line) <= base or _REST_ANY_FIELD.match(line)):
                break
            buf.append(line)
            i += 1
        params.setdefault(name, _join(buf))


def _numpy(lines: list[str], params: dict[str, str]) -> None:
    i = 0
    while i + 1 < len(lines):
        if not (
            lines[i].strip().lower() in {"parameters", "other parameters"}
            and _NUMPY_RULE.match(lines[i + 1])
        ):
            i += 1
            continue
        base = _indent(lines[i])
        i += 2
        names: list[str] = []
        buf: list[str] = []
        while i < len(lines):
            line = lines[i]
            if line.strip() and i + 1 < len(lines) and _NUMPY_RULE.match(lines[i + 1]):
                break  # next section
            if line.strip() and _indent(line) <= base:
                for n in names:
                    params.setdefault(n, _join(buf))
                spec = line.split(":", 1)[0]
                names = [n.strip().lstrip("*") for n in spec.split(",") if n.strip()]
                buf = []
            elif names:
                buf.append(line)
            i += 1
        for n in names:
            params.setdefault(n, _join(buf))


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Parse ``doc``; unknown layouts just yield the summary and no parameter docs."""
    if not doc or not doc.strip():
        return ParsedDocstring()
    lines = inspect.cleandoc(doc).splitlines()
    params: dict[str, str] = {}
    _google(lines, params)
    _rest(lines, params)
    _numpy(lines, params)
    return ParsedDocstring(summary=_summary(lines), params={k: v for k, v in params.items() if v})
