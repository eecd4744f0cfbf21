"""Gemma's compact call syntax: ``call:name{key:<|"|>text<|"|>,n:3,o:{…},l:[…]}``.

Gemma 4 delimits strings with ``<|"|>``, FunctionGemma with ``<escape>``; keys are bare,
other values are numbers, ``true/false/null``, nested ``{}`` objects and ``[]`` lists.
A small recursive-descent reader with a depth limit; plain ``"json strings"`` and
``(key: value)`` parentheses are tolerated because models drift towards them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..formats import gemma
from .types import MAX_DEPTH

STRING_DELIMS = (gemma.QUOTE, gemma.FN_QUOTE)
_NUM = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_KEY = re.compile(r"\s*(?:\"((?:[^\"\\]|\\.)*)\"|([^:,{}\[\]()\s]+))\s*:")
_BARE = re.compile(r"[^,}\])]*")


class GemmaSyntaxError(ValueError):
    """Raised for text that is not Gemma call syntax; ``truncated`` when it just ended early."""

    def __init__(self, msg: str, truncated: bool = False):
        super().__init__(msg)
        self.truncated = truncated


class _Reader:
    def __init__(self, text: str, pos: int, end: int):
        self.t, self.i, self.n = text, pos, end

    def ws(self) -> None:
        while self.i < self.n and self.t[self.i] in " \t\r\n":
            self.i += 1

    def eof(self) -> GemmaSyntaxError:
        return GemmaSyntaxError("call ended before its arguments were complete", truncated=True)

    def value(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise GemmaSyntaxError("nesting too deep")
        self.ws()
        if self.i >= self.n:
            raise self.eof()
        t = self.t
        for d in STRING_DELIMS:
            if t.startswith(d, self.i):
                j = t.find(d, self.i + len(d), self.n)
                if j < 0:
                    raise self.eof()
                s = t[self.i + len(d):j]
                self.i = j + len(d)
                return s
            if d.startswith(t[self.i:self.n]) and self.n - self.i < len(d):
                raise self.eof()
        c = t[self.i]
        if c == "{":
            return self.obj(depth + 1, "}")
        if c == "(":
            return self.obj(depth + 1, ")")
        if c == "[":
            return self.arr(depth + 1)
        if c == '"':
            j = self.i + 1
            while True:
                j = t.find('"', j, self.n)
                if j < 0:
                    raise self.eof()
                k = j - 1
                while t[k] == "\\":
                    k -= 1
                if (j - 1 - k) % 2 == 0:
                    break
                j += 1
            try:
                s = json.loads(t[self.i:j + 1])
            except ValueError:
                s = t[self.i + 1:j]
            self.i = j + 1
            return s
        m = _NUM.match(t, self.i, self.n)
        if m and (m.end() >= self.n or t[m.end()] in ",}]) \t\r\n"):
            self.i = m.end()
            if m.end() >= self.n:
                raise self.eof()
            s = m.group()
            return float(s) if any(ch in s for ch in ".eE") else int(s)
        m = _BARE.match(t, self.i, self.n)
        word = m.group().strip()
        self.i = m.end()
        if self.i >= self.n:
            raise self.eof()
        if word in ("true", "false"):
            return word == "true"
        if word in ("null", "None"):
            return None
        if not word:
            raise GemmaSyntaxError(f"expected a value at offset {self.i}")
        return word  # an unquoted string: keep it rather than lose the call

    def obj(self, depth: int, closer: str) -> dict[str, Any]:
        self.i += 1
        out: dict[str, Any] = {}
        while True:
            self.ws()
            if self.i >= self.n:
                raise self.eof()
            if self.t[self.i] == closer:
                self.i += 1
                return out
            m = _KEY.match(self.t, self.i, self.n)
            if not m:
                if ":" not in self.t[self.i:self.n] or self.t.find(closer, self.i, self.n) < 0:
                    raise self.eof()
                raise GemmaSyntaxError(f"expected key: at offset {self.i}")
            key = m.group(1) if m.group(1) is not None else m.group(2)
            self.i = m.end()
            out[key] = self.value(depth)
            self.ws()
            if self.i >= self.n:
                raise self.eof()
            if self.t[self.i] == ",":
                self.i += 1
            elif self.t[self.i] != closer:
                raise GemmaSyntaxError(f"expected ',' or '{closer}' at offset {self.i}")

    def arr(self, depth: int) -> list[Any]:
        self.i += 1
        out: list[Any] = []
        while True:
            self.ws()
            if self.i >= self.n:
                raise self.eof()
            if self.t[self.i] == "]":
                self.i += 1
                return out
            out.append(self.value(depth))
            self.ws()
            if self.i >= self.n:
                raise self.eof()
            if self.t[self.i] == ",":
                self.i += 1
            elif self.t[self.i] != "]":
                raise GemmaSyntaxError(f"expected ',' or ']' at offset {self.i}")


_CALL = re.compile(r"\s*call\s*:\s*([A-Za-z_][\w.\-]*)\s*")
_CALL_PARTIAL = re.compile(r"call\s*(?::\s*)?")


def read_call(text: str, pos: int, end: int) -> tuple[str | None, dict[str, Any] | None, int, str | None, bool]:
    """Read ``call:name{…}`` at ``pos``. Returns (name, args, end, error, truncated)."""
    m = _CALL.match(text, pos, end)
    if not m:
        rest = text[pos:end].lstrip()
        if end >= len(text) and ("call:".startswith(rest) or _CALL_PARTIAL.fullmatch(rest)):
            return None, None, end, "call ended before its name", True
        return None, None, pos, "expected call:name{…}", False
    name = m.group(1)
    i = m.end()
    if i >= end:  # the name itself may still be growing
        return (name if m.end(1) < end else None), None, end, "call ended before its arguments", True
    if text[i] not in "{(":
        return name, None, i, "expected '{' after the function name", False
    r = _Reader(text, i, end)
    try:
        args = r.obj(1, "}" if text[i] == "{" else ")")
    except GemmaSyntaxError as e:
        return name, None, end if e.truncated else r.i, str(e), e.truncated
    except (RecursionError, MemoryError):
        return name, None, end, "nesting too deep", False
    return name, args, r.i, None, False
