"""Runs the cases in rounds with a progress bar, saving each round of each case as it finishes.

Round 1 of every case, then round 2 of every case, and so on, each round in its own order
shuffled from the scenario's seed: no case is always first, and a slow spell of the machine is
shared out between cases instead of falling on whichever ran then."""
import random
import signal
import time

import numpy as np
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                           TimeElapsedColumn)

from ipclab.execute import preflight
from ipclab.plan import patterns
from ipclab.common.units import format_ns, format_rate


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
        with progress:
            task = progress.add_task("starting", total=len(runnable) * run.rounds, eta="")
            _rounds(runnable, runner, store, progress, task, run)
    except KeyboardInterrupt:
        return True
    finally:
        signal.signal(signal.SIGTERM, previous)
    return False


def _rounds(runnable, runner, store, progress, task, run):
    failed = set()
    eta = RoundsEta()
    for r in range(1, run.rounds + 1):
        order = [c for c in round_order(runnable, run.seed, r) if c.id not in failed]
        progress.advance(task, len(runnable) - len(order) if r > 1 else 0)
        store.start_round(r, order)
        started = time.monotonic()
        for position, case in enumerate(order, start=1):
            prefix = f"round {r}/{run.rounds}: " if run.rounds > 1 else ""
            left = [c.id for c in order[position - 1:]] + [
                c.id for c in runnable if c.id not in failed] * (run.rounds - r)
            progress.update(task, description=prefix + case.label, eta=eta.text(left))
            case_started = time.monotonic()
            outcome = runner.run(case, r)
            eta.took(case.id, time.monotonic() - case_started)
            record = store.add(outcome, position)
            if outcome.status != "ok":
                failed.add(case.id)  # a failed case is not run again in later rounds
            if r == 1 or outcome.status != "ok":
                progress.console.print(_line(record, outcome, run.rounds))
            progress.advance(task)
        store.finish_round(r)
        if run.rounds > 1:
            progress.console.print(f"[dim]round {r} of {run.rounds}: {len(order)} cases in "
                                   f"{time.monotonic() - started:.0f} s[/]")


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
    client, pattern = outcome.client or {}, patterns.of(outcome.case.pattern)
    if pattern.per_window and client.get("stream_ns"):
        rate = client["messages"] * 1e9 / client["stream_ns"]
        lost = f", {client['lost']} lost" if client.get("lost") else ""
        return f"{format_rate(rate)} msgs/s over {client['stream_ns'] / 1e9:.3g} s{lost}"
    median = float(np.median(outcome.samples))
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
    if rounds > 1:
        label = f"#{record['index']} {label}"
    mark = _MARK.get(outcome.status, "?")
    if outcome.status == "ok":
        return f"{mark} {label}: {_figure(outcome)}"
    return f"{mark} {label}: {outcome.status}: {escape(str(outcome.reason))}"
