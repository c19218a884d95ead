"""The studies' figures, drawn only where a scenario's [report] names them (mechanisms by size,
the thesis bars, bars per sequence length, the histogram and its note), on small hand-made runs
(report_runs.py), in both drawings."""
import numpy as np
import plotly.graph_objects as go
import pytest

from ipclab.output.report import data as report_data
from ipclab.output.report import figures, paper, plotly, study_figures
from report_runs import keys, record, run, study_run


def test_the_studies_figures_are_drawn_only_when_the_scenario_names_them():
    records = [record(1, request=40, median=60_000.0), record(2, request=4000, median=90_000.0),
               record(3, mechanism="fifo", request=40, median=40_000.0),
               record(4, mechanism="fifo", request=4000, median=80_000.0)]
    assert figures.mechanisms_by_size(run(records)) == []            # the default set
    (chart,) = figures.mechanisms_by_size(study_run(records, ["mechanisms-by-size"], "mean"))
    assert chart.key == "mechanisms-by-size-cpp-cpp" and chart.x_log and chart.y_log
    assert [(s.name, s.x, s.y) for s in chart.series] == [("tcp", [40, 4000], [60.0, 90.0]),
                                                          ("fifo", [40, 4000], [40.0, 80.0])]
    assert "mean with its 95% interval" in chart.caption
    assert {"mechanisms-by-size-cpp-cpp"} <= set(keys(figures.charts(
        study_run(records, ["mechanisms-by-size"]))))


def test_all_mechanisms_on_one_chart_are_split_by_the_setting_that_makes_lines_few():
    records = []
    for mechanism in ("tcp", "fifo", "sysv-mq", "sysv-shm", "posix-mq"):
        for serialization in ("java", "frames"):
            for size in (40, 4000):
                records.append(record(len(records) + 1, mechanism=mechanism, client="java",
                                      server="java", request=size, response=size,
                                      settings={"serialization": serialization}))
    records.append(record(len(records) + 1, mechanism="shm", client="java", server="java"))
    (chart,) = figures.mechanisms_by_size(study_run(records, ["mechanisms-by-size"]))
    assert chart.groups == ("serialization: java", "serialization: frames")
    assert [s.name for s in chart.series if s.group == "serialization: java"] == [
        "tcp java objects", "fifo java objects", "sysv-mq java objects", "sysv-shm java objects",
        "posix-mq java objects"]
    assert [s.name for s in chart.series if s.group == "serialization: frames"][-1] == "shm"
    (few,) = figures.mechanisms_by_size(study_run(records[:8], ["mechanisms-by-size"]))
    assert few.groups == () and len(few.series) == 4


def test_the_thesis_bars_mean_and_sd_per_mechanism_one_panel_per_size():
    records = [record(1, mechanism="none", median=1_000.0), record(2, median=60_000.0),
               record(3, request=1024, median=90_000.0)]
    records[1]["trimmed"]["std"] = 20_000.0
    (chart,) = figures.bars_by_size(study_run(records, ["bars-by-size"], "mean"))
    assert chart.groups == ("16 B/16 B", "1 KiB/16 B")
    tcp = next(s for s in chart.series if s.name == "tcp" and s.group == "16 B/16 B")
    assert (tcp.y, tcp.low, tcp.high) == ([60.0], [40.0], [80.0])
    assert [s.name for s in chart.series if s.group == "16 B/16 B"] == ["none", "tcp"]


def test_grouped_bars_of_bytes_and_time_per_sequence_length_one_panel_per_record():
    def rec(index, mechanism, payload, length, wire, median):
        return record(index, mechanism=mechanism, request=0, response=0, payload=payload,
                      sequence_length=length, wire_req_bytes=wire, wire_resp_bytes=60, wire_packets_per_call=2,
                      median=median)
    records = [rec(1, "grpc", "small", 5, 120, 300_000.0), rec(2, "ice", "small", 5, 110, 200_000.0),
               rec(3, "grpc", "small", 100, 900, 400_000.0), rec(4, "ice", "large", 5, 5000, 1e6)]
    data = study_run(records, ["bars-by-sequence-length"])
    size, time = figures.bars_by_sequence_length(data)
    assert (size.key, time.key) == ("sequence-length-bytes", "sequence-length-time")
    assert size.groups == ("small", "large")
    grpc_small = next(s for s in size.series if s.name == "grpc" and s.group == "small")
    assert grpc_small.x == ["length 5", "length 100"] and grpc_small.y == [120, 900]
    assert all(s.style == "bar" for s in time.series)
    assert next(s for s in time.series if s.name == "ice" and s.group == "large").y == [1000.0]


