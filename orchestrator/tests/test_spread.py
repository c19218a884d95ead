"""A burst spread over client hosts (execute/spread.py): the split, the agreed release on each
host's clock, and the merge of the hosts' files into one client's, on one time line."""
import json
from types import SimpleNamespace

import numpy as np
import pytest

from ipclab.execute import spread
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


def test_connections_are_split_as_evenly_as_can_be():
    assert spread.split(1000, 5) == [200] * 5
    assert spread.split(1001, 3) == [334, 334, 333]
    assert spread.split(2, 3) == [1, 1, 0]


def test_each_host_gets_the_agreed_release_on_its_own_clock(tmp_path):
    started = []
    run = RunSettings(connections=5, connectors=200)

    def start_one(place, share, folder, extra):
        started.append((place.name, share.connections, share.connectors, folder.name, extra))
        return SimpleNamespace(exited=lambda: True, returncode=0)
    # our own clock answers the probes: the offset is about 0, so both releases about agree
    group = spread.start([FakePlace("ssh://a"), FakePlace("ssh://b")], run, tmp_path,
                         start_one)
    (a, b) = started
    assert (a[:4], b[:4]) == (("ssh://a", 3, 3, "host0"), ("ssh://b", 2, 2, "host1"))
    release_a, release_b = int(a[4][1]), int(b[4][1])
    assert a[4][0] == "--release-at" and abs(release_a - release_b) < 50_000_000
    assert len(group.members) == 2 and group.returncode == 0
    with pytest.raises(PeerError, match="client host ssh://c did not answer the clock probes"):
        spread.start([FakePlace("ssh://c", clock=("true",))], run, tmp_path / "x",
                     start_one)


def test_the_hosts_files_merge_on_the_agreed_time_line(tmp_path):
    # host a released 1 ms late (its monotonic release at 5000), host b on time (at 900)
    _host(tmp_path / "host0", release=5_000, late=1_000_000,
          rows=[(5_100, 40, ""), (5_300, 50, "refused")])
    _host(tmp_path / "host1", release=900, late=0, rows=[(1_000, 30, "")])
    group = spread.ClientGroup([(FakePlace("ssh://a"), None, 7, 2), (FakePlace("ssh://b"), None,
                                                                      -3, 1)])
    spread.merge(group, tmp_path)
    result = json.loads((tmp_path / "result.json").read_text())
    assert (result["connections"], result["connections_ok"], result["connections_failed"]) == (3, 2, 1)
    assert result["errors"] == {"refused": 1} and "release_ns" not in result
    assert result["burst_ns"] == 1_000_000 + 350  # a ends 350 ns after its release, 1 ms late
    lines = (tmp_path / "records.csv").read_text().splitlines()
    assert lines[0].endswith(",host,start_ns")
    starts = [(line.split(",")[-2], int(line.split(",")[-1])) for line in lines[1:]]
    assert starts == [("ssh://b", 100), ("ssh://a", 1_000_100), ("ssh://a", 1_000_300)]
    assert [line.split(",")[0] for line in lines[1:]] == ["0", "1", "2"]
    assert list(np.fromfile(tmp_path / "samples.i64", dtype="<i8")) == [30, 40]
    a, b = result["hosts"]
    assert (a["host"], a["clock_offset_ns"], a["first_start_ns"], a["start_spread_ns"]) == (
        "ssh://a", 7, 1_000_100, 200)


def test_a_host_without_a_result_fails_the_merge_naming_it(tmp_path):
    _host(tmp_path / "host0", release=0, late=0, rows=[(10, 5, "")])
    (tmp_path / "host1").mkdir()
    spread.merge(spread.ClientGroup([(FakePlace("ssh://a"), None, 0, 0),
                                     (FakePlace("ssh://b"), None, 0, 0)]), tmp_path)
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["status"] == "error" and result["error"].startswith("client on ssh://b: no result")


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
