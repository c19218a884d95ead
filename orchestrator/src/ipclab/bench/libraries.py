"""`ipclab bench libraries`: is the C++ peer over a messaging library as fast as the library alone?

Per library mechanism at 16 B, the C++ peer's round trip beside the library's own latency test
written as one C program against the library alone (bench/floor/zmq.c: libzmq's
local_lat/remote_lat, REQ/REP with default options; bench/floor/nng.c: NNG perf's
local_lat/remote_lat over req0/rep0, its resend timer off as the peer's), same placement, floor
and peer alternating in every round as `bench kernel` does: the ratio is the median over rounds
of (peer median / floor median of the same round). Beside it the figure the library's own tool
prints, a mean one-way time (the whole loop / 2N), for both. Prints numbers; asserts nothing."""
import subprocess
import tempfile

import numpy as np
from rich.table import Table

from ipclab.analyse import reduce
from ipclab.bench.kernel import (SIZE, TARGET, _floor_and_cpus, _held_to_floor, _mid, alternate,
                                 positive)
from ipclab.common.errors import UserError
from ipclab.common.units import format_ns
from ipclab.plan import matrix
from ipclab.plan.scenario import build_scenario

# mechanism -> (the floor program in bench/floor/build, its transport argument)
FLOORS = {"zmq-tcp": ("ipclab-floor-zmq", "tcp"), "zmq-ipc": ("ipclab-floor-zmq", "ipc"),
          "nng-tcp": ("ipclab-floor-nng", "tcp"), "nng-ipc": ("ipclab-floor-nng", "ipc")}


def run_libraries(catalog, console, iterations, rounds, where):
    iterations, rounds = positive(iterations, "--iterations"), positive(rounds, "--rounds")
    cpus, _ = _floor_and_cpus(catalog, where)
    held = _held_to_floor(catalog)
    mechanisms = [m for m in FLOORS if held.supports(m, "drive") and held.supports(m, "serve")]
    if not mechanisms:
        raise UserError(f"the {held.display} peer was built without any of {', '.join(FLOORS)}: "
                        f"install the libraries (scripts/setup-system) and run make build")
    warmup = max(1000, iterations // 2)
    raw = {"matrix": {"mechanism": mechanisms, "client": [held.name], "server": [held.name],
                      "request_size": [SIZE], "response_size": [SIZE], "placement": [where]},
           "run": {"iterations": iterations, "warmup": warmup}}
    scenario = build_scenario(raw, "<libraries benchmark>", catalog, {}, "libraries")
    cases = {c.mechanism: c for c in matrix.expand(scenario, catalog)}
    steps = [step for mech in mechanisms for step in (
        (f"{mech} floor", (mech, "floor"), lambda runner, scratch, mech=mech:
         _floor(catalog, mech, iterations, warmup, cpus, scratch)),
        (f"{mech} {held.display} peer", (mech, "peer"),
         lambda runner, scratch, mech=mech: _peer(runner, cases[mech])))]
    # (mechanism, "floor" or "peer") -> per-round (median, mean one-way)
    figures = alternate(catalog, scenario, rounds, console, steps)
    console.print(_table(held, mechanisms, figures, iterations, rounds, where, cpus))


def _floor(catalog, mech, iterations, warmup, cpus, scratch):
    """(median, mean one-way) of one run of the library's floor program, or None."""
    program, transport = FLOORS[mech]
    binary = catalog.root / "bench" / "floor" / "build" / program
    if not binary.exists():
        return None
    with tempfile.NamedTemporaryFile(dir=scratch, suffix=".i64") as samples:
        argv = [str(binary), transport, "--size", str(SIZE), "--iterations", str(iterations),
                "--warmup", str(warmup), "--samples-file", samples.name]
        if cpus.client:
            argv += ["--client-cpu", str(cpus.client[0]), "--server-cpu", str(cpus.server[0])]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        data = np.fromfile(samples.name, dtype="<i8") if done.returncode == 0 else np.empty(0)
    return _figures(data)


def _peer(runner, case):
    if case.skip_status:
        return None
    outcome = runner.run(case)
    return _figures(outcome.samples) if outcome.status == "ok" else None


def _figures(samples):
    """A round's median round trip and the library tools' figure: the mean one-way time."""
    if samples is None or not samples.size:
        return None
    return reduce.median(samples), reduce.mean(samples) / 2


def _table(held, mechanisms, figures, iterations, rounds, where, cpus):
    table = Table(title=f"{SIZE} B round trip, {held.display} peer beside the library alone, "
                        f"median of {rounds} rounds × {iterations} iterations, {where} "
                        f"{cpus.as_dict()}")
    for name in ("mechanism", "library", "floor", f"{held.display} peer",
                 f"{held.display} / floor", f"≤ {TARGET}?", "one-way mean: floor",
                 f"one-way mean: {held.display}", f"round medians {held.display} (floor)"):
        table.add_column(name, justify="left" if name in ("mechanism", "library") else "right")
    for mech in mechanisms:
        floors, mine = figures[(mech, "floor")], figures[(mech, "peer")]
        ratio = _mid([p[0] / f[0] for p, f in zip(mine, floors) if p and f])
        verdict = "-" if ratio is None else ("yes" if ratio <= TARGET else "[red]no[/]")
        per_round = ", ".join(f"{format_ns(p[0]) if p else '-'} ({format_ns(f[0]) if f else '-'})"
                              for p, f in zip(mine, floors))

        def mid(values, k):
            return format_ns(_mid([v[k] for v in values if v]))
        table.add_row(mech, held.libraries.get(mech, "-"), mid(floors, 0), mid(mine, 0),
                      f"{ratio:.3f}" if ratio else "-", verdict, mid(floors, 1), mid(mine, 1),
                      per_round)
    table.caption = ("floor: the library's own latency test as one C program, each round trip "
                     "timed (libzmq's local_lat/remote_lat: REQ/REP, default options; NNG perf's "
                     "local_lat/remote_lat: req0/rep0, REQ_RESENDTIME off as the peer's); "
                     "one-way mean: the whole loop / 2N, the figure those tests print")
    return table
