"""`--explain` (execute/explain.py): each peer under perf stat, per call from the measured pair
minus a one-call calibration pair; the perf files read, the figures per side, and a real case."""
import pytest

from ipclab.execute import explain
from ipclab.execute.runner import Runner
from ipclab.execute.workspace import Workspace
from ipclab.plan import matrix
from ipclab.plan.catalog import load_catalog
from ipclab.plan.scenario import build_scenario


def perf_file(path, syscalls, switches=4, migrations=1, faults=100, cpu_ms=2.5):
    """A `perf stat -x,` file as perf 6.1 writes it (comment, blank line, one event a line)."""
    path.write_text(f"# started on Thu Nov 26 11:00:00 2026\n\n"
                    f"{syscalls},,raw_syscalls:sys_enter,1000,100.00,,\n"
                    f"{switches},,context-switches,1000,100.00,1.0,K/sec\n"
                    f"{migrations},,cpu-migrations,1000,100.00,0.1,K/sec\n"
                    f"{faults},,page-faults,1000,100.00,40.0,K/sec\n"
                    f"{cpu_ms},msec,task-clock,1000,100.00,0.5,CPUs utilized\n")


def test_per_call_is_the_measured_pair_less_the_calibration_pair(tmp_path):
    (tmp_path / "calibration").mkdir()
    perf_file(tmp_path / "client.perf", syscalls=2031, cpu_ms=12.5)
    perf_file(tmp_path / "calibration" / "client.perf", syscalls=31, cpu_ms=2.5)
    perf_file(tmp_path / "server.perf", syscalls=1520)
    got = explain.per_call(tmp_path, tmp_path / "calibration", 1001)
    assert got["client"]["syscalls"] == 2.0 and got["client"]["cpu_us"] == 10.0
    assert got["client"]["context_switches"] == 0.0
    assert "server" not in got                   # its calibration file is missing
    assert explain.per_call(tmp_path, tmp_path / "calibration", 1) is None


def test_a_file_with_an_uncounted_event_gives_nothing(tmp_path):
    perf_file(tmp_path / "x.perf", syscalls="<not counted>")
    assert explain.read(tmp_path / "x.perf") is None
    assert explain.read(tmp_path / "missing.perf") is None


def test_the_record_keeps_the_median_over_rounds():
    record = {"rounds": []}
    for syscalls in (2.0, 4.0, 3.0):
        record["rounds"].append({"status": "ok"})
        outcome = type("O", (), {"explain": {"client": dict.fromkeys(explain.EVENTS.values(),
                                                                     syscalls)}})()
        explain.add_round(record, outcome)
    assert record["explain_client_syscalls"] == 3.0 and record["explain_server_syscalls"] is None


@pytest.mark.e2e
@pytest.mark.skipif(explain.unavailable() is not None, reason=str(explain.unavailable()))
def test_a_tcp_round_trip_costs_each_side_two_system_calls(seed=1):
    catalog = load_catalog()
    raw = {"matrix": {"mechanism": ["tcp"], "client": ["cpp"], "server": ["cpp"],
                      "placement": ["unpinned"]},
           "run": {"iterations": 2000, "warmup": 100, "explain": True}}
    scenario = build_scenario(raw, "t", catalog, {}, "t")
    (case,) = matrix.expand(scenario, catalog)
    with Workspace() as ws:
        outcome = Runner(scenario, catalog, ws).run(case)
    assert outcome.status == "ok", outcome.reason
    for side in explain.SIDES:   # a send and a receive per round trip, each side
        assert 1.9 <= outcome.explain[side]["syscalls"] <= 2.5, outcome.explain
        assert outcome.explain[side]["cpu_us"] > 0