def test_the_studies_figures_draw_in_plotly_and_matplotlib():
    def rec(index, mechanism, length, request, wire):
        return record(index, mechanism=mechanism, request=request, payload="small" if length
                      else "bytes", sequence_length=length, wire_req_bytes=wire,
                      wire_resp_bytes=60, wire_packets_per_call=2)
    records = [rec(1, "grpc", 5, 0, 120), rec(2, "ice", 5, 0, 110), rec(3, "grpc", 100, 0, 900),
               rec(4, "tcp", None, 40, None), rec(5, "tcp", None, 4000, None),
               rec(6, "fifo", None, 40, None)]
    charts = [c for c in figures.charts(study_run(records, ["mechanisms-by-size", "bars-by-size",
                                                            "bars-by-sequence-length"]))
              if c.key.startswith(("mechanisms-by-size", "sequence-length", "bars-by-size"))]
    assert len(charts) == 4
    for chart in charts:
        go.Figure(plotly.figure(chart))
        paper.plt.close(paper.draw(chart))


def test_a_histograms_note_names_the_shape_its_moments_show():
    rng = np.random.default_rng(7)
    normal = report_data.histogram(rng.normal(50_000, 5_000, 20_000))
    skewed = report_data.histogram(rng.lognormal(10, 0.8, 20_000))
    two = report_data.histogram(np.concatenate([rng.normal(30_000, 1_000, 10_000),
                                                rng.normal(90_000, 1_000, 10_000)]))
    assert report_data.histogram([1, 2, 3]) is None
    assert normal.counts.sum() + normal.beyond == normal.n == 20_000 and normal.beyond == 100
    assert study_figures.shape_note(normal).startswith("near-normal")
    assert study_figures.shape_note(skewed).startswith("right-skewed")
    assert study_figures.shape_note(two).startswith("likely two modes")


def test_the_histogram_one_panel_per_mechanism_at_its_smallest_size():
    records = [record(1, request=4096, response=4096), record(2), record(3, mechanism="jni"),
               record(4, mechanism="rest", status="failed")]
    data = study_run(records, ["histogram"])
    assert figures.histogram(data) == []                      # no samples loaded: nothing drawn
    rng = np.random.default_rng(1)
    for r in records:
        data.histograms[r["id"]] = report_data.histogram(rng.normal(50_000, 5_000, 1000))
    (chart,) = figures.histogram(data)
    assert chart.groups == ("#2 tcp cpp→cpp 16 B/16 B cross-core", "#3 jni cpp→cpp 16 B/16 B cross-core")
    steps, curve = [s for s in chart.series if s.group == chart.groups[0]]
    assert steps.style == "step" and len(steps.x) == len(steps.y) == 41
    assert sum(steps.y[:-1]) == pytest.approx(1 - 5 / 1000, abs=0.002)   # the cut top 0.5%
    assert "near-normal" in steps.name and curve.style == "dash"
    assert max(curve.y) == pytest.approx(max(steps.y), rel=0.5)       # the same scale
    assert figures.histogram(study_run(records, ["bars-by-size"])) == []
    go.Figure(plotly.figure(chart))
    paper.plt.close(paper.draw(chart))


def test_histograms_are_loaded_only_for_a_scenario_that_wants_them(tmp_path):
    (tmp_path / "samples").mkdir()
    np.arange(1000, 2000, dtype="<i8").tofile(tmp_path / "samples" / "a.bin")
    np.arange(1, 20, dtype="<i8").tofile(tmp_path / "samples" / "skipped.bin")
    r = record(1, rounds=[{"round": 1, "status": "ok", "samples_file": "samples/skipped.bin"},
                          {"round": 2, "status": "ok", "samples_file": "samples/a.bin"}])
    wanted = study_run([r], ["histogram"])
    wanted.document["scenario"]["statistics"]["skip_rounds"] = 1
    loaded = report_data.load(tmp_path, wanted.report)
    assert loaded.histograms[r["id"]].n == 1000 and loaded.histograms[r["id"]].edges[0] == 1000
    assert report_data.load(tmp_path, study_run([r], []).report).histograms == {}
