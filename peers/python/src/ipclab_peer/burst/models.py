"""The one table of this peer's server models (PROTOCOL.md 11.4, and 11.5.1 for load).

Each model is two functions of the running server `burst` (server.Burst): `prepare(burst)`
starts what must exist before READY (a pool), `run(burst)` serves until the server ends it
(burst.ended() after the N-th connection, or a signal). Every acceptor times its phases the same
way (accept_loop); the models differ in what they do with an accepted connection.

    burst.listener   the listening socket (listen(fd, --backlog))
    burst.log        PhaseLog: one Record per accepted connection
    burst.frames     exchange.Frames: the REQUEST/RESPONSE templates
    burst.workers    --workers W
    burst.ended()    one connection ended (served or failed)
    burst.spawning   held by the acceptor while it hands a connection off, so that the final
                     snapshot never misses the `spawn` of the last connection
    burst.children   children.Children (the process models)
    burst.serve(connection, record)                what a task does with its connection
    burst.serve_async(loop, connection, record)    the same on an event loop: pattern burst's
                     one round trip (exchange.py), pattern load's rr exchange until END
                     (load/exchange.py); the models are the same for both (PROTOCOL.md 11.5.1)
"""
import errno
import os
import signal
import threading
from dataclasses import dataclass
from typing import Callable

from .children import GIVE_UP
from .record import WHOLE, Record, now

# accept() failures that concern one would-be client, not the listener.
TRANSIENT_ACCEPT_ERRORS = {errno.ECONNABORTED, errno.EINTR, errno.EPROTO}


def _nothing(burst):
    pass


@dataclass(frozen=True)
class Model:
    name: str
    run: Callable
    prepare: Callable = _nothing


def accept_loop(burst, dispatch, worker=0, accepted=None, looped=None):
    """accept, then dispatch(connection, record). `loop` of a connection is stamped at the
    next accept call, then looped(record) runs if given. `accepted(start, end, worker)` makes
    the record (default: the log's)."""
    accepted = accepted or burst.log.accepted
    listener, previous = burst.listener, None
    while True:
        start = now()
        if previous is not None:
            previous.loop = start - previous.accepted_at
            if looped:
                looped(previous)
            previous = None
        try:
            connection, _ = listener.accept()
        except OSError as err:
            if err.errno in TRANSIENT_ACCEPT_ERRORS:
                continue
            raise
        previous = accepted(start, now(), worker)
        dispatch(connection, previous)


def _serve(burst, connection, record):
    burst.serve(connection, record)
    burst.ended()


# iterative: serve the connection inside the loop.
def run_iterative(burst):
    accept_loop(burst, lambda connection, record: _serve(burst, connection, record))


# thread: a new platform thread per connection.
def run_thread(burst):
    def task(connection, record, spawned):
        record.start_delay = now() - spawned
        _serve(burst, connection, record)

    def dispatch(connection, record):
        with burst.spawning:
            start = now()
            threading.Thread(target=task, args=(connection, record, start), daemon=True).start()
            record.spawn = now() - start
    accept_loop(burst, dispatch)


# thread-pool: W threads started before READY; the hand-off is submit().
def prepare_thread_pool(burst):
    numbers = iter(range(burst.workers))
    burst.pool_worker = threading.local()

    def name_worker():
        burst.pool_worker.index = next(numbers)
    from concurrent.futures import ThreadPoolExecutor  # only this model: see run_asyncio
    burst.pool = ThreadPoolExecutor(burst.workers, "ipclab-pool", initializer=name_worker)
    # The executor starts a thread per submit while none is idle: W waits at one barrier
    # start all W now.
    everyone = threading.Barrier(burst.workers + 1)
    for _ in range(burst.workers):
        burst.pool.submit(everyone.wait)
    everyone.wait()


def run_thread_pool(burst):
    def task(connection, record, handed):
        record.start_delay = now() - handed
        record.worker = burst.pool_worker.index
        _serve(burst, connection, record)

    def dispatch(connection, record):
        with burst.spawning:
            start = now()
            burst.pool.submit(task, connection, record, start)
            record.spawn = now() - start
    accept_loop(burst, dispatch)


