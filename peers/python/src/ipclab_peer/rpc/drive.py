"""The RPC client's round trips (PROTOCOL.md 10.1): one connection made before the warm-up,
one stub call per sample, validation after the clock, `finish` at the end.

A framework module's Client offers call(sequence, wanted, request) -> bytes-like,
struct(kind, record) -> its value type, stamp(value, n1), echo(kind) -> the stub method,
fields(kind, value) -> dict, finish() -> int, close(), and error(exc) -> PeerError (what a
framework exception means in the contract's kinds).
"""
import time

from .. import structs
from ..errors import PayloadMismatch, PeerError, ProtocolError
from ..payload import REQUEST_STREAM, RESPONSE_STREAM, base, first_difference, stamp
from . import load


def run(config, driver):
    module = load(config.mechanism)
    module.check_sizes(config)
    client = None
    try:
        client = module.Client(config)
        if config.payload == "bytes":
            _bytes_round_trips(config, driver, client)
        else:
            _struct_round_trips(config, driver, client)
        corrupted = client.finish()
    except PeerError:
        raise
    except Exception as err:  # noqa: BLE001 - the framework's exceptions, in contract kinds
        raise module.error(err) from None
    finally:
        if client is not None:
            client.close()
    if corrupted:
        raise PayloadMismatch(f"payload mismatch: server received {corrupted} "
                              "corrupted request payloads")


def _bytes_round_trips(config, driver, client):
    seed, wanted = config.seed, config.response_size
    request_base = base(seed, REQUEST_STREAM, config.request_size)
    response_base = base(seed, RESPONSE_STREAM, wanted)
    request, expected = bytearray(request_base), bytearray(response_base)
    call, clock = client.call, time.perf_counter_ns
    warmup, samples = config.warmup, driver.samples
    for sequence in range(warmup + config.iterations):
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
        if sequence >= warmup:
            samples[driver.recorded] = stop - start
            driver.recorded += 1


def _mismatch(sequence, response, expected):
    if len(response) != len(expected):
        return ProtocolError(f"response to sequence {sequence}: {len(response)} bytes "
                             f"instead of {len(expected)}")
    offset = first_difference(response, expected)
    return PayloadMismatch(f"payload mismatch: response to sequence {sequence} differs at "
                           f"payload offset {offset}")


def _struct_round_trips(config, driver, client):
    kind = config.payload
    record = structs.record(config.seed, kind, config.sequence_length)
    value = client.struct(kind, record)
    echo, put_stamp, clock = client.echo(kind), client.stamp, time.perf_counter_ns
    warmup, samples = config.warmup, driver.samples
    for sequence in range(warmup + config.iterations):
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
        if sequence >= warmup:
            samples[driver.recorded] = stop - start
            driver.recorded += 1
