"""Wire bytes (wire.py): the per-call arithmetic, the record's columns, and a real tcp case whose
counters are checked against a tcpdump capture taken in the same namespace."""
import os
import shutil
import socket
import struct
import subprocess
from types import SimpleNamespace

import pytest

from ipclab.plan import matrix
from ipclab.execute import wire
from ipclab.output import csv as export_csv
from ipclab.output.page import Page
from ipclab.execute.runner import Runner
from ipclab.plan.scenario import build_scenario
from ipclab.execute.workspace import Workspace
from ipclab.records.fields import WIRE_FIELDS


def to_csv(records):
    return export_csv.render(Page("", records=records))


def _counts(req, resp, req_conn=(0, 0), resp_conn=(0, 0)):
    return {"req": list(req), "resp": list(resp), "req_conn": list(req_conn),
            "resp_conn": list(resp_conn)}


def test_per_call_takes_the_calibration_pair_away():
    # 1000 calls of 92 B each way over 2 packets, on top of 2000 B of set-up, warm-up, tear-down.
    total = _counts((1000 + 10, 92_000 + 2000), (1000 + 8, 92_000 + 1500), (3, 180), (2, 120))
    calibration = _counts((1 + 10, 92 + 2000), (1 + 8, 92 + 1500), (3, 180), (2, 120))
    figures = wire.per_call(total, calibration, 1000)
    assert (figures["req_bytes"], figures["resp_bytes"], figures["packets"]) == (92, 92, 2)
    assert figures["conn_bytes"] == 0
    assert wire.per_call(total, calibration, 1) is None


def test_record_columns_are_the_median_of_rounds_with_the_payload_beside():
    rounds = [{"status": "ok", "wire": {"req_bytes": b, "resp_bytes": 92, "packets": 2,
                                        "conn_bytes": 0}} for b in (92, 94, 93)]
    record = {"pattern": "rr", "payload": "bytes", "request_size": 16, "response_size": 16,
              "message_size": None, "rounds": rounds}
    figures = wire.record_figures(record)
    assert figures["wire_req_bytes"] == 93 and figures["wire_packets_per_call"] == 2
    assert (figures["app_req_bytes"], figures["app_resp_bytes"]) == (16, 16)
    assert figures["wire_conn_bytes"] is None   # only short has connections per call
    structured = wire.record_figures({**record, "payload": "small"})
    assert structured["app_req_bytes"] is None and structured["wire_req_bytes"] == 93
    header = to_csv([{**record, **figures, "id": "x"}]).splitlines()[0].split(",")
    assert header[header.index("wire_req_bytes"):][:6] == list(WIRE_FIELDS)
    assert "wire_req_bytes" not in to_csv([{"id": "x"}]).splitlines()[0]


needs_capture = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("tcpdump") or not shutil.which("nft"),
    reason="needs root, tcpdump and nftables (scripts/setup-system installs them)")


@needs_capture
@pytest.mark.parametrize("link,device", [("veth", "ipclab0"), ("loopback", "lo")])
def test_counters_equal_a_tcpdump_capture(catalog, monkeypatch, tmp_path, link, device):
    """Every pair the runner counts is also captured with tcpdump in the counting namespace: the
    kernel's counters must equal the capture's sums, direction by direction, and ipclab's
    per-call figure the captures' difference over N − 1 calls."""
    iterations = 200
    raw = {"matrix": {"mechanism": ["tcp"], "client": ["cpp"], "server": ["cpp"],
                      "request_size": ["16"], "response_size": ["16"], "placement": ["unpinned"]},
           "run": {"iterations": iterations, "warmup": 20, "rounds": 1, "link": link,
                   "wire_bytes": True}}
    scenario = build_scenario(raw, "t.toml", catalog, {}, "t")
    (case,) = matrix.expand(scenario, catalog)
    if case.skip_status:
        pytest.skip(f"{case.skip_status}: {case.skip_reason}")
    captures = []
    original = wire.Counters.around

    def captured(counters, run_pair):
        pcap = tmp_path / f"pair{len(captures)}.pcap"
        dump = subprocess.Popen(["ip", "netns", "exec", counters.place.netns, "tcpdump", "-i", device,
                                 "-n", "--immediate-mode", "-U", "-s", "96", "-w", str(pcap), "ip"],
                                stderr=subprocess.PIPE, text=True)
        assert "listening on" in dump.stderr.readline()
        try:
            outcome = original(counters, run_pair)
        finally:
            dump.terminate()
            dump.wait(10)
        server = _server_address(counters.place.netns)
        captures.append((_sums(pcap, server), outcome.wire_total))
        return outcome

    monkeypatch.setattr(wire.Counters, "around", captured)
    with Workspace() as ws:
        outcome = Runner(scenario, catalog, ws).run(case)
    assert outcome.status == "ok", outcome.reason
    assert len(captures) == 2      # the measured pair and the calibration pair
    for sums, counted in captures:
        assert (counted["req"], counted["resp"]) == (sums["req"], sums["resp"])
    (measured, _), (calibration, _) = captures
    per_call = {d: (measured[d][1] - calibration[d][1]) / (iterations - 1) for d in ("req", "resp")}
    assert outcome.wire["req_bytes"] == per_call["req"]
    assert outcome.wire["resp_bytes"] == per_call["resp"]
    # docs/wire.md: 20 (IP) + 32 (TCP with timestamps) + 24 (frame header) + 16 (payload) = 92 B
    # each way, and the ACK of each rides on the next data segment: 2 packets per call.
    assert (per_call["req"], per_call["resp"], outcome.wire["packets"]) == (92, 92, 2)


