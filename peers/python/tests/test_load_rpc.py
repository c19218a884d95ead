"""Pattern load over the RPC mechanisms (PROTOCOL.md 11.5.4): the load client against this
peer's load server of each framework in each configuration (records, samples, result agree;
`finish` summed), a flipped response, a server killed mid-load, a framework error, and the
usage and unsupported errors of both roles.

The stubs must have been generated (peers/python/generate_rpc.py, run by `make setup`)."""
import csv
import importlib
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from peers import PEER, describe, peer_env, run_peer
from test_load import SEED, check_consistent, drive_load, load_server
from test_rpc import stand_in_rest

from ipclab_peer import cli, payload
from ipclab_peer.errors import UsageError
from ipclab_peer.load import schedule
from ipclab_peer.load.records import HEADER
from ipclab_peer.mechanisms import MECHANISMS
from ipclab_peer.rpc import GENERATED

FRAMEWORKS = ["grpc", "rest", "thrift-binary", "thrift-compact", "ice", "corba"]
MODULES = {"grpc": "grpc_rpc", "rest": "rest", "thrift-binary": "thrift_rpc",
           "thrift-compact": "thrift_rpc", "ice": "ice_rpc", "corba": "corba"}
CONFIGURATIONS = [(name, model) for name in FRAMEWORKS
                  for model in MECHANISMS[name].load_models]
# The brief run of every case: 2 clients, 200 req/s, 300 ms (60 requests).
CLIENTS, RATE, DURATION = 2, 200, 300


def rpc_server(mechanism, model, *extra):
    return load_server(mechanism, "127.0.0.1:0", model, *extra)


@pytest.mark.parametrize("mechanism,model", CONFIGURATIONS, ids="-".join)
def test_a_load_run_against_each_configuration_agrees_with_itself(mechanism, model, workdir):
    with rpc_server(mechanism, model) as server:
        assert (server.ready["server_model"], server.ready["mechanism"]) == (model, mechanism)
        done, records, result, samples = drive_load(workdir, mechanism, server.endpoint,
                                                    CLIENTS, RATE, DURATION)
        assert server.proc.poll() is None
        assert server.stop() == 0
    assert done.returncode == 0 and done.stderr == "", describe(done)
    assert (result["status"], result["pattern"], result["mechanism"], result["clients"],
            result["rate"], result["duration_ms"]) == ("ok", "load", mechanism, CLIENTS, RATE,
                                                       DURATION)
    plan = schedule.schedule(SEED, RATE, "fixed", 0, DURATION)
    rows = check_consistent(records, result, samples, CLIENTS, plan)
    assert not any(r["error"] for r in rows) and result["errors"] == {}
    assert result["requests_ok"] == plan.measured == len(samples) == 60


@pytest.mark.parametrize("mechanism", ["grpc", "rest"])
def test_poisson_with_a_warmup_and_other_sizes(mechanism, workdir):
    with rpc_server(mechanism, MECHANISMS[mechanism].load_models[-1]) as server:
        done, records, result, samples = drive_load(
            workdir, mechanism, server.endpoint, 3, 300, 200, "--arrival", "poisson",
            "--warmup-ms", "50", "--request-size", "3", "--response-size", "5000")
    assert done.returncode == 0, describe(done)
    plan = schedule.schedule(SEED, 300, "poisson", 50, 200)
    check_consistent(records, result, samples, 3, plan)
    assert plan.warmup and result["requests_ok"] == plan.measured


@pytest.mark.parametrize("mechanism", FRAMEWORKS)
def test_a_flipped_response_is_a_payload_mismatch_record(mechanism, workdir):
    """Every response is flipped: every request is a payload-mismatch, none ends its
    connection (no not-sent), and the client exits 3 after writing its files."""
    model = MECHANISMS[mechanism].load_models[0]
    with rpc_server(mechanism, model, "--fault", "flip-response-byte") as server:
        done, records, result, samples = drive_load(workdir, mechanism, server.endpoint,
                                                    CLIENTS, RATE, 100)
    assert done.returncode == 3, describe(done)
    assert done.stderr.startswith("ipclab-peer: payload-mismatch: ")
    rows = check_consistent(records, result, samples, CLIENTS,
                            schedule.schedule(SEED, RATE, "fixed", 0, 100))
    assert {r["error"] for r in rows} == {"payload-mismatch"}
    assert all(r["received_ns"] for r in rows) and samples == []
    assert (result["status"], result["error_kind"]) == ("error", "payload-mismatch")


