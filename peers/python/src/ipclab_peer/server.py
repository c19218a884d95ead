"""`serve`: answer REQUESTs until shut down (PROTOCOL.md sections 2, 4, 5, 6, 10). The
mechanism's listener comes from mechanisms.py; its family picks the loop (LOOPS, below)."""
import errno
import json
import os
import socket
import sys

from . import shutdown, variants
from .burst.server import serve as burst_serve
from .cli_values import FAULTS
from .errors import (IoError, PeerError, ProtocolError, Unsupported, describe_os_error,
                     report)
from .datagram_stream import Clients, stream_datagram
from .frame import (END, END_NO_REPLY, FLAGGED_KINDS, HEADER_SIZE, MARK, MAX_PAYLOAD, REQUEST,
                    REQUEST_NO_REPLY, Rejected, check_incoming)
from .load.queue_server import serve as queue_load_serve
from .mechanisms import (BROKER, DATAGRAMS, FRAMES, ICEORYX2, MECHANISMS, NATS, NNG, REDIS,
                         RPC, ZMQ)
from .messages import receive_stream
from .reader import FrameReader
from .responder import Responder
from .runtime import CONTRACT, LANGUAGE, runtime
from .transport.datagram import size_error

# How a connection ended, and what that means for a pipe server, whose only client it was.
CLOSED, REJECTED, BROKEN, FAILED = "closed", "rejected", "broken", "failed"
PIPE_EXIT_CODES = {CLOSED: 0, REJECTED: ProtocolError.code, BROKEN: IoError.code,
                   FAILED: PeerError.code}
# accept() failures that concern one would-be client, not the listener.
TRANSIENT_ACCEPT_ERRORS = {errno.ECONNABORTED, errno.EINTR, errno.EPROTO}


def serve(config):
    """Never returns: every way out goes through Cleanup.exit()."""
    if queue_load(config):
        queue_load_serve(config, MECHANISMS[config.mechanism], announce_ready)
    if config.server_model is not None and not rpc_load(config):
        # tcp, the one burst and frame load mechanism here, takes --nodelay either way:
        # burst's exchange is one write each way, which Nagle's algorithm never holds back; a
        # load server sets it per connection (load/exchange.py). An RPC load server is the
        # framework's own, started below as the rr server is.
        burst_serve(config, MECHANISMS.get(config.mechanism), announce_ready)
    cleanup = shutdown.Cleanup()
    with cleanup.held():
        shutdown.install(cleanup)
        mechanism, listener = start(config, cleanup)
    try:
        code = LOOPS[mechanism.family](listener, config)
    except Exception as err:  # noqa: BLE001 - report it, but still remove our files
        report("internal", f"{type(err).__name__}: {err}")
        code = PeerError.code
    cleanup.exit(code)


def start(config, cleanup):
    """Opens the endpoint and announces READY, or reports why not and exits."""
    with shutdown.exiting_on_error(cleanup):
        mechanism = MECHANISMS.get(config.mechanism)
        if mechanism is None or mechanism.listen is None:
            raise Unsupported(f"mechanism {config.mechanism!r} is not implemented for serve")
        variants.check_serve(config, mechanism)
        if config.fault not in FAULTS:
            raise Unsupported(f"fault {config.fault!r} is a load server's (the C++ peer's)")
        if config.server_model is not None:
            check_rpc_load(config, mechanism)
        listener = listen(mechanism, config, cleanup)
        more = {} if config.server_model is None else {"server_model": config.server_model}
        more.update(getattr(listener, "ready_extra", {}))  # its server's version (4.10, 4.11)
        announce_ready(listener.endpoint, config.mechanism, **more)
    return mechanism, listener


def rpc_load(config):
    """`serve --pattern load` over an RPC mechanism (PROTOCOL.md 11.5.4): the framework's own
    server in a configuration, started as the rr server is (rpc/)."""
    mechanism = MECHANISMS.get(config.mechanism)
    return config.pattern == "load" and mechanism is not None and mechanism.family == RPC


def queue_load(config):
    """`serve --pattern load` over a message queue (PROTOCOL.md 11.5.5): one request queue
    shared by every client, served by load/queue_server.py."""
    mechanism = MECHANISMS.get(config.mechanism)
    return (config.pattern == "load" and mechanism is not None
            and mechanism.shared_queue is not None)


