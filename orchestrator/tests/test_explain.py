"""`--explain`: per call from a pair less a one-call pair (execute/explain.py), the model at the
floors (analyse/explained.py), its section and compare's lines, and real pipe and uds cases."""
import json
import os
import shutil
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from ipclab.analyse import explained
from ipclab.execute import explain
from ipclab.output import explained as output_explained
from ipclab.execute.runner import Runner
from ipclab.execute.workspace import Workspace
from ipclab.plan import matrix
from ipclab.execute.probe import load_catalog
from ipclab.plan.scenario import build_scenario
from test_e2e import ROOT, ipclab, quick_run


def perf_file(path, syscalls, migrations=1, by_name=None):
    """A `perf stat -x,` file as perf 6.1 writes it (comment, blank line, one event a line)."""
    lines = [f"{syscalls},,raw_syscalls:sys_enter,1000,100.00,,",
             f"{migrations},,cpu-migrations,1000,100.00,0.1,K/sec"]
    lines += [f"{n},,syscalls:sys_enter_{name},1000,100.00,," for name, n in (by_name or {}).items()]
    path.write_text("# started on Thu Nov 26 11:00:00 2026\n\n" + "\n".join(lines) + "\n")


def rusage(voluntary=10, involuntary=2, faults=100, user_s=0.5, system_s=0.25):
    return SimpleNamespace(ru_nvcsw=voluntary, ru_nivcsw=involuntary, ru_minflt=faults,
                           ru_majflt=0, ru_utime=user_s, ru_stime=system_s)


def test_per_call_is_a_pair_less_its_one_call_calibration_pair(tmp_path):
    for d in ("counted", "calibration"):
        (tmp_path / d).mkdir()
    perf_file(tmp_path / "counted" / "client.perf", 2041,
              by_name={"write": 1015, "read": 1016, "futex": 40})
    perf_file(tmp_path / "calibration" / "client.perf", 41,
              by_name={"write": 15, "read": 16, "futex": 20})
    usage = ({"client": explain.usage(rusage(voluntary=1010, user_s=0.6)),
              "server": explain.usage(rusage(voluntary=1010))},
             {"client": explain.usage(rusage(voluntary=10, user_s=0.5))})
    dirs = (tmp_path / "counted", tmp_path / "calibration")
    got = explain.per_call(usage, dirs, 1000)   # 1001 calls less 1
    client = got["client"]
    assert client["syscalls"] == 2.0 and client["migrations"] == 0.0
    assert client["voluntary"] == 1.0 and client["involuntary"] == 0.0
    assert client["user_us"] == pytest.approx(100.0)          # 0.1 s over 1000 calls
    assert client["cpu_us"] == pytest.approx(100.0)
    # futex's 0.02 per call is below 0.05; "other" is the total less the named: 10 − 10 = 0
    assert client["top"] == [("read", 1.0), ("write", 1.0)]
    assert explain.format_top(client["top"]) == "read 1.0, write 1.0"
    assert "server" not in got     # neither its calibration usage nor its perf files
    assert explain.per_call(usage, dirs, 0) is None


def test_calls_not_named_are_other(tmp_path):
    perf_file(tmp_path / "a.perf", 3100, by_name={"read": 1000})
    perf_file(tmp_path / "b.perf", 100, by_name={})
    got = explain._top(explain.read(tmp_path / "a.perf"), explain.read(tmp_path / "b.perf"), 1000)
    assert got == [("other", 2.0), ("read", 1.0)]


def test_without_perf_the_resource_usage_still_counts(tmp_path):
    usage = ({"client": explain.usage(rusage(voluntary=110))},
             {"client": explain.usage(rusage(voluntary=10))})
    got = explain.per_call(usage, (tmp_path, tmp_path), 100)
    assert got["client"]["voluntary"] == 1.0 and "syscalls" not in got["client"]


def test_a_file_with_an_uncounted_event_gives_nothing(tmp_path):
    perf_file(tmp_path / "x.perf", syscalls="<not counted>")
    assert explain.read(tmp_path / "x.perf") is None
    assert explain.read(tmp_path / "missing.perf") is None


