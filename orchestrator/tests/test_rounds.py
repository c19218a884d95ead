"""Rounds, order and saving, with an injected runner: no processes, no timing."""
import io
import json
import sys

import numpy as np
import pytest
from rich.console import Console

from ipclab.plan import matrix
from ipclab.execute import rundir
from ipclab.output.publish import Publisher
from ipclab.execute import rounds
from ipclab.execute.rounds import RoundsEta, execute
from ipclab.records.precision import relative_width
from ipclab.plan.catalog import Language
from ipclab.execute.runner import Outcome
from ipclab.plan.scenario import build_scenario
from ipclab.analyse import saved
from ipclab.output import publish
from ipclab.output import model


@pytest.fixture
def fake(catalog):
    catalog.languages["fake"] = Language(name="fake", display="Fake", command=[sys.executable],
                                         mechanisms={"tcp": ["drive", "serve"],
                                                     "pipe": ["drive", "serve"]})
    yield catalog
    del catalog.languages["fake"]


class ScriptedRunner:
    """Answers each round of a case with made-up samples; fails or interrupts where told."""

    def __init__(self, scenario, catalog, out, fail=(), interrupt_at=None, unsteady=()):
        self.scenario, self.catalog, self.out = scenario, catalog, out
        self.workspace = None
        self.calls, self.fail, self.interrupt_at = [], set(fail), interrupt_at
        self.unsteady = set(unsteady)  # cases whose rounds land in two modes, 1000 ns apart
        self.saved_before = []  # how many finished rounds run.json held at each call

    def run(self, case, round_index=1):
        doc = json.loads((self.out / "run.json").read_text())
        self.saved_before.append(sum(len(r["rounds"]) for r in doc["results"]))
        self.calls.append((round_index, case.index))
        if len(self.calls) == self.interrupt_at:
            raise KeyboardInterrupt
        if (case.index, round_index) in self.fail:
            return Outcome(case, "failed", "client: io: boom", round=round_index)
        samples = np.random.default_rng(0).permutation(np.arange(1000, 1300)) \
            + 10 * case.index + round_index + 1000 * (case.index in self.unsteady) * (round_index % 2)
        return Outcome(case, "ok", samples=samples, round=round_index,
                       cpus={"client_cpus": [0], "server_cpus": [1]},
                       noise={"wall_s": 1.0, "cpus": [0, 1], "foreign_cpu_s": 0.5,
                              "foreign_fraction": 0.25 if case.index == 1 else 0.0,
                              "steal_fraction": 0.0})


def setup(catalog, tmp_path, rounds=3, run=None, **kw):
    raw = {"matrix": {"mechanism": ["tcp", "pipe", "uds"], "client": ["fake"], "server": ["fake"],
                      "request_size": [16, 32], "placement": ["unpinned"]},
           "run": {"iterations": 300, "rounds": rounds, "preflight": 0, "seed": 5, **(run or {})},
           "statistics": {"baseline": {"mechanism": "tcp"}}}
    scenario = build_scenario(raw, "t.toml", catalog, {}, "t")
    cases = matrix.expand(scenario, catalog)
    store = rundir.RunStore(tmp_path / "run", scenario, {}, cases,
                            publish=Publisher(scenario)).create()
    runner = ScriptedRunner(scenario, catalog, tmp_path / "run", **kw)
    console = Console(file=io.StringIO(), width=100)
    stopped = execute(cases, runner, store, console)
    store.finish(stopped)
    return runner, store, stopped, console.file.getvalue()


def test_round_one_of_every_case_then_round_two_each_in_a_seeded_shuffle(fake, tmp_path):
    runner, store, stopped, _ = setup(fake, tmp_path)
    assert not stopped
    runnable = [1, 2, 3, 4]  # tcp and pipe at two sizes; uds is not applicable to the fake
    assert [r for r, _ in runner.calls] == [1] * 4 + [2] * 4 + [3] * 4
    orders = [[i for r, i in runner.calls if r == k] for k in (1, 2, 3)]
    assert all(sorted(o) == runnable for o in orders) and len({tuple(o) for o in orders}) > 1
    assert [r["order"] for r in store.document["rounds"]] == orders
    again, *_ = setup(fake, tmp_path / "again")
    assert again.calls == runner.calls  # the same seed, the same order
    assert runner.saved_before == list(range(12))  # saved after every round of every case


