"""`ipclab bench`: is the measurement cheaper than what it measures?

For each kernel mechanism at 16 B, the C++ peer's median round trip beside a minimal hand-written
C ping-pong (bench/floor) on the same CPUs, and the Java and Python peers beside them. Floor and
peers alternate over several rounds, and each figure is the median of the rounds' medians, so a
noisy moment on a shared machine hits both sides alike: the ratio is the median over rounds of
(peer / floor of the same round), which cancels most drift between rounds. `bench stream` does
the same for one-way streams and short connections (rates, not times). Prints numbers;
asserts nothing."""
import subprocess
import tempfile

import numpy as np
from rich.table import Table

from ipclab.plan import matrix
from ipclab.plan.patterns import SHORT, STREAM
from ipclab.plan import placement
from ipclab.analyse import reduce
from ipclab.common.errors import UserError
from ipclab.execute.runner import Runner
from ipclab.plan.scenario import build_scenario
from ipclab.common.units import format_ns, format_rate, format_size, parse_size
from ipclab.execute.workspace import Workspace

MECHANISMS = ("tcp", "udp", "uds", "pipe", "fifo")
SIZE = 16
TARGET = 1.05


def run_floor(catalog, console, iterations, rounds, where):
    iterations, rounds = positive(iterations, "--iterations"), positive(rounds, "--rounds")
    cpus, floor_bin = _floor_and_cpus(catalog, where)
    scenario = _scenario(catalog, iterations, where)
    cases = [c for c in matrix.expand(scenario, catalog) if c.client == c.server]
    held = _held_to_floor(catalog)
    steps = []  # the floor, then each language's peer, per mechanism
    for mech in MECHANISMS:
        steps.append((f"{mech} floor", (mech, "floor"), lambda runner, scratch, mech=mech:
                      _floor_median(floor_bin, mech, iterations, cpus, scratch)))
        steps += [(f"{mech} {case.client} peer", (mech, case.client),
                   lambda runner, scratch, case=case: _peer_median(runner, case))
                  for case in cases if case.mechanism == mech]
    medians = alternate(catalog, scenario, rounds, console, steps)  # key -> per-round medians
    console.print(_table(catalog, held, medians, iterations, rounds, where, cpus))


def alternate(catalog, scenario, rounds, console, steps):
    """Each of `steps`, (label, key, measure(runner, scratch)), in order once a round for
    `rounds` rounds, floors and peers alternating so that a noisy moment of a shared machine hits
    both alike: key -> the per-round values."""
    values = {}
    with Workspace() as ws, console.status("measuring") as status:
        runner = Runner(scenario, catalog, ws)
        for r in range(1, rounds + 1):
            for label, key, measure in steps:
                status.update(f"round {r}/{rounds}: {label}")
                values.setdefault(key, []).append(measure(runner, ws.path))
    return values


def _floor_and_cpus(catalog, where):
    """The placement's CPUs and the built C floor program, or a UserError saying what is wrong."""
    cpus = placement.resolve(where)
    if isinstance(cpus, str) or where not in ("same-core", "cross-core", "unpinned"):
        raise UserError(f"--placement: {where!r} cannot be used here ({cpus})")
    floor_bin = catalog.root / "bench" / "floor" / "build" / "ipclab-floor"
    if not floor_bin.exists():
        raise UserError(f"{floor_bin} is missing: run make build")
    return cpus, floor_bin


def _held_to_floor(catalog):
    """The language whose peer.toml says `floor = true`: the peer that must be as fast as the
    hand-written C programs (PROTOCOL's "cheaper than what it measures")."""
    held = [lang for lang in catalog.languages.values() if lang.floor]
    if len(held) != 1:
        raise UserError(f"exactly one peers/*/peer.toml must say floor = true (found "
                        f"{len(held)}): the peer compared with the C floor")
    return held[0]


