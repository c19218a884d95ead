"""Forked children of the process models (PROTOCOL.md 11.4, clean-up).

A child stays in the server's process group (fork keeps it), asks the kernel to SIGKILL it when
the server dies however it dies (PR_SET_PDEATHSIG, through ctypes), and exits at once if the
server is already gone. It reports its connection's times through one pipe shared by all
children (a write of at most PIPE_BUF bytes is atomic). One collector thread of the server
waits, with epoll, on that pipe and on a pidfd per child: a child's report is in the pipe before
its exit is seen, so a child that exits without one is known to be `lost`. The collector reaps
every child; at the server's exit end_all() kills (pidfd_send_signal: never a reused pid) and
reaps those still running.

PR_SET_PDEATHSIG fires when the *thread* that forked ends, so only the server's main thread,
which lives as long as the process, forks.
"""
import ctypes
import os
import select
import signal
import threading

from ..errors import report
from . import record as records
from .record import now

PR_SET_PDEATHSIG = 1
# Loaded in the server: a child does nothing between fork and its work but the prctl call.
_prctl = ctypes.CDLL(None, use_errno=True).prctl
_prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)
_READ_SIZE = records.WIRE.size * 512
# end_all's second word to a pool worker still serving after the grace: report the connection
# in hand as `lost` and end (models.PoolStop); then how long it has to do so.
GIVE_UP = signal.SIGUSR1
_GIVE_UP_WAIT = 0.2


class Children:
    """`ended()` is called once per connection a child finished or lost; `pending` holds the
    parent's half of each `process` connection by key until its child reports."""

    def __init__(self, log, ended):
        self._log, self._ended = log, ended
        self._lock = threading.RLock()
        self._drain_lock = threading.Lock()  # the pipe and the partial report read from it
        self._pidfds = {}   # pidfd -> (pid, key or None)
        self._pending = {}  # key -> the parent's record of that connection
        self._parent = os.getpid()
        self._buffer = b""
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        self._epoll = select.epoll()
        self._epoll.register(self.read_fd, select.EPOLLIN)
        threading.Thread(target=self._collect, name="ipclab-children", daemon=True).start()

    def fork(self, key=None, record=None):
        """os.fork(): in the parent registers the child (and, for `process`, its connection's
        record under `key`) and returns its pid; in the child returns 0, set up, with
        `started` the clock read as soon as fork returned there (start_delay's end)."""
        with self._lock:
            if key is not None:
                self._pending[key] = record
            try:
                pid = os.fork()
            except OSError:
                self._pending.pop(key, None)
                raise
            if pid == 0:
                self.started = now()
                self._become_child()
                return 0
            pidfd = os.pidfd_open(pid)
            self._pidfds[pidfd] = (pid, key)
            self._epoll.register(pidfd, select.EPOLLIN)
        return pid

    def _become_child(self):
        """Die with the server; take SIGTERM and SIGINT as a plain process does (the server
        blocks them in all its threads, and a child inherits that)."""
        if _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != self._parent:
            os._exit(1)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())

    def report(self, key, record):
        """In a child: its connection's record (one atomic write)."""
        os.write(self.write_fd, records.encode(key, record))

    def _collect(self):
        while True:
            for fd, _ in self._epoll.poll():
                self._drain()
                if fd != self.read_fd:
                    self._exited(fd)

    def _drain(self, count=True):
        """Files every whole report waiting in the pipe; `count`: tell the server a connection
        ended (not at end_all: the server is ending already, and counting could end it again).
        Read and filed under one lock, so end_all's drain waits for what the collector took;
        counted outside it, since the last count ends the server."""
        with self._drain_lock:
            filed = sum(self._file(key, reported) for key, reported in self._read_reports())
        for _ in range(filed if count else 0):
            self._ended()

    def _read_reports(self):
        size, out = records.WIRE.size, []
        while True:
            try:
                chunk = os.read(self.read_fd, _READ_SIZE)
            except BlockingIOError:
                return out
            self._buffer += chunk
            whole = len(self._buffer) - len(self._buffer) % size
            out += [records.decode(self._buffer[at:at + size]) for at in range(0, whole, size)]
            self._buffer = self._buffer[whole:]

    def _file(self, key, reported):
        """Files one report; 1 if a connection ended with it, else 0."""
        if key == records.WHOLE:
            self._log.add(reported)
            return 1
        with self._lock:
            record = self._pending.pop(key, None)
        if record is None:
            return 0  # the server is already ending
        for name in ("start_delay", "transfer", "total", "error"):
            setattr(record, name, getattr(reported, name))
        record.done = True
        return 1

    def _exited(self, pidfd):
        """A child ended: reap it; a `process` child that did not report lost its connection."""
        with self._lock:
            entry = self._pidfds.pop(pidfd, None)
            if entry is None:
                return  # end_all() has it
            pid, key = entry
            self._epoll.unregister(pidfd)
            lost = self._pending.pop(key, None) if key is not None else None
        _, status = os.waitpid(pid, 0)
        os.close(pidfd)
        if lost is not None:
            lost.error, lost.done = "lost", True
            self._ended()
        elif key is None:
            report("io", f"process-pool worker {pid} ended ({_describe(status)}); the pool "
                         f"serves on with the others")

    def end_all(self, grace=0.0):
        """At the server's exit: end every child still there and reap it. Pool workers get
        SIGTERM and `grace` seconds to report the connection in hand, then GIVE_UP to report it
        `lost` (models.PoolStop); the rest, and those still there after it, get SIGKILL."""
        with self._lock:
            pidfds, self._pidfds = self._pidfds, {}
            for pidfd in pidfds:
                # Else an exited child's pidfd, level-triggered, spins the collector.
                self._epoll.unregister(pidfd)
        workers = [fd for fd, (_, key) in pidfds.items() if key is None]
        if grace > 0:
            for sig, within in ((signal.SIGTERM, grace), (GIVE_UP, _GIVE_UP_WAIT)):
                for pidfd in workers:
                    _signal(pidfd, sig)
                workers = _wait_for_exits(workers, within)
        for pidfd in pidfds:
            _signal(pidfd, signal.SIGKILL)
        for pidfd, (pid, _) in pidfds.items():
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        # What the children wrote before they died may still be in the pipe, the collector
        # not yet woken for it: a pool worker reports a connection just after serving it, and
        # a SIGTERM right then must not leave that connection out of the file.
        self._drain(count=False)


def _signal(pidfd, sig):
    try:
        signal.pidfd_send_signal(pidfd, sig)
    except ProcessLookupError:
        pass


def _wait_for_exits(pidfds, within):
    """Waits until every pidfd is readable (its process exited) or `within` seconds passed;
    returns those still running."""
    poll, left = select.poll(), set(pidfds)
    for pidfd in pidfds:
        poll.register(pidfd, select.POLLIN)
    deadline = now() + int(within * 1e9)
    while left and now() < deadline:
        for pidfd, _ in poll.poll(max(1, (deadline - now()) // 1_000_000)):
            poll.unregister(pidfd)
            left.discard(pidfd)
    return [pidfd for pidfd in pidfds if pidfd in left]


def _describe(status):
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit {os.waitstatus_to_exitcode(status)}"
