"""The RPC client's round trips (PROTOCOL.md 10.1): one connection made before the warm-up,
one stub call per sample, validation after the clock, `finish` at the end.

The client is a framework module's Client (the interface of base.Client), reached through
the mechanism's connect (rpc.Framework.connect), which also gives the framework's error
translation.
"""
import time

from .. import structs
from ..errors import PayloadMismatch, PeerError
from ..payload import REQUEST_STREAM, RESPONSE_STREAM, base, first_difference, stamp


def rr(config, mechanism, recorder):
    """Pattern rr over an RPC mechanism, bytes or a structured payload."""
    client, error = mechanism.connect(config.endpoint, config)
    try:
        if config.payload == "bytes":
            _bytes_round_trips(config, recorder, client)
        else:
            _struct_round_trips(config, recorder, client)
        corrupted = client.finish()
    except PeerError:
        raise
    except Exception as err:  # noqa: BLE001 - the framework's exceptions, in contract kinds
        raise error(err) from None
    finally:
        client.close()
    if corrupted:
        raise PayloadMismatch(f"payload mismatch: server received {corrupted} "
                              "corrupted request payloads")


def _bytes_round_trips(config, recorder, client):
    seed, wanted = config.seed, config.response_size
    request_base = base(seed, REQUEST_STREAM, config.request_size)
    response_base = base(seed, RESPONSE_STREAM, wanted)
    request, expected = bytearray(request_base), bytearray(response_base)
    call, clock, record = client.call, time.perf_counter_ns, recorder.add
    for sequence in range(config.warmup + config.iterations):
        request[:8] = request_base[:8]
        stamp(request, sequence)
        # Frameworks want an immutable bytes object; the copy is made before the clock.
        payload = bytes(request)
        start = clock()
        response = call(sequence, wanted, payload)
        stop = clock()
        expected[:8] = response_base[:8]
        stamp(expected, sequence)
        if response != expected:
            raise _mismatch(sequence, response, expected)
        record(sequence, stop - start)


def _mismatch(sequence, response, expected):
    """A well-formed reply with the wrong content, its length included, is a payload
    mismatch (PROTOCOL.md 10.1): RPC mechanisms have no frames to be malformed."""
    if len(response) != len(expected):
        return PayloadMismatch(f"payload mismatch: response to sequence {sequence} has "
                               f"{len(response)} bytes instead of {len(expected)}")
    offset = first_difference(response, expected)
    return PayloadMismatch(f"payload mismatch: response to sequence {sequence} differs at "
                           f"payload offset {offset}")


def _struct_round_trips(config, recorder, client):
    kind = config.payload
    record = structs.record(config.seed, kind, config.sequence_length)
    value = client.struct(kind, record)
    echo, put_stamp, clock = client.echo(kind), client.stamp, time.perf_counter_ns
    keep = recorder.add
    for sequence in range(config.warmup + config.iterations):
        n1 = structs.stamp_value(sequence)
        put_stamp(value, n1)
        start = clock()
        answer = echo(value)
        stop = clock()
        record["n1"] = n1
        field = structs.first_difference(client.fields(kind, answer), record)
        if field is not None:
            raise PayloadMismatch(f"payload mismatch: echo of sequence {sequence} differs in "
                                  f"field {field}")
        keep(sequence, stop - start)
