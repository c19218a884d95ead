"""Pattern load over section 2's frames (PROTOCOL.md 11.5.3: tcp, uds): a connection of
client.py's interface over a link, with its own preallocated frames (rr.Exchange). Between
the clock reads there is only the send of the REQUEST and the receive of the RESPONSE."""
import contextlib
from functools import partial

from .. import rr
from ..errors import IoError, PeerError, describe_os_error
from ..transport.sockets import set_send_timeout
from . import client, records


def run(config, mechanism, recorder):
    client.run(config, recorder, partial(connected, mechanism))


@contextlib.contextmanager
def connected(mechanism, config):
    """The C connections, made before T0 (a connect that fails ends the case: io), closed
    at the end."""
    connections = []
    try:
        for index in range(config.clients):
            connections.append(FrameConnection(rr.connect(mechanism, config), config, index))
        yield connections
    finally:
        for connection in connections:
            connection.link.close()


class FrameConnection:
    failures = (OSError, PeerError)

    def __init__(self, link, config, index):
        self.link, self.index = link, index
        try:
            set_send_timeout(link.sock, config.io_timeout)
        except BaseException:
            link.close()
            raise
        self.exchange = rr.Exchange(config)
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
