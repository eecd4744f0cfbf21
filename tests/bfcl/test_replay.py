"""Regression gate: the pinned BFCL outputs, re-parsed and re-scored with the current code,
must keep every case the baseline records as right (per case, tolerance 0), unless the
reviewed allowlist names it with a reason."""

from __future__ import annotations

from dataclasses import replace

import pytest

from edgevox.bfcl import replay as replay_mod
from edgevox.bfcl.baseline import (
    BASELINE_PATH,
    compare,
    load_allowlist,
    load_baseline,
    make_baseline,
)
from edgevox.bfcl.replay import group_key, pinned_files, replay_file
from edgevox.parsing import DETECTORS, ToolCall


def _replay(data_dir) -> list[dict]:
    return [r for f in pinned_files() for r in replay_file(f, data_dir=data_dir).records]


@pytest.fixture(scope="module")
def replayed(bfcl_data_dir) -> list[dict]:
    assert pinned_files(), "the pinned set bfcl/pinned/*.jsonl is missing"
    return _replay(bfcl_data_dir)


def test_pinned_set_is_large_and_covers_the_report_categories(replayed) -> None:
    cats = {r["category"] for r in replayed}
    assert {"simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"} <= cats
    assert len(replayed) >= 200
    assert not any(f.name.startswith("tuning.") for f in pinned_files())


def test_replay_keeps_every_case_the_baseline_has_right(replayed) -> None:
    baseline = load_baseline(BASELINE_PATH)
    problems = compare(make_baseline(replayed), baseline, load_allowlist())
    assert not problems, "\n".join(problems)
    pinned = {f"{group_key(r)}:{r['id']}" for r in replayed}
    for case in load_allowlist():  # an allowance for a case that is not pinned is stale
        assert case in pinned, f"bfcl/allowlist.toml lists {case}, which is not in the pinned set"


def _break_one_detector(records: list[dict], monkeypatch) -> tuple[dict, str]:
    """Break the detector that reads one right record (it loses that text's arguments, and
    only that text's). Returns the record and the detector's name."""
    from edgevox.bfcl.data import load_cases
    from edgevox.bfcl.runner import score_edgevox
    from edgevox.llm.presets import get_preset

    for record in records:
        if not (record["engine"] == "edgevox" and record["valid"] and record["calls"]
                and record["category"] == "simple_python"):
            continue
        (case,) = load_cases(record["category"], ids=[record["id"]])
        chain = tuple(get_preset(record["preset"]).detectors)
        for name in chain:
            real = DETECTORS[name]

            class Broken(real):  # type: ignore[misc, valid-type]
                """Reads this one text as before but drops the calls' arguments."""

                def detect(self, text: str, raw: str = record["raw"]):
                    spans = super().detect(text)
                    if text != raw:
                        return spans
                    return [replace(sp, items=[replace(c, arguments={}) if isinstance(c, ToolCall)
                                               else c for c in sp.items]) for sp in spans]

            monkeypatch.setitem(DETECTORS, name, Broken)
            if not score_edgevox(case, record["raw"], chain)["valid"]:
                return record, name
            monkeypatch.setitem(DETECTORS, name, real)
    raise AssertionError("no right record whose call a detector reads")


def test_breaking_one_detector_for_one_case_fails_the_gate(replayed, bfcl_data_dir, monkeypatch):
    """One case flipping from right to wrong is a regression, even if the cell's count is
    made up by another case; an allowlisted flip (with a reason) is not."""
    record, name = _break_one_detector(replayed, monkeypatch)
    key = f"{group_key(record)}:{record['id']}"
    baseline = load_baseline(BASELINE_PATH)

    current = make_baseline(_replay(bfcl_data_dir))
    problems = compare(current, baseline)
    assert problems == [f"{key} (simple_python) was right in the baseline and is now wrong"], name
    assert compare(current, baseline, {key: "reviewed: the detector change is intended"}) == []

    # A fix elsewhere in the same cell does not cancel the break out (counts would).
    cell = current[group_key(record)]["simple_python"]
    wrong = next(i for i in baseline[group_key(record)]["simple_python"]["correct_ids"]
                 if i not in cell["correct_ids"])
    cell["correct"] += 1
    cell["correct_ids"].append(f"{wrong}-fixed-elsewhere")
    assert compare(current, baseline) == problems


def test_gate_catches_a_broken_parser_chain(bfcl_data_dir, monkeypatch) -> None:
    """Replaying with a chain that cannot read the model's format must be flagged."""
    monkeypatch.setattr(replay_mod, "_detectors", lambda preset, cache: ("mistral",))
    problems = compare(make_baseline(_replay(bfcl_data_dir)), load_baseline(BASELINE_PATH))
    assert any("simple_python" in p for p in problems)


def test_allowlist_entries_need_a_case_and_a_reason(tmp_path) -> None:
    good = tmp_path / "allow.toml"
    good.write_text('[[allow]]\ncase = "g/p/auto:simple_python_1"\nreason = "intended"\n')
    assert load_allowlist(good) == {"g/p/auto:simple_python_1": "intended"}
    bad = tmp_path / "bad.toml"
    bad.write_text('[[allow]]\ncase = "g/p/auto:simple_python_1"\n')
    with pytest.raises(ValueError, match="reason"):
        load_allowlist(bad)
    assert load_allowlist(tmp_path / "missing.toml") == {}


def test_an_old_count_only_baseline_is_refused(replayed) -> None:
    old = {"edgevox/qwen25/auto": {"simple_python": {"n": 4, "correct": 4, "accuracy": 100.0}}}
    problems = compare(make_baseline(replayed), old)
    assert problems and "per-case verdicts" in problems[0]
