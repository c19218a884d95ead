import math

import numpy as np
import pytest

from ipclab import stats

ONE_TO_TEN = np.arange(1, 11)


def test_summary_of_one_to_ten_matches_hand_computed_values():
    s = stats.summarize(ONE_TO_TEN)
    assert (s.count, s.min, s.max, s.mean, s.median) == (10, 1, 10, 5.5, 5.5)
    assert s.std == pytest.approx(3.0276503540974917)          # sample std, n - 1
    assert (s.p90, s.p99, s.p99_9) == pytest.approx((9.1, 9.91, 9.991))  # type 7 percentiles
    half = 2.2621571627409915 * 3.0276503540974917 / math.sqrt(10)  # t(0.975, 9)
    assert (s.ci95_low, s.ci95_high) == pytest.approx((5.5 - half, 5.5 + half))


def test_single_sample_has_zero_spread_and_no_interval():
    s = stats.summarize([42])
    assert (s.count, s.mean, s.std, s.median) == (1, 42, 0.0, 42)
    assert s.ci95_low is None and s.ci95_high is None


def test_zero_spread_keeps_every_sample():
    kept, removed = stats.remove_outliers(np.full(50, 7), "tukey", 1.5)
    assert removed == 0 and kept.size == 50
    assert stats.summarize(kept).std == 0.0


def test_empty_sample_is_an_error():
    with pytest.raises(ValueError):
        stats.summarize([])


def test_tukey_fences_remove_the_far_value_only():
    data = np.array(list(range(1, 11)) + [100])
    assert stats.tukey_fences(data, 1.5) == (-4.0, 16.0)
    kept, removed = stats.remove_outliers(data, "tukey", 1.5)
    assert removed == 1 and 100 not in kept


def test_wider_fences_keep_more():
    data = np.array(list(range(1, 11)) + [20])
    assert stats.remove_outliers(data, "tukey", 1.5)[1] == 1
    assert stats.remove_outliers(data, "tukey", 3.0)[1] == 0


def test_rule_none_keeps_everything():
    data = np.array([1, 2, 1000])
    kept, removed = stats.remove_outliers(data, "none")
    assert removed == 0 and list(kept) == [1, 2, 1000]


def test_unknown_rule_is_refused():
    with pytest.raises(ValueError):
        stats.remove_outliers(np.array([1, 2]), "mad")


def test_ratio():
    assert stats.ratio(30, 10) == 3
    assert stats.ratio(None, 10) is None
    assert stats.ratio(5, 0) is None


def test_advice_for_few_samples_wide_spread_and_many_outliers():
    few = stats.summarize([10, 11, 12])
    assert any("--iterations" in n for n in stats.advice(few, 3, 0))
    wide = stats.summarize([1, 1, 1, 100, 200] * 10)
    assert any("spread" in n for n in stats.advice(wide, 50, 0))
    assert any("outlier fences" in n for n in stats.advice(stats.summarize(ONE_TO_TEN), 100, 30))


def test_a_steady_large_sample_gets_no_advice():
    rng = np.random.default_rng(1)
    steady = stats.summarize(rng.normal(1000, 10, 5000))
    assert stats.advice(steady, 5000, 10) == []