def test_every_round_is_kept_and_analysed(fake, tmp_path):
    _, store, _, out = setup(fake, tmp_path)
    doc = json.loads((tmp_path / "run" / "run.json").read_text())
    assert doc["schema"] == "ipclab.run/3" and doc["complete"]
    by_index = {r["index"]: r for r in doc["results"]}
    assert by_index[5]["status"] == "not-applicable" and by_index[5]["rounds"] == []
    tcp = by_index[1]
    assert [r["round"] for r in tcp["rounds"]] == [1, 2, 3]
    assert all((tmp_path / "run" / r["samples_file"]).exists() for r in tcp["rounds"])
    assert tcp["round_medians"] == [1160.5, 1161.5, 1162.5] and tcp["stable"] is True
    assert tcp["median_ci_low"] <= tcp["trimmed"]["median"] <= tcp["median_ci_high"]
    assert tcp["verdict"] == "baseline" and by_index[3]["ratio"] > 1
    assert [w["kind"] for w in tcp["warnings"]] == ["busy-cpus"]
    assert "round 1 of 3: 4 cases" in out


def test_a_failed_case_is_not_run_again(fake, tmp_path):
    runner, store, _, _ = setup(fake, tmp_path, fail={(2, 1)})
    assert (1, 2) in runner.calls and not any(c == (r, 2) for r in (2, 3) for c in runner.calls)
    record = next(r for r in store.records if r["index"] == 2)
    assert record["status"] == "failed" and record["reason"] == "round 1: client: io: boom"


def test_ctrl_c_keeps_every_finished_round(fake, tmp_path):
    runner, store, stopped, _ = setup(fake, tmp_path, interrupt_at=7)
    assert stopped
    doc = json.loads((tmp_path / "run" / "run.json").read_text())
    assert doc["interrupted"] and not doc["complete"]
    assert sum(len(r["rounds"]) for r in doc["results"]) == 6
    assert doc["rounds"][1]["finished"] is None


def test_report_reproduces_the_intervals(fake, tmp_path):
    _, store, _, _ = setup(fake, tmp_path)
    out = tmp_path / "run"
    before = (out / "cases.csv").read_text()
    document = saved.load(out)
    settings = store.scenario.statistics
    kept = saved.reanalyse(out, document, settings)
    publish.write_outputs(out, model.build(document, settings, kept))
    assert (out / "cases.csv").read_text() == before


def test_a_version_1_run_is_read_as_one_round(fake, tmp_path):
    _, store, _, _ = setup(fake, tmp_path, rounds=1)
    out = tmp_path / "run"
    doc = json.loads((out / "run.json").read_text())
    doc["schema"] = "ipclab.run/1"  # rewrite it the way 0.1.0 saved it
    for record in doc["results"]:
        rounds = record.pop("rounds")
        record["samples_file"] = rounds[0]["samples_file"] if rounds else None
        for key in ("rounds_planned", "round_medians", "round_spread", "stable"):
            record.pop(key, None)
        record["warnings"] = ["an old warning"]
    del doc["rounds"], doc["preflight"]
    (out / "run.json").write_text(json.dumps(doc))
    document = saved.load(out)
    kept = saved.reanalyse(out, document, store.scenario.statistics)
    tcp = document["results"][0]
    assert document["schema"] == "ipclab.run/3" and tcp["rounds"][0]["round"] == 1
    assert tcp["median_ci_low"] is not None and kept[tcp["id"]]
    publish.write_outputs(out, model.build(document, store.scenario.statistics, kept))
    assert json.loads((out / "run.json").read_text())["schema"] == "ipclab.run/3"


def test_an_unknown_schema_is_refused(tmp_path):
    (tmp_path / "run.json").write_text('{"schema": "ipclab.run/9"}')
    with pytest.raises(Exception, match="ipclab.run/9"):
        saved.load(tmp_path)


