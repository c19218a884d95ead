"""`--explain`: what each call costs the kernel and the CPU, per side, counted, never estimated.

Per side, two sources. The kernel's resource usage of the peer process and its threads, which
the runner gets when it reaps the peer (os.wait4; no root, no perf): voluntary and involuntary
context switches, page faults, user and system CPU. And, where perf and tracefs are here, `perf
stat` around the peer: system calls (the raw_syscalls tracepoint, and one tracepoint per call
name for the top calls) and CPU migrations.

The contract has no signal at the measured phase's edges, so, as for the wire's bytes (wire.py),
per call = (count(N) − count(1)) / (N − 1): a pair of N calls less a calibration pair of one,
so start-up, warm-up and shut-down cancel. The resource usage comes from the measured pair and
the (uncounted) calibration pair the wire's bytes use too: the case's times and CPU are a normal
run's. perf's counts come from two more pairs, counted: every counted event costs each system
call and context switch time (measured: a C++ tcp round trip 17 µs uncounted, about 23 µs with
the events below, 220 µs with a tracepoint for every one of the ~360 calls), so only the calls
IPC spends its time in are named, the rest is "other"; the counted pair's median against the
measured pair's is what counting cost, kept per case.
"""
import os
import shutil
import subprocess
from contextlib import contextmanager

from ipclab.analyse import reduce
from ipclab.execute import wire
from ipclab.execute.parts import part_of
from ipclab.records.fields import EXPLAIN_COUNTS, EXPLAIN_SIDES

# perf's event -> our name; software events and tracepoints only (no hardware counters in a VM).
PERF_EVENTS = {"raw_syscalls:sys_enter": "syscalls", "cpu-migrations": "migrations"}
BY_NAME = "syscalls:sys_enter_"   # + a call's name: one tracepoint per system call
# The calls named (each one more tracepoint on every system call and context switch): those the
# mechanisms send, receive and wait with, and a short connection's own.
NAMED = ("read", "write", "readv", "writev", "sendto", "recvfrom", "sendmsg", "recvmsg",
         "epoll_wait", "epoll_pwait", "poll", "ppoll", "select", "futex", "msgsnd", "msgrcv",
         "mq_timedsend", "mq_timedreceive", "semop", "semtimedop", "clock_nanosleep",
         "sched_yield", "socket", "connect", "accept4", "close")
# Our name -> how it comes from a struct rusage (the process and its threads, as reaped).
USAGE = {"voluntary": lambda u: u.ru_nvcsw, "involuntary": lambda u: u.ru_nivcsw,
         "page_faults": lambda u: u.ru_minflt + u.ru_majflt,
         "cpu_us": lambda u: (u.ru_utime + u.ru_stime) * 1e6,
         # The kernel's CPU total is exact; its split into user and system is sampled at clock
         # ticks, so per call over a short pair the two can even come out below zero.
         "user_us": lambda u: u.ru_utime * 1e6, "system_us": lambda u: u.ru_stime * 1e6}
COUNTS, SIDES = EXPLAIN_COUNTS, EXPLAIN_SIDES  # the record's names (records/fields.py)
TOP = 3                           # system calls named per side
TRACEFS = "/sys/kernel/tracing"
TRACEPOINT = f"{TRACEFS}/events/raw_syscalls/sys_enter"
MOUNT = ["mount", "-t", "tracefs", "nodev", TRACEFS]
MOUNTED_NOTE = (f"--explain: tracefs was not mounted; ipclab mounted it at {TRACEFS} for this "
                f"run and unmounted it after")
NOTE = ("--explain: each case ran more pairs of peers: a calibration pair, and two counted under "
        "perf stat (every system call passes a tracepoint); its times are those of its usual "
        "measured pair, and explain_counting_cost says how much slower the counted pair was")


def unavailable():
    """Why perf cannot count here, or None."""
    if not shutil.which("perf"):
        return "perf is not installed (Debian: linux-perf)"
    if not os.path.isdir(TRACEPOINT):
        return (f"the syscall tracepoint is missing ({TRACEPOINT}): tracefs is not mounted; as "
                f"root ipclab mounts it for the run, or run `{' '.join(MOUNT)}`")
    return None


@contextmanager
def tracing(run):
    """tracefs for the run's --explain: mounted where it is missing and ipclab is root, and
    unmounted after (also after Ctrl-C or a failure); yields whether it mounted it. Elsewhere
    nothing is touched and unavailable() says why nothing is counted."""
    mounted = False
    if (run.explain and shutil.which("perf") and os.geteuid() == 0
            and os.path.isdir(TRACEFS) and not os.path.isdir(TRACEPOINT)):
        mounted = subprocess.run(MOUNT, capture_output=True).returncode == 0
        mounted = mounted and os.path.isdir(TRACEPOINT)
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", TRACEFS], capture_output=True)


def notes(run, mounted=False):
    """The run's note on --explain: what counting did to its times, or why nothing was counted;
    `mounted`: whether ipclab mounted tracefs for it (tracing())."""
    if not run.explain:
        return []
    why = unavailable()
    return [NOTE] + ([MOUNTED_NOTE] if mounted else []) + ([f"--explain: no system calls or migrations counted ({why}); context "
                      f"switches, page faults and CPU come from the kernel's resource usage"]
                     if why else [])


def applies(case):
    """Every pattern is counted: per round trip, message, connection or request."""
    return True


def calibration_run(case, run):
    """The settings of the calibration pair: one call (a stream: one message), or what the
    pattern's own module says (parts.py: one connection of a burst, a millisecond of a load)."""
    return part_of(case).calibration_run(run)


