"""The BFCL runner: scoring of raw text, resumable records, reuse of free outputs, replay.

Everything but the last test runs without a model (a fake engine answers); the last one
runs the real Qwen2.5-Coder-0.5B through the `edgevox bfcl` command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from edgevox.bfcl.baseline import compare, make_baseline
from edgevox.bfcl.data import Case, load_cases
from edgevox.bfcl.replay import replay_file, replay_records
from edgevox.bfcl.report import markdown_table, read_records, summarize
from edgevox.bfcl.runner import (
    EdgeVoxEngine,
    RunConfigError,
    looks_like_call,
    run_cases,
    score_edgevox,
    score_peer,
)
from edgevox.bfcl.schema import sanitize_name
from edgevox.llm.presets import get_preset

REPO = Path(__file__).resolve().parents[2]
QWEN = get_preset("qwen25").detectors
FACTORIAL = '<tool_call>\n{"name": "math_factorial", "arguments": {"number": 5}}\n</tool_call>'


@pytest.fixture(scope="module")
def cases(bfcl_data_dir: Path) -> dict[str, Case]:
    picked = load_cases("simple_python", bfcl_data_dir, limit=3)
    picked += load_cases("parallel", bfcl_data_dir, limit=1)
    picked += load_cases("irrelevance", bfcl_data_dir, limit=1)
    return {c.id: c for c in picked}


def test_call_markup_detection() -> None:
    assert looks_like_call("<tool_call>{broken")
    assert looks_like_call('```json\n{"name": "f", "arguments": {}}\n```')
    assert looks_like_call("[TOOL_CALLS] [")
    assert not looks_like_call("The area is 25 square units.")


def test_dotted_name_is_sanitized_for_the_model_and_restored_for_the_checker(cases) -> None:
    case = cases["simple_python_1"]
    assert case.functions[0]["name"] == "math.factorial"
    assert case.tools(sanitize=True)[0]["function"]["name"] == "math_factorial"
    scored = score_edgevox(case, FACTORIAL, QWEN)
    assert scored["calls"] == [{"name": "math.factorial", "arguments": {"number": 5}}]
    assert scored["valid"] and scored["error_type"] is None and not scored["parse_failed"]


def test_wrong_value_is_scored_invalid_with_the_checker_error(cases) -> None:
    scored = score_edgevox(cases["simple_python_1"], FACTORIAL.replace("5", "6"), QWEN)
    assert not scored["valid"]
    assert scored["error_type"].startswith("value_error")
    assert scored["verdict"]["message"]


def test_call_markup_without_a_parsed_call_counts_as_parse_failure(cases) -> None:
    scored = score_edgevox(
        cases["simple_python_1"], "<tool_call>\nnot json at all\n</tool_call>", QWEN
    )
    assert scored["calls"] == [] and scored["parse_failed"] and not scored["valid"]


def test_unknown_function_is_rejected_and_fails(cases) -> None:
    raw = '<tool_call>\n{"name": "launch_rocket", "arguments": {}}\n</tool_call>'
    scored = score_edgevox(cases["simple_python_1"], raw, QWEN)
    assert scored["calls"] == [] and scored["rejected"] and not scored["valid"]
    assert not scored["parse_failed"]  # it was read; the name is what is wrong
    assert "launch_rocket" in scored["verdict"]["message"] + " ".join(scored["verdict"]["errors"])


def test_irrelevance_passes_on_plain_text(cases) -> None:
    case = next(c for c in cases.values() if c.category == "irrelevance")
    scored = score_edgevox(case, "None of the functions can answer this.", QWEN)
    assert scored["valid"] and not scored["parse_failed"]
    # a call to a tool that does not exist is rejected by the parser but still fails BFCL
    scored = score_edgevox(case, FACTORIAL, QWEN)
    assert scored["calls"] == [] and scored["rejected"]
    assert scored["error_type"] == "irrelevance:function_called"


def test_parallel_calls_all_needed(cases) -> None:
    case = cases["parallel_0"]
    (first, second) = case.possible_answer
    (name,) = first
    calls = []
    for ans in (first, second):
        args = {k: v[0] for k, v in ans[name].items() if v and v[0] != ""}
        calls.append(json.dumps({"name": sanitize_name(name), "arguments": args}))
    both = "\n".join(f"<tool_call>\n{c}\n</tool_call>" for c in calls)
    assert score_edgevox(case, both, QWEN)["valid"]
    one = score_edgevox(case, f"<tool_call>\n{calls[0]}\n</tool_call>", QWEN)
    assert one["error_type"] == "parallel_function_checker_no_order:wrong_count"


def test_abstain_tool_counts_as_no_call(cases) -> None:
    case = next(c for c in cases.values() if c.category == "irrelevance")
    raw = '<tool_call>\n{"name": "no_function_fits", "arguments": {"reason": "none"}}\n</tool_call>'
    scored = score_edgevox(case, raw, QWEN, abstain=True)
    assert scored["valid"] and scored["abstained"] and scored["calls"] == []
    assert not score_edgevox(case, raw, QWEN)["valid"]  # without --abstain it is an unknown tool


def test_peer_structured_calls(cases) -> None:
    case = cases["simple_python_1"]
    ok = score_peer(
        case, "", [{"function": {"name": "math_factorial", "arguments": '{"number": 5}'}}]
    )
    assert ok["valid"] and ok["calls"][0]["name"] == "math.factorial"
    bad = score_peer(case, "", [{"function": {"name": "math_factorial", "arguments": "{num"}}])
    assert not bad["valid"] and bad["parse_failed"]


def test_peer_timeout_fails_even_irrelevance(cases) -> None:
    case = cases["irrelevance_0"]
    assert score_peer(case, "", [])["valid"]  # no call is right here ...
    timed_out = score_peer(case, "", [], "timeout")  # ... but not after the time limit
    assert not timed_out["valid"] and timed_out["error_type"] == "timeout"


@pytest.mark.model
@pytest.mark.timeout(120)
def test_peer_time_limit_on_the_real_model(cases, qwen_path) -> None:
    from edgevox.bfcl.runner import PeerEngine

    eng = PeerEngine(str(qwen_path), threads=2, time_limit_s=0.0, n_ctx=2048)
    try:
        out = eng.answer(cases["simple_python_1"])
        eng.time_limit_s = 120.0  # the aborted decode left the context usable
        again = eng.answer(cases["simple_python_1"])
    finally:
        eng.close()
    assert out["finish_reason"] == "timeout" and "within 0 s" in out["error"]
    assert eng.score(cases["simple_python_1"], out)["error_type"] == "timeout"
    assert again["finish_reason"] != "timeout" and again["tool_calls"], again


class FakeEngine:
    """Answers every case with the same text; counts calls."""

    def __init__(self, raw: str, policy: str = "auto") -> None:
        self.raw, self.policy, self.calls = raw, policy, 0

    def describe(self) -> dict[str, Any]:
        return {
            "engine": "edgevox",
            "model": "fake",
            "preset": "qwen25",
            "policy": self.policy,
            "system": None,
            "max_tokens": 64,
        }

    def answer(self, case: Case) -> dict[str, Any]:
        self.calls += 1
        return {
            "raw": self.raw,
            "finish_reason": "stop",
            "timings": {"total_s": 0.5},
            "usage": {"completion_tokens": 10},
        }

    def score(self, case: Case, out: dict[str, Any]) -> dict[str, Any]:
        return score_edgevox(case, out["raw"], QWEN, finish_reason=out.get("finish_reason"))


class RaisingEngine(FakeEngine):
    """Raises on one case, like a native grammar call failing mid-run."""

    def __init__(self, raw: str, bad_id: str) -> None:
        super().__init__(raw)
        self.bad_id = bad_id

    def answer(self, case: Case) -> dict[str, Any]:
        if case.id == self.bad_id:
            raise MemoryError("llama_sampler_clone returned NULL")
        return super().answer(case)


def test_run_writes_one_line_per_case_and_resumes(tmp_path, cases) -> None:
    out = tmp_path / "run.jsonl"
    first = [cases["simple_python_0"], cases["simple_python_1"]]
    engine = FakeEngine(FACTORIAL)
    records = run_cases(first, engine, out, progress=False)
    assert engine.calls == 2 and [r["id"] for r in records] == [
        "simple_python_0",
        "simple_python_1",
    ]
    assert [r["valid"] for r in records] == [False, True]
    for key in ("raw", "calls", "verdict", "error_type", "timings", "usage", "policy", "model"):
        assert key in records[0]
    # a crash mid-write leaves a torn last line: it is ignored and the case is redone
    with out.open("a") as fh:
        fh.write('{"id": "simple_python_2", "categ')
    records = run_cases([*first, cases["simple_python_2"]], engine, out, progress=False)
    assert engine.calls == 3 and len(records) == 3
    assert [r["id"] for r in read_records(out)] == [
        "simple_python_0",
        "simple_python_1",
        "simple_python_2",
    ]
    before = out.read_bytes()
    run_cases([*first, cases["simple_python_2"]], engine, out, progress=False)
    assert engine.calls == 3 and out.read_bytes() == before


def test_a_case_that_raises_is_recorded_as_failed_and_the_run_goes_on(tmp_path, cases) -> None:
    out = tmp_path / "run.jsonl"
    todo = [cases["irrelevance_0"], cases["simple_python_1"]]
    records = run_cases(todo, RaisingEngine(FACTORIAL, "irrelevance_0"), out, progress=False)
    bad, good = records
    assert good["valid"] and len(read_records(out)) == 2
    # "no call" would pass irrelevance; an engine failure must not
    assert bad["finish_reason"] == "error" and not bad["valid"] and bad["error_type"] == "error"
    assert "MemoryError: llama_sampler_clone returned NULL" in bad["error"]
    assert not replay_records([bad]).records[0]["valid"]  # and a replay keeps it failed


def test_run_refuses_to_mix_configurations(tmp_path, cases) -> None:
    out = tmp_path / "run.jsonl"
    run_cases([cases["simple_python_0"]], FakeEngine(FACTORIAL), out, progress=False)
    with pytest.raises(RunConfigError, match="policy"):
        run_cases(
            [cases["simple_python_1"]], FakeEngine(FACTORIAL, "required"), out, progress=False
        )


def test_summary_table(tmp_path, cases) -> None:
    out = tmp_path / "run.jsonl"
    recs = run_cases(list(cases.values()), FakeEngine(FACTORIAL), out, progress=True)  # the bar runs too
    s = summarize(recs)
    assert s["simple_python"]["n"] == 3 and s["simple_python"]["correct"] == 1
    assert s["simple_python"]["accuracy"] == pytest.approx(33.33)
    assert s["irrelevance"]["accuracy"] == 0.0  # the fake always calls (an unknown tool)
    assert s["simple_python"]["mean_latency_s"] == 0.5
    assert "overall" in s
    table = markdown_table(s, "t")
    assert "| simple_python | 3 | 33.33 |" in table


def test_replay_reports_fixed_and_broken(cases) -> None:
    case = cases["simple_python_1"]
    rec = {
        "id": case.id,
        "category": case.category,
        "engine": "edgevox",
        "preset": "qwen25",
        "policy": "auto",
        "raw": FACTORIAL,
        "valid": False,
    }
    res = replay_records([rec, {**rec, "raw": "no call", "valid": True}])
    assert [r["valid"] for r in res.records] == [True, False]
    assert res.fixed == [case.id] and res.broken == [case.id]
    base = make_baseline([{**rec, "valid": True}])
    assert compare(make_baseline(res.records[1:]), base)  # the case that was right is wrong
    assert not compare(make_baseline(res.records[:1]), base)
    with pytest.raises(ValueError, match="more than once"):  # a cell's ids are unique
        make_baseline(res.records)


class NoModel:
    """A backend stand-in that must not be asked to generate."""

    preset = get_preset("qwen25")

    def complete(self, *a: Any, **k: Any) -> Any:
        raise AssertionError("generation was not expected")


def test_reuse_of_free_output_only_when_the_grammar_accepts_it(cases) -> None:
    case = cases["simple_python_1"]
    accepted = {"raw": FACTORIAL, "finish_reason": "stop", "timings": {"total_s": 1.0}, "usage": {}}
    eng = EdgeVoxEngine(
        "fake", policy="reply_or_tool", backend=NoModel(), reuse={case.id: accepted}
    )
    out = eng.answer(case)
    assert out["raw"] == FACTORIAL and out["reused"]
    # a call with a parameter the schema does not have: the grammar rejects it -> generate
    bad = FACTORIAL.replace('"number"', '"n"')
    eng = EdgeVoxEngine(
        "fake", policy="reply_or_tool", backend=NoModel(), reuse={case.id: {**accepted, "raw": bad}}
    )
    with pytest.raises(AssertionError, match="not expected"):
        eng.answer(case)


def test_fenced_calls_are_no_reply_but_a_json_fenced_grammar_reads_them(cases) -> None:
    case = cases["simple_python_1"]
    fenced = '```json\n[{"name": "math_factorial", "arguments": {"number": 5}}]\n```'
    record = {"raw": fenced, "finish_reason": "stop", "timings": {"total_s": 1.0}, "usage": {}}
    # under the preset's hermes grammar a fenced call is not a legal reply: generate again
    eng = EdgeVoxEngine("fake", policy="reply_or_tool", backend=NoModel(), reuse={case.id: record})
    with pytest.raises(AssertionError, match="not expected"):
        eng.answer(case)
    # a grammar in the format the model writes accepts it, and the preset's chain reads it
    eng = EdgeVoxEngine("fake", policy="reply_or_tool", backend=NoModel(), reuse={case.id: record},
                        wire_format="json_fenced")
    out = eng.answer(case)
    assert out["raw"] == fenced and out["reused"]
    assert eng.describe()["wire_format"] == "json_fenced"
    scored = eng.score(case, out)
    assert scored["valid"], scored["verdict"]
    with pytest.raises(RunConfigError, match="unknown wire format"):
        EdgeVoxEngine("fake", policy="reply_or_tool", backend=NoModel(), wire_format="nope")


@pytest.mark.model
@pytest.mark.timeout(240)
def test_cli_run_resume_and_replay_on_the_real_model(tmp_path, bfcl_data_dir, qwen_path) -> None:
    out = tmp_path / "run.jsonl"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [
        sys.executable,
        "-m",
        "edgevox",
        "bfcl",
        "run",
        "--model",
        "qwen2.5-coder-0.5b",
        "--preset",
        "qwen25",
        "--categories",
        "simple_python",
        "--policy",
        "auto",
        "--limit",
        "3",
        "--max-tokens",
        "96",
        "--out",
        str(out),
        "--json",
        "--no-progress",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=200)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    records = read_records(out)
    assert [r["id"] for r in records] == ["simple_python_0", "simple_python_1", "simple_python_2"]
    assert summary["simple_python"]["n"] == 3
    assert all(r["raw"] and r["usage"]["completion_tokens"] > 0 for r in records)
    assert summary["simple_python"]["correct"] >= 2  # the model gets these right
    assert (tmp_path / "run.summary.md").is_file() and (tmp_path / "run.summary.json").is_file()

    before = out.read_bytes()
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=200)
    assert again.returncode == 0, again.stderr
    assert out.read_bytes() == before  # resume: nothing new

    replayed = replay_file(out)
    assert [r["verdict"] for r in replayed.records] == [r["verdict"] for r in records]
    assert not replayed.fixed and not replayed.broken