def _server_address(netns):
    """The server's address in the counting namespace's table (the ruleset names it)."""
    text = subprocess.run(["ip", "netns", "exec", netns, "nft", "list", "chain", "ip", "ipclab",
                           "out"], capture_output=True, text=True, check=True).stdout
    return next(w for line in text.splitlines() if "daddr" in line
                for w in [line.split("daddr", 1)[1].split()[0]])


def _sums(pcap, server):
    """[packets, IP total length] per direction in a pcap of Ethernet frames (libpcap format)."""
    data = pcap.read_bytes()
    magic = struct.unpack_from("<I", data)[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), f"not a little-endian pcap: {magic:#x}"
    server_ip = socket.inet_aton(server)
    sums = {"req": [0, 0], "resp": [0, 0]}
    at = 24
    while at < len(data):
        _, _, incl, _ = struct.unpack_from("<IIII", data, at)
        frame = data[at + 16: at + 16 + incl]
        at += 16 + incl
        if frame[12:14] != b"\x08\x00":
            continue
        length = struct.unpack_from("!H", frame, 14 + 2)[0]
        src, dst = frame[14 + 12: 14 + 16], frame[14 + 16: 14 + 20]
        direction = "req" if dst == server_ip else "resp" if src == server_ip else None
        if direction:
            sums[direction][0] += 1
            sums[direction][1] += length
    return sums


def _counted(index, mechanism, payload, length, req, resp):
    return {"index": index, "mechanism": mechanism, "client": "python", "server": "java",
            "placement": "cross-core", "pattern": "rr", "payload": payload,
            "sequence_length": length, "request_size": 0, "response_size": 0,
            "message_size": None, "wire_req_bytes": req, "wire_resp_bytes": resp,
            "wire_packets_per_call": 2.0, "app_req_bytes": None, "app_resp_bytes": None}


def test_the_wire_table_groups_by_shape_leanest_first_and_ranks():
    from ipclab.output import markdown
    from ipclab.output import wire as view
    records = [_counted(1, "grpc", "small", 5, 150, 90), _counted(2, "ice", "small", 5, 120, 80),
               _counted(3, "thrift-binary", "small", 5, 160, 95),
               _counted(4, "thrift-compact", "small", 5, 110, 75),
               _counted(5, "grpc", "small", 300, 1500, 90), _counted(6, "ice", "small", 300, 1200, 80),
               _counted(7, "thrift-binary", "small", 300, 1900, 95),
               _counted(8, "thrift-compact", "small", 300, 1450, 75),
               {"index": 9, "mechanism": "uds", "status": "ok"}]
    table = view.rows(records)
    assert [row[2] for row in table[:4]] == ["thrift-compact", "ice", "grpc", "thrift-binary"]
    assert table[0][1:7] == ("small ×5", "thrift-compact", "python→java", "110", "75", "185")
    assert view.ranking(records) == [
        "leanest ice in 1 of 2, thrift-compact in 1 of 2; heaviest thrift-binary in 2 of 2",
        "sequences of 5: leanest thrift-compact in 1 of 1; heaviest thrift-binary in 1 of 1",
        "sequences of 300: leanest ice in 1 of 1; heaviest thrift-binary in 1 of 1"]
    # the middleware study's conclusions are its scenario's claims, not words of this table
    text = markdown.render(Page("t", tuple(view.sections(SimpleNamespace(records=records)))))
    assert text.startswith("# t\n\n## bytes on the wire per call")
    assert "| 6 | small ×300 | ice | python→java | 1200 | 80 | 1280 | 2 | - |" in text
    assert view.sections(SimpleNamespace(records=[records[-1]])) == []


def test_a_cases_settings_name_its_row_and_keep_it_out_of_the_others_group():
    from ipclab.output import wire as view
    persistent = {**_counted(2, "activemq", None, 0, 310, 244), "settings": {"delivery": "persistent"}}
    plain = {**_counted(1, "activemq", None, 0, 290, 224),
             "settings": {"delivery": "non-persistent"}}
    table = view.rows([persistent, plain])
    assert [row[2] for row in table] == ["activemq non-persistent", "activemq persistent"]
    assert view.ranking([persistent, plain]) == []  # two groups of one: nothing compared
