"""The report's figures of request-response cases as pure functions on small hand-made runs
(report_runs.py): the samples reduced for drawing, latency against size, the distributions, the
heat maps, the warm-up, the headline, and the wire's bytes and the explained costs of a case.
The other patterns' figures are in test_report_figures_patterns.py, the studies' in
test_report_figures_studies.py, both drawings and the page in test_report_figures_pages.py."""
import numpy as np
import pytest

from ipclab.output.report import data as report_data
from ipclab.output.report import figures, plotly
from ipclab.output.report.data import binned_medians, quantile_grid
from report_runs import keys, record, run


def test_quantile_grid_keeps_few_samples_and_reduces_many():
    p, x = quantile_grid([3, 1, 2])
    assert list(x) == [1, 2, 3] and list(p) == pytest.approx([1 / 3, 2 / 3, 1])
    p, x = quantile_grid(np.arange(1, 100_001))
    assert len(x) == len(report_data.QUANTILE_GRID) < 120
    assert x[0] == 1 and x[-1] == 100_000 and p[-1] == 1.0
    assert np.all(np.diff(x) >= 0)


def test_binned_medians_follow_a_warm_up():
    x, y = binned_medians(np.linspace(1000, 100, 400), bins=4)
    assert len(x) == len(y) == 4
    assert list(x) == pytest.approx([49.5, 149.5, 249.5, 349.5])
    assert y[0] > y[1] > y[2] > y[3]


def test_latency_against_size_per_mechanism_in_microseconds():
    records = [record(1, request=1024, median=80_000.0), record(2, median=60_000.0),
               record(3, mechanism="uds", median=30_000.0), record(4, status="failed")]
    charts = figures.latency_vs_size(run(records))
    assert keys(charts) == ["latency-tcp", "latency-uds"]
    tcp = charts[0]
    p50, p99 = tcp.series
    assert (p50.name, p99.name, p99.companion) == ("cpp→cpp", "cpp→cpp p99", True)
    assert p50.x == [32, 1040]                      # request + response bytes, sorted
    assert p50.y == [60.0, 80.0] and p99.y == [120.0, 160.0]
    assert p50.low == [54.0, 72.0] and p50.high == [72.0, 96.0]
    assert p99.style == "dash" and tcp.x_log and tcp.y_log
    assert "cross-core (client on CPU 0, server on CPU 1)" in tcp.caption
    assert "median 60 µs [54–72]" in p50.hover[0]


def test_many_language_pairs_are_a_panel_per_client_with_one_legend_entry_per_pair():
    langs = ("cpp", "java", "python")
    records = [record(k, client=c, server=s, request=size) for k, (c, s, size) in enumerate(
        ((c, s, size) for c in langs for s in langs for size in (16, 1024)), start=1)]
    (chart,) = figures.latency_vs_size(run(records))
    assert chart.groups == ("client cpp", "client java", "client python")
    assert [s.name for s in chart.series if s.group == "client java"] == [
        "java→cpp", "java→cpp p99", "java→java", "java→java p99", "java→python", "java→python p99"]
    traces = plotly.figure(chart)["data"]
    shown = [t["name"] for t in traces if t.get("showlegend", True)]
    assert len(shown) == 9 and all(not n.endswith("p99") for n in shown)
    assert {t["legendgroup"] for t in traces if t["name"] == "cpp→java p99"} == {"cpp→java"}
    (few,) = figures.latency_vs_size(run(records[:8]))      # four pairs: one chart, no panels
    assert few.groups == ()


def test_distribution_one_line_per_round_and_a_panel_per_case():
    records = [record(1), record(2, client="python"), record(3, status="failed")]
    grid = {1: quantile_grid([1000, 2000, 3000]), 2: quantile_grid([1500, 2500])}
    data = run(records, quantiles={records[0]["id"]: grid, records[1]["id"]: {1: grid[1]}})
    (chart,) = figures.distributions(data)
    assert chart.groups == ("#1 tcp cpp→cpp 16 B/16 B cross-core",
                            "#2 tcp python→cpp 16 B/16 B cross-core")
    first = [s for s in chart.series if s.group == chart.groups[0]]
    assert [s.name for s in first] == ["round 1", "round 2"]
    assert first[0].x == [1.0, 2.0, 3.0] and first[0].style == "step"