def test_counting_cost_is_the_counted_median_against_the_measured_one():
    assert explain.counting_cost(np.array([100, 100, 120]), np.array([110, 110, 150])) \
        == pytest.approx(0.1)
    assert explain.counting_cost(None, np.array([1])) is None


def test_the_record_keeps_the_median_over_rounds():
    record = {"rounds": []}
    for syscalls in (2.0, 4.0, 3.0):
        record["rounds"].append({"status": "ok"})
        figures = {"client": {**dict.fromkeys(explain.COUNTS, syscalls), "top": [("read", 1.0)]},
                   "counting_cost": syscalls / 10}
        explain.add_round(record, SimpleNamespace(explain=figures))
    assert record["explain_client_syscalls"] == 3.0 and record["explain_server_syscalls"] is None
    assert record["explain_client_top"] == "read 1.0"
    assert record["explain_counting_cost"] == pytest.approx(0.3)


def counted_record(**more):
    return {"index": 1, "id": "c1", "status": "ok", "mechanism": "pipe", "client": "cpp",
            "server": "cpp", "pattern": "rr", "request_size": 16, "response_size": 1024,
            "placement": "same-core", "trimmed": {"median": 10_000.0},
            "explain_client_syscalls": 2.0, "explain_server_syscalls": 2.0,
            "explain_client_voluntary": 1.0, "explain_server_voluntary": 0.5,
            "explain_copies": 2, **more}


FLOORS = {"syscall_ns": 100.0, "copy_ns_per_byte": {"16": 0.5, "1024": 0.1},
          "wake_ns": {"same-core": 2000.0, "cross-core": 8000.0}}


def test_the_model_prices_the_counts_at_the_floors():
    got = explained.model(counted_record(), FLOORS)
    assert got["parts"]["syscalls"] == 400.0                   # 4 calls × 100 ns
    assert got["parts"]["copies"] == 2 * (16 * 0.5 + 1024 * 0.1)  # in and out, each size's price
    assert got["parts"]["wakeups"] == 1.5 * 2000.0             # same-core wake-ups
    assert got["total"] == pytest.approx(400 + 220.8 + 3000)
    assert got["share"] == pytest.approx(got["total"] / 10_000)
    cross = explained.model(counted_record(placement="cross-core"), FLOORS)
    assert cross["parts"]["wakeups"] == 1.5 * 8000.0


def test_the_model_leaves_out_what_it_cannot_price():
    assert explained.model(counted_record(), None) is None
    assert explained.model(counted_record(pattern="stream", message_size=16), FLOORS) is None
    no_perf = counted_record(explain_client_syscalls=None, explain_server_syscalls=None)
    got = explained.model(no_perf, FLOORS)
    assert got["parts"]["syscalls"] is None and got["total"] == pytest.approx(220.8 + 3000)
    records = [counted_record()]
    explained.add_model(records, FLOORS)
    assert records[0]["explain_model_share"] == pytest.approx(0.36208)


def test_the_section_says_where_the_model_explains_little():
    low = counted_record(index=2, trimmed={"median": 100_000.0})
    explained.add_model([low], FLOORS)
    (finding,) = output_explained.findings([low])
    assert finding.startswith("case 2: the model explains 4% of its median")
    (row,) = output_explained.rows([low])
    assert row[3] == "2.0 / 2.0" and row[7] == "4%"


def test_compare_names_the_costs_that_changed():
    a, b = counted_record(), counted_record(explain_client_syscalls=4.0,
                                            explain_server_voluntary=0.55)
    assert explained.changed_costs(a, b) == ["client syscalls 2.0 → 4.0"]
    assert explained.changed_costs(a, a) == []


@pytest.mark.e2e
def test_a_pipe_round_trip_is_a_write_and_a_read_each_side(tmp_path, counting):
    out = tmp_path / "run"
    done = ipclab("run", "--explain", "--mechanism", "pipe", "--client", "cpp", "--server", "cpp",
                  "--request-size", "16", "--response-size", "16", "--iterations", "2000",
                  "--placement", "same-core", "--out", str(out))
    assert done.returncode == 0, done.stderr
    document = json.loads((out / "run.json").read_text())
    assert document["floors"]["syscall_ns"] > 0 and document["floors"]["wake_ns"]["same-core"] > 0
    (record,) = document["results"]
    for side in explain.SIDES:
        assert 1.9 <= record[f"explain_{side}_syscalls"] <= 2.2, record
        assert record[f"explain_{side}_top"] == "read 1.0, write 1.0"
        assert 0 <= record[f"explain_{side}_voluntary"] <= 1.2
    assert 0 < record["explain_model_share"]
    assert "## explained: what each call costs" in (out / "table.md").read_text()
    header = (out / "cases.csv").read_text().splitlines()[0].split(",")
    assert {"explain_client_top", "explain_model_share", "explain_counting_cost"} <= set(header)


