"""The recorded baseline of the pinned set, and the per-case regression gate.

``bfcl/baseline.json`` maps ``engine/preset/policy[/system]`` -> category ->
``{n, correct, accuracy, correct_ids}``. The gate is per case: a replay regresses when any
case in ``correct_ids`` is now wrong (whatever else got fixed in the same cell), or when a
cell covers a different number of cases. A case may be wrong on purpose only when its
``group:id`` key is on the reviewed allowlist ``bfcl/allowlist.toml`` with a reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from edgevox.bfcl.replay import PINNED_DIR, by_group
from edgevox.bfcl.report import summarize

__all__ = [
    "ALLOWLIST_PATH",
    "BASELINE_PATH",
    "compare",
    "load_allowlist",
    "load_baseline",
    "make_baseline",
    "save_baseline",
]

BASELINE_PATH = PINNED_DIR.parent / "baseline.json"
ALLOWLIST_PATH = PINNED_DIR.parent / "allowlist.toml"


def make_baseline(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """group -> category -> {n, correct, accuracy, correct_ids} from (replayed) records."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for group, rows in sorted(by_group(records).items()):
        ids = [str(r["id"]) for r in rows]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"{group}: case ids recorded more than once: {', '.join(dup[:5])}")
        out[group] = {
            cat: {
                "n": s["n"],
                "correct": s["correct"],
                "accuracy": s["accuracy"],
                "correct_ids": sorted(
                    str(r["id"]) for r in rows if r["category"] == cat and r.get("valid")
                ),
            }
            for cat, s in summarize(rows).items()
            if cat != "overall"
        }
    return out


def load_baseline(path: str | Path | None = None) -> dict[str, Any]:
    return json.loads(Path(path or BASELINE_PATH).read_text(encoding="utf-8"))


def save_baseline(baseline: Mapping[str, Any], path: str | Path | None = None) -> Path:
    p = Path(path or BASELINE_PATH)
    p.write_text(json.dumps(baseline, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return p


def load_allowlist(path: str | Path | None = None) -> dict[str, str]:
    """``group:id`` -> reason, from ``[[allow]]`` tables with ``case`` and ``reason``.

    Raises ValueError for an entry without a case key or without a reason: an allowance
    nobody explained is not reviewed.
    """
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    p = Path(path or ALLOWLIST_PATH)
    if not p.is_file():
        return {}
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{p}: not valid TOML: {exc}") from exc
    allow: dict[str, str] = {}
    for i, entry in enumerate(data.get("allow", [])):
        case, reason = entry.get("case"), str(entry.get("reason", "")).strip()
        if not isinstance(case, str) or ":" not in case or not reason:
            raise ValueError(f"{p}: allow entry {i + 1} needs case = \"group:id\" and a reason")
        allow[case] = reason
    return allow


def compare(
    current: Mapping[str, Any],
    baseline: Mapping[str, Any],
    allow: Mapping[str, str] | None = None,
) -> list[str]:
    """Human-readable regressions of ``current`` against ``baseline`` (empty: none).

    One line per case that was right and is now wrong (``group:id``) unless ``allow``
    lists it, plus cells that are missing or cover a different number of cases.
    """
    allow = allow or {}
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
                continue
            if cur["n"] != base["n"]:
                problems.append(f"{group} {cat}: {cur['n']} cases replayed, baseline has {base['n']}")
            if "correct_ids" not in base:
                problems.append(f"{group} {cat}: baseline has no per-case verdicts "
                                "(run `edgevox bfcl replay --update-baseline`)")
                continue
            right_now = set(cur.get("correct_ids", ()))
            for case_id in base["correct_ids"]:
                key = f"{group}:{case_id}"
                if case_id not in right_now and key not in allow:
                    problems.append(f"{key} ({cat}) was right in the baseline and is now wrong")
    return problems
