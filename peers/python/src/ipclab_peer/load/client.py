"""Pattern load, the client (PROTOCOL.md 11.5.3): C persistent connections, request k on
connection k mod C at T0 + o_k (schedule.py), one outstanding request per connection.

One thread per connection. What a connection does is behind a small interface, so the same
schedule loop drives section 2's frames (frames.py: tcp, uds, sysv-mq, posix-mq) and an RPC
framework's calls (rpc.py, 11.5.4):

    prepare(k)          before the wait: stamp request k (nothing of it in the timed region)
    call(k) -> got      between the clock reads `sent` and `received`: the send and the
                        receive, or the stub call
    failures            the exception types a failed `call` raises (a request's error)
    classify(err)       -> (records kind, PeerError or None): the PeerError fails the client
                        after the files (a `protocol` error), None keeps its status ok
    check(k, got)       after `received`: raises PayloadMismatch (the connection lives on)
                        or ProtocolError (the connection is dead)
    end(sequence)       -> the corrupted-request count (END / END_ACK, or `finish`); raises
                        PeerError; not timed

A thread sleeps until its next request's intended start with time.sleep, which CPython turns
into clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME); each thread first sets its timer slack
to 1 ns (PR_SET_TIMERSLACK), so the kernel does not add its default 50 us to every wake-up. It
does not spin: a spinning thread would hold the GIL the others need to send and receive
(README.md has the measurements).

Times go into arrays made before T0 (records.Times); the records, samples and result are
written after every connection has ended.
"""
import ctypes
import threading
import time
from time import sleep as sleep_s

from ..errors import PayloadMismatch, PeerError, ProtocolError
from . import records, schedule

# T0 is read this long before it comes: the threads, parked on an Event, are woken and back
# asleep until their first intended start by then, instead of starting late.
START_LEAD_NS = 2_000_000
PR_SET_TIMERSLACK = 29
_prctl = ctypes.CDLL(None, use_errno=True).prctl
_prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)


def run(config, recorder, connected):
    """The schedule over the connections `connected(config)` makes: a context manager giving
    the list of connections (of the interface above) and closing them at its end; a connect
    that fails raises, ending the case before anything is measured."""
    plan = schedule.of(config)
    recorder.fields = records.static_fields(config, plan)
    with connected(config) as connections:
        load = Load(plan, connections)
        load.run()
    records.write_records(config.records_file, config.clients, plan, load.times)
    for index, sample in enumerate(records.samples(plan, load.times)):
        recorder.add(index, sample)
    recorder.fields.update(records.result_fields(config, plan, load.times))
    load.raise_failure()


class Load:
    def __init__(self, plan, connections):
        self.plan, self.connections = plan, connections
        self.times = records.Times(len(plan.offsets))
        self.failure = None  # the first validation or end failure: the client's exit
        self.corrupted = 0   # the sum of the connections' END_ACK / finish counts
        self._failing = threading.Lock()
        self._go = threading.Event()
        self.t0 = None

    def run(self):
        threads = [threading.Thread(target=self._connection, args=(c,), daemon=True,
                                    name=f"ipclab-load-{c}")
                   for c in range(len(self.connections))]
        for thread in threads:
            thread.start()
        self.t0 = time.perf_counter_ns() + START_LEAD_NS
        self._go.set()
        for thread in threads:
            thread.join()

    def raise_failure(self):
        """The first failure; else a non-zero sum of corrupted requests (PROTOCOL.md 11.5.4:
        `finish` counts the whole server's, so only the sum says anything)."""
        if self.failure is not None:
            raise self.failure
        if self.corrupted:
            raise PayloadMismatch(f"payload mismatch: server received {self.corrupted} "
                                  "corrupted request payloads")

    def _connection(self, c):
        _prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
        self._go.wait()
        step, total = len(self.connections), len(self.plan.offsets)
        stopped = self._requests(c)
        if stopped is not None:
            for k in range(stopped, total, step):
                self.times.errors[k] = records.NOT_SENT
            return
        last = c + (total - 1 - c) // step * step if c < total else -1
        try:
            corrupted = self.connections[c].end(last + 1)
        except PeerError as err:
            self._fail(err)
            return
        with self._failing:
            self.corrupted += corrupted

    def _requests(self, c):
        """Sends connection c's requests on time; returns None when all went, else the first
        request left unsent when the connection died."""
        connection, times, t0 = self.connections[c], self.times, self.t0
        offsets, step, total = self.plan.offsets, len(self.connections), len(self.plan.offsets)
        sent_at, received_at, errors = times.sent, times.received, times.errors
        prepare, call, check = connection.prepare, connection.call, connection.check
        failures, clock, sleep = connection.failures, time.perf_counter_ns, sleep_s
        for k in range(c, total, step):
            prepare(k)
            intended = t0 + offsets[k]
            ahead = intended - clock()
            if ahead > 0:
                sleep(ahead * 1e-9)
            sent = clock()
            try:
                got = call(k)
            except failures as err:
                sent_at[k] = sent - t0
                self._failed(k, connection.classify(err))
                return k + step
            received = clock()
            sent_at[k], received_at[k] = sent - t0, received - t0
            try:
                check(k, got)
            except PayloadMismatch as err:
                errors[k] = records.PAYLOAD_MISMATCH
                self._fail(err)
            except ProtocolError as err:  # out of step: the connection is dead
                errors[k] = records.PROTOCOL
                self._fail(err)
                return k + step
        return None

    def _failed(self, k, classified):
        kind, error = classified
        self.times.errors[k] = kind
        if error is not None:
            self._fail(error)

    def _fail(self, err):
        with self._failing:
            if self.failure is None:
                self.failure = err
