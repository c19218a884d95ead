"""End to end for what a run hands to other tools (issue 41): every case's HdrHistogram log, read
back by HdrHistogram's own decoder with cases.csv's count and p99, and the percentile columns
--percentiles chooses. Small runs: the suite's time
matters."""
import json
import subprocess
import sys

import numpy as np
import pytest
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

from ipclab.records import hdr
from test_e2e import ROOT, cases_csv, ipclab, quick_run, seed  # noqa: F401,F811 (seed: a fixture)

pytestmark = pytest.mark.e2e


def read_log(path):
    """Every interval of an HdrHistogram log added into one histogram, and the intervals' count."""
    reader = HistogramLogReader(str(path), HdrHistogram(*hdr.RANGE))
    whole, intervals = HdrHistogram(*hdr.RANGE), 0
    while (h := reader.get_next_interval_histogram()) is not None:
        whole.add(h)
        intervals += 1
    return whole, intervals


def assert_log_matches_csv(out, row, rounds):
    """The case's log holds the raw columns' samples: the same count, and a p99 that is
    cases.csv's up to the two ways of taking it (HdrHistogram's nearest rank at 3 significant
    digits, numpy's interpolation between the two samples beside it)."""
    record = next(r for r in json.loads((out / "run.json").read_text())["results"]
                  if r["id"] == row["id"])
    assert record["hlog_file"] == f"samples/{row['id']}.hlog"
    whole, intervals = read_log(out / record["hlog_file"])
    assert intervals == rounds
    assert whole.get_total_count() == int(row["raw_count"])
    csv_p99, hdr_p99 = float(row["raw_p99_ns"]), whole.get_value_at_percentile(99)
    values = np.sort(np.concatenate([np.fromfile(out / e["samples_file"], "<i8")
                                     for e in record["rounds"]]).astype(float))
    if record["pattern"] == "stream":  # each window's time per message
        values = np.sort(np.concatenate([
            np.fromfile(out / e["samples_file"], "<i8") / (e["stream"]["messages"]
                                                          / e["stream"]["windows"])
            for e in record["rounds"]]))
    rank = 0.99 * (values.size - 1)
    gap = values[int(np.ceil(rank))] - values[int(np.floor(rank))]
    assert abs(hdr_p99 - csv_p99) <= gap + csv_p99 * 2e-3 + 1, (hdr_p99, csv_p99, gap)


def test_rr_and_stream_runs_write_logs_hdrhistogram_reads_back(tmp_path, seed):
    rr, stream = tmp_path / "rr", tmp_path / "stream"
    r = ipclab("run", "--mechanism", "uds", "--client", "cpp", "--server", "cpp",
               "--request-size", "64", "--response-size", "64", "--iterations", "2000",
               "--rounds", "2", "--percentiles", "50,99.99", "--seed", str(seed),
               "--out", str(rr))
    assert r.returncode == 0, r.stderr
    (row,) = cases_csv(rr)
    assert_log_matches_csv(rr, row, rounds=2)
    # --percentiles chose the columns: p99.99 in, p90 and p99.9 out, the max beside them.
    assert float(row["p99_99_ns"]) <= float(row["max_ns"]) and "p90_ns" not in row
    header = next(line for line in (rr / "table.md").read_text().splitlines()
                  if line.startswith("| #"))
    assert "| p99.99 | max |" in header and "p90" not in header
    assert "p99.99" in r.stdout
    r = ipclab("run", "--mechanism", "uds", "--pattern", "stream", "--client", "cpp",
               "--server", "cpp", "--message-size", "1KiB", "--messages", "20000",
               "--windows", "20", "--seed", str(seed), "--out", str(stream))
    assert r.returncode == 0, r.stderr
    (row,) = cases_csv(stream)
    assert_log_matches_csv(stream, row, rounds=1)


def test_json_stream_on_stdout_gives_a_line_per_round_while_the_run_goes(tmp_path, seed):
    out = tmp_path / "run"
    args = quick_run(["run", "--mechanism", "uds,pipe", "--client", "cpp", "--server", "cpp",
                      "--request-size", "16", "--response-size", "16", "--iterations", "2000",
                      "--rounds", "3", "--json-stream", "-", "--seed", str(seed),
                      "--out", str(out)])
    with subprocess.Popen([sys.executable, "-m", "ipclab", *args], cwd=ROOT, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        start = json.loads(proc.stdout.readline())
        first = json.loads(proc.stdout.readline())
        # Six rounds of a second or so: the first round's line came with five still to run.
        running = proc.poll() is None
        rest = [json.loads(line) for line in proc.stdout]
        stderr = proc.stderr.read()
    assert proc.returncode == 0, stderr
    assert running, "the first round's line came only after the run had ended"
    assert start["type"] == "start" and start["runnable"] == 2
    rounds = [first, *rest[:-1]]
    assert [r["type"] for r in rounds] == ["round"] * 6 and rest[-1]["type"] == "end"
    assert rest[-1]["ok"] == 2 and rest[-1]["complete"] is True
    assert sorted((r["index"], r["round"]) for r in rounds) == [(i, k) for i in (1, 2)
                                                                  for k in (1, 2, 3)]
    final = {r["id"]: r for r in json.loads((out / "run.json").read_text())["results"]}
    for line in rounds:
        assert line["status"] == "ok" and line["samples"] == 2000
        assert "uds" in line["label"] or "pipe" in line["label"]
        assert line["summary_ns"]["median"] > 0 and "p99" in line["summary_ns"]
        if line["rounds_done"] == 3:   # its case's last round: the figures run.json keeps
            assert line["summary_ns"]["median"] == final[line["case"]]["trimmed"]["median"]
    assert "results:" in stderr   # the terminal's output, kept off the stream
