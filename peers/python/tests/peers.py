"""Helpers that run the peer as the orchestrator would: real subprocesses, real endpoints."""
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
VECTORS = Path(__file__).resolve().parents[3] / "protocol" / "vectors" / "vectors.json"
PEER = [sys.executable, "-m", "ipclab_peer"]
WAIT = 30


def load_vectors():
    return json.loads(VECTORS.read_text())


def malformed_vectors():
    return load_vectors()["malformed"]


def peer_env():
    """Runs the package from this source tree whether or not it is installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


def run_peer(args, pass_fds=(), timeout=WAIT):
    return subprocess.run(PEER + list(args), capture_output=True, text=True, env=peer_env(),
                          pass_fds=pass_fds, timeout=timeout, stdin=subprocess.DEVNULL)


class Server:
    """A `serve` subprocess; its stdin is a pipe we hold, as the orchestrator does."""

    def __init__(self, mechanism, endpoint, *extra, pass_fds=()):
        self.proc = subprocess.Popen(
            PEER + ["serve", "--mechanism", mechanism, "--endpoint", endpoint, *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=peer_env(), pass_fds=pass_fds)
        self._stderr = queue.Queue()
        self._collector = threading.Thread(target=self._collect_stderr, daemon=True)
        self._collector.start()
        line = self.proc.stdout.readline()
        if not line.startswith("READY "):
            self.proc.wait(WAIT)
            raise AssertionError(f"no READY (exit {self.proc.returncode}): {line!r} "
                                 f"{self.drain_stderr()}")
        self.ready = json.loads(line[len("READY "):])
        self.endpoint = self.ready["endpoint"]

    def _collect_stderr(self):
        for line in self.proc.stderr:
            self._stderr.put(line.rstrip("\n"))

    def stderr_line(self, timeout=WAIT):
        return self._stderr.get(timeout=timeout)

    def drain_stderr(self):
        """Every line the server wrote so far; once it has exited, all of them (the collector
        reads to the end of its stderr first: on a busy machine it may lag behind the exit)."""
        if self.proc.poll() is not None:
            self._collector.join(WAIT)
        lines = []
        while not self._stderr.empty():
            lines.append(self._stderr.get())
        return lines

    def close_stdin(self):
        self.proc.stdin.close()

    def shut_down(self, how):
        """Ends the server as the orchestrator may ("stdin EOF", "SIGTERM", "SIGINT");
        returns its exit code."""
        if how == "stdin EOF":
            self.close_stdin()
        else:
            self.proc.send_signal(getattr(signal, how))
        return self.proc.wait(WAIT)

    def stop(self):
        """Ends the server by end of stdin and returns its exit code."""
        if not self.proc.stdin.closed:
            self.close_stdin()
        try:
            return self.proc.wait(WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class Run:
    """One finished `drive` run with `args` and its output files in `directory`: exit code,
    stderr, result JSON, raw samples."""

    def __init__(self, directory, args, pass_fds=()):
        samples, result = Path(directory) / "samples.bin", Path(directory) / "result.json"
        self.proc = run_peer(["drive", *args, "--samples-file", str(samples),
                              "--result-file", str(result)], pass_fds=pass_fds)
        self.returncode = self.proc.returncode
        self.stderr = self.proc.stderr
        self.result = json.loads(result.read_text()) if result.exists() else None
        self.samples = samples.read_bytes() if samples.exists() else None


class Drive(Run):
    """Round trips (pattern rr unless `extra` says otherwise)."""

    def __init__(self, directory, mechanism, endpoint, request_size, response_size,
                 iterations=5, extra=(), pass_fds=()):
        super().__init__(directory, [
            "--mechanism", mechanism, "--endpoint", endpoint,
            "--request-size", str(request_size), "--response-size", str(response_size),
            "--iterations", str(iterations), *extra], pass_fds)


class Stream(Run):
    """Pattern stream (PROTOCOL.md 11.1)."""

    def __init__(self, directory, mechanism, endpoint, message_size, messages, extra=(),
                 pass_fds=()):
        super().__init__(directory, [
            "--pattern", "stream", "--mechanism", mechanism, "--endpoint", endpoint,
            "--message-size", str(message_size), "--messages", str(messages), *extra],
            pass_fds)


def describe(run):
    return f"exit {run.returncode}, stderr {run.stderr!r}"


class Case:
    """A running server plus what a client needs to reach it."""

    def __init__(self, server, endpoint, client_fds=()):
        self.server = server
        self.endpoint = endpoint
        self.client_fds = tuple(client_fds)

    def release_client_fds(self):
        """Closes our copies of the client's pipe ends, so the server sees end of stream
        once the client has closed its own."""
        for fd in self.client_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.client_fds = ()


@contextlib.contextmanager
def serving(mechanism, directory, *extra):
    """Starts a server for `mechanism` with endpoints inside `directory` (a private dir)."""
    if mechanism == "pipe":
        requests, responses = os.pipe(), os.pipe()
        try:
            server = Server("pipe", f"fd:{requests[0]},{responses[1]}", *extra,
                            pass_fds=(requests[0], responses[1]))
        except BaseException:
            os.close(requests[1])
            os.close(responses[0])
            raise
        finally:
            os.close(requests[0])
            os.close(responses[1])
        case = Case(server, f"fd:{responses[0]},{requests[1]}", (responses[0], requests[1]))
    else:
        case = Case(_path_server(mechanism, Path(directory), extra), None)
        case.endpoint = case.server.endpoint
    try:
        with case.server:
            yield case
    finally:
        case.release_client_fds()


# Servers that create their own kernel objects, and those on a host and port.
AUTO = ("sysv-mq", "posix-mq", "sysv-shm", "shm", "shm-spin", "shm-futex")
INET = ("tcp", "udp", "grpc", "rest")


def _path_server(mechanism, directory, extra):
    if mechanism in AUTO:
        return Server(mechanism, "auto", *extra)
    if mechanism in INET:
        return Server(mechanism, "127.0.0.1:0", *extra)
    if mechanism in ("uds", "uds-dgram"):
        return Server(mechanism, str(directory / "peer.sock"), *extra)
    fifo_dir = directory / "fifo"
    fifo_dir.mkdir(mode=0o700)
    return Server(mechanism, str(fifo_dir), *extra)
