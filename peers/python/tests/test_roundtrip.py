"""Our client against our server over every mechanism, as separate processes."""
import struct

import pytest
from peers import Drive, describe, serving

MiB = 1 << 20
MAX_PAYLOAD = 128 * MiB
STREAMS = ["tcp", "uds", "pipe", "fifo"]
MECHANISMS = STREAMS + ["udp"]

SIZES = {
    # (request size, response size): empty payloads, payloads shorter than the 8-byte stamp,
    # the usual small case, and large or asymmetric ones that take many reads.
    "stream": [(0, 0), (3, 16), (16, 16), (64 * 1024, MiB), (MiB, 0)],
    "udp": [(0, 0), (3, 16), (16, 16), (65483, 65483), (65483, 0)],
}


def cases():
    for mechanism in MECHANISMS:
        for sizes in SIZES["udp" if mechanism == "udp" else "stream"]:
            yield pytest.param(mechanism, *sizes, id=f"{mechanism}-{sizes[0]}-{sizes[1]}")


def check_ok(run, mechanism, request_size, response_size, iterations, warmup=0):
    assert run.returncode == 0, describe(run)
    assert run.stderr == ""
    result = run.result
    assert result["schema"] == "ipclab.peer-result/1"
    assert (result["status"], result["error_kind"], result["error"]) == ("ok", None, None)
    assert result["language"] == "python" and result["runtime"].startswith("CPython ")
    assert result["mechanism"] == mechanism and result["pattern"] == "rr"
    assert (result["request_size"], result["response_size"]) == (request_size, response_size)
    assert (result["warmup"], result["iterations"]) == (warmup, iterations)
    assert result["samples"] == iterations and result["clock"] == "CLOCK_MONOTONIC"
    samples = struct.unpack(f"<{iterations}q", run.samples)
    assert all(0 < sample < 10**10 for sample in samples)


@pytest.mark.parametrize("mechanism,request_size,response_size", cases())
def test_round_trips(mechanism, request_size, response_size, workdir):
    with serving(mechanism, workdir, "--seed", "77") as case:
        run = Drive(workdir, mechanism, case.endpoint, request_size, response_size,
                    iterations=4, extra=["--warmup", "2", "--seed", "77"],
                    pass_fds=case.client_fds)
        check_ok(run, mechanism, request_size, response_size, 4, warmup=2)
        assert case.server.drain_stderr() == []


@pytest.mark.parametrize("mechanism", ["tcp", "udp", "uds", "fifo"])
def test_server_serves_clients_one_after_another(mechanism, workdir):
    with serving(mechanism, workdir) as case:
        for _ in range(3):
            run = Drive(workdir, mechanism, case.endpoint, 16, 16, iterations=20)
            check_ok(run, mechanism, 16, 16, 20)
        assert case.server.stop() == 0


def test_pipe_server_exits_0_when_its_client_is_done(workdir):
    with serving("pipe", workdir) as case:
        run = Drive(workdir, "pipe", case.endpoint, 16, 16, iterations=3,
                    pass_fds=case.client_fds)
        check_ok(run, "pipe", 16, 16, 3)
        case.release_client_fds()
        assert case.server.proc.wait(10) == 0


@pytest.mark.parametrize("mechanism", ["tcp", "pipe"])
def test_maximum_payload_both_ways(mechanism, workdir):
    with serving(mechanism, workdir) as case:
        run = Drive(workdir, mechanism, case.endpoint, MAX_PAYLOAD, MAX_PAYLOAD,
                    iterations=1, pass_fds=case.client_fds)
        check_ok(run, mechanism, MAX_PAYLOAD, MAX_PAYLOAD, 1)


@pytest.mark.parametrize("mechanism,response_size", [
    # Sizes up to 8 have their last byte inside the stamp; larger ones outside it.
    ("tcp", 1), ("tcp", 8), ("tcp", MiB), ("udp", 16), ("udp", 65483), ("pipe", 9),
])
def test_flipped_response_byte_is_a_payload_mismatch(mechanism, response_size, workdir):
    with serving(mechanism, workdir, "--fault", "flip-response-byte") as case:
        run = Drive(workdir, mechanism, case.endpoint, 16, response_size, iterations=3,
                    extra=["--warmup", "1"], pass_fds=case.client_fds)
    assert run.returncode == 3, describe(run)
    assert run.stderr.count("\n") == 1
    assert run.stderr.startswith("ipclab-peer: payload-mismatch: payload mismatch")
    assert f"offset {response_size - 1}" in run.stderr
    assert run.result["status"] == "error"
    assert run.result["error_kind"] == "payload-mismatch"
    assert run.result["samples"] == 0 and run.samples == b""


def test_flip_leaves_empty_responses_alone(workdir):
    with serving("tcp", workdir, "--fault", "flip-response-byte") as case:
        run = Drive(workdir, "tcp", case.endpoint, 16, 0, iterations=3)
    check_ok(run, "tcp", 16, 0, 3)
