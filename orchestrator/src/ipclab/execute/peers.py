"""Starting, watching and stopping one peer process, always by its PID.

Peers run in their own process group, so a Ctrl-C in the terminal (sent to the foreground group)
reaches only the orchestrator, which then stops them in order. A process group, not a session:
with the kernel's autogroup scheduling (sched_autogroup_enabled, on by default) every session is
its own scheduling group, and two peers in two sessions sharing one CPU paid ~0.9 µs more per
round trip (same-core 16 B pipe 6.81 µs against 5.92 µs in one session, where the C floor's
forked pair runs): the cost of the launcher, not of the mechanism. A server's stdin is a pipe we hold: if we die, it reads end of file and
exits (PROTOCOL.md section 5)."""
import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

from ipclab.plan.capabilities import CONTRACT


class PeerError(Exception):
    """A peer did not keep the contract (no READY, bad READY, died early)."""


class Unsupported(PeerError):
    """A server said, with exit code 7 (PROTOCOL.md section 8), that it does not do what it was
    asked (a setting its language's library cannot honour): the case is not applicable."""


UNSUPPORTED = 7  # the contract's exit code


def parse_ready(line):
    """The READY object of a server's first line (PROTOCOL.md section 5), its fields the types
    the runner reads; PeerError naming what is wrong otherwise (a server's output is input)."""
    if not line.startswith("READY "):
        raise PeerError(f"server printed {line[:200]!r} instead of a READY line")
    try:
        ready = json.loads(line[6:])
        if not isinstance(ready, dict) or not isinstance(ready.get("endpoint"), str):
            raise ValueError("no endpoint string")
        for key in ("runtime", "server_model", "mechanism"):
            if key in ready and not isinstance(ready[key], str):
                raise ValueError(f"{key} is not a string")
    except (ValueError, RecursionError) as e:
        raise PeerError(f"server's READY line is not valid ({e}): {line[:200]!r}") from None
    if ready.get("contract") != CONTRACT:
        raise PeerError(f"server speaks contract {str(ready.get('contract', 'none (version 1)'))[:40]}, "
                        f"ipclab speaks {CONTRACT} (PROTOCOL.md section 12): rebuild the "
                        f"peer (make build)")
    return ready


class Peer:
    def __init__(self, role, argv, log_dir, pass_fds=(), lifeline=False):
        self.role, self.argv = role, list(argv)
        self.stderr_path = Path(log_dir) / f"{role}.stderr"
        self.stdout_path = Path(log_dir) / f"{role}.stdout"
        self._pass_fds = tuple(pass_fds)
        # stdin held open (a pipe closed at stop) also for a client: its lifeline over ssh
        self._lifeline = lifeline
        self.proc = None
        self._pidfd = None
        self.returncode = None
        self.rusage = None   # the kernel's resource usage, once reaped (os.wait4)

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def start(self):
        is_server = self.role == "server"
        with open(self.stderr_path, "wb") as err, open(self.stdout_path, "wb") as out:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE if is_server or self._lifeline else subprocess.DEVNULL,
                stdout=subprocess.PIPE if is_server else out, stderr=err,
                pass_fds=self._pass_fds, process_group=0)
        self._pidfd = os.pidfd_open(self.proc.pid)
        return self

    def wait_ready(self, timeout):
        """The server's READY object; raises PeerError with its stderr on failure."""
        deadline = time.monotonic() + timeout
        buf = b""
        fd = self.proc.stdout.fileno()
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise PeerError(f"server printed no READY within {timeout:g} s{self._stderr_hint()}")
            readable, _, _ = select.select([fd], [], [], left)
            if not readable:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                self.wait(timeout=5)
                if self.returncode == UNSUPPORTED:
                    raise Unsupported(f"the server peer does not support this: "
                                      f"{self.stderr_tail(1) or 'exit 7'}")
                raise PeerError(f"server {self.describe_exit()} before READY{self._stderr_hint()}")
            buf += chunk
        return parse_ready(buf.split(b"\n", 1)[0].decode(errors="replace"))

    def exited(self):
        if self.returncode is None and self.proc is not None:
            self.returncode = self._reap()
        return self.returncode is not None

    def _reap(self):
        """The exit code if the process has ended (reaping it), else None. wait4, not Popen.poll:
        the kernel's resource usage of the process and its threads comes with it (`rusage`,
        which --explain reads: context switches, page faults and CPU need neither root nor perf)."""
        try:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
        except ChildProcessError:   # reaped elsewhere: Popen knows its code
            return self.proc.poll()
        if pid == 0:
            return None
        self.rusage = usage
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return self.proc.returncode

    def wait(self, timeout):
        if not self.exited() and self._pidfd is not None:
            select.select([self._pidfd], [], [], max(timeout, 0))  # readable once it has ended
        elif not self.exited():
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        return self.exited()

    def stop(self, grace=5.0, settle=0.0):
        """Close the lifeline, SIGTERM, then SIGKILL after `grace` seconds; reaps the process.
        `settle`: seconds the process gets to end by its lifeline alone first (a peer under perf
        stat: perf writes its counts only when its child ends, and SIGTERM would end perf)."""
        if self.proc is None:
            return
        if self.proc.stdin:
            _quietly(self.proc.stdin.close)
            if settle:
                self.wait(settle)
        if not self.exited():
            self._signal(signal.SIGTERM)
            if not self.wait(grace):
                self._signal(signal.SIGKILL)
                self.wait(grace)
        if self.exited():
            _end_group(self.proc.pid, grace)
        if self.proc.stdout:
            _quietly(self.proc.stdout.close)
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def _signal(self, sig):
        # Popen.send_signal does nothing once the child is reaped, so a reused PID is never hit.
        try:
            self.proc.send_signal(sig)
        except (ProcessLookupError, PermissionError):
            pass

    def describe_exit(self):
        code = self.returncode
        if code is None:
            return "is still running"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def stderr_tail(self, lines=5):
        try:
            text = self.stderr_path.read_text(errors="replace").strip()
        except OSError:
            return ""
        return " | ".join(text.splitlines()[-lines:])

    def _stderr_hint(self):
        tail = self.stderr_tail()
        return f"; its stderr: {tail}" if tail else " (its stderr is empty)"

    @property
    def pidfd(self):
        return self._pidfd


def wait_any(peers, timeout):
    """Waits until one of `peers` exits or `timeout` passes; returns the exited ones."""
    # exited() first, then pidfd read once: exited() reaps and closes a peer's pidfd, and a
    # client group's pidfd is one of its live members' (read twice, it could be None by then).
    fds = [fd for fd in (p.pidfd for p in peers if not p.exited()) if fd is not None]
    if fds:
        select.select(fds, [], [], max(timeout, 0))
    return [p for p in peers if p.exited()]


def _end_group(pgid, grace):
    """Waits until nothing of a reaped peer's process group is left, killing what is.

    A peer's own children (the C++ server's stdin watcher, a burst server's workers) die with it
    by PR_SET_PDEATHSIG or their lifeline, but a moment after it: without this they could still
    be running when stop() returns (seen: a test's leak check found the C++ watcher). Zombies
    do not count: whoever is PID 1 reaps them, or not, on its own time."""
    deadline = time.monotonic() + grace
    while _live_members(pgid) and time.monotonic() < deadline:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.005)


def _live_members(pgid):
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False  # the usual case, and cheap: no /proc walk
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _quietly(fn):
    try:
        fn()
    except OSError:
        pass
