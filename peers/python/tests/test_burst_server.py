"""Pattern burst, server side (PROTOCOL.md 11.4): every model serves a burst from a plain
client thread pool and writes one complete record per connection; bad payloads and early
closes are recorded, not fatal; forked children never outlive the server."""
import csv
import os
import signal
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from peers import Server, run_peer
from test_server import request, tcp_address

from ipclab_peer import frame, payload
from ipclab_peer.burst.models import MODELS
from ipclab_peer.burst.record import HEADER

SEED = 7
SPAWNING = {"thread", "process", "thread-pool", "asyncio"}
POOLS = {"thread-pool", "process-pool"}


def burst_server(model, phases, connections, *extra):
    return Server("tcp", "127.0.0.1:0", "--server-model", model, "--connections",
                  str(connections), "--phases-file", str(phases), "--seed", str(SEED), *extra)


def expected_response(index, wanted, length):
    body = payload.payload(SEED, payload.RESPONSE_STREAM, index, wanted)
    return frame.encode_header(frame.RESPONSE, index, wanted, length) + body


def one_connection(address, index, length=1000, wanted=8, body=None):
    """The client side of 11.4's exchange; returns what the server sent before closing."""
    if body is None:
        body = payload.payload(SEED, payload.REQUEST_STREAM, index, length)
    with socket.create_connection(address, timeout=20) as sock:
        sock.sendall(request(index, body, wanted))
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def read_phases(path):
    text = Path(path).read_text()
    assert text.startswith(HEADER)
    return list(csv.DictReader(text.splitlines()))


def burst(address, connections, clients=20):
    with ThreadPoolExecutor(clients) as pool:
        return list(pool.map(lambda i: one_connection(address, i), range(connections)))


@pytest.mark.parametrize("model", sorted(MODELS))
def test_each_model_serves_a_burst_and_writes_every_phase_that_applies(model, workdir):
    phases = Path(workdir) / "phases.csv"
    server = burst_server(model, phases, 20, "--workers", "3")
    assert server.ready["server_model"] == model
    responses = burst(tcp_address(server.endpoint), 20)
    assert server.proc.wait(30) == 0, server.drain_stderr()
    server.stop()
    assert responses == [expected_response(i, 8, 1000) for i in range(20)]
    rows = read_phases(phases)
    assert [int(r["conn_index"]) for r in rows] == list(range(20))
    starts = [int(r["accept_start_ns"]) for r in rows]
    for row in rows:
        assert row["error"] == ""
        for phase in ("accept", "transfer", "total"):
            assert int(row[f"{phase}_ns"]) >= 0
        for phase in ("spawn", "start_delay"):
            assert (row[f"{phase}_ns"] != "") == (model in SPAWNING), (phase, row)
        assert int(row["total_ns"]) >= int(row["transfer_ns"])
        assert int(row["worker"]) in (range(3) if model in POOLS else (0,))
    # loop is empty only for an acceptor's last connection.
    assert sum(row["loop_ns"] == "" for row in rows) <= (3 if model == "process-pool" else 1)
    accepted = [s + int(r["accept_ns"]) for s, r in zip(starts, rows)]
    assert accepted == sorted(accepted)


def test_bad_payload_and_early_close_are_recorded_and_counted(workdir):
    phases = Path(workdir) / "phases.csv"
    server = burst_server("thread", phases, 3)
    address = tcp_address(server.endpoint)
    assert one_connection(address, 0) == expected_response(0, 8, 1000)
    assert one_connection(address, 1, body=b"\0" * 1000) == expected_response(1, 8, 1000)
    with socket.create_connection(address, timeout=20) as sock:
        sock.sendall(request(2, b"\0" * 10, 8)[:30])  # the header and 6 of 10 bytes
    assert server.proc.wait(30) == 0
    server.stop()
    rows = sorted(read_phases(phases), key=lambda r: r["conn_index"])
    assert [r["error"] for r in rows] == ["", "payload-mismatch", "eof"]
    assert rows[2]["transfer_ns"] == ""


