"""Pattern load's server over a message queue (PROTOCOL.md 11.5.5): every client shares one
request queue, each request is one message whose `flags` name its connection's reply address
(transport/shared_queues.py). There is no connection to accept, so the models are loops over
the shared queue:

    iterative     the main thread receives the next request and answers it
    thread-pool   W threads (--workers, default 4), started before READY, each receiving the
                  next request from the shared queue and answering it

Each loop has its own Responder (templates patched in place are never shared between
threads). END_ACK carries the whole server's corrupted requests since the previous END of any
connection, so one counter under a lock; a thread-pool's END waits until every request
received before it has been checked (a check runs after its RESPONSE is out, so another
worker's could still be running), or the last END of a run could miss one. A rejected message
is reported and dropped: its connection gets no answer. The server ends as the others do (shutdown.Cleanup: a signal or the
end of stdin removes the queues and calls os._exit, whatever the loops are blocked in); a
request queue that vanishes ends it with an io error.
"""
import struct
import threading

from .. import shutdown, variants
from ..errors import IoError, PeerError, Unsupported, describe_os_error, report
from ..frame import (END, HEADER, HEADER_SIZE, MAGIC, MAX_PAYLOAD, REQUEST, VERSION, Rejected,
                     end_ack)
from ..responder import Responder
from ..transport import channels
from ..transport.shared_queues import MAX_CONNECTIONS, REPLY_ADDRESS
from . import exchange

# What a queue load server cannot take (PROTOCOL.md 11.5.5): no fault, no listen() backlog,
# no TCP socket.
REFUSED_FLAGS = ("--fault", "--backlog", "--nodelay")
FLAGS = struct.Struct("<H")
FLAGS_OFFSET = 6


def serve(config, mechanism, announce_ready):
    """Never returns: every way out goes through Cleanup.exit()."""
    cleanup = shutdown.Cleanup()
    with cleanup.held():
        shutdown.install(cleanup)
        with shutdown.exiting_on_error(cleanup):
            _check_supported(config, mechanism)
            exchange.warm(config)
            server = QueueServer(_listen(mechanism, cleanup), config)
            workers = config.workers if config.server_model == "thread-pool" else 0
            for index in range(workers):
                threading.Thread(target=server.run, daemon=True,
                                 name=f"ipclab-load-worker-{index}").start()
            announce_ready(server.queues.endpoint, config.mechanism,
                           server_model=config.server_model)
    if not workers:
        server.run()
    server.stopped.wait()
    cleanup.exit(server.code)


def _check_supported(config, mechanism):
    models = mechanism.load_models  # iterative, thread-pool (mechanisms.QUEUE_MODELS)
    if config.server_model not in models:
        raise Unsupported(f"server model {config.server_model!r} is not implemented for load "
                          f"over {config.mechanism!r} (this peer has: {', '.join(models)})")
    for flag in REFUSED_FLAGS:
        if flag in config.given:
            raise Unsupported(f"{flag} is not supported by a load server over "
                              f"{config.mechanism!r} (PROTOCOL.md 11.5.5)")
    variants.check_serve(config, mechanism)  # --nodelay off, --delivery: not a queue's


def _listen(mechanism, cleanup):
    try:
        with cleanup.creating() as created:
            return mechanism.shared_queue.listen(created)
    except channels.IPC_ERRORS as err:
        raise IoError(f"cannot create the IPC objects: {err}") from None


class QueueServer:
    def __init__(self, queues, config):
        self.queues, self.config = queues, config
        self.stopped = threading.Event()  # a loop failed: the server exits with `code`
        self.code = 0
        self._counting = threading.Condition()
        self._corrupted = 0  # the whole server's, since the previous END
        self._next_ticket = 0  # requests numbered as they are answered ...
        self._checking = set()  # ... and those whose check has not ended yet

    def run(self):
        """One loop over the shared queue until it fails."""
        try:
            self._loop(Responder(self.config))
        except (OSError, *channels.IPC_ERRORS) as err:
            report("io", describe_os_error(err) if isinstance(err, OSError) else str(err))
            self._stop(IoError.code)
        except Exception as err:  # noqa: BLE001 - report it, still remove the queues
            report("internal", f"{type(err).__name__}: {err}")
            self._stop(PeerError.code)

    def _stop(self, code):
        if not self.stopped.is_set():
            self.code = code
            self.stopped.set()

    def _loop(self, responder):
        receive, answer = self.queues.receive, self._answer
        while True:
            message = receive()
            try:
                answer(responder, message)
            except Rejected as rejected:
                report("rejected frame", rejected.reason)

    def _answer(self, responder, message):
        """The RESPONSE (or END_ACK) first, then the request payload's check."""
        kind, sequence, length, wanted, connection = check_request(message)
        if kind == END:
            self.queues.reply(connection, end_ack(sequence, self._take_corrupted()))
            self.queues.ended(connection)
            return
        counting = self._counting
        with counting:
            ticket = self._next_ticket
            self._next_ticket = ticket + 1
            self._checking.add(ticket)
        corrupted = False
        try:
            response = responder.response_for(wanted)
            response.patch(sequence, length)
            self.queues.reply(connection, response.buf)
            expected = responder.expected_request_for(length)
            expected.patch(sequence, wanted)
            FLAGS.pack_into(expected.buf, FLAGS_OFFSET, REPLY_ADDRESS + connection)
            corrupted = expected.buf != message
        finally:
            with counting:
                self._corrupted += corrupted
                self._checking.discard(ticket)
                counting.notify_all()

    def _take_corrupted(self):
        """The count since the previous END, once every request received before this END
        has been checked."""
        with self._counting:
            before = self._next_ticket
            self._counting.wait_for(lambda: min(self._checking, default=before) >= before)
            corrupted, self._corrupted = self._corrupted, 0
        return corrupted


def check_request(message):
    """(kind, sequence, length, wanted, connection) of one request message: section 2's header
    checks in order, the flags a reply address (check 4), then the message's size."""
    if len(message) < HEADER_SIZE:
        raise Rejected("truncated header")  # as a udp server says of a short datagram
    magic, version, kind, flags, sequence, length, wanted = HEADER.unpack_from(message)
    if magic != MAGIC:
        raise Rejected("bad magic")
    if version != VERSION:
        raise Rejected("bad version")
    if kind != REQUEST and kind != END:
        raise Rejected("unexpected kind")
    if not REPLY_ADDRESS <= flags < REPLY_ADDRESS + MAX_CONNECTIONS:
        raise Rejected("bad flags")
    if length > MAX_PAYLOAD or wanted > MAX_PAYLOAD:
        raise Rejected("length too large")
    if kind == END and length:
        raise Rejected("bad end frame")
    if len(message) != HEADER_SIZE + length:
        raise Rejected("length mismatch")
    return kind, sequence, length, wanted, flags - REPLY_ADDRESS
