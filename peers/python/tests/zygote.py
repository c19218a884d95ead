"""The suite's peer launcher (peers.py starts one a session, unless IPCLAB_PEER_EXEC=1): a
Python process that has imported the peer once and forks a child for each peer process a test
asks for, so that the suite's ~1000 peer processes do not each start an interpreter and import
the peer and numpy again: ~0.1 s of CPU each, 60 % of the suite's CPU (188 s -> 72 s).

Each child becomes what `python -m ipclab_peer ARGS` would be: its fds 0, 1, 2 and the test's
pass_fds at the numbers the test gave, every fd of the launcher's closed, the test's
environment and working directory, sys.argv and sys.path[0] as -m makes them, sys.std* made
anew on its own fds, then runpy runs the package's __main__ as -m does; it exits through the
interpreter's normal end (atexit, thread joins, flushes). Its parent is the launcher, which
reaps it and writes its wait status to a pipe the test holds: peers.PeerProcess
reads it there, and signals it by pid as Popen would.

Protocol on the control socket (the launcher's fd given as argv[1]): a request is a 4-byte
length, a JSON {"args", "env", "cwd", "fds"} and, as SCM_RIGHTS in the same message, the fds
for stdin, stdout, stderr, each of "fds" (the numbers the child must see them at) and last the
status pipe's write end; the answer is the child's pid as 8 bytes. At end of the socket the
launcher exits (children still running are left to run, as Popen's are)."""
import json
import os
import selectors
import socket
import struct
import sys

# What `python -m ipclab_peer` imports before it reads its command line, and numpy, which
# every drive imports (payload.py): the imports a child need not repeat. Frameworks (RPC
# mechanisms) stay imported on first use, by the child, as they are in a fresh peer.
import ipclab_peer.__main__  # noqa: F401
import numpy  # noqa: F401

# runpy warns when the module it is to run as __main__ is already imported.
del sys.modules["ipclab_peer.__main__"]

MAX_FDS = 16


def _receive(ctrl):
    """A request and its fds (sent with its first bytes), or None at end of the socket."""
    header, fds, _, _ = socket.recv_fds(ctrl, 4, MAX_FDS, socket.MSG_WAITALL)
    if len(header) < 4:
        return None
    size, data = struct.unpack("<I", header)[0], b""
    while len(data) < size:
        chunk = ctrl.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return json.loads(data), fds


def _place(fds, targets):
    """Every received fd at the number it must have in the child, inheritable, and no other
    copy left: first all moved above every number involved, then dup2'ed down."""
    import fcntl
    floor = max([*fds, *targets]) + 1
    high = []
    for fd in fds:
        high.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, floor))
        os.close(fd)
    for fd, target in zip(high, targets):
        os.dup2(fd, target, inheritable=True)
    for fd in high:
        os.close(fd)


def serve(ctrl_fd):
    """Forks on each request; returns only in a child, with the request."""
    ctrl = socket.socket(fileno=ctrl_fd)
    selector = selectors.DefaultSelector()
    selector.register(ctrl, selectors.EVENT_READ)
    children = {}  # pidfd -> (pid, status pipe's write end)
    while True:
        for key, _ in selector.select():
            if key.fileobj is not ctrl:
                pidfd = key.fd
                selector.unregister(pidfd)
                pid, status_fd = children.pop(pidfd)
                _, status = os.waitpid(pid, 0)
                try:
                    os.write(status_fd, struct.pack("<i", status))
                except BrokenPipeError:
                    pass  # the test dropped it unwaited, as it may a Popen
                os.close(status_fd)
                os.close(pidfd)
                continue
            received = _receive(ctrl)
            if received is None:
                return None
            request, fds = received
            *stdio_and_passed, status_fd = fds
            pid = os.fork()
            if pid == 0:
                selector.close()
                ctrl.close()
                for pidfd, (_, other_status_fd) in children.items():
                    os.close(pidfd)
                    os.close(other_status_fd)
                os.close(status_fd)
                _place(stdio_and_passed, [0, 1, 2, *request["fds"]])
                return request
            for fd in stdio_and_passed:
                os.close(fd)
            pidfd = os.pidfd_open(pid)
            children[pidfd] = (pid, status_fd)
            selector.register(pidfd, selectors.EVENT_READ)
            ctrl.sendall(struct.pack("<q", pid))


def _new_stdio():
    """sys.stdin, stdout, stderr as the interpreter makes them at start-up (create_stdio in
    Python/pylifecycle.c), on the child's fds: the launcher's were made on its own."""
    import io
    buffered = not sys.stdout.write_through
    made = []
    for fd, old, name in ((0, sys.stdin, "<stdin>"), (1, sys.stdout, "<stdout>"),
                          (2, sys.stderr, "<stderr>")):
        writing = fd != 0
        unbuffered = writing and not buffered
        buffer = io.open(fd, "wb" if writing else "rb", 0 if unbuffered else -1, closefd=False)
        raw = buffer if unbuffered else buffer.raw
        raw.name = name
        stream = io.TextIOWrapper(buffer, old.encoding, old.errors, "\n",
                                  buffered and (raw.isatty() or fd == 2), not buffered)
        stream.mode = "w" if writing else "r"
        made.append(stream)
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made


def become_peer(request):
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    _new_stdio()
    sys.argv = ["-m", *request["args"]]
    sys.path[0] = os.getcwd()  # -m's first entry; the launcher's was this directory
    import runpy
    run = runpy._run_module_as_main  # what -m calls
    namespace = sys.modules["__main__"].__dict__
    for name in list(namespace):  # __main__ is the peer's, not the launcher's
        if name != "__builtins__":
            del namespace[name]
    run("ipclab_peer")


if __name__ == "__main__":
    child_request = serve(int(sys.argv[1]))
    if child_request is not None:
        become_peer(child_request)
