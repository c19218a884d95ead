"""Files of PROTOCOL.md 4.2: one file per frame (or per stream message, 11.1), `req` (client
-> server) and `resp` (server -> client) in the endpoint directory, written as `*.tmp` and
renamed into place.

The reader waits for its name with a Waiter: InotifyWaiter (`file`: IN_MOVED_TO on the
directory, through ctypes) or PollWaiter (`file-poll`: try to open, sleep --poll-interval-us).

A writer never replaces a file its reader has not taken yet (a stream writes frames back to
back): it renames with RENAME_NOREPLACE and, while the name is still there, waits with the
same kind of Waiter for its removal (IN_DELETE, or polling).
"""
import ctypes
import errno
import io
import os
import select
import struct
import time

from ..errors import ProtocolError, ReceiveTimeout
from ..frame import HEADER_SIZE, Rejected, check_incoming, declared_size

REQUEST_NAME, RESPONSE_NAME = "req", "resp"
TEMPORARY_SUFFIX = ".tmp"
PRIVATE = 0o600
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_CLOEXEC

IN_MOVED_TO, IN_DELETE, IN_Q_OVERFLOW, IN_CLOEXEC = 0x80, 0x200, 0x4000, 0o2000000
AT_FDCWD, RENAME_NOREPLACE = -100, 1
_EVENT = struct.Struct("iIII")
_EVENTS_BUFFER = 64 * 1024

_libc = ctypes.CDLL(None, use_errno=True)
_libc.inotify_init1.argtypes = [ctypes.c_int]
_libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
_renameat2 = _libc.renameat2
_renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                       ctypes.c_uint]


def leftovers(directory):
    return [os.path.join(directory, name) for name in sorted(os.listdir(directory))
            if name in (REQUEST_NAME, RESPONSE_NAME) or name.endswith(TEMPORARY_SUFFIX)]


def remove_leftovers(directory):
    try:
        paths = leftovers(directory)
    except OSError:
        return
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass


class InotifyWaiter:
    """Waits for IN_MOVED_TO of one name in a directory (the watch exists from construction,
    so a rename that happens before wait() is still seen); with `removal`, for IN_DELETE."""

    def __init__(self, directory, name, interval_us=None, removal=False):
        self.path = os.path.join(directory, name)
        self._name = os.fsencode(name)
        self._events = IN_DELETE if removal else IN_MOVED_TO
        fd = _libc.inotify_init1(IN_CLOEXEC)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"inotify_init1: {os.strerror(err)}")
        if _libc.inotify_add_watch(fd, os.fsencode(directory), self._events) < 0:
            err = ctypes.get_errno()
            os.close(fd)
            raise OSError(err, f"{directory}: inotify_add_watch: {os.strerror(err)}")
        self.fd = fd
        self._arrived = 0  # renames to our name seen but not yet consumed
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)

    def open(self, timeout=None):
        """Blocks until the file has been renamed into place; returns a descriptor to it."""
        while True:
            if self._arrived:
                self._arrived -= 1
                try:
                    return os.open(self.path, _READ_FLAGS)
                except FileNotFoundError:
                    continue  # a stale event (an overflow guess): wait for the next
            self._wait(timeout)

    def wait_removed(self, timeout=None):
        """Blocks until the file is gone (a waiter made with `removal`)."""
        while os.path.lexists(self.path):
            self._wait(timeout)

    def _wait(self, timeout):
        if timeout is not None and not self._poll.poll(max(1, round(timeout * 1000))):
            raise ReceiveTimeout(f"no {os.path.basename(self.path)} file within {timeout:g} s")
        data = os.read(self.fd, _EVENTS_BUFFER)
        offset = 0
        while offset < len(data):
            _, mask, _, length = _EVENT.unpack_from(data, offset)
            name = data[offset + _EVENT.size:offset + _EVENT.size + length].rstrip(b"\0")
            offset += _EVENT.size + length
            if mask & IN_Q_OVERFLOW or (mask & self._events and name == self._name):
                self._arrived += 1

    def close(self):
        os.close(self.fd)


class PollWaiter:
    """Tries to open the file (or, `wait_removed`, looks whether it is gone), sleeping
    --poll-interval-us between tries."""

    def __init__(self, directory, name, interval_us, removal=False):
        self.path = os.path.join(directory, name)
        self._interval = interval_us / 1e6

    def open(self, timeout=None):
        return self._until(self._try_open, timeout, "no {} file")

    def wait_removed(self, timeout=None):
        self._until(self._gone, timeout, "{} still there")

    def _try_open(self):
        try:
            return os.open(self.path, _READ_FLAGS)
        except FileNotFoundError:
            return None

    def _gone(self):
        return None if os.path.lexists(self.path) else True

    def _until(self, attempt, timeout, what):
        sleep, interval = time.sleep, self._interval
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            outcome = attempt()
            if outcome is not None:
                return outcome
            if deadline is not None and time.monotonic() >= deadline:
                name = os.path.basename(self.path)
                raise ReceiveTimeout(f"{what.format(name)} within {timeout:g} s")
            sleep(interval)

    def close(self):
        pass