def test_a_precision_target_adds_rounds_only_where_the_interval_is_still_wide(
        fake, tmp_path, monkeypatch):
    monkeypatch.setattr(rounds, "MAX_ROUNDS", 8)   # case 3 never narrows: it runs to the cap
    runner, store, _, out = setup(fake, tmp_path, rounds=1, run={"precision": "5%"},
                                  unsteady={3})
    rounds_of = {i: [r for r, c in runner.calls if c == i] for i in (1, 2, 3, 4)}
    assert rounds_of[1] == rounds_of[2] == rounds_of[4] == [1, 2, 3]   # at least three each
    assert rounds_of[3] == list(range(1, rounds.MAX_ROUNDS + 1))       # never narrows enough
    assert [r["order"] for r in store.document["rounds"]][3:] == [[3]] * (rounds.MAX_ROUNDS - 3)
    (note,) = [n for n in store.document["notes"] if n.startswith("precision")]
    assert note.startswith("precision ±5% of the median: 3 of 4 cases met it after up to 8 "
                           "rounds; stopped at 8 rounds; widest left ±")
    steady = next(r for r in store.records if r["index"] == 1)
    assert relative_width(steady) <= 0.05 and "round 8 (for precision): 1 cases" in out
    import csv
    with open(tmp_path / "run" / "cases.csv") as f:
        rows = {int(r["index"]): r for r in csv.DictReader(f)}
    assert (rows[1]["precision_met"], rows[3]["precision_met"]) == ("true", "false")
    assert float(rows[3]["median_ci_rel"]) > 0.05 and rows[5]["precision_met"] == ""
    assert "> ±5%" in (tmp_path / "run" / "table.md").read_text()
    assert "8 (1+7)" in (tmp_path / "run" / "table.md").read_text()   # case 3: 1 planned, 7 added


def test_a_budget_keeps_the_widest_cases_whose_rounds_fit_what_is_left():
    class Case:
        def __init__(self, ident):
            self.id = ident
    eta = RoundsEta()
    for ident, seconds in (("a", 30.0), ("b", 10.0), ("c", 25.0)):
        eta.took(ident, seconds)
    wide = [Case("a"), Case("b"), Case("c")]            # widest first
    assert [c.id for c in rounds._within_budget(wide, eta, 100.0, 50.0)] == ["a", "b"]
    assert [c.id for c in rounds._within_budget(wide, eta, 100.0, 85.0)] == ["b"]
    assert rounds._within_budget(wide, eta, 100.0, 95.0) == []
    assert rounds._within_budget(wide, eta, None, 1e9) == wide


def test_eta_counts_each_case_by_what_it_took_in_earlier_rounds():
    eta = RoundsEta()
    assert eta.remaining(["a"]) is None and eta.text(["a"]) == "ETA after the first case"
    eta.took("a", 10.0)
    eta.took("b", 2.0)
    eta.took("a", 20.0)
    # a: 15 s twice, b: 2 s, c (not yet timed): the mean of a and b, 8.5 s
    assert eta.remaining(["a", "a", "b", "c"]) == pytest.approx(40.5)
    assert eta.text(["a"] * 300) == "ETA 1:15:00"
    assert eta.text(["b"]) == "ETA 0:02"


def test_honesty_counts_each_runs_medians_inside_the_others_intervals(fake, tmp_path):
    from ipclab.analyse import compare
    from ipclab.bench import honesty as bench_honesty
    setup(fake, tmp_path / "a")
    setup(fake, tmp_path / "b", unsteady={3})      # case 3's rounds moved between the runs
    run_a, run_b = compare.load_run(tmp_path / "a" / "run"), compare.load_run(tmp_path / "b" / "run")
    assert bench_honesty.inside_share(run_a, run_a) == (4, 4)
    inside, compared = bench_honesty.inside_share(run_b, run_a)
    assert compared == 4 and inside <= 3                     # case 3's median moved away
    assert len(bench_honesty.widths(run_a)) == 4
    assert bench_honesty.machine_shift(run_a, run_a) == 1.0
    slower = bench_honesty.machine_shift(run_a, run_b)      # only case 3 moved: not the machine
    assert slower == 1.0 and bench_honesty.inside_share(run_b, run_a, scale=2.0)[0] == 0
    console = Console(file=io.StringIO(), width=120)
    console.print(bench_honesty.summary(run_a, run_b))
    text = console.file.getvalue()
    assert "run 1 medians inside run 2 intervals" in text and "of 4 (" in text
    assert "compare: no significant difference" in text
    assert "the whole machine: run 2 medians / run 1" in text


def test_honesty_says_when_the_whole_machine_moved_between_its_runs():
    from ipclab.bench import honesty as bench_honesty
    assert bench_honesty.moved_note(None) == [] and bench_honesty.moved_note(1.04) == []
    [note] = bench_honesty.moved_note(0.919)
    assert "moved 8% between the runs" in note and "0.919" in note and "quiet" in note
    assert bench_honesty.moved_note(1.06) != []
