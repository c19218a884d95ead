import math

import numpy as np
import pytest

from ipclab.analyse import bootstrap, stats

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
    assert [(a.kind, "--iterations" in a.text) for a in stats.advice(few, 3, 0)] == \
        [("few-samples", True)]
    wide = stats.summarize([1, 1, 1, 100, 200] * 10)
    assert "wide-spread" in [a.kind for a in stats.advice(wide, 50, 0)]
    many = stats.advice(stats.summarize(ONE_TO_TEN), 100, 30)
    assert any(a.kind == "many-outliers" and "outlier fences" in a.text for a in many)


def test_a_steady_large_sample_gets_no_advice():
    rng = np.random.default_rng(1)
    steady = stats.summarize(rng.normal(1000, 10, 5000))
    assert stats.advice(steady, 5000, 10) == []


# --- rounds: intervals, spread, ratios, drift ---------------------------------------------------

def rng(seed=7):
    return np.random.default_rng(seed)


def lognormal_rounds(medians, n=2000, sigma=0.2, seed=1):
    g = np.random.default_rng(seed)
    return [np.round(m * g.lognormal(0, sigma, n)) for m in medians]


def brute_force_medians(rounds, resamples, g):
    """The hierarchical bootstrap written plainly, to check the exact fast one against."""
    out = np.empty(resamples)
    for b in range(resamples):
        chosen = g.integers(0, len(rounds), len(rounds))
        out[b] = np.median(np.concatenate([g.choice(rounds[c], rounds[c].size) for c in chosen]))
    return out


@pytest.mark.parametrize("n", [5, 10, 301])
def test_fast_hierarchical_medians_have_the_brute_force_distribution(n):
    rounds = lognormal_rounds([100, 104, 110], n=n)
    fast = bootstrap._Pool(rounds).medians(rng(2).integers(0, 3, (10000, 3)), rng(3))
    slow = brute_force_medians(rounds, 10000, rng(4))
    q = [2.5, 25, 50, 75, 97.5]
    assert np.percentile(fast, q) == pytest.approx(np.percentile(slow, q), rel=0.01)


def test_hierarchical_interval_is_seeded_and_holds_the_pooled_median():
    rounds = lognormal_rounds([100, 101, 99])
    a = stats.hierarchical_median_ci(rounds, rng())
    assert a == stats.hierarchical_median_ci(rounds, rng())
    assert a[0] < np.median(np.concatenate(rounds)) < a[1]


def test_hierarchical_interval_widens_when_rounds_disagree():
    same = stats.hierarchical_median_ci(lognormal_rounds([100, 100, 100]), rng())
    apart = stats.hierarchical_median_ci(lognormal_rounds([100, 130, 160]), rng())
    assert (apart[1] - apart[0]) > 5 * (same[1] - same[0])
    assert apart[0] < 110 and apart[1] > 150


def test_hierarchical_interval_edge_cases():
    assert stats.hierarchical_median_ci([np.full(50, 7)], rng()) == (7.0, 7.0)
    assert stats.hierarchical_median_ci([np.array([3])], rng()) == (3.0, 3.0)
    low, high = stats.hierarchical_median_ci([np.array([1, 2])], rng())
    assert 1 <= low <= high <= 2
    with pytest.raises(ValueError):
        stats.hierarchical_median_ci([np.array([1]), np.array([])], rng())


def test_round_median_interval_between_order_statistics():
    x = np.arange(1, 11)  # n = 10: P(B ≤ 1) = 1.1%, P(B ≤ 2) = 5.5%, so x(2) and x(9)
    assert stats.median_ci_of_round(x) == (2.0, 9.0)
    assert stats.median_ci_of_round(np.array([5.0])) == (5.0, 5.0)
    big = np.sort(rng().normal(0, 1, 10000))
    low, high = stats.median_ci_of_round(big)
    assert -0.05 < low < 0 < high < 0.05


def test_round_spread_and_disagreement():
    assert stats.round_spread([100, 120, 130]) == 1.3
    assert stats.round_spread([100]) == 1.0 and stats.round_spread([]) is None
    assert stats.rounds_disagree([100, 130], [(95, 105), (125, 135)])
    assert not stats.rounds_disagree([100, 130], [(95, 128), (125, 135)])  # intervals overlap
    assert not stats.rounds_disagree([100, 120], [(99, 101), (119, 121)])  # spread 1.2 ≤ 1.25


def test_the_spread_at_which_rounds_disagree_grows_with_their_number_as_a_range_does():
    assert stats.spread_limit_for(2) == stats.spread_limit_for(3) == 1.25
    assert stats.spread_limit_for(5) == pytest.approx(1.25 ** (2.326 / 1.693), rel=1e-3)
    assert stats.spread_limit_for(10) == pytest.approx(1.25 ** (3.078 / 1.693), rel=1e-3)
    tight = [(m - 1, m + 1) for m in (100, 100, 100, 100, 130)]
    assert stats.rounds_disagree([100, 100, 130], tight[2:])  # one odd round in three: 1.3 > 1.25
    assert not stats.rounds_disagree([100, 100, 100, 100, 130], tight)  # in five: 1.3 ≤ 1.36
    assert stats.rounds_disagree([100, 100, 100, 100, 140], tight[:4] + [(139, 141)])


def test_paired_ratio_of_identical_distributions_contains_one():
    case, base = lognormal_rounds([100, 150, 100], seed=1), lognormal_rounds([100, 150, 100], seed=2)
    ratio, low, high = stats.paired_ratio(case, base, rng())
    assert low < 1 < high and ratio == pytest.approx(1, abs=0.03)
    assert stats.verdict(low, high) == "same"


