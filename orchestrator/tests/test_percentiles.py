"""--percentiles (statistics.percentiles): the percentiles a summary holds beyond the fixed
ones, and the columns of cases.csv and the case tables they choose, the max beside them."""
import numpy as np

from ipclab.analyse import stats
from ipclab.analyse.case_stats import stat_fields
from ipclab.output import csv
from ipclab.output.columns import chosen_percentiles, columns_for


def test_a_summary_adds_the_asked_percentiles_to_the_fixed_ones():
    s = stats.summarize(np.arange(1, 10_001), percentiles=(50, 99.99, 99.9)).as_dict()
    assert s["p99_99"] == np.percentile(np.arange(1, 10_001), 99.99)
    assert {"median", "p90", "p99", "p99_9"} <= set(s) and "more" not in s
    assert stats.percentile_key(50) == "median" and stats.percentile_key(99.0) == "p99"


def test_cases_csv_columns_follow_the_asked_percentiles_with_the_max_beside():
    header = csv.columns(percentiles=stat_fields((50, 99.99)))
    times = header[header.index("median_ns"):header.index("ci95_low_ns")]
    assert times == ["median_ns", "p99_99_ns", "max_ns"]
    default = csv.columns()
    assert default[default.index("median_ns"):default.index("ci95_low_ns")] == [
        "median_ns", "p90_ns", "p99_ns", "p99_9_ns", "max_ns"]


def test_the_case_table_has_a_column_per_asked_percentile():
    headers = [c.header for c in columns_for((50, 99, 99.99))]
    assert headers[headers.index("p99"):headers.index("p99") + 3] == ["p99", "p99.99", "max"]
    by_key = {c.key: c for c in columns_for((99.99,))}
    assert by_key["p99_99"].priority < by_key["max"].priority  # the asked tail fits first
    record = {"status": "ok", "pattern": "rr", "trimmed": {"p99_99": 12_345.0, "max": 20_000.0}}
    assert by_key["p99_99"].cell(record) == "12.35 µs"
    assert by_key["p99_99"].cell({**record, "trimmed": {}}) == "-"


def test_a_run_saved_before_the_setting_shows_the_default():
    assert chosen_percentiles({"scenario": {"statistics": {"outliers": "tukey"}}}) == (50, 90, 99, 99.9)
    assert chosen_percentiles({"scenario": {"statistics": {"percentiles": [50, 99.99]}}}) == (50, 99.99)
