"""Pattern load (PROTOCOL.md 11.5): the schedule against the vectors, the client against this
peer's load server on every model (records, samples and result agree), the client's errors as
results, the usage errors, and the server's per-connection rr exchange."""
import csv
import json
import socket
import struct
import threading
from pathlib import Path

import pytest
from peers import Server, describe, load_vectors, run_peer
from test_server import request, tcp_address

from ipclab_peer import cli, frame, payload
from ipclab_peer.burst.models import MODELS
from ipclab_peer.errors import UsageError
from ipclab_peer.load import schedule
from ipclab_peer.load.records import HEADER

SEED = 5
COLUMNS = HEADER.strip().split(",")


@pytest.mark.parametrize("vector", load_vectors()["load_schedules"],
                         ids=lambda v: f"{v['arrival']}-{v['rate']}-{v['seed']}")
def test_schedule_matches_the_vectors_within_a_nanosecond(vector):
    long_enough = vector["count"] * 4000 // vector["rate"] + 10  # ms; poisson: ample
    plan = schedule.schedule(vector["seed"], vector["rate"], vector["arrival"], 0, long_enough)
    got = list(plan.offsets[:vector["count"]])
    assert len(got) == vector["count"]
    assert all(abs(a - b) <= 1 for a, b in zip(got, vector["offsets_ns"])), got


def test_schedule_splits_warmup_and_measured_at_the_warmup_time():
    plan = schedule.schedule(1, 3, "fixed", 1000, 1000)  # 0, 333, 666 | 1000, 1333, 1666 ms
    assert (list(plan.offsets), plan.warmup, plan.measured) == (
        [0, 333333333, 666666666, 1000000000, 1333333333, 1666666666], 3, 3)
    poisson = schedule.schedule(9, 5000, "poisson", 10, 30)
    assert all(o < 40 * 10**6 for o in poisson.offsets)
    assert poisson.offsets[poisson.warmup - 1] < 10**7 <= poisson.offsets[poisson.warmup]


def load_server(mechanism, endpoint, model, *extra):
    return Server(mechanism, endpoint, "--pattern", "load", "--server-model", model,
                  "--seed", str(SEED), *extra)


def drive_load(workdir, mechanism, endpoint, clients=2, rate=2000, duration=200, *extra,
               io_timeout="10"):
    files = {name: Path(workdir) / name for name in ("samples.bin", "records.csv", "result.json")}
    done = run_peer(["drive", "--pattern", "load", "--mechanism", mechanism, "--endpoint",
                     endpoint, "--clients", str(clients), "--rate", str(rate), "--duration-ms",
                     str(duration), "--seed", str(SEED), "--io-timeout", io_timeout,
                     "--samples-file", str(files["samples.bin"]),
                     "--records-file", str(files["records.csv"]),
                     "--result-file", str(files["result.json"]), *extra])
    records = files["records.csv"].read_text() if files["records.csv"].exists() else ""
    result = json.loads(files["result.json"].read_text())
    samples = files["samples.bin"].read_bytes()
    return done, records, result, list(struct.unpack(f"<{len(samples) // 8}q", samples))


