"""A burst spread over client hosts (execute/spread.py): the split, the agreed release on each
host's clock, and the merge of the hosts' files into one client's, on one time line."""
import json
from types import SimpleNamespace

import numpy as np
import pytest

from ipclab.execute import burst, load, spread
from ipclab.plan.matrix import Case
from ipclab.execute.peers import PeerError
from ipclab.plan.scenario import RunSettings

HEADER = "conn_index,process,connector,connect_start_ns,connect_ns,response_ns,total_ns,error,slow_connect\n"


class FakePlace:
    """A client host whose files are this machine's (as namespaces sharing a file system)."""

    def __init__(self, name, clock=("sh", "-c", "while read -r l; do date +%s%N; done")):
        self.name, self.clock = name, clock

    def case_file(self, path):
        return open(path, "rb").read()

    def plain_command(self, argv):
        return list(self.clock)


def test_a_burst_splits_its_connections_and_a_load_its_clients_and_rate():
    def connections(n, hosts):
        return [r.connections for _, r in burst.shares(None, RunSettings(connections=n), hosts)]
    assert connections(1000, 5) == [200] * 5 and connections(1001, 3) == [334, 334, 333]
    case = Case(1, "tcp", "cpp", "cpp", 16, 16, "unpinned", "load",
                settings=(("clients", 8), ("rate", 1000)))
    shared = [dict(c.settings) for c, _ in load.shares(case, RunSettings(), 3)]
    assert [(s["clients"], s["rate"]) for s in shared] == [(3, 375), (3, 375), (2, 250)]
    odd = Case(1, "tcp", "cpp", "cpp", 16, 16, "unpinned", "load",
               settings=(("clients", 3), ("rate", 100)))
    assert sum(dict(c.settings)["rate"] for c, _ in load.shares(odd, RunSettings(), 3)) == 100


def test_each_host_gets_the_agreed_release_on_its_own_clock(tmp_path):
    started = []
    run = RunSettings(connections=5, connectors=200)

    def start_one(place, case, share, folder, extra):
        started.append((place.name, share.connections, share.connectors, folder.name, extra))
        return SimpleNamespace(exited=lambda: True, returncode=0)
    # our own clock answers the probes: the offset is about 0, so both releases about agree
    group = spread.start([FakePlace("ssh://a"), FakePlace("ssh://b")], None, run, tmp_path,
                         start_one, burst)
    (a, b) = started
    assert (a[:4], b[:4]) == (("ssh://a", 3, 3, "host0"), ("ssh://b", 2, 2, "host1"))
    release_a, release_b = int(a[4][1]), int(b[4][1])
    assert a[4][0] == "--release-at" and abs(release_a - release_b) < 50_000_000
    assert len(group.members) == 2 and group.returncode == 0
    with pytest.raises(PeerError, match="client host ssh://c did not answer the clock probes"):
        spread.start([FakePlace("ssh://c", clock=("true",))], None, run, tmp_path / "x",
                     start_one, burst)


def test_the_hosts_files_merge_on_the_agreed_time_line(tmp_path):
    # host a released 1 ms late (its monotonic release at 5000), host b on time (at 900)
    _host(tmp_path / "host0", release=5_000, late=1_000_000,
          rows=[(5_100, 40, ""), (5_300, 50, "refused")])
    _host(tmp_path / "host1", release=900, late=0, rows=[(1_000, 30, "")])
    group = spread.ClientGroup([(FakePlace("ssh://a"), None, 7, 2), (FakePlace("ssh://b"), None,
                                                                      -3, 1)])
    spread.merge(group, tmp_path, burst)
    result = json.loads((tmp_path / "result.json").read_text())
    assert (result["connections"], result["connections_ok"], result["connections_failed"]) == (3, 2, 1)
    assert result["errors"] == {"refused": 1} and "release_ns" not in result
    assert result["burst_ns"] == 1_000_000 + 350  # a ends 350 ns after its release, 1 ms late
    lines = (tmp_path / "records.csv").read_text().splitlines()
    assert lines[0].endswith(",host,start_ns")
    starts = [(line.split(",")[-2], int(line.split(",")[-1])) for line in lines[1:]]
    assert starts == [("ssh://b", 100), ("ssh://a", 1_000_100), ("ssh://a", 1_000_300)]
    assert [line.split(",")[0] for line in lines[1:]] == ["0", "1", "2"]
    assert list(np.fromfile(tmp_path / "samples.i64", dtype="<i8")) == [40, 30]  # host by host
    a, b = result["hosts"]
    assert (a["host"], a["clock_offset_ns"], a["first_start_ns"], a["start_spread_ns"]) == (
        "ssh://a", 7, 1_000_100, 200)
    assert (b["ok"], b["failed"], b["release_late_ns"]) == (1, 0, 0)


def test_a_host_without_a_result_fails_the_merge_naming_it(tmp_path):
    _host(tmp_path / "host0", release=0, late=0, rows=[(10, 5, "")])
    (tmp_path / "host1").mkdir()
    spread.merge(spread.ClientGroup([(FakePlace("ssh://a"), None, 0, 0),
                                     (FakePlace("ssh://b"), None, 0, 0)]), tmp_path, burst)
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["status"] == "error" and result["error"].startswith("client on ssh://b: no result")


