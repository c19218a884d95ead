"""Per-case analysis over rounds, from injected samples."""
import numpy as np
import pytest

from ipclab.common.errors import UserError
from ipclab.plan.scenario import load_scenario

from ipclab.analyse import case_stats
from ipclab.plan.matrix import Case
from ipclab.execute.runner import Outcome
from ipclab.plan.scenario import StatSettings
from ipclab.execute import rundir

CASE = Case(1, "tcp", "cpp", "cpp", 16, 16, "same-core", "rr")


def record_of(rounds, precision_target=None):
    record = rundir.new_record(CASE, len(rounds))
    record["precision_target"] = precision_target
    for r, samples in enumerate(rounds, start=1):
        rundir.add_round(record, Outcome(CASE, "ok", samples=samples, round=r))
    case_stats.analyse(record, dict(enumerate(rounds, start=1)), StatSettings())
    return record


def steady(median, seed):
    return np.round(np.random.default_rng(seed).normal(median, median * 0.02, 2000))


def warming(median, seed):
    return steady(median, seed) * np.linspace(1.3, 1.0, 2000)


def kinds(record):
    return [w["kind"] for w in record["warnings"]]


def test_drift_in_most_rounds_is_a_warm_up_too_short():
    record = record_of([warming(100_000, 1), warming(100_000, 2), steady(100_000, 3)])
    assert "drift" in kinds(record)
    assert "sped up" in next(w["text"] for w in record["warnings"] if w["kind"] == "drift")
    assert record["rounds"][2]["drift"] is None and record["rounds"][0]["drift"]


def test_a_shift_in_most_rounds_is_not_called_a_warm_up():
    def stepped(median, seed):  # a late change of mode: fast for its last fifth
        x = steady(median, seed)
        return np.concatenate([x[:1600], x[1600:] * 0.8])
    record = record_of([stepped(100_000, 1), stepped(100_000, 2), steady(100_000, 3)])
    assert kinds(record) == ["shift"] and record["rounds"][0]["drift"]["shape"] == "shift"
    assert "--warmup" not in record["warnings"][0]["text"]


def test_drift_in_one_round_of_three_is_left_in_the_round_record():
    record = record_of([warming(100_000, 1), steady(100_000, 2), steady(100_000, 3)])
    assert "drift" not in kinds(record) and record["rounds"][0]["drift"]


def test_rounds_that_disagree_make_the_case_unstable():
    record = record_of([steady(100_000, 1), steady(100_000, 2), steady(750_000, 3)])
    assert record["stable"] is False and "unstable" in kinds(record)
    assert record["round_spread"] > 7
    low, high = record["median_ci_low"], record["median_ci_high"]
    assert low < 110_000 and high > 700_000  # the interval owns up to the disagreement
    calm = record_of([steady(100_000, 1), steady(101_000, 2), steady(99_000, 3)])
    assert calm["stable"] is True and calm["warnings"] == []


def test_one_round_has_no_verdict_on_stability():
    record = record_of([steady(100_000, 1)])
    assert record["stable"] is None and record["round_spread"] == 1.0
    assert record["median_ci_low"] < record["trimmed"]["median"] < record["median_ci_high"]


def test_skipped_first_rounds_are_left_out_of_every_statistic():
    """statistics.skip_rounds (a study's "mean of the last 19 of 20 runs"): round 1 here is 10×
    slower and must not move the mean, the median or the round medians."""
    rounds = [steady(1000, 1), steady(100, 2), steady(100, 3)]
    record = rundir.new_record(CASE, len(rounds))
    for r, samples in enumerate(rounds, start=1):
        rundir.add_round(record, Outcome(CASE, "ok", samples=samples, round=r))
    kept = case_stats.analyse(record, dict(enumerate(rounds, start=1)), StatSettings(skip_rounds=1))
    assert sorted(kept) == [2, 3]
    assert len(record["round_medians"]) == 2
    assert 95 < record["trimmed"]["mean"] < 105 and record["raw"]["count"] == 4000
    assert 350 < record_of(rounds)["raw"]["mean"]  # all three rounds: the slow one counts


def test_skipping_every_round_is_refused(catalog):
    with pytest.raises(UserError, match="--skip-rounds: 3 leaves none of the 3 rounds"):
        load_scenario(None, catalog, {"mechanism": "tcp", "rounds": "3", "skip_rounds": "3"})


def test_rounds_that_disagree_inside_a_met_precision_target_are_not_unstable():
    split = [steady(100_000 if r % 2 else 160_000, r) for r in range(1, 9)]  # two modes, 8 rounds
    assert record_of(split)["stable"] is False                   # 1.60 > 1.46 for 8 rounds
    wide_target = record_of(split, precision_target=0.5)          # the interval is within ±50%
    assert wide_target["stable"] is True and "unstable" not in kinds(wide_target)
    assert record_of(split, precision_target=0.01)["stable"] is False  # missed: still flagged
