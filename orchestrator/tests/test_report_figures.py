"""The report's figures as pure functions on small hand-made runs, and both drawings of them
(Plotly JSON checked by plotly's own validator, matplotlib figures drawn with Agg)."""
import json

import numpy as np
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs
import pytest

from dataclasses import replace
from html import escape

from ipclab.analyse import compare
from ipclab.output import cases, html, model, run_info, sections
from ipclab.output import compare as compared
from ipclab.output.page import Page, Section, Table
from ipclab.output.report import data as report_data
from ipclab.output.report import figures, paper, plotly, study_figures
from ipclab.output.report.data import RunData, binned_medians, quantile_grid


def record(index, mechanism="tcp", client="cpp", server="cpp", request=16, response=16,
           pattern="rr", status="ok", median=50_000.0, **extra):
    r = {"id": f"{index:04d}-{mechanism}-{client}-{server}-{request}-{response}-{pattern}",
         "index": index, "mechanism": mechanism, "client": client, "server": server,
         "request_size": request, "response_size": response, "message_size": None,
         "payload": "bytes", "sequence_length": None, "placement": "cross-core",
         "pattern": pattern, "status": status, "reason": None if status == "ok" else "it broke",
         "client_cpus": [0], "server_cpus": [1], "rounds_planned": 2, "rounds": [],
         "trimmed": {"median": median, "p99": 2 * median, "mean": median, "std": 1.0},
         "median_ci_low": 0.9 * median, "median_ci_high": 1.2 * median, "warnings": []}
    if pattern == "stream":
        r.update(request_size=None, response_size=None, message_size=request)
    r.update(extra)
    return r


def run(records, **kw):
    document = {"scenario": {"name": "hand-made", "matrix": {}, "run": {}, "statistics": {}},
                "environment": {"hostname": "h"}, "notes": ["a note"], "results": records,
                "complete": True}
    return RunData(model.build(document), **kw)


def keys(charts):
    return [c.key for c in charts]


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


def test_stream_figures_only_with_streams_and_cpu_per_message():
    assert figures.stream_throughput(run([record(1)])) == []
    assert figures.stream_cpu(run([record(1)])) == []
    stream = record(1, pattern="stream", request=1024, messages=1000, msgs_per_s=5e5,
                    msgs_per_s_ci_low=4e5, msgs_per_s_ci_high=6e5, client_user_s=0.001,
                    client_sys_s=0.002, server_user_s=0.003, server_sys_s=0.0)
    (rate,) = figures.stream_throughput(run([stream]))
    assert rate.series[0].y == [5e5] and rate.series[0].low == [4e5]
    (cpu,) = figures.stream_cpu(run([stream]))
    assert cpu.stacked and [s.y[0] for s in cpu.series] == pytest.approx([1.0, 2.0, 3.0, 0.0])


def test_short_rates_carry_time_wait():
    short = record(1, pattern="short", conns_per_s=7000.0, conns_per_s_ci_low=6000.0,
                   conns_per_s_ci_high=8000.0, time_wait=1200)
    (chart,) = figures.short_rates(run([short]))
    assert chart.series[0].y == [7000.0] and "TIME_WAIT at the end: 1200" in chart.series[0].hover[0]


def test_warm_up_is_relative_to_the_measured_median():
    a, b = record(1, median=100.0), record(2, server="java", median=200.0)
    curve = (np.array([5.0, 15.0]), np.array([400.0, 100.0]))
    data = run([a, b], warmup={a["id"]: {1: curve}, b["id"]: {1: (curve[0], curve[1] * 2)}})
    (chart,) = figures.warmup(data)
    assert chart.key == "warmup-cpp"
    (tcp,) = chart.series
    assert tcp.y == pytest.approx([4.0, 1.0])


def test_wire_bytes_only_when_the_columns_exist():
    assert figures.wire_bytes(run([record(1)])) == []
    r = record(1, wire_req_bytes=82.0, wire_resp_bytes=70.0, wire_packets_per_call=2.0,
               app_req_bytes=16.0, app_resp_bytes=16.0)
    (chart,) = figures.wire_bytes(run([r]))
    assert [s.y for s in chart.series] == [[152.0], [32.0]]


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