@pytest.mark.e2e
def test_without_perf_one_line_says_so_and_the_rest_is_counted(monkeypatch):
    monkeypatch.setattr(explain, "unavailable", lambda: "perf is not installed (Debian: linux-perf)")
    catalog = load_catalog()
    raw = {"matrix": {"mechanism": ["uds"], "client": ["cpp"], "server": ["cpp"],
                      "placement": ["unpinned"]},
           "run": {"iterations": 500, "warmup": 10, "explain": True}}
    scenario = build_scenario(raw, "t", catalog, {}, "t")
    (case,) = matrix.expand(scenario, catalog)
    with Workspace() as ws:
        outcome = Runner(scenario, catalog, ws).run(case)
    assert outcome.status == "ok", outcome.reason
    assert "syscalls" not in outcome.explain["client"]
    # counted, as a difference of two pairs (N calls less one, per call): a noisy start of the
    # one-call pair can make it a little negative, so only its presence is the test's
    assert isinstance(outcome.explain["client"]["voluntary"], float)
    (note, line) = explain.notes(scenario.run)
    assert note == explain.NOTE
    assert line.startswith("--explain: no system calls or migrations counted (perf is not")


@pytest.mark.e2e
def test_a_load_is_counted_per_request(counting):
    # Each request is one answer the C++ epoll server sends: a load of 1 s at 1000 req/s less
    # a load of 1 ms after the same warm-up.
    catalog = load_catalog()
    raw = {"matrix": {"mechanism": ["tcp"], "client": ["cpp"], "server": ["cpp"],
                      "placement": ["unpinned"], "pattern": ["load"], "server_model": ["epoll"],
                      "clients": [2], "rate": [1000]},
           "run": {"duration": "1s", "load_warmup": "100ms", "explain": True}}
    scenario = build_scenario(raw, "t", catalog, {}, "t")
    (case,) = matrix.expand(scenario, catalog)
    with Workspace() as ws:
        outcome = Runner(scenario, catalog, ws).run(case)
    assert outcome.status == "ok", outcome.reason
    sends = dict(outcome.explain["server"]["top"]).get("sendto")
    assert sends is not None and 0.9 <= sends <= 1.1, outcome.explain


def test_the_records_names_are_what_explain_counts():
    """records/fields.py names the counts a record keeps; explain.py is where they come from
    (perf's events, then a struct rusage's parts): the two lists must stay one."""
    assert explain.COUNTS == (*explain.PERF_EVENTS.values(), *explain.USAGE)


@pytest.mark.e2e
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("perf") or not shutil.which("unshare"),
                    reason="needs root, perf and unshare")
def test_as_root_a_run_mounts_tracefs_for_its_counts_and_unmounts_it(tmp_path):
    """In a mount namespace of its own (the machine's tracefs untouched) with tracefs unmounted:
    `ipclab run --explain` counts system calls, says it mounted tracefs, and leaves it unmounted."""
    out = tmp_path / "run"
    script = (f"umount {explain.TRACEFS} 2>/dev/null; test ! -d {explain.TRACEPOINT} || exit 90; "
              f'"$@" || exit $?; test ! -d {explain.TRACEPOINT} || exit 91')
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                           script, "sh", sys.executable, "-m", "ipclab",
                           *quick_run(["run", "--explain", "--mechanism", "pipe", "--client",
                                       "cpp", "--server", "cpp", "--request-size", "16",
                                       "--response-size", "16", "--iterations", "300",
                                       "--placement", "same-core", "--out", str(out)])],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    document = json.loads((out / "run.json").read_text())
    assert explain.MOUNTED_NOTE in document["notes"]
    (record,) = document["results"]
    assert record["explain_client_syscalls"] > 1, record