def test_a_loads_hosts_merge_into_one_schedule_and_their_rates_add_up(tmp_path):
    header = ",".join(load.COLUMNS) + "\n"
    for i, (late, rows) in enumerate([(0, ["0,0,1,0,5,20,", "1,1,1,100,105,130,"]),
                                      (50, ["0,0,1,0,2,9,", "1,0,1,100,,,reset"])]):
        folder = tmp_path / f"host{i}"
        folder.mkdir()
        ok = sum(1 for r in rows if not r.endswith("reset"))
        (folder / "result.json").write_text(json.dumps({
            "status": "ok", "pattern": "load", "clients": 2 - i, "rate": 10, "requests_ok": ok,
            "requests_failed": 2 - ok, "iterations": 2, "warmup": 0, "samples": ok,
            "achieved_per_s": 10.0 - i, "release_late_ns": late,
            "errors": {"reset": 1} if i else {}}))
        (folder / "records.csv").write_text(header + "\n".join(rows) + "\n")
        np.arange(ok, dtype="<i8").tofile(folder / "samples.i64")
    spread.merge(spread.ClientGroup([(FakePlace("ssh://a"), None, 0, 0),
                                     (FakePlace("ssh://b"), None, 0, 0)]), tmp_path, load)
    result = json.loads((tmp_path / "result.json").read_text())
    assert (result["achieved_per_s"], result["requests_ok"], result["requests_failed"],
            result["clients"], result["rate"], result["errors"]) == (19.0, 3, 1, 3, 20, {"reset": 1})
    lines = (tmp_path / "records.csv").read_text().splitlines()
    assert lines[0] == ",".join(load.COLUMNS) + ",host"
    assert lines[3:] == ["2,2,1,50,52,59,,ssh://b", "3,2,1,150,,,reset,ssh://b"]
    times = load.request_times((tmp_path / "records.csv").read_text())
    assert list(times["response"]) == [20, 30, 9]  # b's first request: 59 - 50
    assert np.fromfile(tmp_path / "samples.i64", dtype="<i8").size == 3


def _host(folder, release, late, rows):
    folder.mkdir()
    ok = sum(1 for r in rows if not r[2])
    end = max(start + total for start, total, _ in rows)
    (folder / "result.json").write_text(json.dumps({
        "status": "ok", "pattern": "burst", "connections": len(rows), "connections_ok": ok,
        "connections_failed": len(rows) - ok, "burst_ns": end - release, "conns_per_s": 1.0,
        "release_ns": release, "release_late_ns": late}))
    (folder / "records.csv").write_text(HEADER + "".join(
        f"{i},0,0,{start},1,1,{total},{error},0\n" for i, (start, total, error) in enumerate(rows)))
    np.asarray([t for _, t, e in rows if not e], dtype="<i8").tofile(folder / "samples.i64")


def test_the_host_is_the_top_level_of_the_interval_and_a_slow_host_is_flagged():
    from ipclab.analyse import case_stats
    from ipclab.plan.scenario import StatSettings
    rng = np.random.default_rng(5)
    def record(slow):
        rounds, entries = {}, []
        for r in (1, 2):
            parts = [rng.normal(100 * (slow if h == 2 else 1), 3, 200) for h in range(3)]
            rounds[r] = np.concatenate(parts)
            entries.append({"round": r, "status": "ok", "burst": {"hosts": [
                {"host": f"ssh://h{h}", "ok": 200, "failed": 0} for h in range(3)]}})
        return {"id": "c", "pattern": "burst", "rounds": entries}, rounds
    same, rounds = record(1.0)
    case_stats.analyse(same, rounds, StatSettings())
    plain = case_stats.analyse({"id": "c", "pattern": "burst", "rounds": [
        {"round": r, "status": "ok"} for r in (1, 2)]}, rounds, StatSettings())
    assert [h["host"] for h in same["client_hosts"]] == ["ssh://h0", "ssh://h1", "ssh://h2"]
    assert all(abs(h["median_ns"] - 100) < 3 for h in same["client_hosts"])
    assert not [w for w in same["warnings"] if w["kind"] == "host-differs"]
    assert plain is not None and same["median_ci_low"] < 100 < same["median_ci_high"]
    slow, rounds = record(1.5)
    case_stats.analyse(slow, rounds, StatSettings())
    (warning,) = [w for w in slow["warnings"] if w["kind"] == "host-differs"]
    assert warning["text"].startswith("ssh://h2's median is 1.5")
    assert slow["median_ci_high"] - slow["median_ci_low"] > 20  # the hosts' spread, not samples'


class _Member:
    """A client host's peer that ends at the `ends`-th time it is asked whether it has, and is
    reaped (its pidfd closed) by that call."""
    def __init__(self, fd, ends):
        self._pidfd, self.asked, self.ends = fd, 0, ends

    @property
    def pidfd(self):
        return self._pidfd

    def exited(self):
        self.asked += 1
        if self.asked >= self.ends:
            self._pidfd = None
        return self.asked >= self.ends


def test_waiting_on_a_group_whose_last_member_ends_meanwhile_does_not_break():
    # The many-hosts run once died in select(): the group's pidfd, read twice around its
    # exited(), was None the second time, its last live member having ended in between.
    import os
    from ipclab.execute.peers import wait_any
    read_end, write_end = os.pipe()
    group = spread.ClientGroup([(None, _Member(None, 1), 0, 0), (None, _Member(read_end, 3), 0, 0)])
    try:
        assert wait_any([group], 0.01) == [group]
    finally:
        os.close(read_end)
        os.close(write_end)
