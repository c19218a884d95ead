"""End to end for what a run hands to other tools (issue 41): every case's HdrHistogram log, read
back by HdrHistogram's own decoder with cases.csv's count and p99, and the percentile columns
--percentiles chooses. Small runs: the suite's time
matters."""
import json

import numpy as np
import pytest
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

from ipclab.records import hdr
from test_e2e import cases_csv, ipclab, seed  # noqa: F401,F811 (seed: a fixture)

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
