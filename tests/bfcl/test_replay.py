"""Regression gate: the pinned BFCL outputs, re-parsed and re-scored with the current code,
must score at least the recorded baseline in every group and category (tolerance 0)."""

from __future__ import annotations

import time

import pytest

from edgevox.bfcl import replay as replay_mod
from edgevox.bfcl.baseline import BASELINE_PATH, compare, load_baseline, make_baseline
from edgevox.bfcl.replay import pinned_files, replay_file


@pytest.fixture(scope="module")
def replayed(bfcl_data_dir):
    files = pinned_files()
    assert files, "the pinned set bfcl/pinned/*.jsonl is missing"
    t0 = time.perf_counter()
    records = [r for f in files for r in replay_file(f, data_dir=bfcl_data_dir).records]
    return records, time.perf_counter() - t0


def test_pinned_set_is_large_and_covers_the_report_categories(replayed) -> None:
    records, _ = replayed
    cats = {r["category"] for r in records}
    assert {"simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"} <= cats
    assert len(records) >= 200


def test_replay_does_not_drop_below_the_baseline(replayed) -> None:
    records, seconds = replayed
    problems = compare(make_baseline(records), load_baseline(BASELINE_PATH))
    assert not problems, "\n".join(problems)
    assert seconds < 60  # a regression run is seconds, not a model run


def test_gate_catches_a_broken_parser_chain(bfcl_data_dir, monkeypatch) -> None:
    """Replaying with a chain that cannot read the model's format must be flagged."""
    monkeypatch.setattr(replay_mod, "_detectors", lambda preset, cache: ("mistral",))
    records = [r for f in pinned_files() for r in replay_file(f, data_dir=bfcl_data_dir).records]
    problems = compare(make_baseline(records), load_baseline(BASELINE_PATH))
    assert any("simple_python" in p for p in problems)