def check_consistent(records, result, samples, clients, plan):
    """The records file, the samples and the result say the same about the run."""
    assert records.startswith(HEADER)
    rows = list(csv.DictReader(records.splitlines()))
    assert [int(r["request"]) for r in rows] == list(range(len(plan.offsets)))
    assert [int(r["connection"]) for r in rows] == [k % clients for k in range(len(rows))]
    assert [int(r["intended_ns"]) for r in rows] == list(plan.offsets)
    assert [r["measured"] for r in rows] == ["0"] * plan.warmup + ["1"] * plan.measured
    ok = [r for r in rows if r["measured"] == "1" and not r["error"]]
    for r in rows:
        if r["sent_ns"] and r["received_ns"]:
            assert int(r["intended_ns"]) <= int(r["sent_ns"]) <= int(r["received_ns"])
    assert samples == [int(r["received_ns"]) - int(r["intended_ns"]) for r in ok]
    assert (result["iterations"], result["warmup"]) == (plan.measured, plan.warmup)
    assert result["requests_ok"] == len(ok) == result["samples"]
    assert result["requests_failed"] == plan.measured - len(ok) == sum(result["errors"].values())
    if ok:
        last = max(int(r["received_ns"]) for r in rows if r["measured"] == "1" and
                   r["received_ns"])
        span = last - result["warmup_ms"] * 10**6
        assert result["achieved_per_s"] == pytest.approx(len(ok) * 1e9 / span)
        late = sorted(int(r["sent_ns"]) - int(r["intended_ns"]) for r in rows
                      if r["measured"] == "1" and r["sent_ns"])
        assert result["lateness_p99_ns"] == late[-(-len(late) * 99 // 100) - 1]
    return rows


@pytest.mark.parametrize("model", sorted(MODELS))
def test_each_model_serves_a_load_run_whose_outputs_agree(model, workdir):
    with load_server("tcp", "127.0.0.1:0", model, "--workers", "2") as server:
        assert (server.ready["server_model"], server.ready["contract"]) == (model, 6)
        done, records, result, samples = drive_load(workdir, "tcp", server.endpoint, 2, 2000,
                                                    200, "--warmup-ms", "20")
        assert server.proc.poll() is None  # a load server runs until it is stopped
        assert server.stop() == 0
    assert done.returncode == 0, describe(done)
    assert (result["status"], result["pattern"], result["clients"], result["rate"],
            result["arrival"], result["duration_ms"], result["warmup_ms"]) == (
        "ok", "load", 2, 2000, "fixed", 200, 20)
    rows = check_consistent(records, result, samples, 2, schedule.schedule(SEED, 2000, "fixed",
                                                                          20, 200))
    assert not any(r["error"] for r in rows) and result["errors"] == {}


def test_poisson_over_uds_with_three_clients(workdir):
    with load_server("uds", str(Path(workdir) / "load.sock"), "asyncio") as server:
        done, records, result, samples = drive_load(workdir, "uds", server.endpoint, 3, 1500,
                                                    100, "--arrival", "poisson",
                                                    "--request-size", "3000",
                                                    "--response-size", "70000")
    assert done.returncode == 0, describe(done)
    check_consistent(records, result, samples, 3, schedule.schedule(SEED, 1500, "poisson", 0,
                                                                    100))
    assert not Path(server.endpoint).exists()


def fake_server(answers, flip=False):
    """A one-connection server that answers `answers` requests correctly (the last one's payload
    flipped if `flip`), then closes: the client's errors as results."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve():
        connection, _ = listener.accept()
        with connection, listener:
            for sequence in range(answers):
                head = connection.recv(24, socket.MSG_WAITALL)
                _, _, _, _, _, length, wanted = frame.HEADER.unpack(head)
                connection.recv(length, socket.MSG_WAITALL) if length else None
                body = bytearray(payload.payload(SEED, payload.RESPONSE_STREAM, sequence, wanted))
                body[-1] ^= flip and sequence == answers - 1
                connection.sendall(frame.encode_header(frame.RESPONSE, sequence, wanted,
                                                       length) + bytes(body))
    threading.Thread(target=serve, daemon=True).start()
    return "127.0.0.1:%d" % listener.getsockname()[1]


def test_a_dead_connection_is_recorded_and_its_remaining_requests_are_not_sent(workdir):
    done, records, result, samples = drive_load(workdir, "tcp", fake_server(3), 1, 1000, 10)
    assert done.returncode == 0, describe(done)
    rows = check_consistent(records, result, samples, 1, schedule.schedule(SEED, 1000, "fixed",
                                                                          0, 10))
    assert [r["error"] for r in rows[:4]] in (["", "", "", "eof"], ["", "", "", "reset"])
    assert {r["error"] for r in rows[4:]} == {"not-sent"}
    assert all(r["sent_ns"] == r["received_ns"] == "" for r in rows[4:])
    assert result["status"] == "ok" and result["requests_ok"] == 3


def test_a_response_that_fails_validation_fails_the_client_after_the_files(workdir):
    done, records, result, samples = drive_load(workdir, "tcp", fake_server(2, flip=True), 1,
                                                1000, 5)
    assert done.returncode == 3, describe(done)
    assert "payload mismatch" in done.stderr
    rows = check_consistent(records, result, samples, 1, schedule.schedule(SEED, 1000, "fixed",
                                                                          0, 5))
    assert [r["error"] for r in rows[:2]] == ["", "payload-mismatch"]
    assert (result["status"], result["error_kind"]) == ("error", "payload-mismatch")


def talk(sock, sequence, length, wanted, corrupt=False):
    body = bytearray(payload.payload(SEED, payload.REQUEST_STREAM, sequence, length))
    if corrupt:
        body[0] ^= 1
    data = request(sequence, bytes(body), wanted)
    for at in range(0, len(data), 7):  # in pieces: the reader waits for whole frames
        sock.sendall(data[at:at + 7])
    answer = sock.recv(24 + wanted, socket.MSG_WAITALL)
    return answer == frame.encode_header(frame.RESPONSE, sequence, wanted, length) + \
        payload.payload(SEED, payload.RESPONSE_STREAM, sequence, wanted)


@pytest.mark.parametrize("model", ["thread", "asyncio"])
def test_a_malformed_frame_closes_only_its_connection(model):
    with load_server("tcp", "127.0.0.1:0", model) as server:
        address = tcp_address(server.endpoint)
        with socket.create_connection(address, timeout=10) as good, \
                socket.create_connection(address, timeout=10) as bad:
            assert talk(good, 0, 100, 10) and talk(good, 1, 0, 3)
            bad.sendall(b"XPCL" + bytes(20))
            assert bad.recv(100) == b""
            assert server.stderr_line() == "ipclab-peer: rejected frame: bad magic"
            assert talk(good, 2, 50, 0, corrupt=True) and talk(good, 3, 8, 8)
            good.sendall(frame.encode_header(frame.END, 4, 0, 0))
            assert good.recv(32, socket.MSG_WAITALL) == frame.end_ack(4, 1)
            assert good.recv(1) == b""  # closed after END_ACK


@pytest.mark.parametrize("args", [["--fault", "stall"], ["--fault", "capacity:100"],
                                  ["--server-model", "epoll"]])
def test_load_server_unsupported(args):
    flags = {"--server-model": "thread", **dict([args])}
    done = run_peer(["serve", "--pattern", "load", "--mechanism", "tcp", "--endpoint",
                     "127.0.0.1:0", *[x for pair in flags.items() for x in pair]])
    assert done.returncode == 7 and done.stderr.count("\n") == 1, describe(done)


@pytest.mark.parametrize("args", [["--connections", "3"], ["--phases-file", "x"],
                                  ["--backlog", "9"], ["--fault", "capacity:0"]])
def test_load_server_usage_errors(args):
    with pytest.raises(UsageError):
        cli.parse(["serve", "--pattern", "load", "--mechanism", "tcp", "--endpoint",
                   "127.0.0.1:0", "--server-model", "thread", *args])


def load_argv(workdir, **changes):
    flags = {"--clients": "2", "--rate": "100", "--duration-ms": "10",
             "--records-file": str(Path(workdir) / "r.csv"), **changes}
    argv = ["drive", "--pattern", "load", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
            "--samples-file", "s", "--result-file", "r"]
    for name, value in flags.items():
        argv += [name] if value == "" else [] if value is None else [name, value]
    return argv


@pytest.mark.parametrize("name,value", [
    ("--iterations", "5"), ("--warmup", "1"), ("--payload", "bytes"), ("--windows", "2"),
    ("--warmup-samples-file", "x"), ("--void", ""), ("--one-way", ""), ("--clients", "0"),
    ("--clients", "1025"), ("--rate", "0"), ("--rate", "10000001"), ("--arrival", "uniform"),
    ("--duration-ms", "0"), ("--warmup-ms", "3600001"), ("--records-file", None),
])
def test_load_usage_errors(name, value, workdir):
    with pytest.raises(UsageError):
        cli.parse(load_argv(workdir, **{name: value}))


def test_a_usage_error_is_one_line_and_exit_2(workdir):
    done = run_peer(load_argv(workdir, **{"--clients": "0"}))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, describe(done)


@pytest.mark.parametrize("flag,value", [("--clients", "1"), ("--rate", "1"), ("--arrival", "fixed"),
                                        ("--duration-ms", "1"), ("--warmup-ms", "0"),
                                        ("--records-file", "x")])
def test_load_flags_are_usage_errors_with_another_pattern(flag, value):
    with pytest.raises(UsageError, match="not used with --pattern rr"):
        cli.parse(["drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
                   "--request-size", "1", "--response-size", "1", "--iterations", "1",
                   "--samples-file", "s", "--result-file", "r", flag, value])


def test_load_sizes_default_when_not_given(workdir):
    _, config = cli.parse(load_argv(workdir))
    assert (config.request_size, config.response_size, config.arrival, config.warmup_ms) == (
        16, 16, "fixed", 0)


def test_a_refused_connect_ends_the_case_as_io(workdir):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
    done, records, result, samples = drive_load(workdir, "tcp", f"127.0.0.1:{port}", 2, 100, 10)
    assert done.returncode == 5 and (result["status"], result["error_kind"]) == ("error", "io")
    assert samples == [] and result["clients"] == 2
