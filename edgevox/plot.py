"""Two charts for the reports: grouped bars (BFCL runs per category) and stacked bars
(per-stage voice latency). matplotlib is the optional `plot` extra: the assistant never
needs it, so it is imported here, on first use, with the Agg backend (no display).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

# colour-blind-safe palette (Okabe & Ito), then greys for reference rows
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable("matplotlib is not installed; install the plot extra: "
                              "pip install 'edgevox[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def grouped_bars(path: str | Path, groups: Sequence[str], series: Mapping[str, Mapping[str, float]], *,
                 title: str, ylabel: str, reference: Collection[str] = (),
                 ylim: tuple[float, float] | None = None) -> Path:
    """One group of bars per `groups` item, one bar per series; missing values are gaps.

    Series named in `reference` (published rows, not our runs) are drawn hatched in grey
    tones so they read as context.
    """
    plt = _pyplot()
    n = max(1, len(series))
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(8.0, 1.1 * len(groups) + 3), 4.6), dpi=100)
    ours = [s for s in series if s not in reference]
    # in each group the series that have a value sit side by side, centred on the group
    present = [[s for s in series if g in series[s]] for g in groups]
    for label, values in series.items():
        xs = [gi + (present[gi].index(label) - (len(present[gi]) - 1) / 2) * width
              for gi, g in enumerate(groups) if g in values]
        ys = [values[g] for g in groups if g in values]
        if label in reference:
            shade = 0.35 + 0.35 * (list(reference).index(label) / max(1, len(reference) - 1))
            style = {"color": str(round(shade, 2)), "hatch": "//", "edgecolor": "white"}
        else:
            style = {"color": PALETTE[ours.index(label) % len(PALETTE)]}
        ax.bar(xs, ys, width, label=label, **style)
        for x, y in zip(xs, ys, strict=True):
            if y == 0:  # a real zero, not a missing value
                ax.text(x, 0.5, "0", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(groups)), [g.replace("_", "\n", 1) if len(g) > 12 else g for g in groups],
                  fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=11)
    if ylim:
        ax.set_ylim(*ylim)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=min(3, n), frameon=False)
    fig.tight_layout()
    return _save(fig, plt, path)


def stacked_bars(path: str | Path, rows: Mapping[str, Sequence[tuple[str, float]]], stages: Sequence[str], *,
                 title: str, xlabel: str) -> Path:
    """One horizontal bar per row, split into `stages` (segments a row lacks are zero)."""
    plt = _pyplot()
    labels = list(rows)
    fig, ax = plt.subplots(figsize=(9.0, 1.5 + 0.45 * len(labels)), dpi=100)
    left = [0.0] * len(labels)
    for k, stage in enumerate(stages):
        widths = [dict(rows[r]).get(stage, 0.0) for r in labels]
        ax.barh(labels, widths, left=left, label=stage, color=PALETTE[k % len(PALETTE)])
        left = [a + b for a, b in zip(left, widths, strict=True)]
    for y, total in enumerate(left):
        ax.text(total, y, f" {total:.2f} s", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_xlim(0, max(left + [0.1]) * 1.15)
    ax.set_title(title, fontsize=11)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    height = fig.get_size_inches()[1]
    fig.legend(*ax.get_legend_handles_labels(), fontsize=7, loc="lower center", ncol=len(stages),
               frameon=False)
    fig.tight_layout(rect=(0, 0.3 / height, 1, 1))  # keep 0.3 inch at the bottom for the legend
    return _save(fig, plt, path)


def _save(fig: Any, plt: Any, path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        fig.savefig(out, format="png", bbox_inches="tight")
    finally:
        plt.close(fig)
    return out
