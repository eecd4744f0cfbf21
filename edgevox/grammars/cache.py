"""GrammarCache: build each grammar once per (strategy, wire format, tool set, options).

Building and validating a grammar costs milliseconds; an agent asks for the same one on
every turn. The cache is a bounded LRU, thread-safe (concurrent requests for one key
wait for a single build) and remembers failures: a tool set whose grammar cannot be
built raises the same GrammarError again without being rebuilt on every turn.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from .builders import (
    Grammar,
    _canonical,
    _opts_key,
    _schema_of,
    _think_pair,
    _tool_grammar,
    answer_grammar,
    check_validation,
    gbnf_grammar,
    json_schema_grammar,
    normalize_tools,
    regex_grammar,
    tools_key,
)
from .gbnf import GrammarError
from .wire import get_format

__all__ = ["GrammarCache", "STRATEGIES"]

#: Strategies that have a grammar (``("single", name)`` is also accepted).
STRATEGIES = ("required", "reply_or_tool", "single", "json_schema", "regex", "gbnf", "answer")
_TOOL_OPTS = {"think", "parallel_tool_calls", "text_before_calls", "name", "validation"}


class _Pending:
    __slots__ = ("event", "value", "error")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.value: Grammar | None = None
        self.error: BaseException | None = None


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error: GrammarError) -> None:
        self.error = error


def _split_strategy(strategy: Any, opts: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if isinstance(strategy, tuple) and len(strategy) == 2 and strategy[0] == "single":
        return "single", {**opts, "name": strategy[1]}
    if strategy == "tool_call":
        strategy = "required"
    if strategy not in STRATEGIES:
        raise ValueError(f"no grammar for strategy {strategy!r}; expected one of {STRATEGIES} "
                         "or ('single', name)")
    return strategy, opts


class GrammarCache:
    """``GrammarCache(maxsize=64).get(strategy, tools, wire_format, **opts) -> Grammar``.

    Strategies: ``"required"`` (alias ``"tool_call"``), ``"reply_or_tool"``,
    ``("single", name)`` / ``"single"`` with ``name=``, ``"json_schema"`` with ``schema=``,
    ``"regex"`` with ``pattern=``, ``"gbnf"`` with ``text=``. Tool options: ``think``,
    ``parallel_tool_calls``, ``text_before_calls``.
    """

    def __init__(self, maxsize: int = 64) -> None:
        if not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError("maxsize must be a positive int")
        self.maxsize = maxsize
        self._data: OrderedDict[tuple, Grammar | _Failure] = OrderedDict()
        self._pending: dict[tuple, _Pending] = {}
        self._lock = threading.Lock()
        self._hits = self._misses = self._failures = self._evictions = 0

    # -- keys and builds ---------------------------------------------------------------------

    def _key(self, strategy: str, tools: Any, wire_format: str | None, opts: dict[str, Any]) -> tuple:
        if strategy in ("required", "reply_or_tool", "single"):
            unknown = set(opts) - _TOOL_OPTS
            if unknown:
                raise TypeError(f"unknown option(s) for {strategy!r}: {sorted(unknown)}")
            norm = {"think": _think_pair(opts.get("think")),
                    "parallel": bool(opts.get("parallel_tool_calls", True)) and strategy != "single",
                    "text_before_calls": bool(opts.get("text_before_calls", False)),
                    "name": opts.get("name")}
            level = check_validation(opts.get("validation", "schema_aware"))
            if level != "schema_aware":
                norm["validation"] = level
            tk = "" if tools is None and level == "structural" else tools_key(tools)
            return (strategy, get_format(wire_format or "hermes").name, tk, _opts_key(**norm))
        if strategy == "answer":
            return (strategy, get_format(wire_format or "envelope").name, "",
                    _opts_key(think=_think_pair(opts.get("think"))))
        if strategy == "json_schema":
            schema = opts.get("schema")
            if isinstance(schema, type):
                return (strategy, None, ("class", schema), "")
            return (strategy, None, "sha:" + _canonical(schema), "")
        if strategy == "regex":
            return (strategy, None, "sha:" + _canonical(opts.get("pattern")), "")
        return (strategy, None, "sha:" + _canonical([opts.get("text"), opts.get("root", "root")]), "")

    @staticmethod
    def _build(strategy: str, tools: Any, wire_format: str | None, opts: dict[str, Any],
               key: tuple) -> Grammar:
        if strategy in ("required", "reply_or_tool"):
            return _tool_grammar(strategy, tools, wire_format or "hermes", think=opts.get("think"),
                                 parallel_tool_calls=opts.get("parallel_tool_calls", True),
                                 text_before_calls=opts.get("text_before_calls", False),
                                 key_tools=key[2], validation=opts.get("validation", "schema_aware"))
        if strategy == "single":
            name = opts.get("name")
            entries = [t for t in _tool_list(tools) if _tool_name(t) == name]
            if not entries:
                raise GrammarError(f"tool_choice names {name!r}, which is not among the tools")
            return _tool_grammar("single", entries, wire_format or "hermes", think=opts.get("think"),
                                 parallel_tool_calls=False, key_tools=key[2],
                                 validation=opts.get("validation", "schema_aware"))
        if strategy == "answer":
            return answer_grammar(wire_format or "envelope", think=opts.get("think"))
        if strategy == "json_schema":
            return json_schema_grammar(_schema_of(opts.get("schema")))
        if strategy == "regex":
            return regex_grammar(opts.get("pattern"))
        return gbnf_grammar(opts.get("text"), opts.get("root", "root"))

    # -- public ------------------------------------------------------------------------------

    def get(self, strategy: Any, tools: Any = None, wire_format: str | None = "hermes",
            **opts: Any) -> Grammar:
        """The grammar for these arguments: from the cache, or built once and remembered."""
        strategy, opts = _split_strategy(strategy, opts)
        key = self._key(strategy, tools, wire_format, opts)
        with self._lock:
            entry = self._data.get(key)
            if entry is not None:
                self._data.move_to_end(key)
                self._hits += 1
                if isinstance(entry, _Failure):
                    raise entry.error
                return entry
            pending = self._pending.get(key)
            owner = pending is None
            if owner:
                pending = self._pending[key] = _Pending()
                self._misses += 1
        assert pending is not None
        if not owner:
            pending.event.wait()
            with self._lock:
                self._hits += 1
            if pending.error is not None:
                raise pending.error
            assert pending.value is not None
            return pending.value
        try:
            grammar = self._build(strategy, tools, wire_format, opts, key)
        except GrammarError as err:
            pending.error = err
            with self._lock:
                self._failures += 1
                self._store(key, _Failure(err))
            raise
        except BaseException as err:  # a programming error: report it, do not memoise it
            pending.error = err
            raise
        else:
            pending.value = grammar
            with self._lock:
                self._store(key, grammar)
            return grammar
        finally:
            with self._lock:
                self._pending.pop(key, None)
            pending.event.set()

    def _store(self, key: tuple, entry: Grammar | _Failure) -> None:
        self._data[key] = entry
        self._data.move_to_end(key)
        while len(self._data) > self.maxsize:
            self._data.popitem(last=False)
            self._evictions += 1

    def stats(self) -> dict[str, int]:
        """hits (incl. remembered failures), misses (= builds started), failures, size, ..."""
        with self._lock:
            return {"hits": self._hits, "misses": self._misses, "failures": self._failures,
                    "evictions": self._evictions, "size": len(self._data), "maxsize": self.maxsize}

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data


def _tool_list(tools: Any) -> list[Any]:
    if tools is None:
        raise GrammarError("no tools given")
    if isinstance(tools, (str, Mapping)) or hasattr(tools, "parameters"):
        return [tools]
    return list(tools)


def _tool_name(t: Any) -> str:
    return normalize_tools(t)[0][0]
