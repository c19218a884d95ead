"""Contract version 3's variants of a case (PROTOCOL.md 1): `--void`, `--nodelay off`,
`--rest-body json`, `--corba-payload string`, `--one-way`. What a mechanism implements is in
its table entry (mechanisms.Mechanism.variants); a variant it lacks is unsupported (exit 7).
Default values (`--nodelay on`, `--rest-body octet`, `--corba-payload octets`) are today's
behaviour and accepted everywhere. activemq's `--delivery` is the exception: no other
mechanism takes it, whatever its value (PROTOCOL.md 1: unsupported for another mechanism)."""
from .errors import Unsupported
from .mechanisms import FRAMES, RPC

# Names in Mechanism.variants.
NODELAY_OFF = "nodelay-off"
REST_JSON = "rest-json"
CORBA_STRING = "corba-string"
DELIVERY = "delivery"


def check_serve(config, mechanism):
    _check_nodelay(config, mechanism)
    _check_delivery(config, mechanism)


def check_drive(config, mechanism):
    _check_nodelay(config, mechanism)
    _check_delivery(config, mechanism)
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
