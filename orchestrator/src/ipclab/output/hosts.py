"""`ipclab hosts check`: the hosts' rows (execute/hostcheck.py) as a table, then what to do."""
from rich.table import Table

from ipclab.common.units import format_ns


def host_table(rows):
    table = Table(title="ipclab: hosts")
    for name in ("host", "reachable", "kernel", "CPUs", "revision", "peers built",
                 "clock offset", "somaxconn", "ports"):
        table.add_column(name)
    for row in rows:
        facts = row.facts
        table.add_row(row.host, "yes" if row.reachable else "[red]no[/]",
                      facts.get("kernel") or "-", facts.get("cpus") or "-",
                      (row.revision or "-")[:12], ", ".join(row.built) or "-", _offset(row),
                      facts.get("somaxconn") or "-", (facts.get("ports") or "-").replace(" ", "–"))
    return table


def problem_lines(rows):
    """One line per problem, naming its host."""
    return [f"{row.host}: {problem}" for row in rows for problem in row.problems]


def _offset(row):
    if row.host == "local":
        return "(the reference)"
    if row.offset_ns is None:
        return "-"
    sign = "-" if row.offset_ns < 0 else "+"
    return f"{sign}{format_ns(abs(row.offset_ns))} ± {format_ns(row.uncertainty_ns)}"