# What an RPC load server cannot take: the framework's server has its own threads and
# listen() backlog (PROTOCOL.md 11.5.4).
RPC_LOAD_REFUSES = ("--workers", "--backlog")


def check_rpc_load(config, mechanism):
    """An RPC load server's configuration must be one of the mechanism's load_models."""
    if not mechanism.load_models:  # soap: rr only
        raise Unsupported(f"pattern load is not implemented for {config.mechanism!r}")
    if config.server_model not in mechanism.load_models:
        raise Unsupported(f"server model {config.server_model!r} is not implemented for load "
                          f"over mechanism {config.mechanism!r} (this peer has: "
                          f"{', '.join(mechanism.load_models)})")
    for flag in RPC_LOAD_REFUSES:
        if flag in config.given:
            raise Unsupported(f"{flag} is not supported over {config.mechanism!r}: the "
                              "framework's server configuration decides it")


def listen(mechanism, config, cleanup):
    try:
        return mechanism.listen(config.endpoint, config, cleanup)
    except OSError as err:
        raise IoError(f"cannot listen on {config.endpoint}: {describe_os_error(err)}") from None


def announce_ready(endpoint, mechanism, **more):
    """READY (PROTOCOL.md section 5); `more`: a burst server's server_model (11.4)."""
    ready = {"endpoint": endpoint, "mechanism": mechanism, "language": LANGUAGE,
             "runtime": runtime(), "pid": os.getpid(), "contract": CONTRACT, **more}
    try:
        sys.stdout.write("READY " + json.dumps(ready) + "\n")
        sys.stdout.flush()
    except OSError as err:
        raise IoError(f"cannot write READY: {describe_os_error(err)}") from None


def report_rejection(reason):
    report("rejected frame", reason)


def serve_streams(listener, config):
    """Stream listeners, and the message-channel and file listeners, which hand out links
    that look like connections (see transport/listeners.py)."""
    responder = Responder(config)
    reader = listener.new_reader() if hasattr(listener, "new_reader") else \
        FrameReader(read_size=config.read_size)
    while True:
        try:
            link = listener.accept()
        except OSError as err:
            if err.errno in TRANSIENT_ACCEPT_ERRORS:
                continue
            report("io", f"cannot accept a client: {describe_os_error(err)}")
            return IoError.code
        try:
            outcome = serve_connection(link, reader, responder)
        finally:
            link.close()
        if listener.single_client:
            return PIPE_EXIT_CODES[outcome]


def serve_connection(link, reader, responder):
    """Answers one client until it closes; a bad frame or a failed write ends only this
    connection, never the server."""
    reader.attach(link)
    try:
        answer_frames(link, reader, responder)
    except Rejected as rejected:
        report_rejection(rejected.reason)
        return REJECTED
    except OSError as err:
        report("io", describe_os_error(err))
        return BROKEN
    except Exception as err:  # noqa: BLE001 - a bug must not take the server down
        report("internal", f"{type(err).__name__}: {err}")
        return FAILED
    return CLOSED


def answer_frames(link, reader, responder):
    """The server's hot loop; the request is checked only after the response is sent.
    A MARK hands the connection to the stream loop (messages.py) until its END."""
    send, next_frame = link.send_all, reader.next_frame
    response, expected = responder.response_for(0), responder.expected_request_for(0)
    corrupted = 0
    try:
        while True:
            frame = next_frame()
            if frame is None:
                return
            kind, sequence, length, wanted, received = frame
            if kind == REQUEST:
                if response.length != wanted:
                    response = responder.response_for(wanted)
                response.patch(sequence, length)
                send(response.buf)
                if expected.length != length:
                    expected = responder.expected_request_for(length)
                expected.patch(sequence, wanted)
                if expected.buf != received:
                    corrupted += 1
            elif kind == END or kind == END_NO_REPLY:
                responder.corrupted += corrupted
                corrupted = 0
                send(responder.end_ack(kind, sequence))
            elif kind == REQUEST_NO_REPLY:
                responder.take_one_way(frame)
            elif not receive_stream(frame, reader, send, responder.tally(), MAX_PAYLOAD):
                return
    finally:
        responder.corrupted += corrupted


