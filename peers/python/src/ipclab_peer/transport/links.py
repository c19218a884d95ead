"""Connected endpoints: one class per kind of descriptor, all behind the same small interface.

    send_all(frame)       write one whole frame (one call in the common case)
    read_into(view) -> n  one read of at most len(view) bytes; 0 at end of stream
    recv_frame(view) -> n receive one frame of len(view) bytes
    close()

Datagram links (udp, uds-dgram) are in datagram.py. The hot methods are bound straight to the C-level socket methods where possible, so a round
trip costs the system calls and little else.
"""
import io
import os

from ..errors import IoError, ReceiveTimeout
from ..frame import HEADER_SIZE, declared_size


class EndOfStream(IoError):
    def __init__(self, got, wanted):
        super().__init__(f"end of stream after {got} of {wanted} bytes of a frame")


class _Stream:
    """Frame reception shared by the stream links: read until the frame is complete."""

    timeout = None

    def recv_frame(self, view):
        try:
            got = self.read_into(view)
        except BlockingIOError:
            raise self._timed_out() from None
        if got == len(view):
            return got
        return self._recv_rest(view, got)

    def _recv_rest(self, view, got):
        """Slow path after a short read: keeps reading, but never past the frame the peer
        announced, so a response shorter than expected is reported instead of waited for."""
        view = memoryview(view)
        target = len(view)
        while got < target:
            if got >= HEADER_SIZE:
                target = min(target, declared_size(view))
                if got >= target:
                    break
            try:
                count = self.read_into(view[got:target])
            except BlockingIOError:
                raise self._timed_out() from None
            if count == 0:
                raise EndOfStream(got, target)
            got += count
        return got

    def _timed_out(self):
        return ReceiveTimeout(f"no data within {self.timeout:g} s")


class SocketStream(_Stream):
    """A connected tcp or uds socket."""

    def __init__(self, sock, timeout=None):
        self.sock = sock
        self.timeout = timeout
        self.send_all = sock.sendall
        self.read_into = sock.recv_into

    def close(self):
        self.sock.close()


class FdStream(_Stream):
    """A read descriptor and a write descriptor: anonymous pipes or FIFOs.

    FileIO.readinto reads straight into the caller's buffer and costs less per call than
    os.readv (no list, no iovec allocation); the descriptors stay ours to close.
    """

    def __init__(self, read_fd, write_fd):
        # An inherited pipe may have been left non-blocking; every read here must block
        # (a non-blocking FileIO.readinto would return None instead of waiting).
        os.set_blocking(read_fd, True)
        os.set_blocking(write_fd, True)
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.read_into = io.FileIO(read_fd, "rb", closefd=False).readinto
        self._write = io.FileIO(write_fd, "wb", closefd=False).write

    def send_all(self, data):
        written = self._write(data)
        if written != len(data):
            self._write_rest(data, written)

    def _write_rest(self, data, written):
        view = memoryview(data)
        while written < len(view):
            written += self._write(view[written:])

    def close(self):
        for fd in {self.read_fd, self.write_fd}:
            try:
                os.close(fd)
            except OSError:
                pass


class MessageStream(_Stream):
    """The stream-over-messages adapter of PROTOCOL.md 4.1, once for every message channel
    (channels.py): send_all cuts a frame into messages of exactly M bytes (the last one
    shorter); read_into hands out the received messages' bytes as a stream, so the stream
    readers (reader.FrameReader, _Stream.recv_frame) reassemble frames unchanged. A message
    is copied straight into the caller's buffer when it fits, which is the normal case.

    One adapter per "connection": a new one starts with nothing pending, so the server drops
    what was left of a rejected frame's message, as it would close a socket.
    """

    def __init__(self, channel, timeout=None, on_close=None):
        self.channel = channel
        self.timeout = timeout
        self._capacity = channel.capacity
        self._send = channel.send
        self._recv_into = channel.recv_into
        self._pending = None
        self._on_close = on_close

    def send_all(self, data):
        size, capacity = len(data), self._capacity
        if size <= capacity:
            self._send(data)
            return
        view = memoryview(data)
        for start in range(0, size, capacity):
            self._send(view[start:start + capacity])

    def read_into(self, view):
        """One message's bytes (or what is left of one); never 0: there is no end of stream,
        and an empty message carries nothing."""
        if self._pending is not None:
            return self._read_pending(view)
        size = self._recv_into(view)
        while size == 0:
            size = self._recv_into(view)
        if size > len(view):
            self._pending = self.channel.overflow
            self.channel.overflow = b""
            return len(view)
        return size

    def _read_pending(self, view):
        pending = self._pending
        count = min(len(pending), len(view))
        view[:count] = pending[:count]
        self._pending = pending[count:] if count < len(pending) else None
        return count

    def close(self):
        if self._on_close is not None:
            self._on_close()
