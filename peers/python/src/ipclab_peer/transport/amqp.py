"""activemq (PROTOCOL.md 4.7): both peers are AMQP 1.0 clients of an ActiveMQ broker, through
python-qpid-proton's blocking API (proton.utils.BlockingConnection: one connection, one
session for all its links). Imported only when the mechanism is used, so that `capabilities`
and the other mechanisms never load proton.

Every frame (and every stream message) is one AMQP message whose body is one `data` section
holding exactly its bytes. A REQUEST, END or MARK carries reply-to (the client's reply queue)
and correlation-id (the frame's sequence, a ulong); the answer goes to that reply-to with the
same correlation-id; a stream message carries neither (its sequence is in its own bytes).

Why the blocking API and not the reactor: a responder written for the reactor (a
MessagingHandler answering in on_message) measured the same round trip as the blocking one,
because both spend their time in the same event dispatch (README.md, activemq).

Why messages are encoded here: proton's Message.encode() grows its buffer from 16 bytes by
doubling and copies the body into a pn_data first (3.6 ms for 1 MiB, 70 ms for 16 MiB on this
machine); a frame's message is a short prefix (header, properties, the data section's header)
and the frame's bytes, handed to the link as two pieces, which pn_link_send copies once.
Received messages are decoded by proton (0.7 ms for 1 MiB).

Senders wait for the broker's settlement of each message, bounded by a timeout (the client's
--io-timeout), and a message the broker does not accept is an io error; receivers accept each
message as they take it and keep `window` messages of credit open.
"""
import os
import struct
from collections import OrderedDict

from proton import ConnectionException, Data, Delivery, Endpoint, ProtonException, Timeout
from proton.utils import BlockingConnection

from ..errors import IoError, PeerError, ProtocolError, ReceiveTimeout
from . import endpoints

DEFAULT_DELIVERY = "non-persistent"
# The responder has no --io-timeout: how long it waits to connect and for a settlement.
SERVER_TIMEOUT = 30.0
# Credit a responder keeps open between streams: rr has one request in flight.
RR_WINDOW = 2
# A stream's credit: at most this many bytes of messages, and of messages, in flight to it.
STREAM_BYTES, STREAM_WINDOW = 8 << 20, 1000
# The reply queues a responder keeps a sender to (one per client, in practice one at a time).
REPLY_SENDERS = 16

# AMQP 1.0 encodings (big-endian): a section is a described list or binary, 0x00 0x53 CODE.
_HEADER, _PROPERTIES, _DATA = b"\x00\x53\x70", b"\x00\x53\x73", b"\x00\x53\x75"
_TRUE, _FALSE, _NULL = b"\x41", b"\x42", b"\x40"
_ULONG = struct.Struct(">BQ")
_VBIN32 = struct.Struct(">BI")
_SEQUENCE = struct.Struct("<Q")  # a frame's sequence, at offset 8 (PROTOCOL.md 2)
_ABSENT = object()  # no properties section: a stream message


def _list(fields):
    body = b"".join(fields)
    if len(body) < 255:
        return bytes((0xC0, len(body) + 1, len(fields))) + body
    return struct.pack(">BII", 0xD0, len(body) + 4, len(fields)) + body


def _string(text):
    data = text.encode()
    if len(data) < 256:
        return bytes((0xA1, len(data))) + data
    return struct.pack(">BI", 0xB1, len(data)) + data


def _value(value):
    """An AMQP-encoded correlation-id: a ulong (ours), none, or whatever a foreign client sent,
    encoded back by proton."""
    if value is None:
        return _NULL
    if type(value) is int:
        return _ULONG.pack(0x80, value)
    data = Data()
    data.put_object(value)
    return data.encode()


def translated(what, err, timeout=None):
    """A proton exception as the contract's error kind (PROTOCOL.md 8)."""
    if isinstance(err, Timeout):
        return ReceiveTimeout(f"{what}: nothing came within {timeout:g} s" if timeout else
                              f"{what}: the broker did not answer in time ({err})")
    if isinstance(err, ConnectionException):
        return IoError(f"{what}: the broker connection failed: {err}")
    return IoError(f"{what}: {type(err).__name__}: {err}")


class Session:
    """One connection to the broker; `timeout` bounds opening it and each wait on it."""

    def __init__(self, broker, timeout):
        self.timeout = timeout
        try:
            self.connection = BlockingConnection(broker.url, timeout=timeout)
        except ProtonException as err:
            raise translated(f"cannot connect to {broker.url}", err, timeout) from None

    def outbox(self, address, durable, reply_to=None):
        try:
            return Outbox(self, self.connection.create_sender(address), durable, reply_to)
        except ProtonException as err:
            raise translated(f"cannot send to {address}", err) from None

    def inbox(self, address, window):
        try:
            return Inbox(self.connection.create_receiver(address, credit=None), window)
        except ProtonException as err:
            raise translated(f"cannot consume from {address}", err) from None

    def lost(self):
        """The broker closed the connection, or it broke."""
        connection = self.connection
        return bool(connection.disconnected or connection.conn.state & Endpoint.REMOTE_CLOSED)

    def close(self):
        try:
            self.connection.close()
        except Exception:  # noqa: BLE001 - the broker may be gone; nothing is left to do
            pass


