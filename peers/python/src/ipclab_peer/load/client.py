"""Pattern load, the client (PROTOCOL.md 11.5.3): C persistent connections, request k on
connection k mod C at T0 + o_k (schedule.py), one outstanding request per connection.

One thread per connection, each with its own preallocated frames (rr.Exchange). A thread sleeps
until its next request's intended start with time.sleep, which CPython turns into
clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME); each thread first sets its timer slack to
1 ns (PR_SET_TIMERSLACK), so the kernel does not add its default 50 us to every wake-up. It
does not spin: a spinning thread would hold the GIL the others need to send and receive
(README.md has the measurements). Between the clock reads `sent` and `received` there is only
the send and the receive; stamping happens before the wait, validation after `received`.

Times go into arrays made before T0 (records.Times); the records, samples and result are
written after every connection has ended.
"""
import ctypes
import threading
import time
from time import sleep as sleep_s

from .. import rr
from ..errors import IoError, PayloadMismatch, PeerError, ProtocolError, describe_os_error
from ..transport.sockets import set_send_timeout
from . import records, schedule

# T0 is read this long before it comes: the threads, parked on an Event, are woken and back
# asleep until their first intended start by then, instead of starting late.
START_LEAD_NS = 2_000_000
PR_SET_TIMERSLACK = 29
_prctl = ctypes.CDLL(None, use_errno=True).prctl
_prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)


def run(config, mechanism, recorder):
    plan = schedule.of(config)
    recorder.fields = records.static_fields(config, plan)
    links = connect_all(mechanism, config)
    try:
        load = Load(config, plan, links)
        load.run()
    finally:
        for link in links:
            link.close()
    records.write_records(config.records_file, config.clients, plan, load.times)
    for index, sample in enumerate(records.samples(plan, load.times)):
        recorder.add(index, sample)
    recorder.fields.update(records.result_fields(config, plan, load.times))
    if load.failure is not None:
        raise load.failure


def connect_all(mechanism, config):
    """The C connections, before T0; a connect that fails ends the case (io)."""
    links = []
    try:
        for _ in range(config.clients):
            links.append(rr.connect(mechanism, config))
            set_send_timeout(links[-1].sock, config.io_timeout)
    except BaseException:
        for link in links:
            link.close()
        raise
    return links


class Load:
    def __init__(self, config, plan, links):
        self.config, self.plan, self.links = config, plan, links
        self.exchanges = [rr.Exchange(config) for _ in links]
        self.times = records.Times(len(plan.offsets))
        self.failure = None  # the first validation or END failure: the client's exit
        self._failing = threading.Lock()
        self._go = threading.Event()
        self.t0 = None

    def run(self):
        threads = [threading.Thread(target=self._connection, args=(c,), daemon=True,
                                    name=f"ipclab-load-{c}") for c in range(len(self.links))]
        for thread in threads:
            thread.start()
        self.t0 = time.perf_counter_ns() + START_LEAD_NS
        self._go.set()
        for thread in threads:
            thread.join()

    def _connection(self, c):
        _prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
        self._go.wait()
        step, total = len(self.links), len(self.plan.offsets)
        stopped = self._requests(c)
        if stopped is not None:
            for k in range(stopped, total, step):
                self.times.errors[k] = records.NOT_SENT
            return
        last = c + (total - 1 - c) // step * step if c < total else -1
        try:
            self.exchanges[c].end(self.links[c], last + 1)
        except PeerError as err:
            self._fail(err)
        except OSError as err:
            self._fail(IoError(f"END on connection {c}: {describe_os_error(err)}"))

    def _requests(self, c):
        """Sends connection c's requests on time; returns None when all went, else the first
        request left unsent when the connection died."""
        link, exchange, times, t0 = self.links[c], self.exchanges[c], self.times, self.t0
        offsets, step, total = self.plan.offsets, len(self.links), len(self.plan.offsets)
        sent_at, received_at, errors = times.sent, times.received, times.errors
        send, receive, clock, sleep = link.send_all, link.recv_frame, time.perf_counter_ns, sleep_s
        request, patch = exchange.request.buf, exchange.request.patch
        check, wanted = exchange.check_response, self.config.response_size
        for k in range(c, total, step):
            patch(k, wanted)
            intended = t0 + offsets[k]
            ahead = intended - clock()
            if ahead > 0:
                sleep(ahead * 1e-9)
            sent = clock()
            try:
                send(request)
                got = receive(exchange.response)
            except (OSError, PeerError) as err:
                sent_at[k] = sent - t0
                errors[k] = records.transport_error(err)
                return k + step
            received = clock()
            sent_at[k], received_at[k] = sent - t0, received - t0
            try:
                check(k, got)
            except PayloadMismatch as err:
                errors[k] = records.PAYLOAD_MISMATCH
                self._fail(err)
            except ProtocolError as err:  # the stream is out of step: the connection is dead
                errors[k] = records.PROTOCOL
                self._fail(err)
                return k + step
        return None

    def _fail(self, err):
        with self._failing:
            if self.failure is None:
                self.failure = err
