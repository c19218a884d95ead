"""The preflight probe: before the first case, a short ping-pong with the C floor (bench/floor,
16 B over a Unix stream socket) at every placement the run uses, so the results carry what this
machine's wake-ups cost today. On a VM a wake-up on another CPU can cost tens to hundreds of
microseconds and come in modes; one note says so when it does.

The floor is called here the way `ipclab bench` calls it; its figures and modes are
analyse/reduce.py's."""
import subprocess
import tempfile
import time

import numpy as np

from ipclab.analyse import reduce
from ipclab.plan import placement
from ipclab.common.units import format_ns

MECHANISM = "uds"
SIZE = 16
CALIBRATION = 200            # round trips to learn how long one takes
SLOW_CROSS_NS = 30_000       # a cross-CPU 16 B round trip above this is slow (bare metal: a few µs)


def floor_binary(root):
    return root / "bench" / "floor" / "build" / "ipclab-floor"


def probe(root, cases, seconds, scratch):
    """([probe record per placement], [notes]) for the placements `cases` use."""
    binary = floor_binary(root)
    wanted = list(dict.fromkeys(c.placement for c in cases))
    if not binary.exists():
        return ([{"placement": p, "skipped": f"{binary} is missing"} for p in wanted],
                [f"preflight probe skipped: {binary.relative_to(root)} is not built (make build)"])
    probes = [_probe_one(binary, where, seconds, scratch) for where in wanted]
    return probes, notes(probes)


def _probe_one(binary, where, seconds, scratch):
    cpus = placement.resolve(where)
    record = {"placement": where, "mechanism": MECHANISM, "size": SIZE}
    if isinstance(cpus, str):
        return {**record, "skipped": cpus}
    record.update(client_cpu=cpus.client[0] if cpus.client else None,
                  server_cpu=cpus.server[0] if cpus.server else None)
    first, error = _floor(binary, CALIBRATION, CALIBRATION // 4, cpus, scratch)
    if first is None:
        return {**record, "skipped": error}
    per_round_trip = max(reduce.mean(first), 1.0)  # the mean: tails take time too
    iterations = int(min(max(seconds * 1e9 / per_round_trip, CALIBRATION), 1_000_000))
    started = time.monotonic()
    samples, error = _floor(binary, iterations, iterations // 10, cpus, scratch)
    if samples is None:
        return {**record, "skipped": error}
    return {**record, "iterations": iterations, "seconds": round(time.monotonic() - started, 3),
            **reduce.spread(samples),
            "modes": [{"median_ns": m, "share": round(s, 4)} for m, s in reduce.modes(samples)]}


def _floor(binary, iterations, warmup, cpus, scratch):
    with tempfile.NamedTemporaryFile(dir=scratch, suffix=".i64") as out:
        argv = [str(binary), MECHANISM, "--size", str(SIZE), "--iterations", str(iterations),
                "--warmup", str(warmup), "--samples-file", out.name]
        if cpus.client:
            argv += ["--client-cpu", str(cpus.client[0]), "--server-cpu", str(cpus.server[0])]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return None, "the floor ping-pong took over 120 s"
        if done.returncode != 0:
            return None, f"the floor exited with {done.returncode}: {done.stderr.strip()[:200]}"
        data = np.fromfile(out.name, dtype="<i8")
    return (data, None) if data.size else (None, "the floor wrote no samples")


def notes(probes):
    """At most one note: when wake-ups on another CPU are slow, or come in modes."""
    for p in probes:
        if p.get("skipped") or p["placement"] == "same-core":
            continue
        where = (f"CPU {p['client_cpu']}→{p['server_cpu']}" if p.get("client_cpu") is not None
                 else "unpinned")
        found = p["modes"]
        if len(found) > 1:
            fast, share, slow = found[0]["median_ns"], found[0]["share"], found[1]["median_ns"]
            return [f"preflight: cross-CPU wake-ups come in two modes here (16 B uds floor, "
                    f"{where}: {format_ns(fast)} in {100 * share:.0f}%, {format_ns(slow)} in the "
                    f"rest): a {p['placement']} case lands in either, so read the intervals, "
                    f"not one median; same-core avoids it"]
        if p["median_ns"] > SLOW_CROSS_NS:
            return [f"preflight: cross-CPU wake-ups are slow here (16 B uds floor, {where}: "
                    f"median {format_ns(p['median_ns'])}; bare metal: a few µs): {p['placement']} "
                    f"figures are mostly the machine's wake-up cost"]
    return []
