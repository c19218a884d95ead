"""RPC mechanisms (PROTOCOL.md section 10): our client against our server, as separate
processes, per framework; the structured payload generator against the shared vectors.

The stubs must have been generated (peers/python/generate_rpc.py, run by `make setup`)."""
import contextlib
import http.server
import json
import socket
import struct
import threading
from pathlib import Path

import pytest
from peers import Server, load_vectors, run_peer

from ipclab_peer import structs

MiB = 1 << 20
MAX_PAYLOAD = 128 * MiB
FRAMEWORKS = ["grpc", "thrift-binary", "thrift-compact", "rest", "ice", "corba"]
# Those whose client endpoint is HOST:PORT (a corba client takes the server's IOR).
HOST_PORT = [name for name in FRAMEWORKS if name != "corba"]
SEED = "99"


@pytest.mark.parametrize("vector", load_vectors()["structs"],
                         ids=lambda v: f"{v['seed']}-{v['kind']}-{v['sequence_length']}")
def test_struct_generator_matches_the_vectors(vector):
    record = structs.record(vector["seed"], vector["kind"], vector["sequence_length"])
    if "sequence" in vector:
        record = structs.stamped(record, vector["sequence"])
    assert list(record) == structs.field_names(vector["kind"])
    assert record == vector["value"]
    assert json.loads(json.dumps(record)) == vector["value"]


class Servers:
    """One server per (framework, fault) for the whole module: start-up is most of a case."""

    def __init__(self):
        self._servers = {}

    def get(self, mechanism, fault="none"):
        key = (mechanism, fault)
        if key not in self._servers:
            self._servers[key] = Server(mechanism, "127.0.0.1:0", "--seed", SEED,
                                        "--fault", fault)
        return self._servers[key]

    def stop_all(self):
        codes = {key: server.stop() for key, server in self._servers.items()}
        self._servers.clear()
        return codes


@pytest.fixture(scope="module")
def servers():
    running = Servers()
    try:
        yield running
    finally:
        codes = running.stop_all()
        assert all(code == 0 for code in codes.values()), codes


def drive(directory, mechanism, endpoint, *args, iterations=3):
    samples, result = Path(directory) / "samples.bin", Path(directory) / "result.json"
    proc = run_peer(["drive", "--mechanism", mechanism, "--endpoint", endpoint,
                     "--iterations", str(iterations), "--samples-file", str(samples),
                     "--result-file", str(result), "--seed", SEED, *args], timeout=120)
    loaded = json.loads(result.read_text()) if result.exists() else None
    return proc, loaded, samples.read_bytes() if samples.exists() else b""


def check_ok(run, mechanism, payload, sizes, sequence_length, iterations):
    proc, result, samples = run
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert (result["status"], result["mechanism"], result["payload"]) == ("ok", mechanism,
                                                                          payload)
    assert (result["request_size"], result["response_size"]) == sizes
    assert result["sequence_length"] == sequence_length
    assert result["samples"] == iterations
    assert all(0 < s < 10**11 for s in struct.unpack(f"<{iterations}q", samples))


@pytest.mark.parametrize("mechanism", FRAMEWORKS)
@pytest.mark.parametrize("request_size,response_size", [(16, 16), (MiB, MiB), (0, 3)])
def test_bytes_round_trips(mechanism, request_size, response_size, servers, workdir):
    server = servers.get(mechanism)
    run = drive(workdir, mechanism, server.endpoint, "--request-size", str(request_size),
                "--response-size", str(response_size), "--warmup", "2", iterations=4)
    check_ok(run, mechanism, "bytes", (request_size, response_size), None, 4)
    assert server.drain_stderr() == []


@pytest.mark.parametrize("mechanism", FRAMEWORKS)
@pytest.mark.parametrize("kind,sequence_length", [("small", 5), ("medium", 0),
                                                  ("large", 100)])
def test_structured_round_trips(mechanism, kind, sequence_length, servers, workdir):
    server = servers.get(mechanism)
    run = drive(workdir, mechanism, server.endpoint, "--payload", kind,
                "--sequence-length", str(sequence_length), "--warmup", "1", iterations=3)
    check_ok(run, mechanism, kind, (0, 0), sequence_length, 3)


@pytest.mark.parametrize("mechanism", FRAMEWORKS)
@pytest.mark.parametrize("payload", ["bytes", "medium"])
def test_flipped_response_is_detected(mechanism, payload, servers, workdir):
    server = servers.get(mechanism, "flip-response-byte")
    args = ["--request-size", "16", "--response-size", "16"] if payload == "bytes" else \
        ["--payload", payload]
    proc, result, _ = drive(workdir, mechanism, server.endpoint, *args)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.startswith("ipclab-peer: payload-mismatch: ")
    assert result["error_kind"] == "payload-mismatch" and result["samples"] == 0


@pytest.mark.parametrize("mechanism", HOST_PORT)
def test_refused_connection_is_an_io_error(mechanism, workdir):
    # Port 1 on loopback: nothing listens there, so the connection is refused.
    proc, result, _ = drive(workdir, mechanism, "127.0.0.1:1", "--request-size", "16",
                            "--response-size", "16", "--io-timeout", "5")
    assert proc.returncode == 5, proc.stderr
    assert result["error_kind"] == "io"