def test_a_frame_other_than_request_is_a_protocol_error(workdir):
    phases = Path(workdir) / "phases.csv"
    server = burst_server("iterative", phases, 1)
    with socket.create_connection(tcp_address(server.endpoint), timeout=20) as sock:
        sock.sendall(frame.encode_header(frame.END, 0, 0, 0))
        assert sock.recv(100) == b""
    assert server.proc.wait(30) == 0
    assert server.stderr_line() == "ipclab-peer: rejected frame: unexpected kind"
    server.stop()
    assert read_phases(phases)[0]["error"] == "protocol"


def children_of(pid):
    """The running children (the first connection's `process` child may still be exiting)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return [c for c in found if running(c)]


def wait_for_children(pid, count, within=10.0):
    deadline = time.monotonic() + within
    while len(children_of(pid)) != count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def read_by_the_server(sock, within=10.0):
    """The server end of a loopback connection exists (accepted or not: /proc/net/tcp shows
    it once the handshake is done) and has nothing unread: its serving task holds it."""
    here, there = sock.getsockname()[1], sock.getpeername()[1]
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            local, remote, _, queues = line.split()[1:5]
            if (int(local.split(":")[1], 16), int(remote.split(":")[1], 16)) == (there, here):
                if int(queues.split(":")[1], 16) == 0:
                    return True
        time.sleep(0.02)
    return False


def running(pid):
    """Alive and not a zombie (a killed orphan waits for init to reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def gone(pids, within=10.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(running(p) for p in pids):
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("model", ["process", "process-pool"])
@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_children_end_with_the_server_however_it_ends(model, how, workdir):
    """A client holds a connection open (its child waits for the request); the server is
    signalled: SIGTERM ends and reaps the children and writes the file (the first connection
    answered just before it, the held one `lost`), SIGKILL lets PR_SET_PDEATHSIG take them
    down."""
    phases = Path(workdir) / "phases.csv"
    server = burst_server(model, phases, 5, "--workers", "2")
    address = tcp_address(server.endpoint)
    assert one_connection(address, 0) == expected_response(0, 8, 1000)
    workers = 2 if model == "process-pool" else 0
    assert wait_for_children(server.proc.pid, workers)  # the first `process` child is reaped
    held = socket.create_connection(address, timeout=20)
    try:
        held.sendall(request(1, b"\0" * 10, 8)[:30])  # the header and 6 of 10 bytes
        assert wait_for_children(server.proc.pid, workers or 1)  # the held one's child
        assert read_by_the_server(held), "the held connection's start was not read"
        children = children_of(server.proc.pid)
        assert all(os.getpgid(c) == os.getpgid(server.proc.pid) for c in children)
        server.proc.send_signal(getattr(signal, how))
        code = server.proc.wait(30)
        assert gone(children), f"children {children} outlived the server"
    finally:
        held.close()
        server.stop()
    if how == "SIGTERM":
        assert code == 0
        rows = read_phases(phases)
        assert rows[0]["error"] == ""
        assert [r["error"] for r in rows] == ["", "lost"]
    else:
        assert code == -signal.SIGKILL


@pytest.mark.parametrize("args,message", [
    (["--connections", "3"], "--connections is used only with --server-model"),
    # --backlog is the rr server's too since contract 6 (test_connection_conditions.py).
    (["--workers", "3"], "--workers is used only with --server-model"),
    (["--server-model", "thread", "--phases-file", "x"], "missing required flag --connections"),
    (["--server-model", "thread", "--connections", "1", "--phases-file", "x", "--workers", "0"],
     "--workers"),
])
def test_burst_flags_are_checked(args, message):
    done = run_peer(["serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0", *args])
    assert done.returncode == 2 and message in done.stderr


@pytest.mark.parametrize("mechanism,model", [("tcp", "epoll"), ("udp", "thread"),
                                             ("tcp", "nio"), ("nosuch", "thread")])
def test_a_model_or_mechanism_without_it_is_unsupported(mechanism, model, workdir):
    done = run_peer(["serve", "--mechanism", mechanism, "--endpoint", "127.0.0.1:0",
                     "--server-model", model, "--connections", "1",
                     "--phases-file", str(Path(workdir) / "p.csv")])
    assert done.returncode == 7, done.stderr
    assert "ipclab-peer: unsupported:" in done.stderr