class Outbox:
    """A sender to one address; each send waits for the broker's settlement."""

    def __init__(self, session, sender, durable, reply_to):
        self._sender, self._link = sender, sender.link
        self._wait, self._timeout = session.connection.wait, session.timeout
        self._head = _HEADER + _list([_TRUE if durable else _FALSE])
        self._fields = [_NULL] * 4 + [_string(reply_to) if reply_to else _NULL]
        self.address = self._link.target.address

    def send(self, body, correlation=_ABSENT):
        """One message of `body`'s bytes; with a correlation-id (an int: a ulong) it has a
        properties section, else (a stream message) none."""
        prefix = self._head
        if correlation is not _ABSENT:
            prefix += _PROPERTIES + _list(self._fields + [_value(correlation)])
        prefix += _DATA + _VBIN32.pack(0xB0, len(body))
        link = self._link
        try:
            delivery = link.delivery(link.delivery_tag())
            link.stream(prefix)
            link.stream(body)
            link.advance()
            self._wait(lambda: delivery.settled, timeout=self._timeout, msg="settlement")
        except ProtonException as err:
            raise translated(f"sending to {self.address}", err, self._timeout) from None
        state = delivery.remote_state
        delivery.settle()
        if state != Delivery.ACCEPTED:
            raise IoError(f"sending to {self.address}: the broker settled the message as "
                          f"{state} instead of accepting it")

    def close(self):
        try:
            self._sender.close()
        except Exception:  # noqa: BLE001 - a reply queue's link: nothing depends on it
            pass


class Inbox:
    """A receiver from one address that keeps `window` messages of credit open (credit is
    granted here, not by proton's flow controller, so a stream can widen it and rr keep it
    small) and accepts each message as it is taken."""

    def __init__(self, receiver, window):
        self._receiver, self._link = receiver, receiver.link
        self._fetcher = receiver.fetcher
        self.address = self._link.source.address
        self.resize(window)

    def resize(self, window):
        self.window = window
        self._top_up(1)

    def _top_up(self, least):
        """Grants what the window misses once that is at least `least` messages (half the
        window after a take: one flow frame per several messages)."""
        missing = self.window - self._link.credit - self._fetcher.has_message
        if missing >= least:
            self._link.flow(missing)

    def take(self, timeout):
        """The next message (proton.Message); `timeout` None waits for ever. A message that
        arrived before the connection broke is still handed out, already settled."""
        try:
            message = self._receiver.receive(timeout=timeout)
            if self._fetcher.unsettled:
                self._receiver.accept()
        except ProtonException as err:
            raise translated(f"receiving from {self.address}", err, timeout) from None
        self._top_up(max(1, self.window // 2))
        return message


def body_of(message):
    """The message's one data section (bytes-like), or None when it has another body."""
    body = message.body
    if message.inferred and isinstance(body, (bytes, memoryview)):
        return body
    return None


class ClientLink:
    """The client's connection (PROTOCOL.md 4.7) behind the link interface of rr.py and
    stream.py: send_all(frame) sends a REQUEST, END or MARK with reply-to and correlation-id,
    send_message(data) a bare stream message, recv_frame(view) takes the next answer, checks
    its correlation-id and copies its body into `view` as far as it fits, returning the body's
    real size (so a wrong size is seen, as on a datagram link)."""

    def __init__(self, broker, config):
        self._timeout = config.io_timeout
        self._session = Session(broker, config.io_timeout)
        try:
            reply = f"ipclab.{os.getpid()}.replies"
            self._inbox = self._session.inbox(reply, RR_WINDOW)
            durable = (config.delivery or DEFAULT_DELIVERY) == "persistent"
            self._outbox = self._session.outbox(broker.queue, durable, reply)
        except PeerError:
            self._session.close()
            raise
        self._send = self._outbox.send
        self._sequence = None

    def send_all(self, frame):
        self._sequence = sequence = _SEQUENCE.unpack_from(frame, 8)[0]
        self._send(frame, sequence)

    def send_message(self, data):
        self._send(data)

    def recv_frame(self, view):
        message = self._inbox.take(self._timeout)
        body = body_of(message)
        if body is None:
            raise ProtocolError("an answer whose body is not one data section")
        if message.correlation_id != self._sequence:
            raise ProtocolError(f"correlation-id: expected {self._sequence}, received "
                                f"{message.correlation_id!r}")
        size = len(body)
        fits = min(size, len(view))
        view[:fits] = body[:fits]
        return size

    def close(self):
        self._session.close()


def connect(broker, config):
    return ClientLink(broker, config)


class Listener:
    """The responder's connection: its request queue `ipclab.<pid>.requests` (READY's
    endpoint names it on the broker) and a sender per reply queue answered lately."""

    def __init__(self, broker, config):
        self._session = Session(broker, SERVER_TIMEOUT)
        queue = f"ipclab.{os.getpid()}.requests"
        self._inbox = self._session.inbox(queue, RR_WINDOW)
        self.endpoint = str(endpoints.Broker(broker.address, queue))
        self._durable = (config.delivery or DEFAULT_DELIVERY) == "persistent"
        self._replies = OrderedDict()

    def take(self):
        return self._inbox.take(None)

    def lost(self):
        return self._session.lost()

    def stream_window(self, size):
        """A stream of `size`-byte messages starts (0: it ended): how much credit to keep."""
        window = min(STREAM_WINDOW, STREAM_BYTES // size) if size else RR_WINDOW
        self._inbox.resize(max(1, window))

    def reply(self, reply_to, correlation, frame):
        outbox = self._replies.get(reply_to)
        if outbox is None:
            outbox = self._replies[reply_to] = self._session.outbox(reply_to, self._durable)
            if len(self._replies) > REPLY_SENDERS:
                self._replies.popitem(last=False)[1].close()
        else:
            self._replies.move_to_end(reply_to)
        outbox.send(frame, correlation)


def listen(broker, config, cleanup):
    return Listener(broker, config)
