"""The console every command prints to: a terminal's own width; piped output (CI logs, files)
takes $COLUMNS, else 120 (a table cut at 80 columns in a log helps nobody)."""
import os
import sys

from rich.console import Console


def _width():
    if sys.stdout.isatty():
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else 120


console = Console(width=_width())


def say(text):
    """A line the user should not miss (yellow), never markup."""
    console.print(text, style="yellow", markup=False)


def print_at(renderable, width):
    """Prints at `width` (the wide table), wider than the console if need be."""
    if width is None:
        console.print(renderable)
        return
    saved, console.width = console.width, width
    try:
        console.print(renderable)
    finally:
        console.width = saved
