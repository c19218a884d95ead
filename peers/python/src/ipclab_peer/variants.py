"""The variants of a case (PROTOCOL.md 1): contract 3's `--void`, `--nodelay off`,
`--rest-body json`, `--corba-payload string`, `--one-way`, and contract 6's `--read-size N`,
`--backlog N`, `--source one`, `--mock new-array`, `--sample-write header` (4.12). What a
mechanism implements is in its table
entry (mechanisms.Mechanism.variants); a variant it lacks is unsupported (exit 7). Default
values (`--nodelay on`, `--read-size 0`, `--source rotate`, ...) are today's behaviour and
accepted everywhere. activemq's `--delivery` and the rr server's `--backlog` are the
exceptions: given at all, whatever the value, for a mechanism that has no broker or no
listen() backlog, they are unsupported (PROTOCOL.md 1: unsupported for another mechanism).
`--value-range` and `--records` shape the structured records, which every RPC client draws
alike (structs.py): nothing to check per mechanism."""
from .errors import Unsupported
from .mechanisms import FRAMES, RPC

# Names in Mechanism.variants.
NODELAY_OFF = "nodelay-off"
REST_JSON = "rest-json"
CORBA_STRING = "corba-string"
DELIVERY = "delivery"
READ_SIZE = "read-size"    # --read-size N > 0: the stream server's bounded reads
BACKLOG = "backlog"        # --backlog N on the rr server: its listen() backlog
SOURCE_ONE = "source-one"  # --source one: short without the source-address bind
MOCK_NEW_ARRAY = "mock-new-array"  # --mock new-array: none's new response array per call
SAMPLE_WRITE_HEADER = "sample-write-header"  # --sample-write header: iceoryx2's rr, 4.12


def _lacks(mechanism, variant):
    return variant not in mechanism.variants


def check_serve(config, mechanism):
    _check_nodelay(config, mechanism)
    _check_delivery(config, mechanism)
    _check_read_size(config, mechanism)
    _check_backlog(config, mechanism)
    _check_sample_write(config, mechanism, config.server_model is None)


def check_drive(config, mechanism):
    _check_nodelay(config, mechanism)
    _check_delivery(config, mechanism)
    _check_sample_write(config, mechanism, config.pattern == "rr")
    name = mechanism.name
    if config.void and mechanism.family != RPC:
        raise Unsupported(f"--void needs an RPC mechanism, not {name!r}")
    if config.one_way and mechanism.family != FRAMES:
        raise Unsupported(f"--one-way is not implemented for {name!r} (section 2 frames only)")
    if config.rest_body != "octet" and REST_JSON not in mechanism.variants:
        raise Unsupported(f"--rest-body {config.rest_body} is for rest, not {name!r}")
    if config.corba_payload != "octets":
        if CORBA_STRING not in mechanism.variants:
            raise Unsupported(f"--corba-payload {config.corba_payload} is for corba, "
                              f"not {name!r}")
        if config.payload != "bytes" or config.void:
            raise Unsupported("--corba-payload string carries bytes payloads of call only "
                              "(callString), not structured payloads or --void")
    if config.source != "rotate" and _lacks(mechanism, SOURCE_ONE):
        raise Unsupported(f"--source {config.source} is for pattern short over tcp, not "
                          f"{name!r} (only tcp binds a source address)")
    if config.mock != "copy" and _lacks(mechanism, MOCK_NEW_ARRAY):
        raise Unsupported(f"--mock {config.mock} is for mechanism none, not {name!r}")


def _check_read_size(config, mechanism):
    """--read-size bounds the plain server's stream reads over a byte stream; a server model
    (burst, load) serves no stream."""
    if not config.read_size:
        return
    if _lacks(mechanism, READ_SIZE):
        raise Unsupported(f"--read-size is for streams over tcp, uds, pipe and fifo, not "
                          f"{mechanism.name!r}")
    if config.server_model is not None:
        raise Unsupported("--read-size is for the stream server, not a --server-model "
                          "server (burst and load serve no stream)")


def _check_backlog(config, mechanism):
    """The rr server's --backlog (a burst server's is its own, a load server's is refused by
    cli.py and server.py): only tcp and uds listen."""
    if config.server_model is None and "--backlog" in config.given and \
            _lacks(mechanism, BACKLOG):
        raise Unsupported(f"--backlog is the listen() backlog of tcp and uds, not of "
                          f"{mechanism.name!r}")


def _check_sample_write(config, mechanism, rr):
    """--sample-write header: rr over iceoryx2 alone (a stream, a server model: unsupported)."""
    if config.sample_write == "full":
        return
    if _lacks(mechanism, SAMPLE_WRITE_HEADER):
        raise Unsupported(f"--sample-write {config.sample_write} is for iceoryx2 and "
                          f"iceoryx2-spin, not {mechanism.name!r}")
    if not rr:
        raise Unsupported(f"--sample-write {config.sample_write} is for pattern rr alone")


def _check_nodelay(config, mechanism):
    if config.nodelay == "on" or NODELAY_OFF in mechanism.variants:
        return
    reason = mechanism.nodelay_off_unsupported or "it is only for tcp, rest and grpc"
    raise Unsupported(f"--nodelay off is not supported for {mechanism.name!r}: {reason}")


def _check_delivery(config, mechanism):
    """--delivery given (None: absent) for a mechanism without a broker."""
    if config.delivery is not None and DELIVERY not in mechanism.variants:
        raise Unsupported(f"--delivery {config.delivery} is for activemq, not "
                          f"{mechanism.name!r}")
