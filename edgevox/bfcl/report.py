"""Per-category summaries of BFCL run records, as JSON-ready dicts and markdown tables.

A record is one JSON line written by the runner (see ``edgevox.bfcl.runner``); only
``category``, ``valid``, ``parse_failed``, ``timings`` and ``usage`` are read here, so
replayed and freshly run records summarise the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CATEGORY_ORDER", "Comparison", "comparison_table", "compare_runs", "markdown_table",
           "plot_comparison", "read_records", "summarize", "write_summary"]

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


@dataclass
class Comparison:
    """Per-category accuracy of several runs and published reference rows, side by side.

    ``series`` maps a row label to category -> accuracy %; ``counts`` holds correct/n for
    our runs (reference rows have none); ``reference`` lists the published rows' labels.
    """

    title: str
    categories: list[str]
    series: dict[str, dict[str, float]] = field(default_factory=dict)
    counts: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    reference: list[str] = field(default_factory=list)


def compare_runs(runs: Mapping[str, Sequence[str | Path]], reference: Mapping[str, Mapping[str, float]],
                 title: str) -> Comparison:
    """Summarise each run (label -> its record files, recorded verdicts) next to the references.

    A run file that is missing or holds no records is an error: a silently empty row would
    read as a score of zero.
    """
    cmp = Comparison(title, [])
    cats: set[str] = set()
    for label, files in runs.items():
        records: list[dict[str, Any]] = []
        for f in files:
            got = read_records(f)
            if not got:
                raise ValueError(f"{f}: no run records (missing or empty file)")
            records += got
        summary = summarize(records)
        summary.pop("overall", None)
        cmp.series[label] = {c: s["accuracy"] for c, s in summary.items()}
        cmp.counts[label] = {c: (s["correct"], s["n"]) for c, s in summary.items()}
        cats |= set(summary)
    for label, acc in reference.items():
        cmp.series[label] = {str(c): float(v) for c, v in acc.items()}
        cmp.reference.append(label)
        cats |= set(acc)
    cmp.categories = sorted(cats, key=_order)
    return cmp


def comparison_table(cmp: Comparison) -> str:
    """Markdown: one row per run or reference, one column per category (accuracy %)."""
    lines = [f"**{cmp.title}**", "", "| row | " + " | ".join(cmp.categories) + " |",
             "|---|" + "---:|" * len(cmp.categories)]
    for label, acc in cmp.series.items():
        cells = []
        for c in cmp.categories:
            if c not in acc:
                cells.append("–")
            elif label in cmp.counts:
                ok, n = cmp.counts[label][c]
                cells.append(f"{acc[c]:.1f} ({ok}/{n})")
            else:
                cells.append(f"{acc[c]:.2f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_comparison(cmp: Comparison, path: str | Path) -> Path:
    """The comparison as grouped bars (needs the `plot` extra)."""
    from edgevox.plot import grouped_bars

    return grouped_bars(path, cmp.categories, cmp.series, title=cmp.title, ylabel="accuracy %",
                        reference=cmp.reference, ylim=(0, 100))
