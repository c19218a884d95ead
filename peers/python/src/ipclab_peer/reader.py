"""The server's frame reader for stream links.

Reads greedily into one reusable buffer, so a small request (header and payload) usually
costs a single read call. The header is checked as soon as its 24 bytes are in; the buffer
grows only when it is full of the frame's bytes, to at most twice that and never past a claimed
length that has passed the checks: memory follows the bytes that arrived, so a header claiming
128 MiB and then silence costs nothing.

A stream's messages (PROTOCOL.md 11.1: bare bytes, S each, as many as a MARK announced) come
out of the same buffer, many whole messages per read: `messages(size, count)`. With a read
size N (`serve --read-size N`, contract 6) each read of message bytes asks for exactly
min(N, the announced bytes not yet buffered), as a server reading 1 KiB a call does, and so
never reads past the K messages: the control frame after them is read as before.
"""
from .frame import (HEADER_SIZE, HEADER_WORDS, MAX_PAYLOAD, REQUEST, REQUEST_PREFIX, Rejected,
                    check_incoming)

INITIAL_CAPACITY = 1 << 16


class FrameReader:
    def __init__(self, capacity=INITIAL_CAPACITY, read_size=0):
        self._use(bytearray(capacity))
        self._read = None
        self._wanted = HEADER_SIZE  # bytes the pending frame needs buffered
        self._read_size = read_size  # 0: greedy reads of message bytes

    def _use(self, buf):
        self._buf = buf
        self._view = memoryview(buf)
        self._start = self._end = 0

    def attach(self, link):
        """Starts reading a new connection; anything left from the previous one is dropped."""
        self._read = link.read_into
        self._start = self._end = 0

    def next_frame(self):
        """(kind, sequence, length, wanted, frame) for the next frame, or None at a clean end
        of stream. `frame` is a view of the whole frame, valid until the next call.

        Raises Rejected for a malformed header, or a frame cut short by end of stream.
        """
        if self._start == self._end:
            # The usual case between round trips: nothing buffered, so a single read into
            # the whole buffer, and usually the whole request arrives with it.
            self._start = 0
            self._end = self._read(self._view)
            if self._end == 0:
                return None
        end = self._end
        if end - self._start >= HEADER_SIZE:
            start = self._start
            prefix, sequence, length, wanted = HEADER_WORDS.unpack_from(self._buf, start)
            # A well-formed REQUEST that is already whole: the hot path of rr.
            if prefix == REQUEST_PREFIX and length <= MAX_PAYLOAD and wanted <= MAX_PAYLOAD:
                size = HEADER_SIZE + length
                if end - start >= size:
                    self._start = start + size
                    if self._start == end:
                        self._start = self._end = 0
                    return REQUEST, sequence, length, wanted, self._view[start:start + size]
        return self._next_frame_slowly()

    def _next_frame_slowly(self):
        """Any frame the fast path did not take: partial, END, malformed, end of stream."""
        while True:
            frame = self.buffered_frame()
            if frame is not None:
                return frame
            if not self._fill(self._wanted):
                return self._ended()

    def buffered_frame(self):
        """The next frame if it is whole in the buffer, else None (then `_wanted` is the
        bytes it needs buffered). Raises Rejected as soon as a malformed header is in."""
        start = self._start
        if self._end - start < HEADER_SIZE:
            self._wanted = HEADER_SIZE
            return None
        kind, sequence, length, wanted = check_incoming(self._buf, start)
        size = HEADER_SIZE + length
        if self._end - start < size:
            self._wanted = size
            return None
        self._start = start + size
        if self._start == self._end:
            self._start = self._end = 0
        return kind, sequence, length, wanted, self._view[start:start + size]

    def _ended(self):
        """End of stream before the next whole frame: None between frames, else Rejected."""
        if self._end == self._start:
            return None
        if self._end - self._start < HEADER_SIZE:
            raise Rejected("truncated header")
        raise Rejected("truncated payload")

    async def next_frame_async(self, receive):
        """next_frame() for an event loop: `await receive(view) -> n` reads into the buffer
        (asyncio's sock_recv_into), the same buffering and growth as the blocking reads."""
        while True:
            frame = self.buffered_frame()
            if frame is not None:
                return frame
            count = await receive(self._room(self._wanted))
            if not count:
                return self._ended()
            self._end += count

    def messages(self, size, count):
        """(view, n): the next n whole messages of `size` bytes (1 <= n <= count), consumed,
        as one view valid until the next call. Whatever a read brought is handed out at once,
        so small messages cost a read per buffer-full, not per message.

        Raises Rejected("truncated payload") at end of stream inside a message.
        """
        start, end = self._start, self._end
        if end - start < size:
            filled = (self._fill_bounded(size, size * count) if self._read_size
                      else self._fill(size))
            if not filled:
                raise Rejected("truncated payload")
            start, end = self._start, self._end
        taken = min(count, (end - start) // size)
        stop = start + taken * size
        if stop == end:
            self._start = self._end = 0
        else:
            self._start = stop
        return self._view[start:stop], taken

    def _fill(self, size):
        """Reads until `size` unread bytes are buffered; False at end of stream."""
        read = self._read
        while self._end - self._start < size:
            count = read(self._room(size))
            if not count:
                return False
            self._end += count
        return True

    def _fill_bounded(self, size, due):
        """_fill for --read-size: reads until `size` unread bytes are buffered, each read
        asking for min(N, what is still due of the `due` announced bytes); False at end of
        stream."""
        read, limit = self._read, self._read_size
        while self._end - self._start < size:
            ask = min(limit, due - (self._end - self._start))
            count = read(self._room_for(ask))
            if not count:
                return False
            self._end += count
        return True

    def _room_for(self, ask):
        """A view of exactly `ask` bytes after the buffered ones: compacted to the front, or
        grown to the buffered bytes plus `ask`, only when they would not fit."""
        if self._end + ask > len(self._buf) and self._start:
            self._compact()
        while self._end + ask > len(self._buf):  # each step doubles, up to what is needed
            self._grow(self._end + ask, self._end)
        return self._view[self._end:self._end + ask]

    def _room(self, size):
        """Where the next read goes while a frame of `size` bytes is pending: compacted to
        the front if it would not fit, grown only when the buffer is full of its bytes."""
        if self._start + size > len(self._buf) and self._start:
            self._compact()
        end = self._end
        if end == len(self._buf):  # full of this frame's bytes (start is 0: compacted)
            self._grow(size, end)
        return self._view[end:] if end else self._view

    def _compact(self):
        pending = bytes(self._view[self._start:self._end])
        self._start, self._end = 0, len(pending)
        self._view[:self._end] = pending

    def _grow(self, size, end):
        """Twice the room, or what the frame still wants if less: never ahead of what came."""
        held = self._view[:end]
        bigger = bytearray(min(size, 2 * len(self._buf)))
        bigger[:end] = held
        held.release()
        self._use(bigger)
        self._end = end