def units(outcome, case, run):
    """What a pair measured: its calls or messages, or what the pattern's own module counts in
    its client's result (a burst's connections, a load's requests)."""
    return part_of(case).units(case, run, outcome.client or {})


def wrap(argv, out_path):
    """`argv` under perf stat, its counts written to `out_path` (CSV)."""
    return ["perf", "stat", "-x,", "--no-big-num", "-o", str(out_path),
            "-e", ",".join([*PERF_EVENTS, *(BY_NAME + name for name in NAMED)]), "--", *argv]


def read(path):
    """({our name: count}, {system call: count}) from a perf stat CSV file; None if it is missing
    or an event was not counted."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    found, by_name = {}, {}
    for line in lines:
        fields = line.split(",")
        if len(fields) < 3 or not (fields[2] in PERF_EVENTS or fields[2].startswith(BY_NAME)):
            continue
        try:
            value = float(fields[0])
        except ValueError:   # "<not counted>", "<not supported>"
            return None
        if fields[2] in PERF_EVENTS:
            found[PERF_EVENTS[fields[2]]] = value
        else:
            by_name[fields[2][len(BY_NAME):]] = value
    return (found, by_name) if len(found) == len(PERF_EVENTS) else None


def usage(rusage):
    """{our name: value} of a reaped peer's struct rusage (None: none)."""
    return {name: float(get(rusage)) for name, get in USAGE.items()} if rusage else None


def count(case, case_dir, pairs, runs, run_pair, copies):
    """Counts a case whose measured pair and calibration pair (`pairs`, run with `runs`) are
    done: runs the counted two (run_pair(directory name, run settings) → outcome, under perf)
    and sets the measured outcome's `explain` (None when a pair failed)."""
    counted = (run_pair("counted", runs[0]), run_pair("counted-calibration", runs[1]))
    added = tuple(units(a, case, runs[0]) - units(b, case, runs[1]) for a, b in (pairs, counted))
    measured = pairs[0]
    measured.explain = figures((*pairs, *counted), case_dir, added)
    if measured.explain:
        measured.explain["copies"] = copies


def figures(outcomes, case_dir, added):
    """A case's figures from its four pairs' outcomes (the runner's: measured, calibration,
    counted, counted calibration; the counted ones in case_dir's "counted" and
    "counted-calibration") and `added` (units(measured) − units(calibration), then the same of
    the counted two): per unit and side, and what counting cost; None when a pair failed."""
    measured, calibration, counted, counted_calibration = outcomes
    if any(o.status != "ok" for o in outcomes):
        return None
    out = per_call((measured.usage, calibration.usage),
                   (case_dir / "counted", case_dir / "counted-calibration"), added) or {}
    out["counting_cost"] = counting_cost(measured.samples, counted.samples)
    return out


def per_call(usage, perf_dirs, added):
    """{side: {name: per unit, "top": [(call, per unit)]}}: `usage` the resource usage of the
    measured pair and its calibration pair ({side: usage()} each), `perf_dirs` the directories
    of the counted pair and its calibration pair, `added` the units the first of each pair had
    over the second ((N − 1, N − 1) for N calls); None where nothing was added or counted."""
    if isinstance(added, int):
        added = (added, added)
    if min(added) < 1:
        return None
    out = {}
    for side in SIDES:
        figures = {}
        a, b = ((u or {}).get(side) for u in usage)
        if a and b:
            figures.update({k: (a[k] - b[k]) / added[0] for k in USAGE})
        perf_a, perf_b = (read(d / f"{side}.perf") for d in perf_dirs)
        if perf_a and perf_b:
            figures.update({k: (perf_a[0][k] - perf_b[0][k]) / added[1]
                            for k in PERF_EVENTS.values()})
            figures["top"] = _top(perf_a, perf_b, added[1])
        if figures:
            out[side] = figures
    return out or None


def _top(counted, calibration, added):
    """The TOP system calls the measured calls made most of, [(name, per call)], at least 0.05
    per call each; "other" the calls not named."""
    def by_name(perf):
        totals, named = perf
        return {**named, "other": totals["syscalls"] - sum(named.values())}
    got, base = by_name(counted), by_name(calibration)
    per = {name: (n - base.get(name, 0.0)) / added for name, n in got.items()}
    ranked = sorted((-round(v, 2), name) for name, v in per.items() if v >= 0.05)
    return [(name, -v) for v, name in ranked[:TOP]]


def format_top(top):
    """"write 1.0, read 1.0": a side's top system calls per call."""
    return ", ".join(f"{name} {v:.1f}" for name, v in top or ())


def counting_cost(measured, counted):
    """How much slower the counted pair's median was than the measured pair's (0.05: 5%)."""
    return reduce.relative_change(measured, counted)


def add_round(record, outcome):
    """Keeps a finished round's figures in its round entry and refreshes the record's: the
    median over its ok rounds of each side's per-call counts."""
    figures = getattr(outcome, "explain", None)
    if record.get("rounds"):
        record["rounds"][-1]["explain"] = figures
    rounds = [e["explain"] for e in record.get("rounds") or [] if e.get("explain")]
    for side in SIDES:
        for name in COUNTS:
            record[f"explain_{side}_{name}"] = reduce.median(
                [r[side][name] for r in rounds if name in r.get(side, {})])
        tops = [r[side]["top"] for r in rounds if "top" in r.get(side, {})]
        record[f"explain_{side}_top"] = format_top(tops[-1]) if tops else None
    record["explain_counting_cost"] = reduce.median(
        [r["counting_cost"] for r in rounds if r.get("counting_cost") is not None])
    record["explain_copies"] = next((r["copies"] for r in rounds if "copies" in r), None)

