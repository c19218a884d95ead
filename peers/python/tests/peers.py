"""Helpers that run the peer as the orchestrator would: real subprocesses, real endpoints."""
import atexit
import contextlib
import io
import json
import os
import queue
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
GENERATED = SRC.parent / ".build" / "rpcgen"  # generate_rpc.py's stubs (ipclab_peer.rpc)
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


# Peer processes are forked by zygote.py, which has the peer imported (see there), unless
# IPCLAB_PEER_EXEC=1: then each is `python -m ipclab_peer` started anew, as the orchestrator
# starts it (the few tests that call Popen themselves always start it so). Either way a test
# gets a process of its own with its fds, exit code and signals.
EXEC = os.environ.get("IPCLAB_PEER_EXEC") == "1"
ZYGOTE = Path(__file__).resolve().with_name("zygote.py")


class PeerProcess:
    """The part of Popen the tests use, for a peer forked by the launcher: its wait status
    comes through `status_fd` (the launcher is its parent)."""

    def __init__(self, args, pid, status_fd, stdin=None, stdout=None, stderr=None):
        self.args, self.pid, self._status_fd = args, pid, status_fd
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            self._collect(0)
        return self.returncode

    def wait(self, timeout=None):
        if self.returncode is None and not self._collect(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def _collect(self, timeout):
        if not select.select([self._status_fd], [], [], timeout)[0]:
            return False
        data = os.read(self._status_fd, 64)
        os.close(self._status_fd)
        if len(data) != 4:
            raise RuntimeError(f"the peer launcher ended before peer {self.pid} did")
        self.returncode = os.waitstatus_to_exitcode(struct.unpack("<i", data)[0])
        return True

    def send_signal(self, sig):
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        self.send_signal(signal.SIGKILL)


class Launcher:
    """zygote.py's process and its control socket; one a session, started on first use."""

    _instance = None
    _lock = threading.Lock()

    def __init__(self):
        ours, theirs = socket.socketpair()
        with theirs:
            self.proc = subprocess.Popen(
                [sys.executable, str(ZYGOTE), str(theirs.fileno())], pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                env=peer_env())
        self.ctrl = ours
        atexit.register(self.close)

    @classmethod
    def get(cls):
        with cls._lock:
            if cls._instance is None or cls._instance.proc.poll() is not None:
                cls._instance = cls()
            return cls._instance

    def spawn(self, args, stdin, stdout, stderr, pass_fds, env):
        """Forks a peer with these fds as its 0, 1, 2 and pass_fds; returns (pid, the read
        end of its status pipe)."""
        status_r, status_w = os.pipe()
        request = json.dumps({"args": list(args), "env": env, "cwd": os.getcwd(),
                              "fds": list(pass_fds)}).encode()
        try:
            with self._lock:
                socket.send_fds(self.ctrl, [struct.pack("<I", len(request)) + request],
                                [stdin, stdout, stderr, *pass_fds, status_w])
                answer = self.ctrl.recv(8, socket.MSG_WAITALL)
        finally:
            os.close(status_w)
        if len(answer) != 8:
            os.close(status_r)
            self.proc.wait(WAIT)
            raise RuntimeError("the peer launcher failed: " +
                               self.proc.stderr.read().decode(errors="replace"))
        return struct.unpack("<q", answer)[0], status_r

    def close(self):
        self.ctrl.close()
        try:
            self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.proc.stderr.close()


def start_peer(args, stdin=None, stdout=None, stderr=None, pass_fds=(), text=True):
    """A running peer with `args`, like Popen(PEER + args, env=peer_env(), pass_fds=...)
    with each of stdin, stdout, stderr subprocess.PIPE, DEVNULL or None (ours)."""
    if EXEC:
        return subprocess.Popen(PEER + list(args), stdin=stdin, stdout=stdout, stderr=stderr,
                                text=text, env=peer_env(), pass_fds=pass_fds)
    theirs, ours = [], []
    try:
        for fd, how in enumerate((stdin, stdout, stderr)):
            if how == subprocess.PIPE:
                read, write = os.pipe()
                theirs.append(read if fd == 0 else write)
                ours.append(write if fd == 0 else read)
            elif how == subprocess.DEVNULL:
                theirs.append(os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC))
                ours.append(None)
            else:
                assert how is None, how
                theirs.append(os.dup(fd))
                ours.append(None)
        pid, status_fd = Launcher.get().spawn(args, *theirs, pass_fds, peer_env())
    except BaseException:
        for fd in ours:
            if fd is not None:
                os.close(fd)
        raise
    finally:
        for fd in theirs:
            os.close(fd)
    files = [_pipe_file(fd, write=index == 0, text=text) for index, fd in enumerate(ours)]
    return PeerProcess(PEER + list(args), pid, status_fd, *files)


