"""GrammarCache: hits and misses, LRU eviction, remembered failures, one build under contention."""

from __future__ import annotations

import threading
import time

import pytest
from registry import TOOLS

from edgevox.grammars import GrammarCache, GrammarError, tool_call_grammar
from edgevox.grammars import cache as cache_mod

BAD_TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "strin"}}}}]


@pytest.fixture()
def counted(monkeypatch):
    """Count real builds."""
    calls = []
    real = cache_mod.GrammarCache._build

    def build(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(cache_mod.GrammarCache, "_build", staticmethod(build))
    return calls


def test_hit_and_miss(counted):
    c = GrammarCache()
    g1 = c.get("required", TOOLS, "hermes")
    g2 = c.get("required", TOOLS, "hermes")
    assert g1 is g2
    assert g1.gbnf == tool_call_grammar(TOOLS, "hermes").gbnf
    assert c.stats()["hits"] == 1 and c.stats()["misses"] == 1 and len(counted) == 1
    # any difference in strategy, format, tools or options is a different entry
    c.get("required", TOOLS, "pythonic")
    c.get("reply_or_tool", TOOLS, "hermes")
    c.get("required", TOOLS[:3], "hermes")
    c.get("required", TOOLS, "hermes", think=("<think>", "</think>"))
    c.get("required", TOOLS, "hermes", parallel_tool_calls=False)
    c.get(("single", "get_time"), TOOLS, "hermes")
    assert c.stats()["misses"] == 7 and len(counted) == 7
    # equal-but-distinct tool lists hit (content hash), a None format means hermes
    import copy

    assert c.get("required", copy.deepcopy(TOOLS), None) is g1
    assert c.stats()["hits"] == 2


def test_single_and_other_strategies():
    c = GrammarCache()
    g = c.get(("single", "get_weather"), TOOLS, "xlam")
    assert g.strategy == "single" and g.tool_names == ("get_weather",)
    assert c.get("single", TOOLS, "xlam", name="get_weather") is g
    assert c.get("json_schema", schema={"type": "object"}).strategy == "json_schema"
    assert c.get("regex", pattern=r"\d+").matches("42")
    assert c.get("gbnf", text='root ::= "hi"').matches("hi")
    assert c.get("tool_call", TOOLS) is c.get("required", TOOLS)
    with pytest.raises(ValueError, match="no grammar for strategy"):
        c.get("free", TOOLS)
    with pytest.raises(TypeError, match="unknown option"):
        c.get("required", TOOLS, "hermes", paralel=True)
    with pytest.raises(ValueError, match="unknown wire format"):
        c.get("required", TOOLS, "nope")


def test_lru_eviction(counted):
    c = GrammarCache(maxsize=3)
    formats = ["hermes", "mistral", "xlam", "granite"]
    for f in formats[:3]:
        c.get("required", TOOLS[:2], f)
    c.get("required", TOOLS[:2], "hermes")       # refresh hermes
    c.get("required", TOOLS[:2], "granite")      # evicts mistral, the least recently used
    assert len(c) == 3 and c.stats()["evictions"] == 1
    n = len(counted)
    c.get("required", TOOLS[:2], "hermes")
    c.get("required", TOOLS[:2], "xlam")
    assert len(counted) == n                     # still cached
    c.get("required", TOOLS[:2], "mistral")
    assert len(counted) == n + 1                 # was evicted, built again


def test_failures_are_remembered(counted):
    c = GrammarCache()
    with pytest.raises(GrammarError, match="unknown type") as first:
        c.get("required", BAD_TOOLS, "hermes")
    with pytest.raises(GrammarError) as second:
        c.get("required", BAD_TOOLS, "hermes")
    assert second.value is first.value
    assert len(counted) == 1
    s = c.stats()
    assert (s["misses"], s["failures"], s["hits"]) == (1, 1, 1)
    with pytest.raises(GrammarError, match="not among the tools"):
        c.get(("single", "nope"), TOOLS, "hermes")


def test_programming_errors_are_not_memoised(counted, monkeypatch):
    c = GrammarCache()
    boom = {"n": 0}
    real = cache_mod.GrammarCache._build

    def flaky(*args):
        boom["n"] += 1
        if boom["n"] == 1:
            raise RuntimeError("transient")
        return real(*args)

    monkeypatch.setattr(cache_mod.GrammarCache, "_build", staticmethod(flaky))
    with pytest.raises(RuntimeError):
        c.get("required", TOOLS, "hermes")
    assert c.get("required", TOOLS, "hermes").strategy == "required"


def test_sixteen_threads_one_build(monkeypatch):
    c = GrammarCache()
    builds = []
    real = cache_mod.GrammarCache._build

    def slow(*args):
        builds.append(1)
        time.sleep(0.2)  # make sure every thread arrives while the build runs
        return real(*args)

    monkeypatch.setattr(cache_mod.GrammarCache, "_build", staticmethod(slow))
    barrier = threading.Barrier(16)
    results, errors = [], []

    def worker():
        try:
            barrier.wait()
            results.append(c.get("reply_or_tool", TOOLS, "hermes"))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    assert len(builds) == 1
    assert len(results) == 16 and all(r is results[0] for r in results)
    s = c.stats()
    assert s["misses"] == 1 and s["hits"] == 15


def test_sixteen_threads_same_failure(monkeypatch):
    c = GrammarCache()
    barrier = threading.Barrier(16)
    errors = []

    def worker():
        barrier.wait()
        try:
            c.get("required", BAD_TOOLS, "hermes")
        except GrammarError as e:
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(errors) == 16 and len({id(e) for e in errors}) == 1
    assert c.stats()["failures"] == 1


def test_bad_maxsize():
    with pytest.raises(ValueError):
        GrammarCache(maxsize=0)
