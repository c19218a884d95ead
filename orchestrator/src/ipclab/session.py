"""Runs a list of cases with a progress bar, saving each outcome as it finishes."""
import signal

from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)

from ipclab.matrix import describe_shape
from ipclab.units import format_ns


def execute(cases, runner, store, console):
    """Runs every case; returns True if the user stopped the run (Ctrl-C or SIGTERM)."""
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                        console=console, transient=True)
    try:
        with progress:
            task = progress.add_task("starting", total=len(cases))
            for case in cases:
                progress.update(task, description=case.label)
                outcome = runner.run(case)
                record = store.add(outcome)
                progress.console.print(_line(record))
                progress.advance(task)
    except KeyboardInterrupt:
        return True
    finally:
        signal.signal(signal.SIGTERM, previous)
    return False


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


_MARK = {"ok": "[green]✓[/]", "failed": "[red]✗[/]", "not-applicable": "[dim]-[/]",
         "unavailable": "[yellow]?[/]"}


def _line(record):
    label = (f"{record['mechanism']} {record['client']}→{record['server']} "
             f"{describe_shape(record)} {record['placement']}")
    mark = _MARK.get(record["status"], "?")
    if record["status"] == "ok":
        return f"{mark} {label}: median {format_ns(record['trimmed']['median'])}"
    return f"{mark} {label}: {record['status']}: {record['reason']}"
