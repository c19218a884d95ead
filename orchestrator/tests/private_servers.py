"""What the end-to-end tests of the servers ipclab starts per round (Redis, PROTOCOL.md 4.10;
NATS, 4.11) check alike, through the CLI: the servers a run started (their working directory
is in its workspace), a killed server failing its case with the reason, Ctrl-C leaving none, and
nothing for `ipclab leaks` after either."""
import os
import random
import signal
import time
from pathlib import Path

from test_e2e import cases_csv, client_running, ipclab, start_run


def servers_of(run_pid, program):
    """PIDs of the `program` servers (b"redis-server", b"nats-server") a run started."""
    mark = f"/ipclab-{run_pid}-"
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if mark in os.readlink(proc / "cwd") and program in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def start_endless(tmp_path, mechanism, program):
    """A run of one C++ pair over `mechanism` that would never end, once its server and client
    are up: (seed, out, proc)."""
    seed, out = random.randrange(2, 2**63), tmp_path / "run"
    proc = start_run(seed, out, "--mechanism", mechanism, "--client", "cpp", "--server", "cpp",
                     "--request-size", "16", "--response-size", "16",
                     "--iterations", "10000000000", "--warmup", "0")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if servers_of(proc.pid, program) and client_running(seed):
            return seed, out, proc
        time.sleep(0.05)  # polling a process table we do not own
    proc.kill()
    proc.wait()
    raise AssertionError(f"no {program.decode()} and client appeared: "
                         f"{cases_csv(out) if (out / 'cases.csv').exists() else 'no cases.csv'}")


def check_a_killed_server_fails_its_case(tmp_path, mechanism, program, title):
    """SIGKILL to the round's server fails the case with `title` ("the Redis server") named."""
    seed, out, proc = start_endless(tmp_path, mechanism, program)
    try:
        for pid in servers_of(proc.pid, program):
            os.kill(pid, signal.SIGKILL)
        code = proc.wait(timeout=120)
    finally:
        proc.kill()
    assert servers_of(proc.pid, program) == []
    assert code == 1
    (case,) = cases_csv(out)
    assert case["status"] == "failed" and f"{title} was killed by SIGKILL" in case["reason"], \
        case["reason"]
    assert ipclab("leaks").returncode == 0


def check_ctrl_c_leaves_no_server(tmp_path, mechanism, program):
    seed, out, proc = start_endless(tmp_path, mechanism, program)
    try:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=120)
    finally:
        proc.kill()
    assert code == 130
    assert servers_of(proc.pid, program) == []
    assert ipclab("leaks").returncode == 0
