"""What a case may take: its warm-up (capped by the bytes it moves), the samples its client
writes, and the deadline after which the runner stops it."""
import functools

from ipclab.execute import wire
from ipclab.plan.catalog import load_mechanisms
from ipclab.plan import link
from ipclab.plan import patterns


def effective_warmup(case, run):
    """The scenario's warm-up (round trips, or a stream's messages; an in-process case at least
    run.warmup_inprocess), capped so that it moves at most run.warmup_max_bytes."""
    pattern = case.pattern
    wanted = run.warmup
    if run.warmup_inprocess and case.mechanism in _in_process():
        wanted = max(wanted, run.warmup_inprocess)
    per_unit = pattern.unit_bytes(case) + pattern.frame_bytes
    most = min(run.warmup_max_bytes, link.warmup_bytes(run))  # a slow link moves less
    return min(wanted, max(1, most // per_unit)) if wanted else 0


@functools.cache
def _in_process():
    """The mechanisms with no transport (PROTOCOL.md 4.4): their calls take nanoseconds, so a
    warm-up counted for a transport's microseconds leaves a JIT's code uncompiled."""
    return frozenset(name for name, m in load_mechanisms().items() if m.inprocess)


def expected_samples(case, run):
    """Samples a client writes: a stream's windows (at most one per message), else iterations."""
    return case.pattern.samples_per_round(run)


# A long stream or many short connections take longer than case_timeout's usual few minutes:
# each message or connection adds this much to the case's deadline (the slowest, a file per
# message, moves about 3 000 messages/s on a 2-CPU VM; at 1 MiB, 200 MB/s): a safety net against
# a hang, not a limit on a slow mechanism.
PER_MESSAGE_S = 500e-6
PER_BYTE_S = 5e-9


def case_timeout(case, run):
    """Seconds the case may take: case_timeout, plus the pattern's allowance (its row's
    `timeout`): per message for stream and per connection for short, their warm-ups included; per
    connection of a burst plus a connect that may wait --io-timeout for its SYN; a load's
    schedule, its warm-up and one io timeout for its last answers; rr none."""
    pattern = case.pattern
    if pattern.timeout == patterns.NO_ALLOWANCE:
        return run.case_timeout
    if pattern.timeout == patterns.SCHEDULE:
        return run.case_timeout + run.load_warmup + run.duration + run.io_timeout
    size = pattern.unit_bytes(case)
    if pattern.timeout == patterns.PER_CONNECTION:
        return run.case_timeout + run.io_timeout + run.connections * (
            PER_MESSAGE_S + size * PER_BYTE_S)
    count = wire.units(case, run) + effective_warmup(case, run)
    return run.case_timeout + count * (PER_MESSAGE_S + size * PER_BYTE_S)
