"""Every wire format against hand-written, real-looking model outputs (tests/parsing/fixtures).

Each fixture states the calls, the speakable content, the reasoning and the rejections it
must produce; the same text fed to the streaming parser char by char and in chunks must
give the same calls and content.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from parsing_data import load_fixtures, parsers_of, tools_of

from edgevox.parsing import BUILTIN, StreamingParser, parse_tool_calls
from edgevox.parsing.streaming import CallComplete, TextDelta

CASES = load_fixtures()
IDS = [f"{fmt}-{case['id']}" for fmt, case in CASES]


def test_every_format_has_ten_fixtures():
    counts = Counter(fmt for fmt, _ in CASES)
    assert set(counts) == set(BUILTIN), f"fixture files vs detectors: {sorted(counts)} / {sorted(BUILTIN)}"
    assert min(counts.values()) >= 10, counts


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=IDS)
def test_fixture(fmt, case):
    r = parse_tool_calls(case["text"], parsers=parsers_of(fmt, case), tools=tools_of(case))
    got = [{"name": c.name, "arguments": c.arguments, "id": c.id} for c in r.calls]
    assert got == case["calls"]
    assert r.content == case["content"]
    assert r.reasoning == case["reasoning"]
    assert len(r.rejected) == len(case["rejected"]), r.rejected
    for rej, want in zip(r.rejected, case["rejected"], strict=True):
        assert want in rej.reason
    assert r.fallback_mode is bool(r.calls)
    text = r.content + (r.reasoning or "")
    for marker in ("<tool_call>", "[TOOL_CALLS]", "<|tool_call", "<function=", "<think>", "```tool_code", "<start_function_call>"):
        if marker not in case["text"] or marker in case["content"]:
            continue
        assert marker not in text, f"markup {marker!r} leaked"


def _stream(text, parsers, tools, pieces):
    sp = StreamingParser(parsers=parsers, tools=tools)
    events = []
    for p in pieces:
        events += sp.feed(p)
    events += sp.close()
    content = "".join(e.text for e in events if isinstance(e, TextDelta))
    calls = [e.call for e in events if isinstance(e, CallComplete)]
    return content, calls, sp


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=IDS)
def test_fixture_streamed(fmt, case):
    parsers, tools, text = parsers_of(fmt, case), tools_of(case), case["text"]
    one = parse_tool_calls(text, parsers=parsers, tools=tools)
    rng = random.Random(case["id"])
    splits = [list(text)]
    for _ in range(3):
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 8))))
        bounds = [0, *cuts, len(text)]
        splits.append([text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)])
    for pieces in splits:
        content, calls, sp = _stream(text, parsers, tools, pieces)
        assert content == one.content
        assert calls == one.calls
        assert sp.result() == one
        assert sp.regressions == 0
