"""Pattern load over section 2's frames (PROTOCOL.md 11.5.3: tcp, uds; 11.5.5: sysv-mq,
posix-mq): a connection of client.py's interface over a link, with its own preallocated frames
(rr.Exchange). Between the clock reads there is only the send of the REQUEST and the receive of
the RESPONSE.

The links come from the mechanism: a connection each (tcp, uds), or, over a message queue
(`Mechanism.shared_queue`, transport/shared_queues.py), a link per connection onto the one
shared request queue and the connection's reply address, which its REQUESTs and END carry in
their flags (0x8000 + c)."""
import contextlib
from functools import partial

from .. import rr
from ..errors import IoError, PeerError, describe_os_error
from ..transport.channels import IPC_ERRORS
from ..transport.shared_queues import REPLY_ADDRESS
from ..transport.sockets import set_send_timeout
from . import client, records


def run(config, mechanism, recorder):
    client.run(config, recorder, partial(connected, mechanism))


@contextlib.contextmanager
def connected(mechanism, config):
    """The C connections, made before T0 (a connect that fails ends the case: io), closed
    at the end."""
    queue = mechanism.shared_queue
    if queue is None:
        with socket_links(mechanism, config) as links:
            yield [FrameConnection(link, config, c) for c, link in enumerate(links)]
        return
    with queue.connect_all(config.endpoint, config) as links:
        yield [FrameConnection(link, config, c, REPLY_ADDRESS + c)
               for c, link in enumerate(links)]


@contextlib.contextmanager
def socket_links(mechanism, config):
    """A connection each, with SO_SNDTIMEO = --io-timeout."""
    links = []
    try:
        for _ in range(config.clients):
            links.append(rr.connect(mechanism, config))
            set_send_timeout(links[-1].sock, config.io_timeout)
        yield links
    finally:
        for link in links:
            link.close()


class FrameConnection:
    # A queue library's own errors (the queue vanished, a signal) are a request's `io`.
    failures = (OSError, PeerError, *IPC_ERRORS)

    def __init__(self, link, config, index, flags=0):
        self.link, self.index = link, index
        self.exchange = rr.Exchange(config, flags=flags)
        self._wanted = config.response_size
        self._request, self._patch = self.exchange.request.buf, self.exchange.request.patch
        self._send, self._receive = link.send_all, link.recv_frame
        self._response = self.exchange.response
        self.check = self.exchange.check_response

    def prepare(self, k):
        self._patch(k, self._wanted)

    def call(self, k):
        self._send(self._request)
        return self._receive(self._response)

    @staticmethod
    def classify(err):
        return records.transport_error(err), None

    def end(self, sequence):
        try:
            return self.exchange.end_ack(self.link, sequence)
        except OSError as err:
            raise IoError(f"END on connection {self.index}: {describe_os_error(err)}") from None
        except IPC_ERRORS as err:
            raise IoError(f"END on connection {self.index}: {err}") from None
