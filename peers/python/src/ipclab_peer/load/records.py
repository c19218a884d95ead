"""Pattern load's outputs (PROTOCOL.md 11.5.3, Files): the per-request times kept during the
run, the records file, the samples and the result file's fields, all made after the run."""
import errno
import os
from array import array

from ..errors import ReceiveTimeout
from ..transport.links import EndOfStream

HEADER = "request,connection,measured,intended_ns,sent_ns,received_ns,error\n"
# A request's error, as an index kept in a byte per request.
KINDS = (None, "reset", "eof", "timeout", "io", "protocol", "payload-mismatch", "not-sent")
RESET, EOF, TIMEOUT, IO, PROTOCOL, PAYLOAD_MISMATCH, NOT_SENT = range(1, len(KINDS))
NONE = -1  # no time: not sent, or no whole RESPONSE
RESET_ERRNOS = {errno.ECONNRESET, errno.EPIPE}
ROWS_PER_WRITE = 1 << 14


class Times:
    """sent and received (ns from T0, NONE when absent) and the error per request, made
    before T0 so that the run only stores into them."""

    def __init__(self, count):
        self.sent = array("q", [NONE]) * count
        self.received = array("q", [NONE]) * count
        self.errors = array("b", [0]) * count


def transport_error(err):
    """A failed send or receive's kind (11.5.3 step 4)."""
    if isinstance(err, EndOfStream):
        return EOF
    if isinstance(err, (ReceiveTimeout, BlockingIOError)):  # SO_RCVTIMEO / SO_SNDTIMEO
        return TIMEOUT
    if isinstance(err, OSError) and err.errno in RESET_ERRNOS:
        return RESET
    return IO


def static_fields(config, plan):
    """The result's fields known before the run (so that a failed connect still has them)."""
    return {"iterations": plan.measured, "warmup": plan.warmup, "clients": config.clients,
            "rate": config.rate, "arrival": config.arrival, "duration_ms": config.duration_ms,
            "warmup_ms": config.warmup_ms}


def write_records(path, clients, plan, times):
    """One row per request of the schedule, in request order; a temporary name, renamed."""
    temporary = f"{path}.tmp-{os.getpid()}"
    offsets, sent, received, errors = plan.offsets, times.sent, times.received, times.errors
    with open(temporary, "w", encoding="ascii", newline="\n") as out:
        out.write(HEADER)
        for first in range(0, len(offsets), ROWS_PER_WRITE):
            out.writelines(
                f"{k},{k % clients},{int(k >= plan.warmup)},{offsets[k]},"
                f"{_time(sent[k])},{_time(received[k])},{KINDS[errors[k]] or ''}\n"
                for k in range(first, min(len(offsets), first + ROWS_PER_WRITE)))
    os.replace(temporary, path)


def _time(value):
    return "" if value == NONE else value


def samples(plan, times):
    """Response times (received - intended) of the measured requests without error, in
    request order."""
    offsets, received, errors = plan.offsets, times.received, times.errors
    return [received[k] - offsets[k] for k in range(plan.warmup, len(offsets))
            if not errors[k]]


def result_fields(config, plan, times):
    """requests_ok, requests_failed, errors, achieved_per_s, lateness_p99_ns (11.5.3)."""
    measured = range(plan.warmup, len(plan.offsets))
    counts = {}
    for k in measured:
        kind = KINDS[times.errors[k]]
        if kind:
            counts[kind] = counts.get(kind, 0) + 1
    failed = sum(counts.values())
    ok = len(measured) - failed
    last = max((times.received[k] for k in measured), default=NONE)
    span = last - config.warmup_ms * 10**6
    lateness = sorted(times.sent[k] - plan.offsets[k] for k in measured
                      if times.sent[k] != NONE)
    return {"requests_ok": ok, "requests_failed": failed, "errors": counts,
            "achieved_per_s": ok * 1e9 / span if ok and span > 0 else 0.0,
            "lateness_p99_ns": nearest_rank(lateness, 99)}


def nearest_rank(ordered, percent):
    """The nearest-rank percentile of a sorted list; None when it is empty."""
    if not ordered:
        return None
    rank = -(-len(ordered) * percent // 100)
    return ordered[max(rank, 1) - 1]