@pytest.mark.parametrize("mechanism", HOST_PORT)
def test_silent_server_is_a_timeout(mechanism, workdir):
    """A listener that never answers: the connection is queued by the kernel, the call (or
    the framework's handshake) waits, --io-timeout ends it."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        endpoint = "127.0.0.1:%d" % silent.getsockname()[1]
        proc, result, _ = drive(workdir, mechanism, endpoint, "--request-size", "16",
                                "--response-size", "16", "--io-timeout", "0.5")
    assert proc.returncode == 6, proc.stderr
    assert result["error_kind"] == "timeout"


def test_maximum_payload_both_ways(servers, workdir):
    """128 MiB each way over thrift-compact, the quickest of them (about 3 s; ten times that
    and more on a machine shared with builds, hence the long --io-timeout)."""
    server = servers.get("thrift-compact")
    run = drive(workdir, "thrift-compact", server.endpoint, "--request-size", str(MAX_PAYLOAD),
                "--response-size", str(MAX_PAYLOAD), "--io-timeout", "110", iterations=1)
    check_ok(run, "thrift-compact", "bytes", (MAX_PAYLOAD, MAX_PAYLOAD), None, 1)


def test_corba_client_needs_an_ior(workdir):
    proc, _, _ = drive(workdir, "corba", "127.0.0.1:1", "--payload", "small")
    assert proc.returncode == 2, proc.stderr


def test_structured_payload_on_a_byte_mechanism_is_unsupported(workdir):
    proc, result, _ = drive(workdir, "tcp", "127.0.0.1:1", "--payload", "small")
    assert proc.returncode == 7, proc.stderr
    assert result["error_kind"] == "unsupported" and result["payload"] == "small"


@pytest.mark.parametrize("args", [
    ["--payload", "small", "--request-size", "16"],
    ["--payload", "huge"],
    ["--payload", "large", "--sequence-length", "1000001"],
    ["--request-size", "16"],
])
def test_payload_flags_are_checked(args, workdir):
    proc, _, _ = drive(workdir, "grpc", "127.0.0.1:1", *args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("ipclab-peer: usage: ")


@pytest.mark.parametrize("name,code", [("httpx", 0), ("okhttp", 7)])
def test_http_client_names_the_one_library_there_is(name, code, servers, workdir):
    proc, result, _ = drive(workdir, "rest", servers.get("rest").endpoint, "--request-size",
                            "16", "--response-size", "16", "--http-client", name)
    assert proc.returncode == code, proc.stderr
    assert result["status"] == ("ok" if code == 0 else "error")


def test_unimplemented_rpc_mechanism_is_unsupported(workdir):
    proc = run_peer(["serve", "--mechanism", "rmi", "--endpoint", "127.0.0.1:0"])
    assert proc.returncode == 7, proc.stderr
    assert proc.stdout == ""


def test_rest_server_rejects_malformed_requests_and_goes_on(servers):
    import urllib.error
    import urllib.request

    base_url = "http://" + servers.get("rest").endpoint

    def post(path, body, method="POST"):
        request = urllib.request.Request(base_url + path, data=body, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    good = {"n1": 1, "n2": 2, "s1": "abcd", "b1": True, "li1": [1, 2, 3]}
    assert post("/echo/small", json.dumps({**good, "x": 1}).encode())[0] == 400
    assert post("/echo/small", json.dumps({**good, "n1": "1"}).encode())[0] == 400
    assert post("/echo/small", b"{")[0] == 400
    assert post("/call/x?wanted=1", b"")[0] == 400
    assert post("/call/1?wanted=-1", b"")[0] == 400
    assert post("/nowhere", b"")[0] == 404
    assert post("/finish", None, method="GET")[0] == 405
    status, body = post("/echo/small", json.dumps(good).encode())
    assert (status, json.loads(body)) == (200, good)


@contextlib.contextmanager
def stand_in_rest(answer):
    """A stand-in rest server on a thread; `answer(path, headers, body)` -> (status, body,
    content type) for each POST; GET (the client's connect) gets 404. Yields its endpoint."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the client expects

        def _answer(self, status, body, content_type="application/octet-stream"):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # noqa: N802 - the client's connect before the warm-up
            self._answer(404, b"")

        def do_POST(self):  # noqa: N802
            body = self.rfile.read(int(self.headers["Content-Length"]))
            self._answer(*answer(self.path, self.headers, body))

        def log_message(self, *args):
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler) as server:
        thread = threading.Thread(target=server.serve_forever)
        thread.start()
        try:
            yield "127.0.0.1:%d" % server.server_port
        finally:
            server.shutdown()
            thread.join()


def test_wrong_length_response_is_a_payload_mismatch(workdir):
    """PROTOCOL.md 10.1: a well-formed reply of the wrong length is a payload mismatch in every
    language. A stand-in rest server answers `call` with one byte too many."""
    from ipclab_peer import payload

    def answer(path, headers, body):
        sequence = int(path.split("/")[2].split("?")[0])
        return 200, payload.payload(int(SEED), payload.RESPONSE_STREAM, sequence, 16) + b"\0"

    with stand_in_rest(answer) as endpoint:
        proc, result, samples = drive(workdir, "rest", endpoint, "--request-size", "16",
                                      "--response-size", "16")
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.startswith("ipclab-peer: payload-mismatch: ")
    assert "17 bytes instead of 16" in proc.stderr
    assert result["error_kind"] == "payload-mismatch" and samples == b""
