"""The result table for the terminal (rich)."""
from rich.table import Table

from ipclab.export import rows

_RIGHT = {"#", "request", "response", "median", "mean ± 95% CI", "std", "p99", "outliers"}


def to_table(records, title, baseline_label, compare):
    table = Table(title=title, show_lines=False)
    for name in rows.headers(baseline_label, compare):
        table.add_column(name, justify="right" if name in _RIGHT or name.startswith("×") else "left",
                         overflow="fold")
    for record in records:
        style = None if record["status"] in ("ok", "not-applicable") else "red"
        table.add_row(*rows.row(record), style=style)
    return table
