"""Pattern short (PROTOCOL.md 11.2) over section 2 frames: every round trip opens its own
connection (tcp, uds: a new socket; sysv-mq: msgget; posix-mq: mq_open of both queues), sends
the REQUEST, receives the RESPONSE and closes; the sample is all of it. END goes over one more
connection. How connection i is opened comes from the mechanism table: `connect_short` where
it differs from `connect` (tcp's source address).

The round trips are rr's (rr.round_trips, rr.Exchange) over `Connections`, a link whose send
opens the next connection and whose receive closes it."""
from .errors import IoError, describe_os_error
from .rr import Exchange, round_trips


def run(config, mechanism, recorder):
    link = Connections(mechanism, config)
    try:
        exchange = Exchange(config)
        round_trips(link, exchange, config, recorder)
        exchange.end(link, config.warmup + config.iterations)
    finally:
        link.close()


class Connections:
    """send_all(frame) opens connection i (the i-th opened: warm-up first, END last) and sends
    on it; recv_frame(view) receives on it and closes it. A failure to connect is io."""

    def __init__(self, mechanism, config):
        self._endpoint, self._config = config.endpoint, config
        if mechanism.connect_short is not None:
            self._connect = mechanism.connect_short
        else:
            self._connect = lambda endpoint, options, index: mechanism.connect(endpoint, options)
        self._index = 0
        self._link = None

    def send_all(self, frame):
        index = self._index
        try:
            self._link = self._connect(self._endpoint, self._config, index)
        except OSError as err:
            raise IoError(f"cannot connect to {self._endpoint} (connection {index}): "
                          f"{describe_os_error(err)}") from None
        self._index = index + 1
        self._link.send_all(frame)

    def recv_frame(self, view):
        try:
            return self._link.recv_frame(view)
        finally:
            self.close()

    def close(self):
        if self._link is not None:
            link, self._link = self._link, None
            link.close()
