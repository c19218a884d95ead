"""`--explain`: what each call costs the kernel and the CPU, per side, counted by the kernel's
software events and syscall tracepoint (`perf stat`), never estimated.

Each peer runs under `perf stat` (its threads and children included): system calls
(raw_syscalls:sys_enter), context switches, CPU migrations, page faults and CPU time
(task-clock). As for the wire's bytes (wire.py), the contract has no signal at the measured
phase's edges, so the case runs twice: the measured pair (N calls) and a calibration pair of one
call, both under perf, and

    per call = (count(N) − count(1)) / (N − 1)

is what the measured calls added: start-up, warm-up and shut-down cancel. Counting costs time
(every system call passes the tracepoint), so it is off by default, and the explained case's own
times are those of a counted run: the note says so.
"""
import os
import shutil

from ipclab.plan import patterns

# perf's event -> our name; all of them software events or tracepoints (no hardware counters in
# a VM), so `perf stat` counts them on any kernel with tracefs.
EVENTS = {"raw_syscalls:sys_enter": "syscalls", "context-switches": "context_switches",
          "cpu-migrations": "migrations", "page-faults": "page_faults", "task-clock": "cpu_us"}
SIDES = ("client", "server")
FIELDS = tuple(f"explain_{side}_{name}" for side in SIDES for name in EVENTS.values())
TRACEPOINT = "/sys/kernel/tracing/events/raw_syscalls/sys_enter"
NOTE = ("--explain: each peer of the rr, stream and short cases ran under perf stat (every "
        "system call passes a tracepoint), so their times are of counted runs: compare them only "
        "with each other")


def unavailable():
    """Why perf cannot count here, or None."""
    if not shutil.which("perf"):
        return "perf is not installed (Debian: linux-perf)"
    if not os.path.isdir(TRACEPOINT):
        return f"the syscall tracepoint is missing ({TRACEPOINT}: mount -t tracefs nodev /sys/kernel/tracing)"
    return None


def notes(run):
    """The run's note on --explain: what counting did to its times, or why nothing was counted."""
    if not run.explain:
        return []
    why = unavailable()
    return [f"--explain: nothing counted: {why}"] if why else [NOTE]


def applies(case):
    """Calls are counted where a case has N of them: round trips, messages, connections (not
    a burst's or a load's, which have their own shapes)."""
    return not patterns.of(case.pattern).execute


def wrap(argv, out_path):
    """`argv` under perf stat, its counts written to `out_path` (CSV)."""
    return ["perf", "stat", "-x,", "--no-big-num", "-o", str(out_path),
            "-e", ",".join(EVENTS), "--", *argv]


def read(path):
    """{our name: count} from a perf stat CSV file; None if it is missing or incomplete."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    found = {}
    for line in lines:
        fields = line.split(",")
        if len(fields) >= 3 and fields[2] in EVENTS:
            try:
                value = float(fields[0])
            except ValueError:   # "<not counted>", "<not supported>"
                return None
            found[EVENTS[fields[2]]] = value * 1000 if fields[2] == "task-clock" else value
    return found if len(found) == len(EVENTS) else None


def per_call(case_dir, calibration_dir, calls):
    """{side: {name: per call}} from the two pairs' perf files; None where a side is missing."""
    if calls < 2:
        return None
    out = {}
    for side in SIDES:
        measured = read(case_dir / f"{side}.perf")
        calibration = read(calibration_dir / f"{side}.perf")
        if measured and calibration:
            out[side] = {k: (measured[k] - calibration[k]) / (calls - 1) for k in measured}
    return out or None


def add_round(record, outcome):
    """Keeps a finished round's figures in its round entry and refreshes the record's: the
    median over its ok rounds of each side's per-call counts."""
    figures = getattr(outcome, "explain", None)
    if record.get("rounds"):
        record["rounds"][-1]["explain"] = figures
    rounds = [e["explain"] for e in record.get("rounds") or [] if e.get("explain")]
    for side in SIDES:
        for name in EVENTS.values():
            values = sorted(r[side][name] for r in rounds if side in r)
            record[f"explain_{side}_{name}"] = _median(values) if values else None


def _median(values):
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
