"""A case's HdrHistogram log (output/hlogs.py): read back by HdrHistogram's own reader, one
interval per round, with the count and the percentiles of the samples it was written from."""
import numpy as np
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

from ipclab.output import hlogs
from ipclab.plan.scenario import StatSettings
from ipclab.records import hdr


def read_intervals(path):
    reader = HistogramLogReader(str(path), HdrHistogram(*hdr.RANGE))
    found = []
    while (h := reader.get_next_interval_histogram()) is not None:
        found.append(h)
    return found


def write(tmp_path, record, rounds, settings=StatSettings()):
    path = tmp_path / "case.hlog"
    path.write_text(hlogs.log_text(record, rounds, settings))
    return read_intervals(path)


def test_rr_log_has_a_round_per_interval_and_the_samples_percentiles(tmp_path):
    rng = np.random.default_rng(7)
    rounds = {1: rng.integers(10_000, 90_000, 1000), 2: rng.integers(20_000, 200_000, 1000)}
    record = {"id": "tcp-cpp-cpp", "pattern": "rr",
              "rounds": [{"round": 1, "seconds": 1.5}, {"round": 2, "seconds": 2.0}]}
    found = write(tmp_path, record, rounds)
    assert [h.get_total_count() for h in found] == [1000, 1000]
    whole = HdrHistogram(*hdr.RANGE)
    for h in found:
        whole.add(h)
    pooled = np.sort(np.concatenate(list(rounds.values())))
    nearest = pooled[int(np.ceil(0.99 * pooled.size)) - 1]     # HdrHistogram's p99 rank
    assert abs(whole.get_value_at_percentile(99) - nearest) <= nearest * 1e-3
    assert whole.get_max_value() >= pooled[-1]
    text = (tmp_path / "case.hlog").read_text()
    assert "#[Histogram log format version 1.2]" in text   # the V2 log's header
    assert text.count("\n0.000000,1.500000,") == 1 and "\n1.500000,2.000000," in text


def test_stream_log_holds_each_windows_time_per_message(tmp_path):
    # 4 windows of a 1000-message stream: 250 messages each, window times in ns.
    record = {"id": "uds-stream", "pattern": "stream", "message_size": 1024,
              "rounds": [{"round": 1, "seconds": 0.5, "stream": {"messages": 1000}}]}
    found = write(tmp_path, record, {1: np.array([250_000, 500_000, 250_000, 300_000])})
    (h,) = found
    assert h.get_total_count() == 4
    assert h.get_min_value() == 1000 and abs(h.get_max_value() - 2000) <= 2
    assert "time per message" in (tmp_path / "case.hlog").read_text()


def test_skipped_rounds_are_left_out_as_the_statistics_leave_them(tmp_path):
    record = {"id": "x", "pattern": "rr", "rounds": [{"round": 1, "seconds": 1.0},
                                                     {"round": 2, "seconds": 1.0}]}
    found = write(tmp_path, record, {1: np.array([5, 6]), 2: np.array([7, 8, 9])},
                  StatSettings(skip_rounds=1))
    assert [h.get_total_count() for h in found] == [3]


def test_no_samples_no_log():
    assert hlogs.log_text({"id": "x", "pattern": "rr", "rounds": []}, {}, StatSettings()) is None
