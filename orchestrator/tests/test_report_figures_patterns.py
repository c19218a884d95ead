"""The figures of the patterns other than rr (stream, short, burst, load) as pure functions on
small hand-made runs (report_runs.py), and the burst files they are loaded from."""
import pytest

from ipclab.output.report import data as report_data
from ipclab.output.report import figures
from report_runs import keys, load_records, record, run


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
