"""One record per connection of a burst server model (PROTOCOL.md 11.4): its phases in
nanoseconds of time.monotonic_ns() (CLOCK_MONOTONIC: one clock for every process of the
machine, so a forked child's times and its parent's can be subtracted). A phase a model does
not have stays None and is written as an empty field.

A record is filled by up to two hands: the acceptor (accept, loop, spawn) and the task that
serves the connection (start_delay, transfer, total, error; `done` last). The phases file is
written once, at the end, from a snapshot; a connection whose task had not finished by then is
`lost`.
"""
import os
import struct
import threading
import time

now = time.monotonic_ns
PHASES = ("accept", "loop", "spawn", "start_delay", "transfer", "total")
HEADER = ("conn_index,accept_ns,loop_ns,spawn_ns,start_delay_ns,transfer_ns,total_ns,"
          "accept_start_ns,worker,error\n")


class Record:
    __slots__ = PHASES + ("accept_start", "accepted_at", "worker", "error", "done")

    def __init__(self, accept_start, accepted_at, worker=0):
        self.accept_start, self.accepted_at, self.worker = accept_start, accepted_at, worker
        self.accept = accepted_at - accept_start
        self.loop = self.spawn = self.start_delay = self.transfer = self.total = None
        self.error = None
        self.done = False


class PhaseLog:
    """Every accepted connection's record, thread-safe; `close()` freezes them for the file."""

    def __init__(self):
        self._lock = threading.Lock()
        self._records = []

    def accepted(self, accept_start, accepted_at, worker=0):
        record = Record(accept_start, accepted_at, worker)
        with self._lock:
            self._records.append(record)
        return record

    def add(self, record):
        with self._lock:
            self._records.append(record)

    def close(self):
        """The rows of the phases file, from the records as they are now, in conn_index
        order (the order the accepts returned, across all acceptors)."""
        with self._lock:
            records = sorted(self._records, key=lambda r: r.accepted_at)
            return [_row(index, r) for index, r in enumerate(records)]


class Unkept:
    """PhaseLog's interface for a load server (PROTOCOL.md 11.5.1), which writes no phases
    file: records are made for the models to fill, and dropped."""

    def accepted(self, accept_start, accepted_at, worker=0):
        return Record(accept_start, accepted_at, worker)

    def add(self, record):
        pass


def _row(index, record):
    phases = ["" if getattr(record, p) is None else str(getattr(record, p)) for p in PHASES]
    error = record.error or ("" if record.done else "lost")
    return ",".join([str(index), *phases, str(record.accept_start), str(record.worker),
                     error]) + "\n"


def write_phases(path, rows):
    """The phases file: a temporary name, then renamed into place."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="ascii", newline="\n") as out:
        out.write(HEADER)
        out.writelines(rows)
    os.replace(tmp, path)


# A child's report to its parent through a pipe: one write of at most PIPE_BUF bytes is
# atomic, so the children share one pipe. Fields: key (the parent's index of the connection,
# or -1 for a whole record from a pool worker), worker, accept_start, accepted_at, the six
# phases (-1: not applicable), the error's index in ERRORS (0: none).
WIRE = struct.Struct("<qqqq6qq")
ERRORS = (None, "eof", "reset", "protocol", "payload-mismatch", "io", "lost")
WHOLE = -1


def encode(key, record):
    phases = [-1 if getattr(record, p) is None else getattr(record, p) for p in PHASES]
    return WIRE.pack(key, record.worker, record.accept_start, record.accepted_at, *phases,
                     ERRORS.index(record.error))


def decode(data):
    """(key, record): the record as the child had it, done."""
    key, worker, accept_start, accepted_at, *rest = WIRE.unpack(data)
    record = Record(accept_start, accepted_at, worker)
    for name, value in zip(PHASES, rest):
        setattr(record, name, None if value == -1 else value)
    record.error, record.done = ERRORS[rest[-1]], True
    return key, record