def serve_datagrams(listener, config):
    """udp, uds-dgram: one frame or stream message per datagram, answered to its source
    address."""
    responder, sock = Responder(config), listener.sock
    buf = bytearray(listener.capacity)
    view = memoryview(buf)
    clients = Clients()
    while True:
        try:
            size, peer = sock.recvfrom_into(buf, 0, socket.MSG_TRUNC)
        except OSError as err:
            report("io", f"cannot receive: {describe_os_error(err)}")
            return IoError.code
        try:
            datagram = view[:size]
            if not stream_datagram(datagram, size, peer, listener, clients):
                answer_datagram(sock, datagram, size, peer, listener, responder, clients)
        except Rejected as rejected:
            report_rejection(rejected.reason)
        except OSError as err:
            report("io", f"cannot answer {peer or 'an unbound socket'}: "
                         f"{describe_os_error(err)}")


def answer_datagram(sock, datagram, size, peer, listener, responder, clients):
    """Answers one datagram of `size` bytes (`datagram` holds those that fitted the buffer)."""
    if size < HEADER_SIZE:
        raise Rejected("truncated header")
    kind, sequence, length, wanted = check_incoming(datagram)
    if size != HEADER_SIZE + length or size > len(datagram):
        raise Rejected("length mismatch")
    if kind >> FLAGGED_KINDS:
        raise Rejected("bad flags")  # one-way (flag NO_REPLY) is pattern short's, not here
    if kind == END:
        sock.sendto(clients.end_ack(peer, sequence), peer)
        return
    if kind == MARK:
        ack = clients.mark(peer, datagram, sequence, responder, listener.max_message)
        sock.sendto(ack, peer)
        return
    if wanted > listener.max_payload:
        raise Rejected("length too large")  # the response would not fit in one datagram
    response = responder.response_for(wanted)
    response.patch(sequence, length)
    try:
        sock.sendto(response.buf, peer)
    except OSError as err:
        raise size_error(err, len(response.buf)) or err
    expected = responder.expected_request_for(length)
    expected.patch(sequence, wanted)
    if expected.buf != datagram:
        clients.corrupted[peer] = clients.corrupted.get(peer, 0) + 1


def serve_rpc(listener, config):
    """The framework's own threads serve; this waits until shutdown ends the process."""
    listener.wait()
    return 0


def serve_broker(listener, config):
    """activemq: the responder's loop over its request queue (broker_server.py, which needs
    proton: imported here, once the listener has connected)."""
    from .broker_server import serve as serve_messages
    return serve_messages(listener, config)


def serve_zmq(listener, config):
    """zmq-tcp, zmq-ipc: the loop over the REP and PULL sockets (zmq_server.py, which needs
    pyzmq: imported here, once the listener has bound)."""
    from .zmq_server import serve as serve_sockets
    return serve_sockets(listener, config)


def serve_nng(listener, config):
    """nng-tcp, nng-ipc: the loop over the REP and PULL sockets (nng_server.py, which needs
    pynng: imported here, once the listener is listening)."""
    from .nng_server import serve as serve_sockets
    return serve_sockets(listener, config)


def serve_redis(listener, config):
    """redis-tcp, redis-uds: the loop over the server's lists (redis_server.py, which needs
    redis-py: imported here, once the listener has connected)."""
    from .redis_server import serve as serve_lists
    return serve_lists(listener, config)


def serve_nats(listener, config):
    """nats: the loop over the server's subjects (nats_server.py, which needs nats-py: imported
    here, once the listener has connected)."""
    from .nats_server import serve as serve_subjects
    return serve_subjects(listener, config)


def serve_iceoryx2(listener, config):
    """iceoryx2, iceoryx2-spin: the loop over the server's samples (iceoryx2_server.py, with
    the listener's transport/iceoryx2_samples.py), a REQUEST wanting more than the mechanism's
    largest payload rejected."""
    from .iceoryx2_server import serve as serve_samples
    return serve_samples(listener, config, MECHANISMS[config.mechanism].max_payload())


# How each family of mechanisms (mechanisms.py) is served.
LOOPS = {FRAMES: serve_streams, DATAGRAMS: serve_datagrams, RPC: serve_rpc,
         BROKER: serve_broker, ZMQ: serve_zmq, NNG: serve_nng, REDIS: serve_redis,
         NATS: serve_nats, ICEORYX2: serve_iceoryx2}