def _pipe_file(fd, write, text):
    """Our end of a pipe as Popen makes it."""
    if fd is None:
        return None
    binary = io.open(fd, "wb" if write else "rb")
    if not text:
        return binary
    if write:
        return io.TextIOWrapper(binary, write_through=True)
    return io.TextIOWrapper(binary)


def run_peer(args, pass_fds=(), timeout=WAIT):
    """A finished peer: subprocess.run(PEER + args, capture_output=True, text=True, ...)."""
    if EXEC:
        return subprocess.run(PEER + list(args), capture_output=True, text=True,
                              env=peer_env(), pass_fds=pass_fds, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    proc = start_peer(args, subprocess.DEVNULL, subprocess.PIPE, subprocess.PIPE, pass_fds,
                      text=False)
    try:
        output = _read_both(proc, timeout)
        proc.wait(timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    # Decoded as Popen's text mode decodes: the locale's encoding, universal newlines.
    stdout, stderr = (io.TextIOWrapper(io.BytesIO(data)).read() for data in output)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def _read_both(proc, timeout):
    """Everything the peer writes to stdout and stderr, up to end of both."""
    deadline = time.monotonic() + timeout
    pending = {proc.stdout: [], proc.stderr: []}
    open_files = list(pending)
    while open_files:
        left = deadline - time.monotonic()
        ready = select.select(open_files, [], [], max(left, 0))[0]
        if not ready:
            raise subprocess.TimeoutExpired(proc.args, timeout)
        for file in ready:
            chunk = os.read(file.fileno(), 65536)
            if chunk:
                pending[file].append(chunk)
            else:
                open_files.remove(file)
    return [b"".join(pending[proc.stdout]), b"".join(pending[proc.stderr])]


class Server:
    """A `serve` subprocess; its stdin is a pipe we hold, as the orchestrator does."""

    def __init__(self, mechanism, endpoint, *extra, pass_fds=()):
        self.proc = start_peer(
            ["serve", "--mechanism", mechanism, "--endpoint", endpoint, *extra],
            subprocess.PIPE, subprocess.PIPE, subprocess.PIPE, pass_fds)
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

    def __init__(self, directory, args, pass_fds=(), timeout=WAIT):
        samples, result = Path(directory) / "samples.bin", Path(directory) / "result.json"
        self.proc = run_peer(["drive", *args, "--samples-file", str(samples),
                              "--result-file", str(result)], pass_fds=pass_fds, timeout=timeout)
        self.returncode = self.proc.returncode
        self.stderr = self.proc.stderr
        self.result = json.loads(result.read_text()) if result.exists() else None
        self.samples = samples.read_bytes() if samples.exists() else None


class Drive(Run):
    """Round trips (pattern rr unless `extra` says otherwise)."""

    def __init__(self, directory, mechanism, endpoint, request_size, response_size,
                 iterations=5, extra=(), pass_fds=(), timeout=WAIT):
        super().__init__(directory, [
            "--mechanism", mechanism, "--endpoint", endpoint,
            "--request-size", str(request_size), "--response-size", str(response_size),
            "--iterations", str(iterations), *extra], pass_fds, timeout)


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
