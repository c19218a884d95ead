"""Pattern load over an RPC mechanism (PROTOCOL.md 11.5.4): a connection of client.py's
interface is a client object of the framework with a transport connection of its own
(rpc.Framework.connect_each says how each framework makes them); request k is the stub call
`call(k, response-size, payload(seed, 1, k, request-size))`, the response checked after the
clock as the rr client checks it (rpc/drive.py), and the connection ends with `finish`."""
import contextlib
from functools import partial

from ..errors import IoError, PeerError, ProtocolError, ReceiveTimeout
from ..payload import REQUEST_STREAM, RESPONSE_STREAM, base, stamp
from ..rpc.drive import mismatch
from . import client, records

# A request's error from the framework's exception, translated into the contract's kinds by
# the framework module (its `error`): an IoError is a refused, reset or closed connection
# (every framework's io translation is one of those), so `reset` (11.5.4).
KINDS = ((ReceiveTimeout, records.TIMEOUT), (IoError, records.RESET),
         (ProtocolError, records.PROTOCOL))


def run(config, mechanism, recorder):
    client.run(config, recorder, partial(connected, mechanism))


@contextlib.contextmanager
def connected(mechanism, config):
    """The C client objects, connected before T0 (one that fails ends the case), closed at
    the end with whatever they share."""
    with mechanism.connect_each(config.endpoint, config, config.clients) as made:
        payloads = Payloads(config)
        yield [RpcConnection(rpc_client, made.error, payloads, index)
               for index, rpc_client in enumerate(made.clients)]


class Payloads:
    """The request and response bases, made once for every connection (read only)."""

    def __init__(self, config):
        self.request = base(config.seed, REQUEST_STREAM, config.request_size)
        self.response = base(config.seed, RESPONSE_STREAM, config.response_size)
        self.wanted = config.response_size


class RpcConnection:
    # Whatever the framework raises: its error translation (rpc.Session.error) says what it
    # was; something it does not know becomes `protocol`, which fails the client.
    failures = (Exception,)

    def __init__(self, rpc_client, error, payloads, index):
        self.index = index
        self._client, self._error, self._payloads = rpc_client, error, payloads
        self._call, self._wanted = rpc_client.call, payloads.wanted
        self._request = bytearray(payloads.request)
        self._expected = bytearray(payloads.response)
        self._payload = b""

    def prepare(self, k):
        """Stamps request k; frameworks want an immutable bytes object, copied here, before
        the wait."""
        request = self._request
        request[:8] = self._payloads.request[:8]
        stamp(request, k)
        self._payload = bytes(request)

    def call(self, k):
        return self._call(k, self._wanted, self._payload)

    def check(self, k, response):
        expected = self._expected
        expected[:8] = self._payloads.response[:8]
        stamp(expected, k)
        if response != expected:
            raise mismatch(k, response, expected)

    def classify(self, err):
        error = self._translated(err)
        for kind_of, kind in KINDS:
            if isinstance(error, kind_of):
                return kind, error if kind == records.PROTOCOL else None
        return records.IO, None

    def end(self, sequence):
        """`finish` (not timed): the server's corrupted count since the previous one."""
        try:
            return self._client.finish()
        except Exception as err:  # noqa: BLE001 - the framework's, in contract kinds
            error = self._translated(err)
            raise type(error)(f"finish on connection {self.index}: {error}") from None

    def _translated(self, err):
        return err if isinstance(err, PeerError) else self._error(err)