# process: fork per connection; the child serves and reports, the collector thread reaps.
def run_process(burst):
    keys = iter(range(1 << 62))

    def dispatch(connection, record):
        with burst.spawning:
            start = now()
            try:
                key = next(keys)
                pid = burst.children.fork(key, record)
            except OSError:
                record.error = "io"
                connection.close()
                burst.ended()
                return
            if pid == 0:
                _child(burst, key, connection, record, start)
            record.spawn = now() - start
        connection.close()
    accept_loop(burst, dispatch)


def _child(burst, key, connection, record, spawned):
    """A `process` child: never returns."""
    try:
        record.start_delay = burst.children.started - spawned
        burst.serve(connection, record)
        burst.children.report(key, record)
    finally:
        os._exit(0)


# process-pool: W children forked before READY, each accepting on the shared socket.
def prepare_process_pool(burst):
    for worker in range(burst.workers):
        if burst.children.fork() == 0:
            _pool_worker(burst, worker)


def _pool_worker(burst, worker):
    """A pool child: its own accept loop, each record reported at the start of the next
    accept call, when its `loop` is known. Never returns."""
    stopping = PoolStop(burst.children)

    def accepted(accept_start, accepted_at, worker):
        return stopping.holding(Record(accept_start, accepted_at, worker))

    def looped(record):
        stopping.report(record)
        stopping.between_connections()
    try:
        accept_loop(burst, burst.serve, worker, accepted, looped)
    finally:
        os._exit(1)


class PoolStop:
    """A pool worker's end (children.end_all): on SIGTERM it ends at once while it waits in
    accept (its last connection reported), else once the connection it serves is reported: a
    connection answered but not yet reported when the server was stopped is still in the
    phases file. On GIVE_UP (sent after a grace: a connection the client holds open) it reports
    the one in hand as `lost` and ends, as the `process` model's parent records it."""

    def __init__(self, children):
        self._children = children
        self._held = None     # the record of the connection in hand, not yet reported
        self._asked = False
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(GIVE_UP, self._give_up)

    # Python runs these handlers in the main thread between bytecodes, an interrupted accept()
    # or recv() included; the worker has no other thread.
    def _stop(self, _signum, _frame):
        if self._held is None:
            os._exit(0)
        self._asked = True

    def _give_up(self, _signum, _frame):
        held, self._held = self._held, None
        if held is not None:
            held.error = "lost"
            self._children.report(WHOLE, held)
        os._exit(0)

    def holding(self, record):
        self._held = record
        return record

    def report(self, record):
        self._held = None  # first: a handler between the two never reports it twice
        self._children.report(WHOLE, record)

    def between_connections(self):
        if self._asked:
            os._exit(0)


def run_process_pool(burst):
    # The children serve; the collector thread counts their reports and ends the server.
    threading.Event().wait()


# asyncio: one event loop; the accept loop awaits sock_accept and creates a task per
# connection. `accept` is the await of sock_accept, its wait included, as a blocking accept's.
def run_asyncio(burst):
    # Imported here, not at the top: every peer process reads this table, and asyncio would add
    # ~50 ms to each start (the suites start thousands of peers; users start one per side per case).
    import asyncio
    asyncio.run(_accept_async(burst))


async def _accept_async(burst):
    import asyncio
    loop = asyncio.get_running_loop()
    listener, tasks, previous = burst.listener, set(), None
    listener.setblocking(False)

    async def task(connection, record, spawned):
        record.start_delay = now() - spawned
        await burst.serve_async(loop, connection, record)
        burst.ended()

    while True:
        start = now()
        if previous is not None:
            previous.loop = start - previous.accepted_at
            previous = None
        try:
            connection, _ = await loop.sock_accept(listener)
        except OSError as err:
            if err.errno in TRANSIENT_ACCEPT_ERRORS:
                continue
            raise
        previous = burst.log.accepted(start, now())
        with burst.spawning:
            spawned = now()
            running = loop.create_task(task(connection, previous, spawned))
            previous.spawn = now() - spawned
        tasks.add(running)  # the loop keeps only weak references to tasks
        running.add_done_callback(tasks.discard)


MODELS = {model.name: model for model in (
    Model("iterative", run_iterative),
    Model("thread", run_thread),
    Model("process", run_process),
    Model("thread-pool", run_thread_pool, prepare_thread_pool),
    Model("process-pool", run_process_pool, prepare_process_pool),
    Model("asyncio", run_asyncio),
)}
