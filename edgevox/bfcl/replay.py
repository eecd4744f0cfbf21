"""Re-parse and re-score recorded raw model outputs with the current parser and checker.

This is the regression run for parser, preset-detector and checker changes: no model,
seconds for a thousand records. EdgeVox records are re-parsed with the *current*
detector list of their preset; peer (llama-cpp-python) records keep their structured
calls and are only re-checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edgevox.bfcl.agent_engine import score_agent
from edgevox.bfcl.data import Case, load_cases
from edgevox.bfcl.report import read_records, summarize
from edgevox.bfcl.runner import score_edgevox, score_peer

__all__ = ["PINNED_DIR", "ReplayResult", "pinned_files", "replay_file", "replay_records"]

#: The pinned regression set shipped in the repository (bfcl/pinned/*.jsonl).
PINNED_DIR = Path(__file__).resolve().parents[2] / "bfcl" / "pinned"


@dataclass
class ReplayResult:
    """Replayed records plus what changed against the recording."""

    records: list[dict[str, Any]]
    fixed: list[str] = field(default_factory=list)  # ids invalid before, valid now
    broken: list[str] = field(default_factory=list)  # ids valid before, invalid now
    missing: list[str] = field(default_factory=list)  # ids not found in the BFCL data

    def summary(self) -> dict[str, dict[str, Any]]:
        return summarize(self.records)


def pinned_files(directory: str | Path | None = None) -> list[Path]:
    """The pinned run files, sorted by name."""
    return sorted(Path(directory or PINNED_DIR).glob("*.jsonl"))


def _detectors(preset: str, cache: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    if preset not in cache:
        from edgevox.llm.presets import get_preset

        cache[preset] = tuple(get_preset(preset).detectors)
    return cache[preset]


def replay_records(
    records: Sequence[Mapping[str, Any]], *, data_dir: str | Path | None = None
) -> ReplayResult:
    """Re-score ``records`` (runner JSON lines) with the current code."""
    by_cat: dict[str, set[str]] = {}
    for r in records:
        by_cat.setdefault(str(r["category"]), set()).add(str(r["id"]))
    cases: dict[str, Case] = {}
    for cat, ids in by_cat.items():
        for case in load_cases(cat, data_dir=data_dir, ids=ids):
            cases[case.id] = case
    presets: dict[str, tuple[str, ...]] = {}
    result = ReplayResult(records=[])
    for r in records:
        case = cases.get(str(r["id"]))
        if case is None:
            result.missing.append(str(r["id"]))
            continue
        if r.get("engine", "edgevox") == "edgevox":
            scored = score_edgevox(
                case,
                r.get("raw") or "",
                _detectors(r["preset"], presets),
                abstain=bool(r.get("abstain")),
                finish_reason=r.get("finish_reason"),
            )
        elif r.get("engine") == "agent":
            scored = score_agent(case, r)
        else:
            scored = score_peer(case, r.get("raw") or "", r.get("tool_calls"), r.get("finish_reason"))
        new = {**r, **scored}
        if new["valid"] and not r.get("valid"):
            result.fixed.append(case.id)
        elif r.get("valid") and not new["valid"]:
            result.broken.append(case.id)
        result.records.append(new)
    return result


def replay_file(path: str | Path, *, data_dir: str | Path | None = None) -> ReplayResult:
    """Replay one run file."""
    records = read_records(path)
    if not records:
        raise FileNotFoundError(f"no run records in {path}")
    return replay_records(records, data_dir=data_dir)


def group_key(record: Mapping[str, Any]) -> str:
    """``engine/preset/policy[+wire_format][/system][/abstain]``: how the baseline file
    groups accuracies (``+wire_format`` when the grammar's format is not the preset's)."""
    key = f"{record.get('engine', 'edgevox')}/{record.get('preset')}/{record.get('policy')}"
    key += f"+{record['wire_format']}" if record.get("wire_format") else ""
    key += f"/{record['system']}" if record.get("system") else ""
    return key + ("/abstain" if record.get("abstain") else "")


def by_group(records: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        groups.setdefault(group_key(r), []).append(r)
    return groups