def positive(text, flag):
    """A positive whole number from a flag's text, else a UserError naming the flag."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise UserError(f"{flag}: {text!r} is not a positive whole number")
    return value


def _scenario(catalog, iterations, where):
    raw = {"matrix": {"mechanism": list(MECHANISMS), "client": list(catalog.languages),
                      "server": list(catalog.languages), "request_size": [SIZE],
                      "response_size": [SIZE],
                      "placement": [where]},
           "run": {"iterations": iterations, "warmup": max(1000, iterations // 2)}}
    return build_scenario(raw, "<floor benchmark>", catalog, {}, "floor")


def _floor_median(floor_bin, mech, iterations, cpus, scratch):
    with tempfile.NamedTemporaryFile(dir=scratch, suffix=".i64") as samples:
        size = [] if mech == "cacheline" else ["--size", str(SIZE)]
        argv = [str(floor_bin), mech, *size, "--iterations", str(iterations),
                "--warmup", str(max(1000, iterations // 2)), "--samples-file", samples.name]
        if cpus.client:
            argv += ["--client-cpu", str(cpus.client[0]), "--server-cpu", str(cpus.server[0])]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            return None
        data = np.fromfile(samples.name, dtype="<i8")
    return reduce.median(data)


def _peer_median(runner, case):
    if case.skip_status:
        return None
    outcome = runner.run(case)
    return reduce.median(outcome.samples) if outcome.status == "ok" else None


def _mid(values):
    return reduce.median([v for v in values if v is not None])


def _table(catalog, held, medians, iterations, rounds, where, cpus):
    table = Table(title=f"16 B round trip, median of {rounds} rounds × {iterations} iterations, "
                        f"{where} {cpus.as_dict()}")
    others = [lang for lang in catalog.languages.values() if lang is not held]
    for name in ("mechanism", "C floor", f"{held.display} peer", f"{held.display} / floor",
                 f"≤ {TARGET}?", *(f"{lang.display} peer" for lang in others),
                 f"round medians {held.display} (floor)"):
        table.add_column(name, justify="left" if name == "mechanism" else "right")
    for mech in MECHANISMS:
        floors, mine = medians[(mech, "floor")], medians.get((mech, held.name), [])
        ratio = _mid([c / f for c, f in zip(mine, floors) if c and f])
        verdict = "-" if ratio is None else ("yes" if ratio <= TARGET else "[red]no[/]")
        rounds_text = ", ".join(f"{format_ns(c)} ({format_ns(f)})" for c, f in zip(mine, floors))
        table.add_row(mech, format_ns(_mid(floors)), format_ns(_mid(mine)),
                      f"{ratio:.3f}" if ratio else "-", verdict,
                      *(format_ns(_mid(medians.get((mech, lang.name), []))) for lang in others),
                      rounds_text)
    return table


SHM = ("shm-spin", "shm", "shm-futex", "uds")
SPIN_TARGET, UDS_TARGET = 2.0, 20.0


def run_shm(catalog, console, iterations, rounds):
    """`ipclab bench shm`: shm-spin C++ ↔ C++ cross-core beside the cache-line ping-pong floor and
    uds (targets: within 2× of the floor, at least 20× faster than uds), the other shm wait modes,
    and the per-call cost of the in-process mechanisms at 16 B."""
    iterations, rounds = positive(iterations, "--iterations"), positive(rounds, "--rounds")
    cpus = placement.resolve("cross-core")
    if isinstance(cpus, str):
        raise UserError(f"bench shm needs cross-core placement: {cpus}")
    floor_bin = catalog.root / "bench" / "floor" / "build" / "ipclab-floor"
    held = _held_to_floor(catalog)
    inproc = [m.name for m in catalog.mechanisms.values() if m.inprocess]
    raw = {"matrix": {"mechanism": [*SHM, *inproc], "client": list(catalog.languages),
                      "server": list(catalog.languages), "request_size": [SIZE],
                      "response_size": [SIZE], "placement": ["cross-core"]},
           "run": {"iterations": iterations, "warmup": max(1000, iterations // 2)}}
    scenario = build_scenario(raw, "<shm benchmark>", catalog, {}, "shm")
    cases = matrix.expand(scenario, catalog)
    wanted = [c for c in cases if c.mechanism in SHM and c.client == c.server == held.name]
    # Every in-process call each language can make (its pairs that are not "not applicable").
    calls = [c for c in cases if c.mechanism in inproc and c.skip_status != "not-applicable"]
    wanted += calls
    medians = {}
    with Workspace() as ws, console.status("measuring") as status:
        runner = Runner(scenario, catalog, ws)
        for r in range(1, rounds + 1):
            status.update(f"round {r}/{rounds}: cache-line floor")
            medians.setdefault("floor", []).append(
                _floor_median(floor_bin, "cacheline", iterations, cpus, ws.path))
            for case in wanted:
                status.update(f"round {r}/{rounds}: {case.mechanism} {case.client}")
                medians.setdefault((case.mechanism, case.client), []).append(
                    _peer_median(runner, case))
    console.print(_shm_table(held, medians, iterations, rounds))
    console.print(_calls_table([(c.mechanism, c.client) for c in calls], medians))


def _shm_table(held, medians, iterations, rounds):
    floor = _mid(medians["floor"])
    spin = _mid(medians.get(("shm-spin", held.name), []))
    uds = _mid(medians.get(("uds", held.name), []))
    table = Table(title=f"16 B round trip, {held.display} ↔ {held.display} cross-core, median of "
                        f"{rounds} rounds × {iterations} iterations")
    for name in ("transport", "median", "vs cache-line floor", "uds / this"):
        table.add_column(name, justify="left" if name == "transport" else "right")
    table.add_row("cache-line ping-pong (floor)", format_ns(floor), "1.00", _fmt(_ratio(uds, floor)))
    for mech in SHM:
        value = _mid(medians.get((mech, held.name), []))
        table.add_row(mech, format_ns(value), _fmt(_ratio(value, floor)), _fmt(_ratio(uds, value)))
    verdict = (f"targets: shm-spin within {SPIN_TARGET:g}× of the floor: "
               f"{_yes(_ratio(spin, floor), lambda r: r <= SPIN_TARGET)}; "
               f"at least {UDS_TARGET:g}× faster than uds: "
               f"{_yes(_ratio(uds, spin), lambda r: r >= UDS_TARGET)}")
    table.caption = verdict
    return table


def _calls_table(calls, medians):
    table = Table(title="in-process call at 16 B (one call = one round trip)")
    for name in ("mechanism", "caller", "median per call"):
        table.add_column(name, justify="right" if name.startswith("median") else "left")
    for mech, lang in calls:
        table.add_row(mech, lang, format_ns(_mid(medians[(mech, lang)])))
    return table


def _ratio(a, b):
    return a / b if a and b else None


def _fmt(value):
    return f"{value:.2f}" if value is not None else "-"


def _yes(value, test):
    if value is None:
        return "not measured"
    return "yes" if test(value) else "[red]no[/]"


STREAM_MECHANISMS = ("tcp", "uds", "pipe", "fifo", "sysv-mq", "posix-mq")
STREAM_TARGET = 0.95   # the held peer's messages/s (and connections/s) over the floor's, at least


def run_stream(catalog, console, messages, iterations, rounds, where, size):
    """`ipclab bench stream`: the held peer's one-way stream (PROTOCOL.md 11.1) beside the floor's
    C stream per mechanism, and its short tcp connections (11.2) beside the floor's C connect
    loop; same placement, floor and peer alternating in every round; the ratio is the median over
    rounds of (peer rate / floor rate of the same round). Both write the same `size` bytes per
    stream message (a peer's message has no header since contract 4); a short connection's
    request is `size` bytes and its response 1 byte on both sides (the peer's frames add their
    24-byte headers, as in `bench kernel`), and both make the socket and its source bind before
    the clock. A stream's rate is messages over the whole measured stream (the peer's stream_ns,
    the floor's one sample); a connection rate is 10^9 / mean connection time, for both."""
    messages, rounds = positive(messages, "--messages"), positive(rounds, "--rounds")
    iterations = positive(iterations, "--iterations")
    size = parse_size(size, "--size")
    cpus, floor_bin = _floor_and_cpus(catalog, where)
    held = _held_to_floor(catalog)
    warmup = max(1000, messages // 10)
    raw = {"matrix": {"mechanism": list(STREAM_MECHANISMS), "client": [held.name],
                      "server": [held.name], "pattern": [STREAM.name, SHORT.name],
                      "message_size": [size], "request_size": [size], "response_size": [1],
                      "placement": [where]},
           "run": {"messages": messages, "iterations": iterations, "warmup": warmup,
                   "windows": 10}}
    scenario = build_scenario(raw, "<stream benchmark>", catalog, {}, STREAM.name)
    cases = sorted((c for c in matrix.expand(scenario, catalog)
                    if c.pattern is STREAM or c.mechanism == "tcp"),
                   key=lambda c: (c.pattern is not STREAM, c.index))
    rates = {}  # (pattern, mechanism, "floor" or "peer") -> per-round rates
    with Workspace() as ws, console.status("measuring") as status:
        runner = Runner(scenario, catalog, ws)
        for r in range(1, rounds + 1):
            for case in cases:
                what = f"round {r}/{rounds}: {case.mechanism} {case.pattern.name}"
                status.update(f"{what} floor")
                rates.setdefault((case.pattern.name, case.mechanism, "floor"), []).append(
                    _floor_rate(floor_bin, case, messages, iterations, warmup, size, cpus, ws.path))
                status.update(f"{what} {held.display} peer")
                rates.setdefault((case.pattern.name, case.mechanism, "peer"), []).append(
                    _peer_rate(runner, case))
    console.print(_stream_table(held, rates, cases, messages, iterations, rounds, where, cpus,
                                size))


def _floor_rate(floor_bin, case, messages, iterations, warmup, size, cpus, scratch):
    """The floor's messages/s (stream) or connections/s (short), or None if it failed."""
    with tempfile.NamedTemporaryFile(dir=scratch, suffix=".i64") as samples:
        if case.pattern.per_window:
            what = ["--size", str(size), "--messages", str(messages)]
        else:
            what = ["--size", str(size), "--response-size", "1", "--iterations", str(iterations)]
        argv = [str(floor_bin), case.mechanism, "--pattern", case.pattern.name, *what,
                "--warmup", str(warmup), "--samples-file", samples.name]
        if cpus.client:
            argv += ["--client-cpu", str(cpus.client[0]), "--server-cpu", str(cpus.server[0])]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
        data = np.fromfile(samples.name, dtype="<i8") if done.returncode == 0 else np.empty(0)
    if not data.size or data.min() <= 0:
        return None
    if case.pattern.per_window:
        return messages * 1e9 / float(data[0])
    return 1e9 / float(data.mean())


def _peer_rate(runner, case):
    if case.skip_status:
        return None
    outcome = runner.run(case)
    if outcome.status != "ok":
        return None
    if case.pattern.per_window:
        return outcome.client["messages"] * 1e9 / outcome.client["stream_ns"]
    return 1e9 / reduce.mean(outcome.samples)


def _stream_table(held, rates, cases, messages, iterations, rounds, where, cpus, size):
    table = Table(title=f"{held.display} peer beside the C floor, {format_size(size)} messages, "
                        f"median of {rounds} rounds ({messages} messages per stream, "
                        f"{iterations} short connections), {where} {cpus.as_dict()}")
    for name in ("pattern", "mechanism", "C floor /s", f"{held.display} peer /s",
                 f"{held.display} / floor", f"≥ {STREAM_TARGET}?",
                 f"round rates {held.display} (floor)"):
        table.add_column(name, justify="left" if name in ("pattern", "mechanism") else "right")
    for case in cases:
        floors = rates[(case.pattern.name, case.mechanism, "floor")]
        mine = rates[(case.pattern.name, case.mechanism, "peer")]
        ratio = _mid([p / f for p, f in zip(mine, floors) if p and f])
        verdict = "-" if ratio is None else ("yes" if ratio >= STREAM_TARGET else "[red]no[/]")
        per_round = ", ".join(f"{format_rate(p)} ({format_rate(f)})" for p, f in zip(mine, floors))
        table.add_row(f"{case.pattern.name} {'msgs' if case.pattern.per_window else 'conns'}",
                      case.mechanism, format_rate(_mid(floors)), format_rate(_mid(mine)),
                      f"{ratio:.3f}" if ratio else "-", verdict, per_round)
    return table
