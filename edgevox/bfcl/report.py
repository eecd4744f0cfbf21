"""Per-category summaries of BFCL run records, as JSON-ready dicts and markdown tables.

A record is one JSON line written by the runner (see ``edgevox.bfcl.runner``); only
``category``, ``valid``, ``parse_failed``, ``timings`` and ``usage`` are read here, so
replayed and freshly run records summarise the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["CATEGORY_ORDER", "markdown_table", "read_records", "summarize", "write_summary"]

#: Report order; categories not listed follow alphabetically.
CATEGORY_ORDER = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
)


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Every complete JSON line of a run file (a torn last line from a crash is skipped)."""
    out: list[dict[str, Any]] = []
    p = Path(path)
    if not p.is_file():
        return out
    with p.open(encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and "id" in rec:
                out.append(rec)
    return out


def _order(cat: str) -> tuple[int, str]:
    return (CATEGORY_ORDER.index(cat) if cat in CATEGORY_ORDER else len(CATEGORY_ORDER), cat)


def summarize(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """category -> {n, correct, accuracy (%), parse_failed (%), mean_latency_s, mean_out_tokens}.

    ``parse_failed`` is the share of outputs with call-like markup but no parsed call.
    An ``overall`` row averages the categories unweighted, as BFCL does.
    """
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        groups.setdefault(str(r.get("category")), []).append(r)
    out: dict[str, dict[str, Any]] = {}
    for cat in sorted(groups, key=_order):
        rows = groups[cat]
        n = len(rows)
        correct = sum(1 for r in rows if r.get("valid"))
        failed = sum(1 for r in rows if r.get("parse_failed"))
        lat = [float((r.get("timings") or {}).get("total_s", 0.0)) for r in rows]
        toks = [int((r.get("usage") or {}).get("completion_tokens", 0)) for r in rows]
        out[cat] = {
            "n": n,
            "correct": correct,
            "accuracy": round(100.0 * correct / n, 2) if n else 0.0,
            "parse_failed": round(100.0 * failed / n, 2) if n else 0.0,
            "mean_latency_s": round(sum(lat) / n, 3) if n else 0.0,
            "mean_out_tokens": round(sum(toks) / n, 1) if n else 0.0,
        }
    if len(out) > 1:
        cats = list(out.values())
        out["overall"] = {
            "n": sum(c["n"] for c in cats),
            "correct": sum(c["correct"] for c in cats),
            "accuracy": round(sum(c["accuracy"] for c in cats) / len(cats), 2),
            "parse_failed": round(sum(c["parse_failed"] for c in cats) / len(cats), 2),
            "mean_latency_s": round(sum(c["mean_latency_s"] for c in cats) / len(cats), 3),
            "mean_out_tokens": round(sum(c["mean_out_tokens"] for c in cats) / len(cats), 1),
        }
    return out


def markdown_table(summary: Mapping[str, Mapping[str, Any]], title: str | None = None) -> str:
    """A markdown table of :func:`summarize` output."""
    lines = [f"**{title}**", ""] if title else []
    lines += [
        "| category | n | accuracy % | no call parsed from call markup % | mean latency s | mean out tokens |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for cat, s in summary.items():
        lines.append(
            f"| {cat} | {s['n']} | {s['accuracy']:.2f} | {s['parse_failed']:.2f} | "
            f"{s['mean_latency_s']:.2f} | {s['mean_out_tokens']:.1f} |"
        )
    return "\n".join(lines) + "\n"


def write_summary(
    records: Sequence[Mapping[str, Any]], out_jsonl: str | Path, title: str | None = None
) -> tuple[Path, Path]:
    """Write ``<out>.summary.json`` and ``<out>.summary.md`` next to a run file."""
    base = Path(out_jsonl)
    summary = summarize(records)
    jpath = base.with_name(base.stem + ".summary.json")
    mpath = base.with_name(base.stem + ".summary.md")
    jpath.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    mpath.write_text(markdown_table(summary, title), encoding="utf-8")
    return jpath, mpath
