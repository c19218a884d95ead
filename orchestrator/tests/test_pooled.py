"""The median's interval with the between-round variance pooled over a run's cases
(analyse/pooled.py): the prior recovered from simulated runs, coverage held, intervals narrower
than a case's own three rounds give, and the run-level pass on records."""
import numpy as np
import pytest

from ipclab.analyse import bootstrap, case_stats, pooled
from ipclab.execute import rundir
from ipclab.execute.runner import Outcome
from ipclab.plan.matrix import Case
from ipclab.plan.scenario import StatSettings


def simulated_variances(rng, cases, rounds, sd, prior_df=None):
    """Sample variances of `rounds` normal draws per case; each case's true variance sd² (or
    drawn around it as the prior says, scaled inverse chi-square with prior_df)."""
    true = np.full(cases, sd ** 2) if prior_df is None else \
        sd ** 2 * prior_df / rng.chisquare(prior_df, cases)
    draws = rng.normal(0.0, np.sqrt(true)[:, None], (cases, rounds))
    return draws.var(axis=1, ddof=1), true, draws


def test_one_common_variance_is_recovered_with_many_prior_degrees_of_freedom():
    s2, _, _ = simulated_variances(np.random.default_rng(1), 400, 3, 0.05)
    d0, s0 = pooled.fit_prior(s2, [2] * len(s2))
    assert d0 > 30 and np.sqrt(s0) == pytest.approx(0.05, rel=0.1)


def test_variances_that_differ_between_cases_give_few_prior_degrees_of_freedom():
    s2, _, _ = simulated_variances(np.random.default_rng(2), 2000, 3, 0.05, prior_df=4)
    d0, s0 = pooled.fit_prior(s2, [2] * len(s2))
    assert 2.5 < d0 < 7 and np.sqrt(s0) == pytest.approx(0.05, rel=0.15)


def test_too_few_cases_give_no_prior():
    assert pooled.fit_prior([0.01] * (pooled.MIN_CASES - 1), [2] * (pooled.MIN_CASES - 1)) is None
    assert pooled.fit_prior([0.0] * 20, [2] * 20) is None


def test_moderated_intervals_cover_the_true_value_and_are_narrower_than_three_rounds_alone():
    rng = np.random.default_rng(3)
    covered, widths, own = 0, [], []
    runs = 40
    for _ in range(runs):
        s2, _, draws = simulated_variances(rng, 90, 3, 0.06, prior_df=5)
        prior = pooled.fit_prior(s2, [2] * 90)
        for logs in draws:  # true log median 0: the interval around the rounds' mean
            low, high = pooled.moderated_interval(float(np.exp(logs.mean())), logs, prior)
            covered += low <= 1.0 <= high
            widths.append(np.log(high / low) / 2)
            own.append(bootstrap.few_rounds_factor(3) * 1.96 * logs.std(ddof=1) / np.sqrt(3))
    assert 0.93 <= covered / (runs * 90) <= 0.975
    assert np.median(widths) < 0.8 * np.median(own)


CASE = Case(1, "tcp", "cpp", "cpp", 16, 16, "cross-core", "rr")


def analysed(index, medians, seed, target=None):
    """A record of one round per median (2000 samples around it), analysed as one case."""
    case = Case(index, "tcp", "cpp", "cpp", 16, 16, "cross-core", "rr")
    record = rundir.new_record(case, len(medians))
    record["precision_target"] = target
    rounds = {r: np.round(np.random.default_rng([seed, r]).normal(m, m * 0.02, 2000))
              for r, m in enumerate(medians, start=1)}
    for r, samples in rounds.items():
        rundir.add_round(record, Outcome(case, "ok", samples=samples, round=r))
    case_stats.analyse(record, rounds, StatSettings())
    return record


def a_run(cases, spread=0.04, seed=7):
    rng = np.random.default_rng(seed)
    return [analysed(i, list(100_000 * np.exp(rng.normal(0, spread, 3))), seed + i)
            for i in range(1, cases + 1)]


def test_a_run_with_enough_cases_has_its_intervals_moderated_and_its_prior_recorded():
    records = a_run(20)
    before = [(r["median_ci_low"], r["median_ci_high"]) for r in records]
    priors = pooled.moderate(records, StatSettings())
    assert set(priors) == {"rr"} and priors["rr"]["cases"] == 20
    after = [(r["median_ci_low"], r["median_ci_high"]) for r in records]
    assert after != before
    assert all(low < r["trimmed"]["median"] < high for r, (low, high) in zip(records, after))
    again = [(r["median_ci_low"], r["median_ci_high"]) for r in records]
    pooled.moderate(records, StatSettings())  # the pass repeats itself exactly
    assert [(r["median_ci_low"], r["median_ci_high"]) for r in records] == again


def test_too_few_cases_leave_every_interval_as_its_rounds_give_it():
    records = a_run(pooled.MIN_CASES - 1)
    before = [(r["median_ci_low"], r["median_ci_high"]) for r in records]
    assert pooled.moderate(records, StatSettings()) == {}
    assert [(r["median_ci_low"], r["median_ci_high"]) for r in records] == before


def test_rounds_that_disagree_are_judged_again_with_the_moderated_interval():
    records = a_run(30, spread=0.12)
    split = analysed(99, [100_000, 135_000, 100_000], 5, target=0.2)  # disagree, target ±20%
    assert split["stable"] is False  # its own three rounds' interval is wider than ±20%
    pooled.moderate([*records, split], StatSettings())
    width = (split["median_ci_high"] - split["median_ci_low"]) / 2 / split["trimmed"]["median"]
    assert width <= 0.2 and split["stable"] is True
    assert "unstable" not in [w["kind"] for w in split["warnings"]]


def test_a_case_far_noisier_than_the_rest_keeps_its_own_interval():
    records = a_run(30, spread=0.01)
    split = analysed(99, [100_000, 140_000, 100_000], 5)
    own = (split["median_ci_low"], split["median_ci_high"])
    pooled.moderate([*records, split], StatSettings())
    assert (split["median_ci_low"], split["median_ci_high"]) == own
    assert split["stable"] is False


def test_a_case_the_prior_no_longer_moderates_gets_its_own_interval_back():
    records = a_run(30, spread=0.01)
    split = analysed(99, [100_000, 101_000, 100_000], 5)
    own = (split["median_ci_low"], split["median_ci_high"])
    pooled.moderate([*records, split], StatSettings())
    assert (split["median_ci_low"], split["median_ci_high"]) != own  # moderated, among peers
    noisy = analysed(98, [100_000, 180_000, 100_000], 6)
    pooled.moderate([split, noisy], StatSettings())  # too few cases now: no prior
    assert (split["median_ci_low"], split["median_ci_high"]) == own
