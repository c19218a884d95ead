"""Pattern burst's pure parts (burst.py, output/csv.py): the kernel counters' parser, one
round's phase values, the pooled summary with its t-interval, phases.csv and the Table 1 shape."""
import csv
import io

import pytest

from ipclab.analyse import burst
from ipclab.execute import burst as burst_round
from ipclab.output import csv as export_csv
from ipclab.output import study
from ipclab.output.page import Page

NETSTAT = """TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPSynRetrans
TcpExt: 0 17 19 4
IpExt: InNoRoutes
IpExt: 3
"""

SERVER = """conn_index,accept_ns,loop_ns,spawn_ns,start_delay_ns,transfer_ns,total_ns,accept_start_ns,worker,error
0,100,50,,,300,400,1000,0,
1,200,,,,500,600,2000,0,
2,300,,,,,,3000,0,lost
"""
CLIENT = """conn_index,process,connector,connect_start_ns,connect_ns,response_ns,total_ns,error,slow_connect
0,0,0,5,10,20,30,,0
1,0,1,6,2000000000,,2000000005,timeout,1
"""


def test_counters_are_read_by_name_from_header_and_value_lines():
    names = {"ListenOverflows": "listen_overflows", "ListenDrops": "listen_drops",
             "TCPSynRetrans": "syn_retrans"}
    assert burst_round.parse_counters(NETSTAT, names) == {
        "listen_overflows": 17, "listen_drops": 19, "syn_retrans": 4}


def test_counters_and_somaxconn_are_read_where_the_server_listens():
    class Namespace:  # a places.Place whose files are another namespace's
        def read_text(self, path):
            texts = {"/proc/net/netstat": NETSTAT, "/proc/sys/net/core/somaxconn": "512\n"}
            if path not in texts:
                raise OSError(path)
            return texts[path]
    assert burst_round.read_counters(Namespace()) == {
        "listen_overflows": 17, "listen_drops": 19, "syn_retrans": 4}
    assert burst_round.somaxconn(Namespace()) == 512


def test_a_round_gives_each_phase_the_connections_that_have_it():
    values = burst_round.phase_values(SERVER, CLIENT)
    assert values[("server", "accept")] == [100, 200, 300]
    assert values[("server", "loop")] == [50]
    assert values[("server", "total")] == [400, 600]
    assert ("server", "spawn") not in values          # the model has no spawn phase
    assert values[("client", "connect")] == [10]      # a failed connection's times are left out


def test_the_summary_pools_rounds_with_a_bootstrap_interval_of_the_mean():
    rounds = [{"values": {"server:accept": [100, 200]}}, {"values": {"server:accept": [300]}}]
    (row,) = burst.summarise(rounds)
    assert (row["side"], row["phase"], row["count"]) == ("server", "accept", 3)
    assert row["mean_ns"] == pytest.approx(200)
    assert 100 <= row["ci95_low_ns"] < 200 < row["ci95_high_ns"] <= 300
    assert row["max_ns"] == 300 and row["median_ns"] == 200
    assert burst.summarise(rounds) == [row]  # seeded: a report gives the same interval


def test_a_few_slow_connections_do_not_push_the_interval_below_zero():
    """2997 accepts of 4 µs and three 1 s SYN retransmissions: mean − t·s/√n would be negative."""
    values = [4_000] * 2997 + [1_000_000_000] * 3
    row = burst.describe(values)
    assert 0 < row["ci95_low_ns"] < row["mean_ns"] < row["ci95_high_ns"]


def record(model, status="ok", **extra):
    return {"id": f"0001-{model}", "index": 1, "pattern": "burst", "server_model": model,
            "client": "cpp", "server": "cpp", "status": status, "reason": None,
            "connections": 3, "conns_per_s": 1234.0, "connections_failed": 0,
            "listen_overflows": 2,
            "phases": [{"side": "server", "phase": "accept", "count": 3, "mean_ns": 2000.0,
                        "ci95_low_ns": 1000.0, "ci95_high_ns": 3000.0, "median_ns": 2000.0,
                        "p99_ns": 2900.0, "max_ns": 3000.0}], **extra}


def test_phases_csv_has_a_row_per_case_side_and_phase():
    rows = list(csv.DictReader(io.StringIO(export_csv.render_phases(Page("", records=[record("thread"), {"id": "x"}])))))
    assert [(r["case_id"], r["side"], r["phase"], r["mean_ns"]) for r in rows] == [
        ("0001-thread", "server", "accept", "2000.0")]
    assert list(rows[0]) == list(export_csv.PHASE_COLUMNS)


def test_the_table_has_phases_for_rows_and_models_for_columns():
    (table,) = study.server_models([record("thread"), record("epoll", status="failed")])
    assert table.headers == ("phase", "thread", "epoll")
    by_phase = {row[0]: row[1:] for row in table.rows}
    assert by_phase["accept"] == ["2 µs [1–3]", "failed"]
    assert by_phase["spawn"] == ["—", "failed"]
    assert by_phase["conns/s"] == ["1234", "1234"]
