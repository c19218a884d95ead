"""Runs the cases in rounds with a progress bar, saving each round of each case as it finishes.

Round 1 of every case, then round 2 of every case, and so on, each round in its own order
shuffled from the scenario's seed: no case is always first, and a slow spell of the machine is
shared out between cases instead of falling on whichever ran then."""
import random
import signal
import time

from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                           TimeElapsedColumn)

from ipclab.analyse import reduce
from ipclab.execute import explain, floors, preflight
from ipclab.common.units import format_ns, format_rate
from ipclab.records.precision import relative_width


def install_interrupt_handlers():
    """Ctrl-C (SIGINT) and SIGTERM raise KeyboardInterrupt. Installed explicitly: a shell starts
    background jobs with SIGINT ignored, and Python keeps an inherited "ignore"."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    return signal.signal(signal.SIGTERM, _raise_interrupt)


def execute(cases, runner, store, console):
    """Probes the machine, then runs every round of every case; returns True if the user stopped
    the run (Ctrl-C or SIGTERM)."""
    run = runner.scenario.run
    previous = install_interrupt_handlers()
    runnable = [c for c in cases if not c.skip_status]
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("{task.fields[eta]}"),
                        console=console, transient=True)
    try:
        if runnable and run.preflight > 0:
            with console.status("preflight: ping-pong with the C floor"):
                store.set_preflight(*preflight.probe(runner.catalog.root, runnable,
                                                     run.preflight, runner.workspace.path))
        explained = [c for c in runnable if run.explain and explain.applies(c)]
        if explained:
            with console.status("--explain: the floors (a system call, a copy, a wake-up)"):
                store.set_floors(floors.measure(runner.catalog.root, explained,
                                                runner.workspace.path))
        with progress:
            task = progress.add_task("starting", total=len(runnable) * first_rounds(run), eta="")
            _rounds(runnable, runner, store, progress, task, run)
    except KeyboardInterrupt:
        return True
    finally:
        signal.signal(signal.SIGTERM, previous)
    return False


def _rounds(runnable, runner, store, progress, task, run):
    failed = set()
    eta = RoundsEta()
    started = time.monotonic()
    first = first_rounds(run)
    for r in range(1, first + 1):
        order = [c for c in round_order(runnable, run.seed, r) if c.id not in failed]
        progress.advance(task, len(runnable) - len(order) if r > 1 else 0)
        left = [c.id for c in runnable if c.id not in failed] * (first - r)
        _one_round(r, first, order, left, runner, store, progress, task, eta, failed)
    if run.precision:
        for record in store.records:  # the target the tables judge each case's interval by
            record["precision_target"] = run.precision
        store.note(_more_rounds(first, runnable, runner, store, progress, task, run, eta, failed,
                                started))


def _one_round(r, rounds, order, later, runner, store, progress, task, eta, failed):
    """Round r of the cases in `order` (`later`: the case ids of the rounds still to come);
    `rounds`: how many are planned, None for a round a precision target added."""
    store.start_round(r, order)
    started = time.monotonic()
    of = f" of {rounds}:" if rounds else " (for precision):"
    for position, case in enumerate(order, start=1):
        prefix = f"round {r}{f'/{rounds}' if rounds else ''}: " if rounds != 1 else ""
        left = [c.id for c in order[position - 1:]] + later
        progress.update(task, description=prefix + case.label, eta=eta.text(left))
        case_started = time.monotonic()
        outcome = runner.run(case, r)
        eta.took(case.id, time.monotonic() - case_started)
        record = store.add(outcome, position)
        if outcome.status != "ok":
            failed.add(case.id)  # a failed case is not run again in later rounds
        if r == 1 or outcome.status != "ok":
            progress.console.print(_line(record, outcome, rounds))
        progress.advance(task)
    store.finish_round(r)
    if rounds != 1:
        progress.console.print(f"[dim]round {r}{of} {len(order)} cases in "
                               f"{time.monotonic() - started:.0f} s[/]")


# Precision on demand starts from at least this many rounds (an interval over fewer is widened
# so much that it says little), and stops at MAX_ROUNDS whatever the intervals.
MIN_ROUNDS, MAX_ROUNDS = 3, 50


def first_rounds(run):
    """The rounds every case gets: the scenario's, at least MIN_ROUNDS with a precision target."""
    return max(run.rounds, MIN_ROUNDS) if run.precision else run.rounds


