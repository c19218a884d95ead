"""Our client against our server over every mechanism, as separate processes."""
import struct
from pathlib import Path

import pytest
from peers import Drive, describe, serving

from ipclab_peer.transport.datagram import uds_dgram_max_payload

MiB = 1 << 20
MAX_PAYLOAD = 128 * MiB
UDS_DGRAM_MAX = uds_dgram_max_payload()

SIZES = {
    # (request size, response size): empty payloads, payloads shorter than the 8-byte stamp,
    # the usual small case, and large or asymmetric ones that take many reads; datagrams up to
    # their limits.
    "tcp": [(0, 0), (3, 16), (16, 16), (64 * 1024, MiB), (MiB, 0)],
    "udp": [(0, 0), (3, 16), (16, 16), (65483, 65483), (65483, 0)],
    "uds-dgram": [(0, 0), (3, 16), (16, 16), (UDS_DGRAM_MAX, UDS_DGRAM_MAX),
                  (UDS_DGRAM_MAX, 0), (64 * 1024, 16)],
}
for stream in ("uds", "pipe", "fifo"):
    SIZES[stream] = SIZES["tcp"]


def cases():
    for mechanism, sizes in SIZES.items():
        for request_size, response_size in sizes:
            yield pytest.param(mechanism, request_size, response_size,
                               id=f"{mechanism}-{request_size}-{response_size}")


def check_ok(run, mechanism, request_size, response_size, iterations, warmup=0, pattern="rr"):
    assert run.returncode == 0, describe(run)
    assert run.stderr == ""
    result = run.result
    assert result["schema"] == "ipclab.peer-result/1"
    assert (result["status"], result["error_kind"], result["error"]) == ("ok", None, None)
    assert result["language"] == "python" and result["runtime"].startswith("CPython ")
    assert result["mechanism"] == mechanism and result["pattern"] == pattern
    assert (result["request_size"], result["response_size"]) == (request_size, response_size)
    assert (result["warmup"], result["iterations"]) == (warmup, iterations)
    assert result["samples"] == iterations and result["clock"] == "CLOCK_MONOTONIC"
    assert (result["contract"], result["warmup_samples"]) == (6, 0)
    samples = struct.unpack(f"<{iterations}q", run.samples)
    assert all(0 < sample < 10**10 for sample in samples)
    return result


def check_served(server, workdir, mechanism, request_size, response_size, iterations=3,
                 warmup=1, seed="5"):
    """A client run against a running `server`: checked, and the server still up and quiet."""
    run = Drive(workdir, mechanism, server.endpoint, request_size, response_size,
                iterations=iterations,
                extra=["--warmup", str(warmup), "--seed", seed, "--io-timeout", "20"])
    check_ok(run, mechanism, request_size, response_size, iterations, warmup=warmup)
    assert server.proc.poll() is None
    assert server.drain_stderr() == []


@pytest.mark.parametrize("mechanism,request_size,response_size", cases())
def test_round_trips(mechanism, request_size, response_size, workdir):
    with serving(mechanism, workdir, "--seed", "77") as case:
        run = Drive(workdir, mechanism, case.endpoint, request_size, response_size,
                    iterations=4, extra=["--warmup", "2", "--seed", "77"],
                    pass_fds=case.client_fds)
        check_ok(run, mechanism, request_size, response_size, 4, warmup=2)
        assert case.server.drain_stderr() == []


@pytest.mark.parametrize("mechanism", ["tcp", "udp", "uds", "uds-dgram", "fifo"])
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
    ("uds-dgram", 16), ("uds-dgram", UDS_DGRAM_MAX),
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


@pytest.mark.parametrize("warmup", [0, 3])
def test_warmup_samples_file_holds_the_validated_warmup_round_trips(warmup, workdir):
    path = Path(workdir) / "warmup.bin"
    with serving("uds", workdir) as case:
        assert case.server.ready["contract"] == 6
        run = Drive(workdir, "uds", case.endpoint, 16, 16, iterations=5,
                    extra=["--warmup", str(warmup), "--warmup-samples-file", str(path)])
    assert run.returncode == 0, describe(run)
    assert (run.result["warmup_samples"], run.result["samples"]) == (warmup, 5)
    assert len(run.samples) == 8 * 5
    times = struct.unpack(f"<{warmup}q", path.read_bytes())
    assert all(0 < sample < 10**10 for sample in times)
