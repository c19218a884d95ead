"""analyse/reduce.py: the reductions execute/ and bench/ ask for while a run runs (the modes of a
latency sample are in test_noise_preflight.py, beside the note that reads them)."""
import numpy as np
import pytest

from ipclab.analyse import reduce


def test_median_and_percentile_of_nothing_are_none():
    assert reduce.median([]) is None and reduce.percentile(np.array([]), 99) is None
    assert reduce.mean([]) is None


def test_an_even_count_takes_the_mean_of_the_middle_two():
    assert reduce.median([4, 1, 3, 2]) == 2.5
    assert reduce.median(np.array([7], dtype=np.int64)) == 7.0


def test_nearest_rank_percentiles_are_values_of_the_sample():
    got = reduce.ranked(np.arange(1, 1001, dtype=np.int64), (50, 99.9, 100))
    assert got == {50: 500, 99.9: 999, 100: 1000}
    assert reduce.ranked([5], (1, 50, 100)) == {1: 5, 50: 5, 100: 5}


def test_relative_change_is_of_the_medians():
    assert reduce.relative_change([100, 100, 120], [110, 110, 150]) == pytest.approx(0.10)
    assert reduce.relative_change(None, [1]) is None
    assert reduce.relative_change([0, 0], [1, 1]) is None


def test_spread_of_a_latency_sample():
    got = reduce.spread(np.arange(1, 101))
    assert got["min_ns"] == 1 and got["median_ns"] == 50.5 and got["p99_ns"] == pytest.approx(99.01)
