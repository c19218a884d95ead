"""--void (PROTOCOL.md 10.1): put, putSmall, putMedium, putLarge against our own servers, per
framework; the servers count corrupted puts for `finish`; the flag's usage rules."""
import json
import sys
import urllib.error
import urllib.request

import pytest
from test_rpc import FRAMEWORKS, check_ok, drive, servers  # noqa: F401 - the fixture

from ipclab_peer import payload
from ipclab_peer.rpc import GENERATED

SEED = 99
VOID = ["--void", "--warmup", "1"]


@pytest.mark.parametrize("mechanism", FRAMEWORKS)
@pytest.mark.parametrize("request_size", [0, 100, 1 << 20])
def test_void_bytes_calls(mechanism, request_size, servers, workdir):  # noqa: F811
    server = servers.get(mechanism)
    run = drive(workdir, mechanism, server.endpoint, "--request-size", str(request_size),
                "--response-size", "0", *VOID, iterations=4)
    check_ok(run, mechanism, "bytes", (request_size, 0), None, 4)
    assert server.drain_stderr() == []


@pytest.mark.parametrize("mechanism", FRAMEWORKS)
@pytest.mark.parametrize("kind", ["small", "medium", "large"])
def test_void_structured_calls(mechanism, kind, servers, workdir):  # noqa: F811
    server = servers.get(mechanism)
    run = drive(workdir, mechanism, server.endpoint, "--payload", kind,
                "--sequence-length", "20", *VOID, iterations=3)
    check_ok(run, mechanism, kind, (0, 0), 20, 3)


def test_response_size_may_be_left_out(servers, workdir):  # noqa: F811
    run = drive(workdir, "grpc", servers.get("grpc").endpoint, "--request-size", "8", "--void")
    check_ok(run, "grpc", "bytes", (8, 0), None, 3)


@pytest.mark.parametrize("args,message", [
    (["--response-size", "1"], "--response-size must be 0 with --void"),
    (["--response-size", "0", "--pattern", "short"], "--void is used only with --pattern rr"),
    (["--pattern", "stream"], "flag --request-size is not used with --pattern stream"),
    (["--response-size", "0", "--void"], "flag --void given more than once"),
    (["--response-size", "0", "yes"], "unknown flag 'yes'"),
])
def test_void_usage_errors(args, message, workdir):
    proc, _, _ = drive(workdir, "rest", "127.0.0.1:1", "--request-size", "8", "--void", *args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("ipclab-peer: usage: " + message)


def test_void_on_a_kernel_mechanism_is_unsupported(workdir):
    proc, result, _ = drive(workdir, "tcp", "127.0.0.1:1", "--request-size", "8",
                            "--response-size", "0", "--void")
    assert proc.returncode == 7, proc.stderr
    assert result["error_kind"] == "unsupported" and "--void" in result["error"]


def _post(url, body, content_type="application/octet-stream"):
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_rest_put_answers_no_content_and_counts_corrupted_requests(servers):  # noqa: F811
    url = "http://" + servers.get("rest").endpoint
    good = payload.payload(SEED, payload.REQUEST_STREAM, 5, 32)
    assert _post(url + "/finish", b"")[0] == 200  # a clean count
    assert _post(url + "/put/5", good) == (204, b"")
    assert _post(url + "/put/6", good) == (204, b"")  # stamped for 5: corrupted
    small = {"n1": 1, "n2": 2, "s1": "abcd", "b1": True, "li1": [1]}
    assert _post(url + "/put/small", json.dumps(small).encode(), "application/json") == \
        (204, b"")
    assert _post(url + "/put/small", b"{}", "application/json")[0] == 400
    assert _post(url + "/put/x", good)[0] == 400
    status, body = _post(url + "/finish", b"")
    assert (status, json.loads(body)) == (200, {"corrupted": 1})


def test_grpc_put_counts_corrupted_requests(servers):  # noqa: F811
    """A stock grpc stub generated from the same .proto."""
    import grpc
    if str(GENERATED) not in sys.path:
        sys.path.append(str(GENERATED))
    import ipclab_grpc_pb2 as pb
    import ipclab_grpc_pb2_grpc as pb_grpc

    with grpc.insecure_channel(servers.get("grpc").endpoint) as channel:
        stub = pb_grpc.BenchStub(channel)
        stub.Finish(pb.FinishRequest(), timeout=10)
        good = payload.payload(SEED, payload.REQUEST_STREAM, 3, 9)
        stub.Put(pb.PutRequest(seq=3, request=good), timeout=10)
        stub.Put(pb.PutRequest(seq=3, request=good[:-1] + b"\0"), timeout=10)
        stub.PutLarge(pb.Large(n1=1), timeout=10)
        assert stub.Finish(pb.FinishRequest(), timeout=10).corrupted == 1
