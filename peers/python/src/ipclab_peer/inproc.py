"""PROTOCOL.md 4.4: in-process round trips, drive only, `--endpoint inproc`.

- `ctypes`: one call of `ipclab_call` in libipclab_native.so per round trip. The argument
  types are set once, and the buffers are preallocated bytearrays passed as raw addresses, so
  the timed region is ctypes' own per-call cost plus the library's copy of the response.
- `none`: no call: the client copies its cached response base into the response buffer and
  stamps it, the work a server does, without any communication. With `--mock new-array`
  (contract 6) it is the thesis's Mock instead: a new zero-filled bytearray of the response
  size per call and a check of its length, nothing more.

Both validate the whole response after the clock, like every client.
"""
import ctypes
import time

from .errors import IoError, PayloadMismatch
from .payload import REQUEST_STREAM, RESPONSE_STREAM, Stamped, first_difference, stamper


def no_call(endpoint, options):
    """`none`: there is nothing to call."""
    return None


def load_library(endpoint, options):
    """`ctypes`: ipclab_call from --native-library, with its argument types set once."""
    path = options.native_library
    try:
        library = ctypes.CDLL(path)
        call = library.ipclab_call
    except (OSError, AttributeError) as err:
        raise IoError(f"cannot load ipclab_call from {path}: {err}") from None
    call.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64,
                     ctypes.c_uint64, ctypes.c_uint64]
    call.restype = ctypes.c_int
    return call


def _address(buf):
    return ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))


def rr(config, mechanism, recorder):
    """Pattern rr: the round trips, each recorded once its response is validated."""
    call = mechanism.connect(config.endpoint, config)
    seed = config.seed
    request = Stamped(seed, REQUEST_STREAM, config.request_size)
    expected = Stamped(seed, RESPONSE_STREAM, config.response_size)
    # bytearray == bytearray is one memcmp (a memoryview comparison goes byte by byte).
    response = bytearray(config.response_size)
    if call is None and config.mock == "new-array":
        _rr_new_array(config, recorder, request)
    elif call is None:
        _rr_none(config, recorder, request, expected, response)
    else:
        _rr_call(call, config, recorder, request, expected, response)


def _rr_call(call, config, recorder, request, expected, response):
    req_address, resp_address = _address(request.buf), _address(response)
    req_len, resp_len, seed = request.size, expected.size, config.seed
    stamp, clock, record = request.stamp, time.perf_counter_ns, recorder.add
    for sequence in range(config.warmup + config.iterations):
        stamp(sequence)
        start = clock()
        status = call(req_address, req_len, resp_address, resp_len, seed, sequence)
        stop = clock()
        if status != 0:
            raise PayloadMismatch(f"payload mismatch: ipclab_call returned {status} for "
                                  f"sequence {sequence} (request stamp rejected)")
        _validate(expected, response, sequence)
        record(sequence, stop - start)


def _rr_none(config, recorder, request, expected, response):
    base, size = expected.base, expected.size
    stamp = stamper(response, size, expected.word)
    received = memoryview(response)
    clock, record = time.perf_counter_ns, recorder.add
    for sequence in range(config.warmup + config.iterations):
        request.stamp(sequence)  # prepared as for a call, though nobody reads it
        start = clock()
        received[:] = base  # a memmove into the preallocated response
        stamp(sequence)
        stop = clock()
        _validate(expected, response, sequence)
        record(sequence, stop - start)


def _rr_new_array(config, recorder, request):
    """`--mock new-array`: the timed region makes the response array and checks its length,
    as the thesis's Mock did; after the clock the length is checked again (a new bytearray is
    zeros by definition, so there is no content to compare with section 3's payload)."""
    size = config.response_size
    clock, record = time.perf_counter_ns, recorder.add
    for sequence in range(config.warmup + config.iterations):
        request.stamp(sequence)  # prepared as for a call, though nobody reads it
        start = clock()
        response = bytearray(size)
        if len(response) != size:  # the Mock's own check, inline: no call inside the clock
            _validate_length(response, size, sequence)
        stop = clock()
        _validate_length(response, size, sequence)
        record(sequence, stop - start)


def _validate_length(response, size, sequence):
    if len(response) != size:
        raise PayloadMismatch(f"payload mismatch: response to sequence {sequence} has "
                              f"{len(response)} bytes instead of {size}")


def _validate(expected, received, sequence):
    expected.stamp(sequence)
    if expected.buf != received:
        offset = first_difference(received, expected.buf)
        raise PayloadMismatch(f"payload mismatch: response to sequence {sequence} differs at "
                              f"payload offset {offset}")
