"""Parser-chain speed per wire format, next to a bare ``json.loads`` of the same arguments.

    .venv/bin/python benchmarks/bench_parsing.py [--quick]

For each format it parses a reply holding two calls (with text around them) and reports
µs per call for: the one-shot chain with only that format's detector, the chain with every
built-in detector (``parsers=None``), and the streaming parser fed 4-character deltas. The
``ratio`` columns divide by ``json.loads`` of the same arguments JSON, timed in the same run
(for the one-shot column interleaved with it, repeat by repeat). A reply written plainly in
the one named format takes the lean path (``edgevox/parsing/lean.py``); with every detector
configured it takes the full chain.
Then a 5k and a 50k reply are streamed side by side: the cost per character must not grow
with the length of the reply (each delta re-reads only a bounded undecided tail).
"""

from __future__ import annotations

import json
import sys
import time
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


#: CPU time of this process, not wall time: while other processes hold the two cores, the
#: time this one waits is not counted (what they still cost it, shared caches, is)
CLOCK = time.process_time


def best(fn, number: int) -> float:
    """CPU seconds per run: the best of 5 repeats (the least disturbed by other processes)."""
    return min(timeit.repeat(fn, number=number, repeat=5, timer=CLOCK)) / number


def best_pair(fn, base, number: int) -> tuple[float, float]:
    """CPU seconds per run of ``fn`` and of ``base``, repeats interleaved (the same machine
    weather for both), each the best of 7."""
    a, b = [], []
    for _ in range(7):
        a.append(timeit.timeit(fn, number=number, timer=CLOCK) / number)
        b.append(timeit.timeit(base, number=number, timer=CLOCK) / number)
    return min(a), min(b)


def stream_once(text: str, parsers) -> None:
    sp = StreamingParser(parsers=parsers, tools=TOOLS)
    for i in range(0, len(text), 4):
        sp.feed(text[i:i + 4])
    sp.close()


def main() -> None:
    quick = "--quick" in sys.argv
    n = 200 if quick else 1000
    args_json = [_j(a) for a in ARGS]

    def loads() -> None:
        for s in args_json:
            json.loads(s)

    t_json = best(loads, n * 10) / len(ARGS)
    print(f"json.loads of the arguments: {t_json * 1e6:.2f} µs per call (baseline, this run; the one-shot ratio\n"
          "divides by a json.loads baseline timed interleaved with it, the other ratios by this one)\n")
    head = f"{'format':<12} {'chars':>5} {'one-shot µs/call':>17} {'ratio':>7} {'all detectors µs/call':>22} {'ratio':>7} {'stream µs/call':>15} {'ratio':>7}"
    print(head)
    print("-" * len(head))
    for fmt, body in REPLIES.items():
        text = PRE + body + POST
        r = parse_tool_calls(text, parsers=(fmt,), tools=TOOLS)
        assert [c.name for c in r.calls] == NAMES, (fmt, r)
        assert [c.arguments for c in r.calls] == ARGS, (fmt, r.calls)
        assert r.content.split() == (PRE + POST).split(), (fmt, r.content)
        one, base = best_pair(lambda t=text, f=fmt: parse_tool_calls(t, parsers=(f,), tools=TOOLS), loads, n)
        one, base = one / len(NAMES), base / len(ARGS)
        every = best(lambda t=text: parse_tool_calls(t, parsers=None, tools=TOOLS), max(n // 4, 50)) / len(NAMES)
        stream = best(lambda t=text, f=fmt: stream_once(t, (f,)), max(n // 20, 20)) / len(NAMES)
        print(
            f"{fmt:<12} {len(text):>5} {one * 1e6:>17.1f} {one / base:>6.1f}x {every * 1e6:>22.1f} {every / t_json:>6.0f}x "
            f"{stream * 1e6:>15.1f} {stream / t_json:>6.0f}x"
        )
    print()
    unit = PRE + REPLIES["hermes"] + POST
    per_char = {}
    for copies in (20, 200):  # about 5k and 50k characters, 2 calls per copy
        text = unit * copies
        t_stream = best(lambda t=text: stream_once(t, ("qwen25",)), 1 if quick else 3)
        t_one = best(lambda t=text: parse_tool_calls(t, parsers=("qwen25",), tools=TOOLS), 3 if quick else 10)
        deltas = len(text) // 4
        per_char[copies] = t_stream / len(text)
        print(
            f"long reply {len(text):>6} chars ({2 * copies} calls, qwen25): streamed in 4-char deltas {t_stream * 1e3:8.1f} ms "
            f"({t_stream / deltas * 1e6:5.0f} µs per delta, {per_char[copies] * 1e6:5.1f} µs per char); one-shot {t_one * 1e3:6.2f} ms"
        )
    print(f"streamed cost per character, 50k reply / 5k reply: {per_char[200] / per_char[20]:.2f}x (linear = 1.00x)")


if __name__ == "__main__":
    main()
