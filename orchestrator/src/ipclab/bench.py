"""`ipclab floor`: is the measurement cheaper than what it measures?

For each kernel mechanism at 16 B, the C++ peer's median round trip beside a minimal hand-written
C ping-pong (bench/floor) on the same CPUs, and the Java and Python peers beside them. Floor and
peers alternate over several rounds, and each figure is the median of the rounds' medians, so a
noisy moment on a shared machine hits both sides alike: the ratio is the median over rounds of
(peer / floor of the same round), which cancels most drift between rounds. Prints numbers;
asserts nothing."""
import statistics
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from rich.table import Table

from ipclab import matrix, placement
from ipclab.errors import UserError
from ipclab.runner import Runner
from ipclab.scenario import build_scenario
from ipclab.units import format_ns
from ipclab.workspace import Workspace

MECHANISMS = ("tcp", "udp", "uds", "pipe", "fifo")
LANGUAGES = ("cpp", "java", "python")
SIZE = 16
TARGET = 1.05


def run_floor(catalog, console, iterations, rounds, where):
    iterations, rounds = _positive(iterations, "--iterations"), _positive(rounds, "--rounds")
    cpus = placement.resolve(where)
    if isinstance(cpus, str) or where not in ("same-core", "cross-core", "unpinned"):
        raise UserError(f"--placement: {where!r} cannot be used here ({cpus})")
    floor_bin = catalog.root / "bench" / "floor" / "build" / "ipclab-floor"
    if not floor_bin.exists():
        raise UserError(f"{floor_bin} is missing: run make build")
    scenario = _scenario(catalog, iterations, where)
    cases = [c for c in matrix.expand(scenario, catalog) if c.client == c.server]
    medians = {}  # (mechanism, who) -> list of per-round medians
    with Workspace() as ws, console.status("measuring") as status:
        runner = Runner(scenario, catalog, ws)
        for r in range(1, rounds + 1):
            for mech in MECHANISMS:
                status.update(f"round {r}/{rounds}: {mech} floor")
                medians.setdefault((mech, "floor"), []).append(
                    _floor_median(floor_bin, mech, iterations, cpus, ws.path))
                for case in (c for c in cases if c.mechanism == mech):
                    status.update(f"round {r}/{rounds}: {mech} {case.client} peer")
                    medians.setdefault((mech, case.client), []).append(_peer_median(runner, case))
    console.print(_table(medians, iterations, rounds, where, cpus))


def _positive(text, flag):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise UserError(f"{flag}: {text!r} is not a positive whole number")
    return value


def _scenario(catalog, iterations, where):
    raw = {"matrix": {"mechanism": list(MECHANISMS), "client": list(LANGUAGES),
                      "server": list(LANGUAGES), "request_size": [SIZE], "response_size": [SIZE],
                      "placement": [where]},
           "run": {"iterations": iterations, "warmup": max(1000, iterations // 2)}}
    return build_scenario(raw, "<floor benchmark>", catalog, {}, "floor")


def _floor_median(floor_bin, mech, iterations, cpus, scratch):
    with tempfile.NamedTemporaryFile(dir=scratch, suffix=".i64") as samples:
        argv = [str(floor_bin), mech, "--size", str(SIZE), "--iterations", str(iterations),
                "--warmup", str(max(1000, iterations // 2)), "--samples-file", samples.name]
        if cpus.client:
            argv += ["--client-cpu", str(cpus.client[0]), "--server-cpu", str(cpus.server[0])]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            return None
        data = np.fromfile(samples.name, dtype="<i8")
    return float(np.median(data)) if data.size else None


def _peer_median(runner, case):
    if case.skip_status:
        return None
    outcome = runner.run(case)
    return float(np.median(outcome.samples)) if outcome.status == "ok" else None


def _mid(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _table(medians, iterations, rounds, where, cpus):
    table = Table(title=f"16 B round trip, median of {rounds} rounds × {iterations} iterations, "
                        f"{where} {cpus.as_dict()}")
    for name in ("mechanism", "C floor", "C++ peer", "C++ / floor", f"≤ {TARGET}?", "Java peer",
                 "Python peer", "round medians C++ (floor)"):
        table.add_column(name, justify="left" if name == "mechanism" else "right")
    for mech in MECHANISMS:
        floor, cpp = _mid(medians[(mech, "floor")]), _mid(medians.get((mech, "cpp"), []))
        ratio = _mid([c / f for c, f in zip(medians.get((mech, "cpp"), []), medians[(mech, "floor")])
                      if c and f])
        verdict = "-" if ratio is None else ("yes" if ratio <= TARGET else "[red]no[/]")
        rounds_text = ", ".join(f"{format_ns(c)} ({format_ns(f)})" for c, f in
                                zip(medians.get((mech, "cpp"), []), medians[(mech, "floor")]))
        table.add_row(mech, format_ns(floor), format_ns(cpp),
                      f"{ratio:.3f}" if ratio else "-", verdict,
                      format_ns(_mid(medians.get((mech, "java"), []))),
                      format_ns(_mid(medians.get((mech, "python"), []))), rounds_text)
    return table