def test_heat_map_marks_a_failed_pair_empty():
    records = [record(1, median=10_000.0), record(2, client="python", status="failed"),
               record(3, server="java", median=30_000.0)]
    (chart,) = figures.heatmaps(run(records))
    (heat,) = chart.heats
    assert heat.rows == ["cpp", "python"] and heat.columns == ["cpp", "java"]
    assert heat.z == [[10.0, 30.0], [None, None]]
    assert heat.text[1] == ["failed", "did not run"]


def test_heat_map_hover_names_the_case_and_its_interval():
    (chart,) = figures.heatmaps(run([record(1, median=10_000.0), record(2, server="java", status="failed")]))
    (heat,) = chart.heats
    assert "#1 tcp cpp→cpp" in heat.hover[0][0] and "median 10 µs [9–12]" in heat.hover[0][0]
    assert heat.hover[0][1] == "failed: it broke"


def test_warm_up_is_relative_to_the_measured_median():
    a, b = record(1, median=100.0), record(2, server="java", median=200.0)
    curve = (np.array([5.0, 15.0]), np.array([400.0, 100.0]))
    data = run([a, b], warmup={a["id"]: {1: curve}, b["id"]: {1: (curve[0], curve[1] * 2)}})
    (chart,) = figures.warmup(data)
    assert chart.key == "warmup-cpp"
    (tcp,) = chart.series
    assert tcp.y == pytest.approx([4.0, 1.0])


def test_warm_up_without_a_usable_median_draws_nothing():
    r = record(1, median=0.0)
    assert figures.warmup(run([r], warmup={r["id"]: {1: (np.array([1.0]), np.array([5.0]))}})) == []


def test_the_headline_puts_every_mechanism_fastest_first_at_the_smallest_size():
    records = [record(1, mechanism="tcp", median=60_000.0), record(2, mechanism="uds", median=30_000.0),
               record(3, mechanism="tcp", client="java", median=70_000.0, stable=False),
               record(4, mechanism="uds", request=1024, median=10_000.0)]
    (chart,) = figures.headline(run(records))
    assert chart.title == "Each mechanism at 16 B/16 B, fastest first"
    cpp, java = chart.series
    assert (cpp.name, cpp.x, cpp.y) == ("cpp→cpp", ["uds", "tcp (unstable)"], [30.0, 60.0])
    assert (java.name, java.x) == ("java→cpp", ["tcp (unstable)"])
    assert figures.headline(run(records[:1])) == []          # one mechanism: nothing to rank


def test_wire_bytes_only_when_the_columns_exist():
    assert figures.wire_bytes(run([record(1)])) == []
    r = record(1, wire_req_bytes=82.0, wire_resp_bytes=70.0, wire_packets_per_call=2.0,
               app_req_bytes=16.0, app_resp_bytes=16.0)
    (chart,) = figures.wire_bytes(run([r]))
    assert [s.y for s in chart.series] == [[152.0], [32.0]]


def test_wire_bytes_of_a_structured_record_have_no_application_bar():
    r = record(1, mechanism="grpc", payload="small", sequence_length=5, request=None,
               response=None, wire_req_bytes=200.0, wire_resp_bytes=180.0,
               wire_packets_per_call=2.5, app_req_bytes=None, app_resp_bytes=None)
    (chart,) = figures.wire_bytes(run([r]))
    assert [s.y for s in chart.series] == [[380.0], [None]]
    assert "small ×5" in chart.series[0].x[0] and "2.5 packets per call" in chart.series[0].hover[0]


def test_the_explained_stack_is_the_models_parts_and_the_rest():
    assert figures.explained_costs(run([record(1)])) == []
    r = record(1, explain_client_voluntary=1.0, explain_model_syscalls_ns=1000.0,
               explain_model_copies_ns=None, explain_model_wakeups_ns=9000.0,
               explain_model_ns=10_000.0)
    (chart,) = figures.explained_costs(run([r]))
    assert chart.stacked
    assert [s.name for s in chart.series] == ["system calls", "copies", "wake-ups", "unexplained"]
    assert [s.y for s in chart.series] == [[1.0], [0.0], [9.0], [40.0]]   # µs of a 50 µs median


def test_exported_files_are_never_read_back(tmp_path):
    r = record(1)
    (tmp_path / "cases.csv").write_text(f"id,wire_req_bytes,wire_resp_bytes\n{r['id']},100,60\n")
    (tmp_path / "phases.csv").write_text(f"case_id,side,phase,mean_ns\n{r['id']},server,accept,5\n")
    data = report_data.load(tmp_path, run([r]).report)
    assert figures.wire_bytes(data) == [] and data.phases == []