@pytest.mark.parametrize("mechanism", ["grpc", "rest", "thrift-binary"])
def test_a_server_killed_mid_load_leaves_dead_connections_not_a_hang(mechanism, workdir):
    files = [str(Path(workdir) / name) for name in ("s.bin", "r.csv", "res.json")]
    with rpc_server(mechanism, MECHANISMS[mechanism].load_models[0]) as server:
        client = subprocess.Popen(
            PEER + ["drive", "--pattern", "load", "--mechanism", mechanism, "--endpoint",
                    server.endpoint, "--clients", "2", "--rate", "100", "--duration-ms",
                    "4000", "--io-timeout", "5", "--seed", str(SEED),
                    "--samples-file", files[0], "--records-file", files[1],
                    "--result-file", files[2]],
            env=peer_env(), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_for_connections(int(server.endpoint.rsplit(":", 1)[1]), 2)
        time.sleep(0.3)  # the schedule starts once both are made: ~30 requests by now
        server.proc.kill()
        started = time.monotonic()
        stderr = client.communicate(timeout=30)[1]
    assert time.monotonic() - started < 10  # the rest of the schedule was not sent
    assert client.returncode == 0, stderr
    rows = list(csv.DictReader(Path(files[1]).read_text().splitlines()))
    for connection in ("0", "1"):
        errors = [r["error"] for r in rows if r["connection"] == connection]
        dead = next(i for i, error in enumerate(errors) if error)
        assert errors[dead] in ("reset", "eof", "io"), errors
        assert set(errors[dead + 1:]) <= {"not-sent"} and "" not in errors[dead:]
        assert dead > 0, "the server was killed before the first request"


def wait_for_connections(port, count, within=30):
    """Until the client has `count` connections to the server (its start-up takes a second
    or more on a busy machine)."""
    deadline = time.monotonic() + within
    while established_to(port) < count:
        assert time.monotonic() < deadline, "the client did not connect"
        time.sleep(0.02)


def test_finish_counts_of_every_connection_are_summed(workdir):
    """A stand-in rest server answers every call correctly and each `finish` with 1: the
    client adds them up and fails with payload mismatch after writing every file."""
    def answer(path, headers, body):
        if path == "/finish":
            return 200, b'{"corrupted": 1}', "application/json"
        sequence = int(path.split("/")[2].split("?")[0])
        return 200, payload.payload(SEED, payload.RESPONSE_STREAM, sequence, 16)

    with stand_in_rest(answer) as endpoint:
        done, records, result, samples = drive_load(workdir, "rest", endpoint, 3, RATE, 50)
    assert done.returncode == 3, describe(done)
    assert "server received 3 corrupted request payloads" in done.stderr
    rows = check_consistent(records, result, samples, 3,
                            schedule.schedule(SEED, RATE, "fixed", 0, 50))
    assert not any(r["error"] for r in rows) and len(samples) == 10


def test_an_error_from_the_server_is_a_protocol_record_that_ends_its_connection(workdir):
    def answer(path, headers, body):
        if path == "/finish":
            return 200, b'{"corrupted": 0}', "application/json"
        sequence = int(path.split("/")[2].split("?")[0])
        if sequence == 2:
            return 500, b"no"
        return 200, payload.payload(SEED, payload.RESPONSE_STREAM, sequence, 16)

    with stand_in_rest(answer) as endpoint:
        done, records, result, samples = drive_load(workdir, "rest", endpoint, 2, RATE, 50)
    assert done.returncode == 4 and "HTTP 500" in done.stderr, describe(done)
    rows = check_consistent(records, result, samples, 2,
                            schedule.schedule(SEED, RATE, "fixed", 0, 50))
    errors = [r["error"] for r in rows]
    assert errors[2] == "protocol" and {errors[k] for k in range(4, 10, 2)} == {"not-sent"}
    assert not any(errors[k] for k in range(1, 10, 2))
    assert (result["status"], result["error_kind"]) == ("error", "protocol")


def test_a_call_over_io_timeout_is_a_timeout_record_that_ends_its_connection(workdir):
    """A listener that never accepts: thrift's connects complete (the kernel's backlog), its
    calls get no answer within --io-timeout."""
    files = {name: str(Path(workdir) / name) for name in ("s", "r.csv", "res.json")}
    with socket.create_server(("127.0.0.1", 0)) as silent:
        done = run_peer(["drive", "--pattern", "load", "--mechanism", "thrift-binary",
                         "--endpoint", "127.0.0.1:%d" % silent.getsockname()[1],
                         "--clients", "2", "--rate", "100", "--duration-ms", "50",
                         "--io-timeout", "0.5", "--samples-file", files["s"],
                         "--records-file", files["r.csv"], "--result-file", files["res.json"]])
    assert done.returncode == 0, describe(done)
    rows = list(csv.DictReader(Path(files["r.csv"]).read_text().splitlines()))
    assert [r["error"] for r in rows] == ["timeout"] * 2 + ["not-sent"] * 3
    assert rows[0]["sent_ns"] and not rows[0]["received_ns"]
    result = json.loads(Path(files["res.json"]).read_text())
    assert (result["status"], result["errors"]) == ("ok", {"timeout": 2, "not-sent": 3})


def test_a_refused_connect_ends_the_case_as_io(workdir):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
    done, records, result, samples = drive_load(workdir, "grpc", f"127.0.0.1:{port}", 2,
                                                RATE, 10)
    assert done.returncode == 5, describe(done)
    assert (result["status"], result["error_kind"], result["clients"]) == ("error", "io", 2)
    assert records == "" or records == HEADER


@pytest.mark.parametrize("mechanism", FRAMEWORKS)
def test_each_framework_module_maps_the_configurations_capabilities_lists(mechanism):
    if str(GENERATED) not in sys.path:
        sys.path.append(str(GENERATED))
    module = importlib.import_module(f"ipclab_peer.rpc.{MODULES[mechanism]}")
    assert tuple(module.SERVER_MODELS) == MECHANISMS[mechanism].load_models


@pytest.mark.parametrize("args", [
    ["--workers", "2"], ["--backlog", "9"], ["--fault", "stall"], ["--fault", "capacity:100"],
    ["--server-model", "epoll"]])
@pytest.mark.parametrize("mechanism", ["grpc", "rest"])
def test_rpc_load_server_unsupported(mechanism, args):
    flags = {"--server-model": "asyncio" if mechanism == "rest" else "thread-pool-4",
             **dict([args])}
    done = run_peer(["serve", "--pattern", "load", "--mechanism", mechanism, "--endpoint",
                     "127.0.0.1:0", *[x for pair in flags.items() for x in pair]])
    assert done.returncode == 7 and done.stderr.count("\n") == 1, describe(done)
    assert done.stdout == ""


@pytest.mark.parametrize("name,value", [
    ("--void", None), ("--payload", "small"), ("--payload", "bytes"), ("--iterations", "3"),
    ("--warmup", "1"), ("--sequence-length", "5"), ("--corba-payload", "string"),
    ("--corba-payload", "octets"), ("--one-way", None), ("--warmup-samples-file", "w")])
@pytest.mark.parametrize("mechanism", ["grpc", "rest", "corba"])
def test_rpc_load_usage_errors(mechanism, name, value):
    endpoint = "IOR:00" if mechanism == "corba" else "127.0.0.1:1"
    argv = ["drive", "--pattern", "load", "--mechanism", mechanism, "--endpoint", endpoint,
            "--clients", "2", "--rate", "10", "--duration-ms", "10", "--records-file", "r",
            "--samples-file", "s", "--result-file", "x", name] + ([value] if value else [])
    with pytest.raises(UsageError):
        cli.parse(argv)


def test_the_rr_server_is_unchanged_without_pattern_load(workdir):
    from peers import Server
    with Server("grpc", "127.0.0.1:0") as server:
        assert "server_model" not in server.ready
        done = run_peer(["drive", "--mechanism", "grpc", "--endpoint", server.endpoint,
                         "--request-size", "8", "--response-size", "8", "--iterations", "3",
                         "--samples-file", str(Path(workdir) / "s"),
                         "--result-file", str(Path(workdir) / "r")])
    assert done.returncode == 0, describe(done)


# 127.0.0.1 in /proc/net/tcp, and as an IPv4-mapped address in /proc/net/tcp6 (grpc's
# sockets are IPv6 ones).
LOOPBACK = {"tcp": "0100007F", "tcp6": "0000000000000000FFFF00000100007F"}


def established_to(port):
    """Client-side TCP connections to 127.0.0.1:`port` now (ESTABLISHED, from /proc)."""
    count = 0
    for table, address in LOOPBACK.items():
        rows = Path("/proc/net", table).read_text().splitlines()[1:]
        count += sum(1 for row in rows
                     if row.split()[2] == f"{address}:{port:04X}" and row.split()[3] == "01")
    return count


@pytest.mark.parametrize("mechanism", ["grpc", "rest", "thrift-binary", "ice"])
def test_each_load_connection_has_a_transport_connection_of_its_own(mechanism):
    """11.5.4: C client objects, C connections (gRPC's equal channels would share one
    without a subchannel pool of their own; Ice's proxies without a connection id each)."""
    with rpc_server(mechanism, MECHANISMS[mechanism].load_models[0]) as server:
        _, config = cli.parse(["drive", "--pattern", "load", "--mechanism", mechanism,
                               "--endpoint", server.endpoint, "--clients", "3", "--rate", "10",
                               "--duration-ms", "10", "--records-file", "r",
                               "--samples-file", "s", "--result-file", "x"])
        port = int(server.endpoint.rsplit(":", 1)[1])
        with MECHANISMS[mechanism].connect_each(config.endpoint, config, 3) as made:
            assert len(made.clients) == 3
            assert established_to(port) == 3