def test_burst_phases_and_connections():
    r = record(1, pattern="burst", server_model="thread")
    phases = [{"case_id": r["id"], "side": "server", "phase": "accept", "count": 10.0,
               "mean_ns": 2000.0, "ci95_low_ns": 1000.0, "ci95_high_ns": 3000.0,
               "median_ns": 1500.0, "p99_ns": 9000.0, "max_ns": 9500.0}]
    (chart,) = figures.burst_phases(run([r], phases=phases))
    assert chart.series[0].x == ["accept"] and chart.series[0].y == [2.0]
    rows = [{"conn_index": float(i), "accept_ns": 1000.0 * (i + 1), "total_ns": 5000.0,
             "loop_ns": None, "error": None} for i in range(3)]
    rows.append({"conn_index": 3.0, "accept_ns": 1.0, "total_ns": 1.0, "error": "reset"})
    client = [{"conn_index": 0.0, "connect_ns": 3000.0, "response_ns": None, "total_ns": 9000.0,
               "error": None}]
    charts = figures.burst_connections(run([r], connections={r["id"]: {1: rows}},
                                           client_connections={r["id"]: {1: client}}))
    assert keys(charts) == ["burst-server-accept", "burst-server-total",   # loop empty: no chart
                            "burst-client-connect", "burst-client-total"]
    assert charts[2].series[0].y == [3.0]
    assert charts[0].series[0].y == [1.0, 2.0, 3.0]            # the failed connection left out
    assert "thread" in charts[0].groups[0]


def every_figure_run():
    rr = [record(1), record(2, request=1024), record(3, client="python", status="failed")]
    stream = record(4, pattern="stream", request=1024, messages=100, msgs_per_s=1e5,
                    client_user_s=0.1, client_sys_s=0.1, server_user_s=0.1, server_sys_s=0.1,
                    wire_req_bytes=1100.0, wire_resp_bytes=0.0, wire_packets_per_call=1.0)
    grid = {1: quantile_grid(np.arange(1000, 2000)), 2: quantile_grid(np.arange(1100, 2100))}
    warm = {1: binned_medians(np.linspace(5000, 1000, 100))}
    return run(rr + [stream, *load_records()], quantiles={rr[0]["id"]: grid, stream["id"]: grid},
               warmup={rr[0]["id"]: warm})