class FileWriter:
    """Writes one frame as `<name>.tmp`, closes it, renames it to `<name>` once the reader
    has taken the previous one: `waiter` (a Waiter class) watches for that removal, made on
    the first wait; a client waits at most `timeout` seconds."""

    def __init__(self, directory, name, waiter, interval_us, timeout=None):
        self.path = os.path.join(directory, name)
        self.temporary = self.path + TEMPORARY_SUFFIX
        self._removal = lambda: waiter(directory, name, interval_us, removal=True)
        self._removed = None
        self._timeout = timeout
        self._names = os.fsencode(self.temporary), os.fsencode(self.path)

    def send_all(self, data):
        fd = os.open(self.temporary, _WRITE_FLAGS, PRIVATE)
        try:
            written = os.write(fd, data)
            if written != len(data):
                view = memoryview(data)
                while written < len(view):
                    written += os.write(fd, view[written:])
        finally:
            os.close(fd)
        while not self._rename():
            if self._removed is None:
                self._removed = self._removal()
            self._removed.wait_removed(self._timeout)

    def _rename(self):
        """rename(2) unless the name is taken: True, or False while the reader's file is
        still there."""
        if _renameat2(AT_FDCWD, self._names[0], AT_FDCWD, self._names[1],
                      RENAME_NOREPLACE) == 0:
            return True
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            return False
        raise OSError(err, f"renameat2: {os.strerror(err)}", self.path)

    def close(self):
        if self._removed is not None:
            self._removed.close()


def _read_exactly(fd, view):
    """Reads len(view) bytes of a regular file; ProtocolError if it is shorter by now."""
    readinto = io.FileIO(fd, "rb", closefd=False).readinto
    got = readinto(view)
    if got == len(view):
        return
    view = memoryview(view)
    while got < len(view):
        count = readinto(view[got:])
        if not count:
            raise ProtocolError(f"file ended after {got} of {len(view)} bytes")
        got += count


class FileLink:
    """A client's or the server's side: writes its direction's files, reads the other's."""

    def __init__(self, writer, waiter, timeout=None, owns_waiter=True):
        self.writer = writer
        self.waiter = waiter
        self.timeout = timeout
        self.send_all = writer.send_all
        self._owns_waiter = owns_waiter

    def open_next(self, timeout=None):
        """(descriptor, size) of the next incoming file, already unlinked."""
        fd = self.waiter.open(timeout)
        try:
            size = os.fstat(fd).st_size
            os.unlink(self.waiter.path)
        except BaseException:
            os.close(fd)
            raise
        return fd, size

    def recv_frame(self, view):
        """The client's receive: the whole `resp` file into view, which is the expected
        frame's size; a file of another size still shows the header, so the client names
        the field that differs."""
        fd, size = self.open_next(self.timeout)
        try:
            if size == len(view):
                _read_exactly(fd, view)
                return size
            if size < HEADER_SIZE or size > len(view):
                head = memoryview(view)[:min(size, HEADER_SIZE)]
                _read_exactly(fd, head)
                if size >= HEADER_SIZE and declared_size(view) == len(view):
                    raise ProtocolError(f"length mismatch: a file of {size} bytes holds a "
                                        f"frame of {len(view)} bytes")
                return len(head)
            _read_exactly(fd, memoryview(view)[:size])
            return size
        finally:
            os.close(fd)

    def close(self):
        if self._owns_waiter:
            self.waiter.close()
            self.writer.close()


class FileFrameReader:
    """The server's reader: one `req` file is one frame; rejected as the contract says."""

    def __init__(self, capacity=1 << 16):
        self._use(bytearray(capacity))
        self._link = None

    def _use(self, buf):
        self._buf = buf
        self._view = memoryview(buf)

    def attach(self, link):
        self._link = link

    def next_frame(self):
        """(kind, sequence, length, wanted, frame); never None (files have no end of stream)."""
        fd, size = self._link.open_next()
        try:
            return self._read_frame(fd, size)
        finally:
            os.close(fd)

    def messages(self, size, count):
        """(view, 1): the next stream message (PROTOCOL.md 11.1), one `req` file of `size`
        bytes; a file of another size is `length mismatch`."""
        fd, found = self._link.open_next()
        try:
            if found != size:
                raise Rejected("length mismatch")
            if size > len(self._buf):
                self._use(bytearray(size))  # the file is there: its bytes have arrived
            view = self._view[:size]
            _read_exactly(fd, view)
            return view, 1
        finally:
            os.close(fd)

    def _read_frame(self, fd, size):
        if size < HEADER_SIZE:
            raise Rejected("truncated header")
        # One greedy read when the file fits the existing buffer; otherwise the header first,
        # so no buffer is grown for a claimed length before it has passed the checks.
        _read_exactly(fd, self._view[:min(size, len(self._buf)) if size <= len(self._buf)
                                     else HEADER_SIZE])
        kind, sequence, length, wanted = check_incoming(self._buf)
        if size != HEADER_SIZE + length:
            raise Rejected("length mismatch")
        if size > len(self._buf):
            header = bytes(self._view[:HEADER_SIZE])
            self._use(bytearray(size))
            self._view[:HEADER_SIZE] = header
            _read_exactly(fd, self._view[HEADER_SIZE:size])
        return kind, sequence, length, wanted, self._view[:size]


def check_directory(directory):
    if not os.path.isdir(directory):
        raise OSError(errno.ENOTDIR, "not a directory", directory)
