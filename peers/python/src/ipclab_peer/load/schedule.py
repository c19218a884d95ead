"""The schedule of pattern load (PROTOCOL.md 11.5.2): request k's intended start is T0 + o_k.

    fixed:   o_k = floor(k * 10^9 / R), exact integers
    poisson: o_0 = 0, o_k = floor(s_k), s_k = s_(k-1) + g_k in doubles, g_k = -ln(u_k) * 10^9 / R,
             u_k = ((x_k >> 11) + 1) * 2^-53, x_1, x_2, ... splitmix64 from seed ^ (3 * GOLDEN)

The schedule holds every k with o_k < (W + D) ms; those under W ms are the warm-up. It is made
with numpy before T0 (a vectorised splitmix64, as payload.py's; np.cumsum adds in order, so the
doubles are the contract's sequential sums) and handed out as an array('q') for the clients'
threads, whose per-item reads of a numpy array would cost more.
"""
from array import array
from dataclasses import dataclass
from functools import cache

from ..errors import Unsupported
from ..payload import GOLDEN, MASK, _splitmix_words

NS_PER_S = 10**9
NS_PER_MS = 10**6
POISSON_STREAM = 3
# Arrays for more requests than this would take gigabytes; a Python client sends a few tens of
# thousands per second at best, so such a schedule could not be kept anyway.
MAX_REQUESTS = 1 << 25


@dataclass(frozen=True)
class Schedule:
    offsets: array  # o_k in ns, k = 0 .. len - 1
    warmup: int     # requests 0 .. warmup - 1 are the warm-up, the rest measured

    @property
    def measured(self):
        return len(self.offsets) - self.warmup


def of(config):
    """The schedule of a drive configuration (made once per run)."""
    return schedule(config.seed, config.rate, config.arrival, config.warmup_ms,
                    config.duration_ms)


@cache
def schedule(seed, rate, arrival, warmup_ms, duration_ms):
    import numpy as np
    limit = (warmup_ms + duration_ms) * NS_PER_MS
    offsets = fixed(np, rate, limit) if arrival == "fixed" else poisson(np, seed, rate, limit)
    warmup = int(np.searchsorted(offsets, warmup_ms * NS_PER_MS, side="left"))
    return Schedule(array("q", offsets.astype("=i8").tobytes()), warmup)


def fixed(np, rate, limit):
    """Every k with floor(k * 10^9 / R) < limit, i.e. k * 10^9 < limit * R."""
    count = -(-limit * rate // NS_PER_S)
    _check_count(count)
    k = np.arange(count, dtype=np.int64)
    # k * 10^9 stays below 2^63 for every count under MAX_REQUESTS.
    return k * NS_PER_S // rate


def poisson(np, seed, rate, limit):
    """The poisson offsets below `limit`, made in chunks of the expected size (plus a margin)
    until a sum reaches it."""
    state = np.uint64((seed ^ (POISSON_STREAM * GOLDEN)) & MASK)
    chunk = max(1024, limit * rate // NS_PER_S // 8)
    parts, total, produced = [np.zeros(1)], 0.0, 0  # s_0 = 0
    while total < limit:
        if produced > 2 * MAX_REQUESTS:
            _check_count(produced)
        scratch = np.empty(chunk, dtype=np.uint64)
        x = _splitmix_words(np, state, produced, produced + chunk, scratch)
        u = ((x >> np.uint64(11)) + np.uint64(1)).astype(np.float64) * 2.0**-53
        gaps = -np.log(u) * float(NS_PER_S) / float(rate)
        gaps[0] += total  # carried in front, so the sums stay the sequential ones
        sums = np.cumsum(gaps)
        parts.append(sums)
        total, produced = float(sums[-1]), produced + chunk
    sums = np.concatenate(parts)
    offsets = np.floor(sums).astype(np.int64)
    offsets = offsets[:int(np.searchsorted(offsets, limit, side="left"))]
    _check_count(len(offsets))
    return offsets


def _check_count(count):
    if count > MAX_REQUESTS:
        raise Unsupported(f"a schedule of {count} or more requests: this peer keeps at most "
                          f"{MAX_REQUESTS} (--rate times the schedule's length)")