def load_records():
    """Two rates of one way of serving, and one of another (pattern load, PROTOCOL.md 11.5)."""
    def one(index, rate, model, p99):
        spectrum = {"p50": 50_000, "p90": 80_000, "p99": p99, "p99_9": 2 * p99, "max": 3 * p99}
        return record(index, pattern="load", server_model=model, achieved_per_s=0.99 * rate,
                      target_per_s=rate, settings={"clients": 8, "rate": rate},
                      **{f"response_{k}": v for k, v in spectrum.items()},
                      **{f"service_{k}": v // 2 for k, v in spectrum.items()})
    return [one(10, 1000, "epoll", 100_000), one(11, 5000, "epoll", 400_000),
            one(12, 1000, "thread", 150_000)]


def test_the_load_curve_is_a_line_per_way_of_serving_over_its_rates():
    (curve,) = figures.load_curve(run(load_records()))
    lines = [s for s in curve.series if not s.companion]
    assert [s.name for s in lines] == ["tcp load epoll ×8 cpp→cpp 16 B/16 B cross-core",
                                       "tcp load thread ×8 cpp→cpp 16 B/16 B cross-core"]
    assert lines[0].x == [990.0, 4950.0] and lines[0].y == [50.0, 50.0]
    p99 = next(s for s in curve.series if s.name.endswith(" p99") and "epoll" in s.name)
    assert p99.companion and p99.y == [100.0, 400.0]
    (spectrum,) = figures.load_spectrum(run(load_records()))
    assert len(spectrum.groups) == 3 and spectrum.series[0].y == [50.0, 80.0, 100.0, 200.0, 300.0]
    assert figures.load_curve(run([record(1)])) == []


def test_a_sweep_draws_its_steps_and_marks_its_knee():
    steps = [{"rate": 500, "status": "ok", "achieved_per_s": 500.0, "response_p99": 100_000,
              "passed": True},
             {"rate": 1000, "status": "ok", "achieved_per_s": 990.0, "response_p99": 200_000,
              "passed": True},
             {"rate": 2000, "status": "ok", "achieved_per_s": 1200.0, "response_p99": 9_000_000,
              "passed": False}]
    sweep = record(20, pattern="load", server_model="epoll", achieved_per_s=990.0,
                   target_per_s=1000, settings={"clients": 8, "rate": "sweep"}, knee_per_s=1000,
                   knee_low=900, knee_high=1000, slo_ns=300_000,
                   rounds=[{"round": 1, "status": "ok", "load": {"steps": steps}}])
    (curve,) = figures.load_curve(run([sweep]))
    points, knee = curve.series
    assert points.x == [500.0, 990.0, 1200.0] and points.y == [100.0, 200.0, 9000.0]
    assert points.style == "points" and (knee.x, knee.y) == ([1000], [300.0])
    assert "rounds 900–1,000" in knee.hover[0]


def test_every_plotly_figure_passes_plotlys_validator():
    charts = figures.charts(every_figure_run())
    assert len(keys(charts)) == len(set(keys(charts))) >= 6
    for chart in charts:
        figure = plotly.figure(chart)
        go.Figure(figure)  # raises on any property Plotly does not know
        json.dumps(figure, allow_nan=False)


def test_page_inlines_plotly_once_and_names_no_url():
    data = every_figure_run()
    planted = Section("more", "compared", tables=(Table(("a",), (("<b>",),)),))
    with_more = replace(sections.page(data.report),
                        sections=(*sections.page(data.report).sections, planted))
    page = html.render(with_more, html.Options(figures.charts(data)))
    plotly_js = get_plotlyjs()
    assert page.count(plotly_js) == 1
    rest = page.replace(plotly_js, "")
    assert "http://" not in rest and "https://" not in rest and "<link" not in rest
    assert "default-src 'none'" in rest
    assert rest.count("class='fig'") == len(figures.charts(every_figure_run()))
    assert "&lt;b&gt;" in rest and "a note" in rest and "it broke" in rest


def cases_page(records, caption=None):
    return html.render(Page("t", (Section("cases", "every case",
                                          tables=(cases.every_case(records, caption),)),)))


def test_summary_table_sorts_numbers_by_value():
    table = cases_page([record(1, median=9_000.0), record(2, median=10_000.0)])
    assert "data-k='9000'" in table and "data-k='10000'" in table


def test_the_case_table_puts_each_interval_under_its_value_to_fit_a_window():
    import re
    r = record(1, median=1_923_000.0, ratio=0.05, ratio_ci_low=0.04, ratio_ci_high=0.08,
               rounds_ok=3, round_spread=1.17)
    r["trimmed"].update(mean=2_326_000.0, ci95_low=1_900_000.0, ci95_high=2_800_000.0, p99=5.7e6,
                        std=1.2e6)
    table = cases_page([r], "× the baseline")
    (row,) = re.findall(r"<tbody><tr>(.*?)</tr>", table)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells[6] == "1.923 ms<br><span class='ci'>[1.731–2.308]</span>", cells
    lines = [max(len(re.sub("<[^>]+>", "", p)) for p in c.split("<br>")) for c in cells]
    assert sum(lines) < 110, lines     # one line per cell was ~150 characters


def test_paper_draws_every_kind_of_chart_with_its_panels(tmp_path):
    for chart in figures.charts(every_figure_run()):
        fig = paper.draw(chart)
        panels = max(len(chart.groups), 1)
        assert sum(ax.get_visible() for ax in fig.axes if ax.get_label() != "<colorbar>") == panels
        assert fig.get_suptitle() == chart.title
        paper.plt.close(fig)
    written = paper.write(run([record(1)]), tmp_path)   # the latency chart and the heat map
    assert sorted(p.name for p in written) == ["heatmap-tcp.png", "heatmap-tcp.svg",
                                               "latency-tcp.png", "latency-tcp.svg"]
    assert all(p.stat().st_size > 1000 for p in written)


def test_a_comparison_is_a_page_of_the_same_renderer():
    comparison = compare.Comparison(
        "run-a", "run-b", {"placement": ("same-core", "cross-core")},
        [compare.Pair("tcp cpp→cpp 16 B/16 B", "compared", 1000.0, 1200.0, 1.2, 1.1, 1.3, 0.001,
                      "slower", rounds_a=3, rounds_b=3),
         compare.Pair("uds cpp→cpp 16 B/16 B", "only in A")],
        claims=[("fifo < tcp", "holds", "fails"), ("mq < tcp", "holds", "holds")])
    page = html.render(compared.page(comparison))
    assert "claim changed: fifo &lt; tcp: holds (A) → fails (B)" in page
    assert "1 of 2 changed verdict" in page and "mq &lt;" not in page
    assert "B: run-b" in page and "1.20 [1.10–1.30]" in page and "only in A" in page
    assert "same-core (A) → cross-core (B)" in page and escape(compare.RULE) in page


def test_wire_bytes_of_a_structured_record_have_no_application_bar():
    r = record(1, mechanism="grpc", payload="small", sequence_length=5, request=None,
               response=None, wire_req_bytes=200.0, wire_resp_bytes=180.0,
               wire_packets_per_call=2.5, app_req_bytes=None, app_resp_bytes=None)
    (chart,) = figures.wire_bytes(run([r]))
    assert [s.y for s in chart.series] == [[380.0], [None]]
    assert "small ×5" in chart.series[0].x[0] and "2.5 packets per call" in chart.series[0].hover[0]


def test_a_run_where_nothing_finished_has_a_page_without_figures():
    failed = [record(1, status="failed"), record(2, status="not-applicable", trimmed=None)]
    assert figures.charts(run(failed)) == []
    page = html.render(sections.page(run(failed).report), html.Options([]))
    assert "No case finished: nothing to draw." in page and "it broke" in page


def test_warm_up_without_a_usable_median_draws_nothing():
    r = record(1, median=0.0)
    assert figures.warmup(run([r], warmup={r["id"]: {1: (np.array([1.0]), np.array([5.0]))}})) == []


def test_burst_files_named_by_a_round_are_loaded(tmp_path):
    (tmp_path / "bursts").mkdir()
    (tmp_path / "bursts" / "p.csv").write_text(
        "conn_index,accept_ns,loop_ns,spawn_ns,start_delay_ns,transfer_ns,total_ns,"
        "accept_start_ns,worker,error\n0,1000,,,,500,4000,77,0,\n1,2000,10,,,,,78,0,reset\n")
    r = record(1, pattern="burst", server_model="iterative",
               rounds=[{"round": 1, "status": "ok", "burst": {"phases_file": "bursts/p.csv",
                                                              "records_file": "bursts/missing.csv"}}])
    data = report_data.load(tmp_path, run([r]).report)
    assert [row["accept_ns"] for row in data.connections[r["id"]][1]] == [1000.0, 2000.0]
    assert data.client_connections == {}
    (chart, *_) = figures.burst_connections(data)
    assert chart.key == "burst-server-accept" and chart.series[0].y == [1.0]  # the reset is left out


def test_burst_phase_rows_come_from_the_records_without_phases_csv(tmp_path):
    r = record(1, pattern="burst", phases=[{"side": "client", "phase": "connect", "count": 5,
                                            "mean_ns": 4000.0, "ci95_low_ns": 3000.0,
                                            "ci95_high_ns": 5000.0, "median_ns": 4000.0,
                                            "p99_ns": 6000.0, "max_ns": 7000.0}])
    data = report_data.load(tmp_path, run([r]).report)
    (chart,) = figures.burst_phases(data)
    assert chart.series[0].name == "client" and chart.series[0].y == [4.0]


def test_heat_map_hover_names_the_case_and_its_interval():
    (chart,) = figures.heatmaps(run([record(1, median=10_000.0), record(2, server="java", status="failed")]))
    (heat,) = chart.heats
    assert "#1 tcp cpp→cpp" in heat.hover[0][0] and "median 10 µs [9–12]" in heat.hover[0][0]
    assert heat.hover[0][1] == "failed: it broke"


def study_run(records, names, compare="median"):
    document = {"scenario": {"name": "study", "matrix": {}, "run": {},
                             "statistics": {"compare": compare}, "report": {"figures": names}},
                "environment": {"hostname": "h"}, "notes": [], "results": records,
                "complete": True}
    return RunData(model.build(document))


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


def test_the_pages_scenario_lists_only_what_its_patterns_read():
    def page_scenario(pattern):
        document = {"scenario": {"name": "s", "matrix": {"mechanism": ["tcp"], "pattern": [pattern],
                                                         "server_model": ["thread"],
                                                         "message_size": [1024], "exclude": []},
                                 "run": {"iterations": 10, "connectors": 200, "messages": 5,
                                         "backlog": 512}, "statistics": {}}}
        return dict(run_info.scenario(document))
    rr = page_scenario("rr")
    assert "iterations" in rr and "mechanism" in rr
    assert not any(k in rr for k in ("connectors", "backlog", "server_model", "messages",
                                      "message_size"))
    burst = page_scenario("burst")
    assert "connectors" in burst and "server_model" in burst and "messages" not in burst
    assert "exclude" not in rr   # an empty list: no row


def test_the_pages_scenario_names_each_excluded_combination():
    document = {"scenario": {"name": "s", "run": {}, "statistics": {}, "matrix": {
        "mechanism": ["rest", "tcp"], "pattern": ["rr"],
        "exclude": [{"mechanism": ["rest"], "request_size": [134217728]}]}}}
    assert dict(run_info.scenario(document))["exclude"] == "mechanism rest; request_size 128 MiB"


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
