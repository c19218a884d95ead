"""ipclab compare: synthetic run directories (written as `ipclab run` writes them) for the exact
pairing and verdict logic, and the CLI's exit codes."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from ipclab.analyse import compare
from ipclab.analyse import stats
from ipclab.plan.catalog import repo_root
from ipclab.common.errors import UserError
from ipclab.plan.matrix import Case
from ipclab.plan.placement import available_cpus
from ipclab.execute.rundir import RunStore
from ipclab.output import compare as compared
from ipclab.output import html, markdown, terminal
from ipclab.output.publish import Publisher
from ipclab.execute.runner import Outcome
from ipclab.plan.scenario import ReportSettings, RunSettings, Scenario, StatSettings


def write_run(path, cases, rounds=3, placement="cross-core", env=None):
    """A run directory: `cases` maps (mechanism, request size) -> per-round sample arrays."""
    scenario = Scenario("synthetic", "", "<test>", {}, RunSettings(rounds=rounds),
                        StatSettings(), ReportSettings())
    made = [Case(i, mech, "cpp", "cpp", size, size, placement, "rr")
            for i, (mech, size) in enumerate(cases, start=1)]
    store = RunStore(path, scenario, env or {"host": "test"}, made,
                     publish=Publisher(scenario)).create()
    for case in made:
        for r, samples in enumerate(cases[(case.mechanism, case.request_size)], start=1):
            store.add(Outcome(case, "ok", samples=np.asarray(samples, dtype=np.int64), round=r,
                              cpus={}))
    store.finish()
    return path


def noisy(median, n=400, seed=0):
    rng = np.random.default_rng(seed)
    return (median * rng.lognormal(0, 0.05, n)).astype(np.int64)


def test_the_verdict_needs_both_the_interval_and_the_p_value():
    assert compare.verdict(1.10, 1.30, 0.001) == "slower"
    assert compare.verdict(0.70, 0.90, 0.01) == "faster"
    assert compare.verdict(1.10, 1.30, 0.2) == "no significant difference"    # p too large
    assert compare.verdict(0.95, 1.30, 0.001) == "no significant difference"  # interval has 1
    assert compare.verdict(None, None, 0.001) == "no significant difference"


def test_pairs_by_parameters_not_ids_and_lists_cases_of_one_run(tmp_path):
    a = write_run(tmp_path / "a", {("tcp", 16): [noisy(10_000, seed=s) for s in range(3)],
                                   ("uds", 16): [noisy(5_000, seed=s) for s in range(3)],
                                   ("pipe", 16): [noisy(4_000, seed=s) for s in range(3)]})
    # B: uds first (other ids and indices), tcp 30% slower, pipe gone, shm new.
    b = write_run(tmp_path / "b", {("uds", 16): [noisy(5_000, seed=10 + s) for s in range(3)],
                                   ("tcp", 16): [noisy(13_000, seed=10 + s) for s in range(3)],
                                   ("shm", 16): [noisy(1_000, seed=s) for s in range(3)]})
    found = compare.compare(compare.load_run(a), compare.load_run(b))
    by = {p.label: p for p in found.pairs}
    assert by["tcp cpp→cpp 16 B/16 B"].verdict == "slower"
    assert by["tcp cpp→cpp 16 B/16 B"].ratio == pytest.approx(1.3, rel=0.03)
    assert by["tcp cpp→cpp 16 B/16 B"].low > 1 and by["tcp cpp→cpp 16 B/16 B"].p < 0.05
    assert by["uds cpp→cpp 16 B/16 B"].verdict == "no significant difference"
    assert by["pipe cpp→cpp 16 B/16 B"].status == "only in A"
    assert by["shm cpp→cpp 16 B/16 B"].status == "only in B"
    assert [p.label for p in found.slower_than(0.05)] == ["tcp cpp→cpp 16 B/16 B"]
    assert found.slower_than(0.5) == []
    page = compared.page(found)
    text = markdown.render(page)
    assert "| pipe cpp→cpp 16 B/16 B | - | - | - | - | only in A |" in text
    assert compare.RULE in text
    assert json.dumps(found.as_dict())
    written = html.render(page)   # the same section, laid out by the run's page renderer
    assert "<h2 id='compare'>B against A</h2>" in written and "<td>only in A</td>" in written
    assert "<tr class='failed'><td>tcp cpp→cpp 16 B/16 B</td>" in written   # slower
    assert written.count("<script>") == 1     # no figures: plotly.js is left out


@pytest.mark.parametrize("width", [60, 100])
def test_the_terminal_gives_up_the_medians_first_and_fits_the_width(width):
    from rich.console import Console
    pairs = [compare.Pair(f"tcp cpp→cpp {n} B/{n} B", "compared", 10_000.0, 13_000.0, 1.3, 1.2,
                          1.4, 0.001, "slower", rounds_a=3, rounds_b=3) for n in (16, 1024)]
    found = compare.Comparison("results/a", "results/b", {}, pairs)
    console = Console(width=width, record=True)
    for renderable, at in terminal.render(compared.page(found), terminal.Options(width)):
        console.print(renderable)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= width
    assert "B/A [95% CI]" in text and ("B median" in text) == (width >= 100)


def test_a_parameter_that_differs_between_the_runs_is_what_they_compare(tmp_path):
    a = write_run(tmp_path / "a", {("tcp", 16): [noisy(10_000, seed=s) for s in range(3)]},
                  placement="same-core")
    b = write_run(tmp_path / "b", {("tcp", 16): [noisy(20_000, seed=s) for s in range(3)]})
    found = compare.compare(compare.load_run(a), compare.load_run(b))
    assert found.varied == {"placement": ("same-core", "cross-core")}
    assert [(p.status, p.verdict) for p in found.pairs] == [("compared", "slower")]


def test_a_failed_case_is_listed_with_its_reason(tmp_path):
    a = write_run(tmp_path / "a", {("tcp", 16): [noisy(10_000)]}, rounds=1)
    b = tmp_path / "b"
    scenario = Scenario("synthetic", "", "<test>", {}, RunSettings(rounds=1), StatSettings(),
                        ReportSettings())
    case = Case(1, "tcp", "cpp", "cpp", 16, 16, "cross-core", "rr")
    store = RunStore(b, scenario, {}, [case], publish=Publisher(scenario)).create()
    store.add(Outcome(case, "failed", "server crashed", round=1))
    store.finish()
    pair = compare.compare(compare.load_run(a), compare.load_run(b)).pairs[0]
    assert pair.status == "not compared" and "B: failed (server crashed)" in pair.reason
    alone = compare.compare(compare.load_run(a), compare.load_run(a))
    assert alone.pairs[0].rounds_a == 1 and "--rounds 3 or more" in alone.notes[0]


def test_the_ratio_interval_is_the_stats_module_bootstrap():
    rng = np.random.default_rng(1)
    a = [np.sort(noisy(1000, seed=s)) for s in range(3)]
    ratio, low, high = stats.median_ratio(a, [x * 2 for x in a], rng)
    assert ratio == pytest.approx(2.0, rel=0.01) and low < 2 < high * 1.001


@pytest.mark.parametrize("text,value", [("5%", 0.05), ("5", 0.05), ("0.5%", 0.005)])
def test_thresholds(text, value):
    assert compare.parse_threshold(text) == pytest.approx(value)


def test_a_bad_threshold_is_one_clear_error():
    with pytest.raises(UserError, match="--fail-above: 'fast' is not a percentage"):
        compare.parse_threshold("fast")


def test_cli_exit_code_follows_fail_above(tmp_path):
    a = write_run(tmp_path / "a", {("tcp", 16): [noisy(10_000, seed=s) for s in range(3)]})
    b = write_run(tmp_path / "b", {("tcp", 16): [noisy(13_000, seed=s) for s in range(3)]})

    def run(*args):
        return subprocess.run([sys.executable, "-m", "ipclab", "compare", str(a), str(b), *args],
                              capture_output=True, text=True, env={"COLUMNS": "100", "PATH": ""})

    md = tmp_path / "c.md"
    failing = run("--fail-above", "5%", "--markdown", str(md))
    assert failing.returncode == 1 and "significantly slower" in failing.stdout
    assert "| slower |" in md.read_text()
    page = b / "compare.html"   # the page beside B's own
    assert f"report: {page}" in failing.stdout.replace("\n", "")
    assert "<td>slower</td>" in page.read_text()
    assert run("--fail-above", "50%").returncode == 0


def test_reads_an_older_run_json_schema(tmp_path):
    samples = {("tcp", 16): [noisy(10_000, seed=s) for s in range(2)]}
    old = write_run(tmp_path / "old", samples, rounds=2)
    document = json.loads((old / "run.json").read_text())
    document["schema"] = "ipclab.run/2"   # before patterns: no message sizes, no [report]
    del document["scenario"]["report"]
    for item in (*document["cases"], *document["results"]):
        item.pop("message_size", None)
    (old / "run.json").write_text(json.dumps(document))
    new = write_run(tmp_path / "new", samples, rounds=2)
    pairs = compare.compare(compare.load_run(old), compare.load_run(new)).pairs
    assert [(p.status, p.ratio) for p in pairs] == [("compared", 1.0)]


def test_real_runs_on_two_placements_are_compared_from_their_saved_samples(tmp_path):
    """Two small real runs of tcp cpp→cpp 16 B, one per placement, compared as `ipclab compare`
    does. Which placement is faster is the machine's business (a test never asserts a timing: a
    shared CI machine can make either side slower); what must hold is that the comparison finds
    the varied axis, pairs the case, and states a verdict that agrees with its own interval."""
    if len(available_cpus()) < 2:
        pytest.skip("cross-core needs two CPUs")
    for placement in ("same-core", "cross-core"):
        done = subprocess.run(
            [sys.executable, "-m", "ipclab", "run", "--mechanism", "tcp", "--client", "cpp",
             "--server", "cpp", "--request-size", "16", "--response-size", "16",
             "--iterations", "300", "--warmup", "100", "--rounds", "3",
             "--preflight", "0", "--placement", placement, "--no-html",
             "--out", str(tmp_path / placement)],
            capture_output=True, text=True, cwd=repo_root(), timeout=120,
            env={**os.environ, "COLUMNS": "200"})
        assert done.returncode == 0, done.stderr
    found = compare.compare(compare.load_run(tmp_path / "same-core"),
                            compare.load_run(tmp_path / "cross-core"))
    assert found.varied == {"placement": ("same-core", "cross-core")}
    [pair] = found.pairs
    assert pair.label == "tcp cpp→cpp 16 B/16 B" and pair.status == "compared"
    assert (pair.rounds_a, pair.rounds_b) == (3, 3)
    assert pair.ratio == pytest.approx(pair.median_b / pair.median_a, rel=0.05)
    assert pair.low <= pair.ratio <= pair.high and 0 <= pair.p <= 1
    assert pair.verdict == compare.verdict(pair.low, pair.high, pair.p), pair


def test_every_case_moving_alike_is_a_note():
    def pairs(ratios):
        return [compare.Pair(f"case {k}", "compared", ratio=r, rounds_a=3, rounds_b=3)
                for k, r in enumerate(ratios)]
    moved = compare.Comparison("a", "b", {}, pairs([0.92, 0.9, 0.93, 0.91, 0.95, 0.9, 0.92, 1.0]))
    assert moved.common_shift == pytest.approx(0.92)
    assert any("the median pair's ratio is 0.92: every case moved" in n for n in moved.notes)
    still = compare.Comparison("a", "b", {}, pairs([0.92, 1.0, 1.03, 0.99, 1.01, 1.0, 0.98, 1.1]))
    assert still.notes == []
    assert compare.Comparison("a", "b", {}, pairs([0.5] * 3)).common_shift is None  # too few
