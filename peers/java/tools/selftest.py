#!/usr/bin/env python3
"""Runs the Java peer's jar against itself, as the orchestrator would, and prints the medians.

For every mechanism and size: start `serve`, wait for READY, run `drive`, check the result file
and the samples, then end the server (stdin EOF, or end of stream for pipe) and check that it
exited 0 and removed its socket file / FIFOs. Also checks --fault flip-response-byte (client exit
3, "payload mismatch") and SIGTERM. For pipe it is the launcher: it makes the two anonymous pipes
and passes the ends to the peers with pass_fds, as the orchestrator does.

Standard library only:
    python3 peers/java/tools/selftest.py --cpu 1
    python3 peers/java/tools/selftest.py --mechanisms shm-spin --server-cpu 1 --client-cpu 0
    python3 peers/java/tools/selftest.py --mechanisms none jni ffm --sizes 16

In-process mechanisms (none, jni, ffm) have no server: only the client runs (--native-library).
"""
import argparse
import ctypes
import json
import os
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
JAR = ROOT / "peers/java/peer/target/ipclab-peer.jar"
JAVA = Path("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java")
JVM_FLAGS = ["-XX:+UseSerialGC", "-Xms64m", "-Xmx2g", "-XX:MaxDirectMemorySize=2g",
             "--enable-native-access=ALL-UNNAMED"]
MECHANISMS = ["tcp", "udp", "uds", "pipe", "fifo", "sysv-mq", "posix-mq", "sysv-shm", "file",
              "file-poll", "shm", "shm-spin", "shm-futex", "none", "jni", "ffm"]
KERNEL_OBJECTS = ("sysv-mq", "posix-mq", "sysv-shm", "shm", "shm-spin", "shm-futex")
IN_PROCESS = ("none", "jni", "ffm")
NATIVE_LIBRARY = ROOT / "peers/native/build/libipclab_native.so"
UDP_MAX = 65483
SIZES = [0, 16, 65536, 1 << 20, 1 << 27]


class Case:
    """One server + client run in its own private directory."""

    def __init__(self, args, mechanism, size, fault="none"):
        self.args, self.mechanism, self.size, self.fault = args, mechanism, size, fault
        self.dir = Path(tempfile.mkdtemp(prefix="ipclab-java-"))
        self.server = None
        self.fds = []

    def command(self, *peer_args, role=None):
        cpu = self.args.cpu
        if role == "serve" and self.args.server_cpu is not None:
            cpu = self.args.server_cpu
        if role == "drive" and self.args.client_cpu is not None:
            cpu = self.args.client_cpu
        prefix = ["taskset", "-c", str(cpu)] if cpu is not None else []
        return prefix + [str(self.args.java), *self.args.jvm_flags.split(), "-jar", str(self.args.jar),
                         *peer_args]

    def start_server(self):
        endpoint, pass_fds = "127.0.0.1:0", ()
        if self.mechanism == "uds":
            endpoint = str(self.dir / "server.sock")
        elif self.mechanism == "fifo":
            (self.dir / "fifo").mkdir(mode=0o700)
            endpoint = str(self.dir / "fifo")
        elif self.mechanism in KERNEL_OBJECTS:
            endpoint = "auto"
        elif self.mechanism in ("file", "file-poll"):
            (self.dir / "files").mkdir(mode=0o700)
            endpoint = str(self.dir / "files")
        elif self.mechanism == "pipe":
            req_r, req_w = os.pipe()
            resp_r, resp_w = os.pipe()
            self.client_fds = (resp_r, req_w)
            endpoint, pass_fds = f"fd:{req_r},{resp_w}", (req_r, resp_w)
        self.server = subprocess.Popen(
            self.command("serve", "--mechanism", self.mechanism, "--endpoint", endpoint,
                         "--fault", self.fault, role="serve"),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=pass_fds)
        for fd in pass_fds:
            os.close(fd)  # the server has its own copies; ours would hide end of stream
        line = self.server.stdout.readline().decode()
        if not line.startswith("READY "):
            raise AssertionError(f"no READY: {line!r} {self.server.stderr.read()!r}")
        ready = json.loads(line[len("READY "):])
        assert ready["language"] == "java" and ready["mechanism"] == self.mechanism, ready
        self.ready = ready
        return ready

    def drive(self, ready, iterations, warmup):
        endpoint, pass_fds = ready["endpoint"], ()
        if self.mechanism == "pipe":
            endpoint, pass_fds = f"fd:{self.client_fds[0]},{self.client_fds[1]}", self.client_fds
        client = subprocess.run(
            self.command("drive", "--mechanism", self.mechanism, "--endpoint", endpoint,
                         "--request-size", str(self.size), "--response-size", str(self.size),
                         "--iterations", str(iterations), "--warmup", str(warmup),
                         "--samples-file", str(self.dir / "samples"),
                         "--result-file", str(self.dir / "result.json"), "--io-timeout", "20",
                         *(("--native-library", str(self.args.native_library))
                           if self.mechanism in ("jni", "ffm") else ()), role="drive"),
            stdin=subprocess.DEVNULL, capture_output=True, pass_fds=pass_fds, timeout=600)
        for fd in pass_fds:
            os.close(fd)
        result = json.loads((self.dir / "result.json").read_text())
        raw = (self.dir / "samples").read_bytes()
        samples = [v for (v,) in struct.iter_unpack("<q", raw)]
        assert result["samples"] == len(samples), result
        assert client.stdout == b"", client.stdout
        return client, result, samples

    def stop_server(self, how="eof"):
        if how == "sigterm":
            self.server.send_signal(signal.SIGTERM)
        elif self.mechanism != "pipe":
            self.server.stdin.close()  # pipe servers end by themselves at end of stream
        rc = self.server.wait(timeout=30)
        err = self.server.stderr.read().decode()
        left = [p.name for p in self.dir.rglob("*") if not p.is_dir()
                and p.name in ("server.sock", "req", "resp", "req.tmp", "resp.tmp")]
        left += kernel_objects_left(getattr(self, "ready", None))
        assert rc == 0, f"server exit {rc}: {err}"
        assert not left, f"left behind: {left}"
        return err

    def close(self):
        if self.server and self.server.poll() is None:
            self.server.kill()
            self.server.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def kernel_objects_left(ready):
    """The System V objects of a sysv: endpoint, or the POSIX objects of the server's pid."""
    if not ready:
        return []
    left, endpoint = [], ready["endpoint"]
    if endpoint.startswith("sysv:"):
        key = str(struct.unpack("<i", struct.pack("<I", int(endpoint[5:], 16)))[0])
        for kind in ("msg", "shm", "sem"):
            for line in Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]:
                if line.split()[0] == key:
                    left.append(f"{kind} {endpoint}")
    prefix = f"ipclab-{ready['pid']}"
    left += [p.name for p in Path("/dev/shm").iterdir() if p.name.startswith(prefix)]
    if endpoint.startswith("posix:"):
        libc = ctypes.CDLL(None, use_errno=True)
        for suffix in ("-1", "-2"):
            mqd = libc.mq_open(f"{endpoint[6:]}{suffix}".encode(), os.O_RDONLY)
            if mqd >= 0:
                libc.mq_close(mqd)
                left.append(f"mq {endpoint[6:]}{suffix}")
    return left


