"""The one percentile every evaluation and benchmark reports, so a p90 in one table means
the same as a p90 in another: linear interpolation between the two nearest ranks (what
``statistics.quantiles(method="inclusive")`` and numpy's default compute)."""

from __future__ import annotations

from collections.abc import Iterable


def quantile(values: Iterable[float], q: float, digits: int = 3) -> float | None:
    """The ``q`` quantile (0.5 = median, 0.9 = p90) of ``values``, rounded to ``digits``;
    None for no values."""
    xs = sorted(values)
    if not xs:
        return None
    k = (len(xs) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return round(xs[lo] + (xs[hi] - xs[lo]) * (k - lo), digits)
