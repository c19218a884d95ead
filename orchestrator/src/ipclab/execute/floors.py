"""--explain's floors: what one system call, one copy and one wake-up cost on this machine today,
measured by the C floor program (bench/floor) before the first case and kept in run.json. The
model of analyse/explained.py prices a case's counted calls with them.

    syscall_ns       one getppid() (the cheapest call: entry and exit alone), batches of 1000
    copy_ns_per_byte memcpy between two buffers of the size, per payload size the cases use
    wake_ns          same-core and cross-core: half a 1-byte pipe round trip less its two
                     system calls (a write and a read): what waking the other side adds"""
import subprocess
import tempfile
import time

import numpy as np

from ipclab.analyse import reduce
from ipclab.execute import preflight
from ipclab.plan import placement

SYSCALL_BATCH = 1000
COPY_BYTES = 1 << 20          # each memcpy sample copies about this many bytes
SAMPLES, WARMUP = 200, 20
WAKE_ROUND_TRIPS = 20_000
WAKE_PLACEMENTS = ("same-core", "cross-core")


def sizes(cases):
    """The payload sizes the explained cases copy."""
    found = set()
    for case in cases:
        found.update(case.pattern.payload_sizes(case))
    return sorted(s for s in found if s)


def measure(root, cases, scratch):
    """{"syscall_ns", "copy_ns_per_byte": {size: ns}, "wake_ns": {placement: ns}, "seconds"},
    or {"skipped": why}."""
    binary = preflight.floor_binary(root)
    if not binary.exists():
        return {"skipped": f"{binary.relative_to(root)} is not built (make build)"}
    started = time.monotonic()
    try:
        syscall = _median(binary, ["syscall", "--batch", str(SYSCALL_BATCH)], scratch) / SYSCALL_BATCH
        copies = {}
        for size in sizes(cases):
            batch = max(1, -(-COPY_BYTES // size))
            copies[str(size)] = _median(binary, ["memcpy", "--size", str(size), "--batch",
                                                 str(batch)], scratch) / batch / size
        wake = {where: _wake(binary, where, syscall, scratch) for where in WAKE_PLACEMENTS}
    except FloorError as e:
        return {"skipped": str(e)}
    return {"syscall_ns": syscall, "copy_ns_per_byte": copies,
            "wake_ns": {k: v for k, v in wake.items() if v is not None},
            "seconds": round(time.monotonic() - started, 2)}


class FloorError(Exception):
    pass


def _wake(binary, where, syscall_ns, scratch):
    cpus = placement.resolve(where)
    if isinstance(cpus, str):
        return None                   # this machine has no such placement
    rtt = _median(binary, ["pipe", "--size", "1", "--client-cpu", str(cpus.client[0]),
                           "--server-cpu", str(cpus.server[0])], scratch,
                  iterations=WAKE_ROUND_TRIPS, warmup=WAKE_ROUND_TRIPS // 10)
    return max(rtt / 2 - 2 * syscall_ns, 0.0)


def _median(binary, args, scratch, iterations=SAMPLES, warmup=WARMUP):
    with tempfile.NamedTemporaryFile(dir=scratch, suffix=".i64") as out:
        argv = [str(binary), *args, "--iterations", str(iterations), "--warmup", str(warmup),
                "--samples-file", out.name]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            raise FloorError(f"the floor ({args[0]}) took over 120 s") from None
        if done.returncode != 0:
            raise FloorError(f"the floor ({args[0]}) exited with {done.returncode}: "
                             f"{done.stderr.strip()[:200]}")
        data = np.fromfile(out.name, dtype="<i8")
    if not data.size:
        raise FloorError(f"the floor ({args[0]}) wrote no samples")
    return reduce.median(data)
