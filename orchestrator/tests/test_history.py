"""The run history (ipclab/history.py): recorded beside the run directories, listed, filtered, one
case over time, and rebuilt from the directories when the database is missing or corrupt."""
import os
import sqlite3
import subprocess
import sys

import numpy as np
import pytest
from rich.console import Console

from ipclab.output import history
from ipclab.plan.catalog import repo_root
from ipclab.common.errors import UserError
from ipclab.analyse import saved
from test_compare import noisy, write_run


def runs(tmp_path):
    """Three synthetic runs in tmp_path/results, each recorded as `ipclab run` records it."""
    results = tmp_path / "results"
    notes = []
    for name, cases, rounds in (
            ("r1", {("tcp", 16): 10_000, ("uds", 16): 5_000}, 2),
            ("r2", {("tcp", 16): 12_000, ("uds", 16): 5_000}, 2),
            ("r3", {("pipe", 16): 4_000}, 1)):
        run = write_run(results / name, {k: [noisy(m, seed=s) for s in range(rounds)]
                                         for k, m in cases.items()}, rounds=rounds)
        history.record_run(run, _document(run), say=notes.append)
    return results / history.FILE, notes


def _document(run):
    return saved.load(run)


def test_runs_are_recorded_and_listed_with_their_cases(tmp_path):
    db, notes = runs(tmp_path)
    # the first run found no database: it was built (from the one directory there), said once
    assert len(notes) == 1 and "was missing; built from 1 run directory" in notes[0]
    listed = history.list_runs(db)
    assert sorted(r["name"] for r in listed) == ["r1", "r2", "r3"]
    r1 = next(r for r in listed if r["name"] == "r1")
    assert (r1["cases_ok"], r1["complete"], r1["mechanisms"]) == (2, 1, "tcp,uds")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
        host = conn.execute("SELECT value FROM environment WHERE key = 'host'").fetchall()
        assert host == [('"test"',)] * 3


def test_filters_by_scenario_mechanism_and_date(tmp_path):
    db, _ = runs(tmp_path)
    assert {r["name"] for r in history.list_runs(db, mechanism="pipe")} == {"r3"}
    assert history.list_runs(db, scenario="other") == []
    assert len(history.list_runs(db, scenario="synthetic")) == 3
    assert history.list_runs(db, since="2999-01-01") == []
    with pytest.raises(UserError, match="--since: 'yesterday' is not a date"):
        history.list_runs(db, since="yesterday")


def test_one_case_over_time_by_the_tables_label(tmp_path):
    db, _ = runs(tmp_path)
    rows = history.case_history(db, "tcp cpp→cpp 16 B/16 B")
    assert [r["run"] for r in rows] == ["r1", "r2"]
    assert rows[0]["median"] == pytest.approx(10_000, rel=0.02)
    assert rows[1]["median"] == pytest.approx(12_000, rel=0.02)
    assert rows[0]["median_ci_low"] < rows[0]["median"] < rows[0]["median_ci_high"]
    assert history.case_history(db, "tcp cpp→cpp 1 KiB/1 KiB") == []
    console = Console(width=120, record=True)
    console.print(history.case_table("tcp cpp→cpp 16 B/16 B", rows))
    text = console.export_text()
    assert "r1" in text and "cross-core" in text and " µs [" in text


def test_a_run_recorded_again_replaces_its_rows(tmp_path):
    db, _ = runs(tmp_path)
    run = tmp_path / "results" / "r1"
    history.record_run(run, _document(run))
    assert len(history.list_runs(db)) == 3
    assert len(history.case_history(db, "tcp cpp→cpp 16 B/16 B")) == 2


def test_a_corrupt_database_is_reported_once_and_rebuilt(tmp_path):
    db, _ = runs(tmp_path)
    db.write_bytes(b"this is not an SQLite database" * 100)
    run = write_run(tmp_path / "results" / "r4", {("tcp", 16): [noisy(9_000)]}, rounds=1)
    notes = []
    assert history.record_run(run, _document(run), say=notes.append) == db
    assert len(notes) == 1 and "unusable" in notes[0] and "rebuilding" in notes[0]
    assert sorted(r["name"] for r in history.list_runs(db)) == ["r1", "r2", "r3", "r4"]
    db.write_bytes(b"garbage")
    read_notes = []
    assert len(history.list_runs(db, say=read_notes.append)) == 4   # reading rebuilds too
    assert "rebuilt from 4 run directories" in read_notes[-1]


def test_a_run_with_a_corrupt_history_still_succeeds(tmp_path):
    out = tmp_path / "results" / "run"
    out.parent.mkdir()
    (out.parent / history.FILE).write_bytes(b"not a database")
    done = subprocess.run(
        [sys.executable, "-m", "ipclab", "run", "--mechanism", "tcp", "--client", "cpp",
         "--server", "cpp", "--request-size", "16", "--response-size", "16", "--iterations", "20",
         "--warmup", "5", "--rounds", "1", "--preflight", "0", "--no-html", "--out", str(out)],
        capture_output=True, text=True, cwd=repo_root(), timeout=120,
        env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "history:" in done.stdout and "unusable" in done.stdout
    listed = history.list_runs(out.parent / history.FILE)
    assert [(r["name"], r["cases_ok"]) for r in listed] == [("run", 1)]
    assert np.isfinite(history.case_history(out.parent / history.FILE,
                                            "tcp cpp→cpp 16 B/16 B")[0]["median"])


def _recorded(results, name, scale, host="vm", sizes=range(1, 9)):
    run = write_run(results / name, {("tcp", 16 * k): [noisy(scale * 1000 * k, seed=s)
                                                       for s in range(2)] for k in sizes},
                    rounds=2, env={"hostname": host})
    history.record_run(run, _document(run), say=lambda _: None)
    return run


def test_a_run_says_how_far_the_whole_machine_moved_since_the_last_run_here(tmp_path):
    results = tmp_path / "results"
    first = _recorded(results, "a", 1.0)
    assert history.machine_move(first) is None  # nothing before it
    _recorded(results, "elsewhere", 2.0, host="other")  # another host's run is not compared
    ratio, cases, previous = history.machine_move(_recorded(results, "b", 0.9))
    assert ratio == pytest.approx(0.9, rel=0.02) and (cases, previous) == (8, "a")
    few = _recorded(results, "c", 0.9, sizes=range(1, 8))  # 7 cases in common: too few to say
    assert history.machine_move(few) is None


def test_the_run_ends_with_a_note_only_when_the_machine_moved_beyond_five_percent(
        tmp_path, monkeypatch):
    from ipclab import cli
    results = tmp_path / "results"
    _recorded(results, "a", 1.0)
    shown = Console(record=True, width=400)
    monkeypatch.setattr(cli, "console", shown)
    cli._machine_move(_recorded(results, "b", 0.98))  # 2%: nothing to say
    assert shown.export_text() == ""
    cli._machine_move(_recorded(results, "c", 0.9 * 0.98))
    text = shown.export_text()
    assert "this run's medians are 0.90× those of b" in text and "over 8 cases" in text
