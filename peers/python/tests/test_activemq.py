"""activemq (PROTOCOL.md 4.7): a Python responder and client through one ActiveMQ broker, started
once for this file as the orchestrator starts one per round (`python -m ipclab.execute.broker`).
The last test kills that broker: keep it last."""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from peers import WAIT, Drive, Server, Stream, describe, peer_env, run_peer
from test_client import assert_error

LAUNCHER = Path("/usr/share/activemq/bin/activemq.jar")
BROKER_START = 120  # seconds: a JVM and Spring on a busy 2-vCPU machine
MIB = 1 << 20


def _default_sigint():
    """A background shell starts its children with SIGINT ignored, which Python keeps; the
    broker's wrapper stops its JVM and removes its directory on KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _first_line(proc, timeout):
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline().strip() if ready else ""


@pytest.fixture(scope="module")
def broker():
    """The broker's wrapper process and its amqp://HOST:PORT URL."""
    if not LAUNCHER.is_file():
        pytest.skip(f"no ActiveMQ ({LAUNCHER} is missing: make setup installs it)")
    parent = tempfile.mkdtemp(prefix="ipclabpy-")
    proc = subprocess.Popen([sys.executable, "-m", "ipclab.execute.broker", f"{parent}/b"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    try:
        url = _first_line(proc, BROKER_START)
        if not url.startswith("amqp://"):
            proc.kill()
            pytest.fail(f"no broker within {BROKER_START} s: {url!r} {proc.stderr.read()}")
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(parent, ignore_errors=True)


def responder(url, *extra):
    return Server("activemq", url, *extra)


@pytest.mark.parametrize("delivery", ["non-persistent", "persistent"])
def test_round_trips_of_16_bytes_and_1_mib(delivery, broker, workdir):
    _, url = broker
    with responder(url, "--delivery", delivery) as server:
        queue = f"ipclab.{server.ready['pid']}.requests"
        assert server.endpoint == f"{url}/{queue}"
        for size, iterations in ((16, 20), (MIB, 3)):
            run = Drive(workdir, "activemq", server.endpoint, size, size, iterations,
                        ["--delivery", delivery, "--warmup", "2", "--io-timeout", "20"])
            assert run.returncode == 0, describe(run)
            assert run.result["status"] == "ok" and run.result["samples"] == iterations
            assert len(run.samples) == 8 * iterations
        assert server.stop() == 0


def test_a_stream_of_a_few_hundred_messages(broker, workdir):
    _, url = broker
    with responder(url) as server:
        run = Stream(workdir, "activemq", server.endpoint, 1024, 300,
                     ["--warmup", "20", "--windows", "5", "--io-timeout", "20"])
        assert run.returncode == 0, describe(run)
        result = run.result
        assert (result["messages"], result["message_size"], result["windows"]) == (300, 1024, 5)
        assert result["lost"] == 0 and result["stream_ns"] > 0 and len(run.samples) == 8 * 5
        # An rr after the stream: the responder reads frames again.
        run = Drive(workdir, "activemq", server.endpoint, 100, 200, 3)
        assert run.returncode == 0, describe(run)
        assert server.shut_down("SIGTERM") == 0


def test_a_flipped_response_byte_is_a_payload_mismatch(broker, workdir):
    _, url = broker
    with responder(url, "--fault", "flip-response-byte") as server:
        run = Drive(workdir, "activemq", server.endpoint, 16, 64, 3, ["--io-timeout", "20"])
        assert_error(run, 3, "payload-mismatch")
        assert "RESPONSE to sequence 0 differs at payload offset 63" in run.stderr


def test_a_stream_fault_fails_the_client(broker, workdir):
    _, url = broker
    with responder(url, "--fault", "drop-stream-message") as server:
        run = Stream(workdir, "activemq", server.endpoint, 64, 10, ["--io-timeout", "20"])
        assert_error(run, 3, "payload-mismatch")
        assert "received 9 of 10 messages" in run.stderr


def _send_raw(url, queue, bodies):
    """Messages of `bodies` to `queue`, as a foreign client would: bytes in one data section,
    text as an amqp-value."""
    from proton import Message
    from proton.utils import BlockingConnection
    connection = BlockingConnection(url, timeout=WAIT)
    try:
        sender = connection.create_sender(queue)
        for body in bodies:
            sender.send(Message(body=body, inferred=isinstance(body, bytes),
                                reply_to="ipclab.test.replies", correlation_id=0))
    finally:
        connection.close()


def test_a_bad_frame_is_rejected_and_the_responder_goes_on(broker, workdir):
    _, url = broker
    with responder(url) as server:
        queue = server.endpoint.rsplit("/", 1)[1]
        bad_magic = b"IPCX" + bytes(20)
        _send_raw(url, queue, [bad_magic, b"IPCL\x01\x01", "IPCL"])
        assert server.stderr_line() == "ipclab-peer: rejected frame: bad magic"
        assert server.stderr_line() == "ipclab-peer: rejected frame: truncated header"
        assert server.stderr_line() == \
            "ipclab-peer: rejected frame: body is not one data section"
        run = Drive(workdir, "activemq", server.endpoint, 16, 16, 5, ["--io-timeout", "20"])
        assert run.returncode == 0, describe(run)
        assert server.stop() == 0


def test_delivery_is_for_activemq_only(workdir):
    run = Drive(workdir, "tcp", "127.0.0.1:9", 16, 16, 1, ["--delivery", "persistent"])
    assert_error(run, 7, "unsupported")
    assert "--delivery persistent is for activemq" in run.stderr
    serve = run_peer(["serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                      "--delivery", "non-persistent"])
    assert serve.returncode == 7 and serve.stdout == "", serve.stderr
    assert run_peer(["serve", "--mechanism", "activemq", "--endpoint", "127.0.0.1:1",
                     "--delivery", "durable"]).returncode == 2


def test_a_refused_connection_is_an_io_error(workdir):
    run = Drive(workdir, "activemq", "amqp://127.0.0.1:1/ipclab.1.requests", 16, 16, 1)
    assert_error(run, 5, "io")
    serve = run_peer(["serve", "--mechanism", "activemq", "--endpoint", "amqp://127.0.0.1:1"])
    assert serve.returncode == 5 and serve.stdout == "", serve.stderr


def _jvm(wrapper):
    """The broker's JVM: the wrapper's one child (setpriv execs java)."""
    children = Path(f"/proc/{wrapper.pid}/task/{wrapper.pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def test_a_killed_broker_fails_the_client_and_ends_the_responder(broker, workdir):
    """Last: the broker does not come back."""
    proc, url = broker
    server = responder(url)
    samples, result = Path(workdir) / "samples.bin", Path(workdir) / "result.json"
    client = subprocess.Popen(
        [sys.executable, "-m", "ipclab_peer", "drive", "--mechanism", "activemq",
         "--endpoint", server.endpoint, "--request-size", "16", "--response-size", "16",
         "--iterations", "100000000", "--io-timeout", "5", "--samples-file", str(samples),
         "--result-file", str(result)],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=peer_env())
    try:
        time.sleep(3)  # connected and round-tripping by then: 10^8 round trips, so mid-run
        assert client.poll() is None, client.stderr.read()
        os.kill(_jvm(proc), signal.SIGKILL)
        assert client.wait(WAIT) in (5, 6)
        stderr = client.stderr.read()
        assert stderr.count("\n") == 1 and stderr.startswith(("ipclab-peer: io: ",
                                                              "ipclab-peer: timeout: ")), stderr
        outcome = json.loads(result.read_text())
        assert outcome["status"] == "error" and outcome["error_kind"] in ("io", "timeout")
        assert server.proc.wait(WAIT) == 5
        assert any(line.startswith("ipclab-peer: io: ") for line in server.drain_stderr())
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
        server.stop()
