"""The RPC client's round trips (PROTOCOL.md 10.1): one connection made before the warm-up,
one stub call per sample, validation after the clock, `finish` at the end.

The client is a framework module's Client (the interface of base.Client), reached through
the mechanism's connect (rpc.Framework.connect), which also gives the framework's error
translation.
"""
import contextlib
import time

from .. import cpu, structs
from ..errors import PayloadMismatch, PeerError
from ..payload import (REQUEST_STREAM, RESPONSE_STREAM, Stamped, base, first_difference,
                       stamp)
from ..stream import Plan, finish


def rr(config, mechanism, recorder):
    """Pattern rr over an RPC mechanism, bytes or a structured payload, the echo or (--void)
    the operation that returns nothing; also pattern short, whose client (rest) opens a
    connection per call."""
    calls = LOOPS[config.payload == "bytes", config.void]
    with _session(mechanism, config) as client:
        calls(config, recorder, client)
        corrupted = client.finish()
    if corrupted:
        raise PayloadMismatch(f"payload mismatch: server received {corrupted} "
                              "corrupted request payloads")


def stream(config, mechanism, recorder):
    """Pattern stream (PROTOCOL.md 11.3): the warm-up as one client-streaming call of M
    messages, the measured stream as another of N, whose answer has END_ACK's fields.
    A window ends when the framework takes the window's last message."""
    plan = Plan(config)
    recorder.fields.update(plan.fields())
    data = Stamped(config.seed, REQUEST_STREAM, plan.size)
    with _session(mechanism, config) as client:
        if plan.warmup:
            # Its figures are not checked, as a frame server's warm-up counts are dropped at
            # MARK (and a server's fault hits the second message of every call).
            client.stream(_chunks(client, data, [(0, plan.warmup)], []))
        ends = []
        start, start_cpu = time.perf_counter_ns(), cpu.now()
        fields = client.stream(_chunks(client, data, plan.windows, ends))
        stop = time.perf_counter_ns()
        client_cpu = cpu.since(start_cpu)
    finish(recorder, plan, [start] + ends[:-1] + [stop], client_cpu, fields)


def _chunks(client, data, windows, ends):
    """The messages of `windows`, stamped as they are asked for; the clock is read when the
    framework asks for the message after a window's last."""
    chunk, stamp_in, buf, clock = client.chunk, data.stamp, data.buf, time.perf_counter_ns
    for first, stop in windows:
        for sequence in range(first, stop):
            stamp_in(sequence)
            yield chunk(sequence, bytes(buf))
        ends.append(clock())


@contextlib.contextmanager
def _session(mechanism, config):
    """A connected client, closed at the end; the framework's exceptions become the
    contract's kinds."""
    client, error = mechanism.connect(config.endpoint, config)
    try:
        yield client
    except PeerError:
        raise
    except Exception as err:  # noqa: BLE001 - the framework's exceptions, in contract kinds
        raise error(err) from None
    finally:
        client.close()


def _requests(config, wire=bytes):
    """(sequence, request payload) per call, stamped before the clock is read; `wire` makes
    what the stub takes of it (bytes, or callString's text)."""
    request_base = base(config.seed, REQUEST_STREAM, config.request_size)
    request = bytearray(request_base)
    for sequence in range(config.warmup + config.iterations):
        request[:8] = request_base[:8]
        stamp(request, sequence)
        # Frameworks want an immutable bytes object; the copy is made before the clock.
        yield sequence, wire(request)


def _bytes_round_trips(config, recorder, client):
    """`call`, or corba's callString (client.text): the payloads as text, the response
    compared with the mapped expected bytes after the clock."""
    wanted, text = config.response_size, client.text
    response_base = base(config.seed, RESPONSE_STREAM, wanted)
    expected = bytearray(response_base)
    call, clock, record = client.call, time.perf_counter_ns, recorder.add
    for sequence, payload in _requests(config, structs.as_text if text else bytes):
        start = clock()
        response = call(sequence, wanted, payload)
        stop = clock()
        expected[:8] = response_base[:8]
        stamp(expected, sequence)
        if response != (structs.as_text(expected) if text else expected):
            raise mismatch(sequence, response, expected, text)
        record(sequence, stop - start)


def _bytes_puts(config, recorder, client):
    """--void: `put`, whose empty reply leaves nothing to check after the clock."""
    put, clock, record = client.put, time.perf_counter_ns, recorder.add
    for sequence, payload in _requests(config):
        start = clock()
        put(sequence, payload)
        stop = clock()
        record(sequence, stop - start)


def mismatch(sequence, response, expected, text=False):
    """A well-formed reply with the wrong content, its length included, is a payload
    mismatch (PROTOCOL.md 10.1): RPC mechanisms have no frames to be malformed."""
    if text:
        response, expected = response.encode("ascii", "replace"), \
            structs.as_text(expected).encode("ascii")
    if len(response) != len(expected):
        return PayloadMismatch(f"payload mismatch: response to sequence {sequence} has "
                               f"{len(response)} bytes instead of {len(expected)}")
    offset = first_difference(response, expected)
    return PayloadMismatch(f"payload mismatch: response to sequence {sequence} differs at "
                           f"payload offset {offset}")


def _records(config, client):
    """(sequence, the record's dict with the stamp, the framework's value) per call, the
    value stamped before the clock is read. `--records per-call` (PROTOCOL.md 10.2): before
    each call after the first, the seed's next record, made into the framework's value there,
    outside the clock too (`one`: the first record, every call)."""
    kind = config.payload
    drawn = structs.records(config.seed, kind, config.sequence_length, config.value_range)
    record = next(drawn)
    value = client.struct(kind, record)
    put_stamp, per_call = client.stamp, config.records == "per-call"
    for sequence in range(config.warmup + config.iterations):
        if per_call and sequence:
            record = next(drawn)
            value = client.struct(kind, record)
        n1 = structs.stamp_value(sequence)
        put_stamp(value, n1)
        record["n1"] = n1
        yield sequence, record, value


def _struct_round_trips(config, recorder, client):
    kind = config.payload
    echo, clock, keep = client.echo(kind), time.perf_counter_ns, recorder.add
    for sequence, record, value in _records(config, client):
        start = clock()
        answer = echo(value)
        stop = clock()
        field = structs.first_difference(client.fields(kind, answer), record)
        if field is not None:
            raise PayloadMismatch(f"payload mismatch: echo of sequence {sequence} differs in "
                                  f"field {field}")
        keep(sequence, stop - start)


def _struct_puts(config, recorder, client):
    """--void: putSmall, putMedium or putLarge."""
    put, clock, keep = client.putter(config.payload), time.perf_counter_ns, recorder.add
    for sequence, _, value in _records(config, client):
        start = clock()
        put(value)
        stop = clock()
        keep(sequence, stop - start)


# (bytes payload?, --void?) -> the loop of calls.
LOOPS = {(True, False): _bytes_round_trips, (True, True): _bytes_puts,
         (False, False): _struct_round_trips, (False, True): _struct_puts}
