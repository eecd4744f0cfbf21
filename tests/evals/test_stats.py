"""The one percentile the evaluations and benchmarks report."""

from __future__ import annotations

import statistics

from edgevox.evals.stats import quantile


def test_quantile_interpolates_between_ranks_like_statistics_inclusive():
    xs = [0.9, 0.1, 0.5, 0.3, 0.7, 1.4, 2.2]
    assert quantile(xs, 0.5) == statistics.median(xs)
    assert quantile(xs, 0.9) == round(statistics.quantiles(xs, n=10, method="inclusive")[-1], 3)
    assert quantile([2.0, 4.0], 0.9) == 3.8
    assert quantile([5.0], 0.9) == 5.0
    assert quantile([], 0.5) is None