def _more_rounds(r, runnable, runner, store, progress, task, run, eta, failed, started):
    """Rounds for the cases still wider than the target, widest first, each round shuffled as
    the others; returns the note that says why it stopped and which cases met the target."""
    while True:
        widths = {rec["id"]: relative_width(rec) for rec in store.records}
        wide = sorted((c for c in runnable if c.id not in failed
                       and (widths.get(c.id) or 0) > run.precision),
                      key=lambda c: -widths[c.id])
        chosen = _within_budget(wide, eta, run.budget, time.monotonic() - started)
        if not wide or not chosen or r >= MAX_ROUNDS:
            return precision_note(run, widths, wide, chosen, r)
        r += 1
        total = next(t.total for t in progress.tasks if t.id == task)
        progress.update(task, total=total + len(chosen))
        _one_round(r, None, round_order(chosen, run.seed, r), [], runner, store, progress,
                   task, eta, failed)


def _within_budget(wide, eta, budget, spent):
    """The widest cases whose next round fits what is left of the budget (each case's round
    taking what its earlier ones took on average)."""
    if budget is None:
        return wide
    chosen, need = [], 0.0
    for case in wide:
        seconds = eta.remaining([case.id]) or 0.0
        if spent + need + seconds <= budget:
            chosen.append(case)
            need += seconds
    return chosen


def precision_note(run, widths, wide, chosen, rounds):
    """One line: the target, how many cases met it, why the rounds stopped, the widest left."""
    measured = [w for w in widths.values() if w is not None]
    met = sum(w <= run.precision for w in measured)
    why = ("every case met it" if not wide else
           f"stopped at {MAX_ROUNDS} rounds" if rounds >= MAX_ROUNDS and chosen else
           f"the budget of {run.budget:g} s is spent")
    widest = f"; widest left ±{100 * max(measured):.1f}%" if wide else ""
    return (f"precision ±{100 * run.precision:g}% of the median: {met} of {len(measured)} "
            f"cases met it after up to {rounds} rounds; {why}{widest}")


class RoundsEta:
    """Time left, from what each case took in its earlier rounds: every round runs the same cases,
    so round 1 predicts the later ones case by case, where a rate of finished steps would not (a
    128 MiB case takes minutes, a 16 B one a second). A case not yet timed (round 1) counts as
    the mean of those that were; before any, no estimate."""

    def __init__(self):
        self._seconds = {}  # case id -> seconds of each finished round

    def took(self, case_id, seconds):
        self._seconds.setdefault(case_id, []).append(seconds)

    def remaining(self, case_ids):
        """Seconds to run these cases (a case listed once per round it has left), or None."""
        if not self._seconds:
            return None
        means = {k: sum(v) / len(v) for k, v in self._seconds.items()}
        default = sum(means.values()) / len(means)
        return sum(means.get(k, default) for k in case_ids)

    def text(self, case_ids):
        seconds = self.remaining(case_ids)
        if seconds is None:
            return "ETA after the first case"
        minutes, seconds = divmod(round(seconds), 60)
        return f"ETA {minutes // 60}:{minutes % 60:02d}:{seconds:02d}" if minutes >= 60 else \
            f"ETA {minutes}:{seconds:02d}"


def _figure(outcome):
    """A finished round in a few words: a stream's rate, else its median round trip."""
    client, pattern = outcome.client or {}, outcome.case.pattern
    if pattern.per_window and client.get("stream_ns"):
        rate = client["messages"] * 1e9 / client["stream_ns"]
        lost = f", {client['lost']} lost" if client.get("lost") else ""
        return f"{format_rate(rate)} msgs/s over {client['stream_ns'] / 1e9:.3g} s{lost}"
    median = reduce.median(outcome.samples)
    if pattern.keeps_tail and client.get(pattern.rate_column) is not None:  # load: its tail, rate
        knee = (outcome.part or {}).get("knee_per_s")
        return (f"median {format_ns(median)}, p99 {format_ns(reduce.percentile(outcome.samples, 99))}"
                f", {format_rate(client[pattern.rate_column])}/s achieved"
                + (f", knee {format_rate(knee)}/s" if knee else ""))
    if pattern.progress:
        return f"median {format_ns(median)} per {pattern.progress} ({format_rate(1e9 / median)}/s)"
    return f"median {format_ns(median)}"


def round_order(cases, seed, round_index):
    """The cases of round `round_index` in their order, shuffled from the seed (reproducible)."""
    return random.Random(f"ipclab-round-{seed}-{round_index}").sample(cases, len(cases))


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


_MARK = {"ok": "[green]✓[/]", "failed": "[red]✗[/]", "not-applicable": "[dim]-[/]",
         "unavailable": "[yellow]?[/]"}


def _line(record, outcome, rounds):
    label = outcome.case.label
    if rounds != 1:
        label = f"#{record['index']} {label}"
    mark = _MARK.get(outcome.status, "?")
    if outcome.status == "ok":
        return f"{mark} {label}: {_figure(outcome)}"
    return f"{mark} {label}: {outcome.status}: {escape(str(outcome.reason))}"