def run_case(args, mechanism, size):
    case = Case(args, mechanism, size)
    try:
        in_process = mechanism in IN_PROCESS
        ready = {"endpoint": "inproc"} if in_process else case.start_server()
        big = size >= 1 << 20
        iterations = 5 if size >= 1 << 27 else (50 if big else args.iterations)
        warmup = 2 if size >= 1 << 27 else (10 if big else args.warmup)
        if mechanism in ("file", "file-poll"):  # milliseconds per round trip, not microseconds
            iterations, warmup = min(iterations, args.file_iterations), min(warmup, 20)
        client, result, samples = case.drive(ready, iterations, warmup)
        assert client.returncode == 0 and result["status"] == "ok", (client.stderr, result)
        err = "" if in_process else case.stop_server()
        assert err == "", err
        return statistics.median(samples)
    finally:
        case.close()


def check_fault(args, mechanism):
    case = Case(args, mechanism, 16, fault="flip-response-byte")
    try:
        ready = case.start_server()
        client, result, _ = case.drive(ready, 10, 0)
        stderr = client.stderr.decode()
        assert client.returncode == 3 and "payload mismatch" in stderr, (client.returncode, stderr)
        assert result["error_kind"] == "payload-mismatch", result
        case.stop_server(how="eof" if mechanism != "pipe" else "pipe")
    finally:
        case.close()


def check_sigterm(args, mechanism):
    case = Case(args, mechanism, 16)
    try:
        case.start_server()
        case.stop_server(how="sigterm")
    finally:
        for fd in getattr(case, "client_fds", ()):
            os.close(fd)
        case.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jar", type=Path, default=JAR)
    parser.add_argument("--java", type=Path, default=JAVA)
    parser.add_argument("--jvm-flags", default=" ".join(JVM_FLAGS),
                        help="JVM options for both peers (default: %(default)s)")
    parser.add_argument("--cpu", type=int, help="pin server and client to this CPU (taskset)")
    parser.add_argument("--server-cpu", type=int, help="pin the server to this CPU")
    parser.add_argument("--client-cpu", type=int, help="pin the client to this CPU")
    parser.add_argument("--native-library", type=Path, default=NATIVE_LIBRARY)
    parser.add_argument("--iterations", type=int, default=20000)
    parser.add_argument("--warmup", type=int, default=5000)
    parser.add_argument("--file-iterations", type=int, default=500,
                        help="at most this many round trips for file and file-poll")
    parser.add_argument("--mechanisms", nargs="+", default=MECHANISMS)
    parser.add_argument("--sizes", nargs="+", type=int, default=SIZES)
    args = parser.parse_args()
    failures = 0
    for mechanism in args.mechanisms:
        for size in args.sizes:
            size = min(size, UDP_MAX) if mechanism == "udp" else size
            if mechanism == "udp" and size == UDP_MAX and UDP_MAX in done(mechanism):
                continue
            try:
                median = run_case(args, mechanism, size)
                print(f"{mechanism:9} {size:>10} B  median round trip {median / 1000:10.1f} us"
                      f" ({median:.0f} ns)",
                      flush=True)
            except Exception as e:  # noqa: BLE001 - report every case, then fail at the end
                failures += 1
                print(f"{mechanism:9} {size:>10} B  FAILED: {e}", flush=True)
            done(mechanism).add(size)
        for check in (() if mechanism in IN_PROCESS else (check_fault, check_sigterm)):
            try:
                check(args, mechanism)
                print(f"{mechanism:9} {check.__name__}: ok", flush=True)
            except Exception as e:  # noqa: BLE001
                failures += 1
                print(f"{mechanism:9} {check.__name__}: FAILED: {e}", flush=True)
    print(f"{'passed' if failures == 0 else 'FAILED'}: {failures} failure(s)")
    return 1 if failures else 0


_DONE = {}


def done(mechanism):
    return _DONE.setdefault(mechanism, set())


if __name__ == "__main__":
    sys.exit(main())
