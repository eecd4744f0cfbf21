"""The recorded baseline of the pinned set: accuracy per run group and category.

``bfcl/baseline.json`` maps ``engine/preset/policy[/system]`` -> category ->
``{n, correct, accuracy}``. A replay regresses when any group/category gets fewer
correct cases than recorded (tolerance 0), or covers a different number of cases.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from edgevox.bfcl.replay import PINNED_DIR, by_group
from edgevox.bfcl.report import summarize

__all__ = ["BASELINE_PATH", "compare", "load_baseline", "make_baseline", "save_baseline"]

BASELINE_PATH = PINNED_DIR.parent / "baseline.json"


def make_baseline(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """group -> category -> {n, correct, accuracy} from (replayed) records."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for group, rows in sorted(by_group(records).items()):
        out[group] = {
            cat: {"n": s["n"], "correct": s["correct"], "accuracy": s["accuracy"]}
            for cat, s in summarize(rows).items()
            if cat != "overall"
        }
    return out


def load_baseline(path: str | Path | None = None) -> dict[str, Any]:
    return json.loads(Path(path or BASELINE_PATH).read_text(encoding="utf-8"))


def save_baseline(baseline: Mapping[str, Any], path: str | Path | None = None) -> Path:
    p = Path(path or BASELINE_PATH)
    p.write_text(json.dumps(baseline, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return p


def compare(current: Mapping[str, Any], baseline: Mapping[str, Any]) -> list[str]:
    """Human-readable regressions of ``current`` against ``baseline`` (empty: none)."""
    problems: list[str] = []
    for group, cats in baseline.items():
        now = current.get(group)
        if now is None:
            problems.append(f"{group}: no replayed records")
            continue
        for cat, base in cats.items():
            cur = now.get(cat)
            if cur is None:
                problems.append(f"{group} {cat}: no replayed records")
            elif cur["n"] != base["n"]:
                problems.append(
                    f"{group} {cat}: {cur['n']} cases replayed, baseline has {base['n']}"
                )
            elif cur["correct"] < base["correct"]:
                problems.append(
                    f"{group} {cat}: {cur['correct']}/{cur['n']} correct "
                    f"({cur['accuracy']:.2f}%), baseline {base['correct']} ({base['accuracy']:.2f}%)"
                )
    return problems