def test_paired_ratio_of_shifted_distributions_excludes_one_despite_round_drift():
    # Both sides slow down together in round 2 (the machine's mood); pairing by round cancels it.
    base = lognormal_rounds([100, 160, 100], seed=2)
    case = lognormal_rounds([110, 176, 110], seed=1)
    ratio, low, high = stats.paired_ratio(case, base, rng())
    assert 1 < low < high and ratio == pytest.approx(1.1, abs=0.02)
    assert stats.verdict(low, high) == "slower"
    assert stats.verdict(*stats.paired_ratio(base, case, rng())[1:]) == "faster"


def test_paired_ratio_with_means_and_one_round():
    base, case = lognormal_rounds([100], seed=2), lognormal_rounds([80], seed=1)
    ratio, low, high = stats.paired_ratio(case, base, rng(), compare="mean")
    assert low < ratio < high < 1 and ratio == pytest.approx(0.8, abs=0.03)
    assert stats.paired_ratio(case, base, rng(5)) == stats.paired_ratio(case, base, rng(5))
    with pytest.raises(ValueError):
        stats.paired_ratio(case, base + base, rng())


def test_means_of_heavy_tailed_rounds_stay_positive_in_every_interval():
    # JNI at 16 B/8 KiB on this VM: about 5 µs, with a stall thousands of times longer, so the
    # mean's standard error is near the mean itself and a normal draw of it can fall below zero.
    stalls = np.full(1000, 5_000.0)
    stalls[0] = 20_000_000.0    # one 20 ms stall: the mean 25 µs, its standard error 20 µs
    case = [np.full(1000, 100_000.0) + rng(1).normal(0, 100, 1000)]
    ratio, low, high = stats.paired_ratio(case, [stalls], rng(), compare="mean")
    assert 0 < low <= ratio <= high
    low, high = stats.hierarchical_mean_ci([stalls, stalls * 1.1], rng())
    assert 0 < low < high


def test_drift_finds_a_round_still_getting_faster():
    g = rng()
    steady = g.normal(1000, 50, 2000)
    assert stats.drift(steady) is None
    warming = steady * np.linspace(1.3, 1.0, 2000)
    change, p, shape = stats.drift(warming)
    assert change < 0.8 and p < 1e-6 and shape == "warm-up"
    assert stats.drift(warming[:150]) is None  # too few for tenths of 20


def test_drift_that_is_not_slow_at_the_start_is_a_shift_not_a_warm_up():
    g = rng()
    steady = g.normal(1000, 50, 2000)
    stepped_down = np.concatenate([steady[:1700], steady[1700:] * 0.8])  # a late change of mode
    slowing = steady * np.linspace(1.0, 1.3, 2000)                     # a growing heap, say
    assert stats.drift(stepped_down)[2] == "shift" and stats.drift(slowing)[2] == "shift"


@pytest.mark.parametrize("n", [1, 2, 7, 10, 300])
def test_order_statistic_round_medians_have_the_brute_force_distribution(n):
    rounds = lognormal_rounds([100, 120], n=n)
    chosen = rng(2).integers(0, 2, 20000)
    fast = stats.resampled_round_medians(rounds, chosen, rng(3))
    g = rng(4)
    slow = np.array([np.median(g.choice(rounds[c], rounds[c].size)) for c in chosen])
    for which in (0, 1):
        a, b = fast[chosen == which], slow[chosen == which]
        assert sorted(set(a)) == sorted(set(b)) or n > 2  # the same possible medians
        assert (a.mean(), a.std()) == pytest.approx((b.mean(), b.std()), rel=0.03)


def test_few_rounds_factor_is_the_student_t_correction():
    assert stats.few_rounds_factor(1) == 1.0
    assert stats.few_rounds_factor(3) == pytest.approx(4.3027 / 1.95996 * math.sqrt(1.5), rel=1e-4)
    assert stats.few_rounds_factor(5) == pytest.approx(2.7764 / 1.95996 * math.sqrt(1.25), rel=1e-4)
    factors = [stats.few_rounds_factor(r) for r in range(2, 200)]
    assert factors == sorted(factors, reverse=True) and factors[-1] < 1.02


def test_widen_stretches_on_the_log_scale_around_the_point():
    low, high = stats.widen(100.0, 90.0, 110.0, 2.0)
    assert low == pytest.approx(81.0) and high == pytest.approx(121.0)
    assert stats.widen(100.0, 90.0, 110.0, 1.0) == (90.0, 110.0)


def test_three_disagreeing_rounds_give_an_interval_that_covers_them():
    """Rounds at 100, 110 and 120: the bare bootstrap's interval is narrower than the rounds'
    own spread; the widened one holds every round's median, as a fourth round likely would."""
    rng = np.random.default_rng(7)
    rounds = [rng.normal(m, 1.0, 2000) for m in (100.0, 110.0, 120.0)]
    low, high = stats.hierarchical_median_ci(rounds, np.random.default_rng(1))
    assert low < 100.0 and high > 120.0


def test_the_binomial_quantile_from_scipy_special_is_scipy_stats():
    # The round's median interval needs binom.ppf; it is computed from scipy.special so that an
    # analysis does not import scipy.stats (most of a CLI start-up).
    from scipy import stats as scipy_stats
    from ipclab.analyse.stats import binomial_ppf
    for n in [*range(1, 300), 1000, 12345, 10**6, 3 * 10**6 + 7]:
        for q in (0.025, 0.005):
            assert binomial_ppf(q, n, 0.5) == int(scipy_stats.binom.ppf(q, n, 0.5)), (n, q)
