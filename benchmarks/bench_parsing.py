"""Parser-chain speed per wire format, next to a bare ``json.loads`` of the same arguments.

    .venv/bin/python benchmarks/bench_parsing.py [--quick]

For each format it parses a reply holding two calls (with text around them) and reports
µs per call for: the one-shot chain with only that format's detector, the chain with every
built-in detector (``parsers=None``), and the streaming parser fed 4-character deltas. The
``ratio`` columns divide by ``json.loads`` of the same arguments JSON, timed in the same run.
"""

from __future__ import annotations

import json
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgevox.parsing import StreamingParser, parse_tool_calls  # noqa: E402

ARGS = [{"city": "Paris", "days": 3, "unit": "celsius"}, {"minutes": 5, "label": "tea"}]
NAMES = ["get_weather", "set_timer"]
TOOLS = NAMES
Q = '<|"|>'


def _j(a: dict) -> str:
    return json.dumps(a)


def _py(a: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in a.items())


def _gemma(a: dict) -> str:
    return ",".join(f"{k}:{Q}{v}{Q}" if isinstance(v, str) else f"{k}:{v}" for k, v in a.items())


def _q3(a: dict) -> str:
    return "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in a.items())


PRE, POST = "Sure, let me do that for you.\n", "\nI will let you know."
calls = list(zip(NAMES, ARGS, strict=True))
REPLIES = {
    "hermes": "".join(f'<tool_call>\n{{"name": "{n}", "arguments": {_j(a)}}}\n</tool_call>\n' for n, a in calls),
    "qwen25": "".join(f'{{"name": "{n}", "arguments": {_j(a)}}}\n' for n, a in calls),
    "llama32": "; ".join(f'{{"name": "{n}", "parameters": {_j(a)}}}' for n, a in calls),
    "mistral": "".join(f"[TOOL_CALLS]{n}[ARGS]{_j(a)}" for n, a in calls),
    "pythonic": "[" + ", ".join(f"{n}({_py(a)})" for n, a in calls) + "]",
    "xlam": "```json\n" + json.dumps([{"name": n, "arguments": a} for n, a in calls]) + "\n```",
    "granite": "<|tool_call|>" + json.dumps([{"name": n, "arguments": a} for n, a in calls]),
    "gemma": "".join(f"<|tool_call>call:{n}{{{_gemma(a)}}}<tool_call|>" for n, a in calls),
    "phi4": "<|tool_call|>" + json.dumps([{"name": n, "arguments": a} for n, a in calls]) + "<|/tool_call|>",
    "functionary": "".join(f"<function={n}>{_j(a)}</function>" for n, a in calls),
    "qwen3_coder": "".join(f"<tool_call>\n<function={n}>\n{_q3(a)}</function>\n</tool_call>\n" for n, a in calls),
}


def best(fn, number: int) -> float:
    """Seconds per run: the best of 5 repeats (the least disturbed by other processes)."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def stream_once(text: str, parsers) -> None:
    sp = StreamingParser(parsers=parsers, tools=TOOLS)
    for i in range(0, len(text), 4):
        sp.feed(text[i:i + 4])
    sp.close()


def main() -> None:
    quick = "--quick" in sys.argv
    n = 200 if quick else 1000
    args_json = [_j(a) for a in ARGS]
    t_json = best(lambda: [json.loads(s) for s in args_json], n * 10) / len(ARGS)
    print(f"json.loads of the arguments: {t_json * 1e6:.2f} µs per call (baseline, this run)\n")
    head = f"{'format':<12} {'chars':>5} {'one-shot µs/call':>17} {'ratio':>7} {'all detectors µs/call':>22} {'ratio':>7} {'stream µs/call':>15} {'ratio':>7}"
    print(head)
    print("-" * len(head))
    for fmt, body in REPLIES.items():
        text = PRE + body + POST
        r = parse_tool_calls(text, parsers=(fmt,), tools=TOOLS)
        assert [c.name for c in r.calls] == NAMES, (fmt, r)
        assert [c.arguments for c in r.calls] == ARGS, (fmt, r.calls)
        assert r.content.split() == (PRE + POST).split(), (fmt, r.content)
        one = best(lambda t=text, f=fmt: parse_tool_calls(t, parsers=(f,), tools=TOOLS), n) / len(NAMES)
        every = best(lambda t=text: parse_tool_calls(t, parsers=None, tools=TOOLS), max(n // 4, 50)) / len(NAMES)
        stream = best(lambda t=text, f=fmt: stream_once(t, (f,)), max(n // 20, 20)) / len(NAMES)
        print(
            f"{fmt:<12} {len(text):>5} {one * 1e6:>17.1f} {one / t_json:>6.0f}x {every * 1e6:>22.1f} {every / t_json:>6.0f}x "
            f"{stream * 1e6:>15.1f} {stream / t_json:>6.0f}x"
        )
    long_text = (PRE + REPLIES["hermes"] + POST) * 20
    t_long = best(lambda: stream_once(long_text, ("qwen25",)), 3 if quick else 5)
    t_long_one = best(lambda: parse_tool_calls(long_text, parsers=("qwen25",), tools=TOOLS), 20)
    print(
        f"\nlong reply ({len(long_text)} chars, {len(long_text) // 4} deltas of 4 chars, 40 calls, qwen25): "
        f"streamed in {t_long * 1e3:.1f} ms total ({t_long / (len(long_text) / 4) * 1e6:.0f} µs per delta); "
        f"one-shot {t_long_one * 1e3:.2f} ms"
    )


if __name__ == "__main__":
    main()
