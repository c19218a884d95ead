"""`ipclab bench honesty`: are ipclab's intervals honest on this machine, and how wide are they?

The same scenario is run twice, one run after the other, each with fresh peers. If a case's
median interval is honest, the other run's median falls inside it about as often as its level
says (95%: a little less, since the other median has its own error), and `ipclab compare`
finds "no significant difference" for about as many cases. The widths say what that honesty
costs: the half-width of each case's median interval relative to its median, for the middle
case and the case at the 90th percentile. A benchmark of the method: it prints numbers and
asserts nothing."""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.table import Table

from ipclab.analyse import compare, reduce
from ipclab.records.precision import relative_width


def run_honesty(console, scenario, flags, keep=None):
    """Runs `scenario` twice with `flags` (the run's own, e.g. --precision 5%) and prints the
    shares and widths of each run; `keep`: a directory to keep both runs in."""
    with tempfile.TemporaryDirectory(prefix="ipclab-honesty-") as scratch:
        runs, seconds = [], []
        for k in (1, 2):
            out = Path(keep or scratch) / f"run{k}"
            console.print(f"run {k} of 2: ipclab run {scenario} {' '.join(flags)}")
            started = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "ipclab", "run", str(scenario), *flags,
                                   "--no-html", "--out", str(out)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode not in (0, 1):  # 1: some case failed; the others still count
                console.print(f"[red]run {k} stopped (exit {done.returncode}): "
                              f"{done.stderr.strip()[-500:]}[/]")
                return 1
            seconds.append(time.monotonic() - started)
            runs.append(compare.load_run(out))
        console.print(summary(*runs, seconds))
        for note in moved_note(machine_shift(*runs)):
            console.print(f"note: {note}", markup=False, highlight=False)
    return 0


# What is checked against the other run's interval: a case's median, or its ratio to the
# baseline case of its own run (a change of the whole machine between the runs cancels in it).
MEDIAN = (lambda r: r["trimmed"]["median"], "median_ci_low", "median_ci_high")
RATIO = (lambda r: r.get("ratio"), "ratio_ci_low", "ratio_ci_high")


def inside_share(run_a, run_b, figure=MEDIAN, scale=1.0):
    """(inside, compared): how many of A's ok cases' figures (times `scale`) lie inside B's
    interval of the same case, of the cases both ran with one."""
    value, low, high = figure
    inside = compared = 0
    for a, b in _pairs(run_a, run_b):
        if value(a) is None or b.get(low) is None or b.get(high) is None:
            continue
        compared += 1
        inside += b[low] <= value(a) * scale <= b[high]
    return inside, compared


def machine_shift(run_a, run_b):
    """The median over cases of B's median over A's: a change of the whole machine between the
    runs (on a VM, the host's load or clock) that moves every case alike. A run's intervals
    cannot hold it: they come from its own rounds, all in the same state of the machine."""
    ratios = [b["trimmed"]["median"] / a["trimmed"]["median"] for a, b in _pairs(run_a, run_b)
              if a["trimmed"]["median"]]
    return reduce.median(ratios)


def moved_note(shift):
    """One line when the whole machine moved between the runs by more than compare's
    SHARED_MOVE: then the first share measures the machine as much as the method."""
    if shift is None or abs(np.log(shift)) <= np.log(1 + compare.SHARED_MOVE):
        return []
    return [f"the whole machine moved {100 * abs(shift - 1):.0f}% between the runs (run 2 "
            f"medians / run 1: {shift:.3f}): no run's intervals hold a move of the machine "
            f"itself, so the share inside the other run's intervals drops with it; the row "
            f"with that move divided out is the method's own figure. Rerun when the machine "
            f"is quiet"]


def _pairs(run_a, run_b):
    b = {r["id"]: r for r in run_b.document["results"] if r["status"] == "ok"}
    return [(r, b[r["id"]]) for r in run_a.document["results"]
            if r["status"] == "ok" and r["id"] in b]


def widths(run):
    """The relative half-widths of the ok cases' median intervals."""
    return [w for r in run.document["results"]
            if r["status"] == "ok" and (w := relative_width(r)) is not None]


def summary(run_1, run_2, seconds=(None, None)):
    """The table: each direction's inside share, compare's verdicts, each run's widths, cases
    flagged unstable, and time (`seconds`: each run's, start to end)."""
    table = Table(title="honesty: the same scenario run twice")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for a, b, name in ((run_1, run_2, "run 1 medians inside run 2 intervals"),
                       (run_2, run_1, "run 2 medians inside run 1 intervals")):
        inside, compared = inside_share(a, b)
        table.add_row(name, _share(inside, compared))
    shift = machine_shift(run_1, run_2)
    if shift is not None:
        table.add_row("the whole machine: run 2 medians / run 1, median over cases", f"{shift:.3f}")
        table.add_row("run 1 medians × that inside run 2 intervals",
                      _share(*inside_share(run_1, run_2, scale=shift)))
    ratios = inside_share(run_1, run_2, RATIO)
    if ratios[1]:
        table.add_row("run 1 ratios to the baseline inside run 2's ratio intervals",
                      _share(*ratios))
    pairs = [p for p in compare.compare(run_1, run_2).pairs if p.status == "compared"]
    same = sum(p.verdict == "no significant difference" for p in pairs)
    table.add_row("compare: no significant difference", _share(same, len(pairs)))
    for k, run in ((1, run_1), (2, run_2)):
        w = widths(run)
        if w:
            table.add_row(f"run {k}: median interval, middle case / 90th percentile case",
                          f"±{100 * reduce.median(w):.1f}% / ±{100 * reduce.percentile(w, 90):.1f}%")
        unstable = sum(r.get("stable") is False for r in run.document["results"])
        table.add_row(f"run {k}: cases flagged unstable", f"{unstable} of {len(w)}")
        if seconds[k - 1] is not None:
            table.add_row(f"run {k}: time, start to end", f"{seconds[k - 1]:.0f} s")
    return table


def _share(k, n):
    return f"{k} of {n} ({100 * k / n:.0f}%)" if n else "-"
