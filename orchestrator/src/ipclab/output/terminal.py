"""What `ipclab run` and `ipclab report` print: a table that fits the width, then one line per
kind of warning, the notes, and one line for the cases that were not run, then the bytes on the
wire. Pure: a Report (output/model.py) in, rich renderables out (the full texts stay in
cases.csv; `verbose` prints every warning)."""
from dataclasses import replace

from rich import box
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from ipclab.output import claims, client_hosts, model
from ipclab.plan import patterns
from ipclab.output import wire
from ipclab.output.columns import COLUMNS, applicable

_MIN_STATUS = 12


def show(report, width=120, wide=False, verbose=False):
    """[(renderable, width to print it at)]: the wide table is as wide as it needs. The report's
    study tables (output/study.py) replace the table of cases when the scenario asks for one."""
    shown = report.shown
    if report.studies:
        lines = [_study(s, report.title) for s in report.studies]
        lines += [Text(_cut(f"failed: {f}", width), style="red")
                  for s in report.studies for f in s.failed]
    else:
        lines = [_table(shown, report.title, report.ratio_caption, width, wide)] if shown else []
    lines += [Text(_cut(text, width), style="yellow") for text in report.lost]
    lines += [Text(_cut(text, width), style="dim") for text in report.skipped]
    lines += [Text(f"note: {n}", style="yellow") for n in report.notes]
    lines += ([Text(f"warning: {w}", style="yellow") for w in report.case_warnings] if verbose
              else [_warning_line(group, width) for group in report.warnings])
    if report.wire:  # --wire-bytes: bytes per call
        lines += wire.terminal_of(report.wire.rows, report.wire.ranking)
    lines += client_hosts.terminal_of(report.client_hosts)  # bursts spread over hosts
    if report.claims:  # a study's run ends with how its conclusions fared
        lines.append(Text(claims.terminal_line(report.claims), style="bold"))
    return [line if isinstance(line, tuple) else (line, None) for line in lines]


def render(records, title, baseline_label, compare, notes=(), width=120, wide=False,
           verbose=False, studies=()):
    """`show` for loose records (a Report made of them, without the wire section)."""
    report = model.of_records(records, title, baseline_label, compare, notes, studies)
    return show(replace(report, wire=None), width, wide, verbose)


def _table(records, title, caption, width, wide):
    fixed = {}
    for key in ("pattern", "placement"):  # one value for every case: said once, in the title
        cell = next(c.cell for c in COLUMNS if c.key == key)  # burst: the pattern and model
        values = sorted({cell(r) for r in records})
        if len(values) == 1 and not wide:
            fixed[key] = values[0]
    columns = [c for c in applicable(COLUMNS, records)
               if c.key not in fixed and (wide or c.priority is not None)]
    if any(r["status"] != "ok" or r.get("stable") is False for r in records):
        columns = [_urgent(c) for c in columns]  # then the status outranks p99 and the ratio
    cells = {c.key: [c.cell(r) for r in records] for c in columns}
    need = {c.key: max([cell_len(c.header), *map(cell_len, cells[c.key])]) for c in columns}
    chosen = columns if wide else _fit(columns, need, width)
    rounds = max((r.get("rounds_planned") or 0 for r in records), default=0)
    said = [v for k, v in fixed.items() if not (k == "pattern" and v == patterns.DEFAULT.name)]
    heading = [title, *said, f"{rounds} round{'s' if rounds != 1 else ''}"]
    table = Table(title=" · ".join(heading), box=box.SIMPLE_HEAD, pad_edge=False,
                  caption=caption if any(
                      c.key == "ratio" for c in chosen) else None, caption_justify="left")
    used = sum(need[c.key] for c in chosen if c.key != "status") + 3 * (len(chosen) - 1) + 2
    for c in chosen:
        limit = max(width - used, _MIN_STATUS) if c.key == "status" and not wide else None
        table.add_column(c.header, justify="right" if c.right else "left", no_wrap=not wide,
                         overflow="ellipsis" if not wide else "fold", max_width=limit)
    for i, record in enumerate(records):
        style = None if record["status"] == "ok" else "red"
        table.add_row(*(cells[c.key][i] for c in chosen), style=style)
    return table, (used + need["status"] if wide else None)


def _study(study, title):
    table = Table(title=f"{title} · {study.title}", box=box.SIMPLE_HEAD, pad_edge=False,
                  caption=study.caption, caption_justify="left")
    for header, right in zip(study.headers, study.right):
        table.add_column(header, justify="right" if right else "left", no_wrap=not study.wrap)
    for row in study.rows:
        failed = study.headers[-1] == "status" and row[-1] != "ok"  # a pivot has no status
        table.add_row(*row, style="red" if failed else None)
    return table


def _urgent(column):
    return replace(column, priority=5.5) if column.key == "status" else column


def _fit(columns, need, width):
    """The columns, by priority, that fit in `width` (status counts at its minimum width; it
    takes what is left and shortens its texts)."""
    chosen = []
    for c in sorted(columns, key=lambda c: c.priority):
        trial = chosen + [c]
        total = sum(min(need[x.key], _MIN_STATUS) if x.key == "status" else need[x.key]
                    for x in trial) + 3 * (len(trial) - 1) + 2
        if total <= width or not chosen:
            chosen = trial
    order = {c.key: i for i, c in enumerate(columns)}
    return sorted(chosen, key=lambda c: order[c.key])


def _warning_line(group, width):
    n = len(group.cases)
    label = "note" if group.fact else "warning"  # a fact (stats.FACTS) has nothing to do
    head = f"{label}: {group.what} in {n} case{'s' if n != 1 else ''} ("
    tail = f"): {group.todo}"
    return Text(head + _numbers(group.cases, width - cell_len(head) - cell_len(tail)) + tail,
                style="dim" if group.fact else "yellow")


def _numbers(numbers, room):
    """"1, 2, 3, …" within `room` characters (at least the first number)."""
    text = ", ".join(map(str, numbers))
    if cell_len(text) <= room:
        return text
    shown = []
    for n in numbers:
        if cell_len(", ".join(map(str, [*shown, n])) + ", …") > room and shown:
            break
        shown.append(n)
    return ", ".join(map(str, shown)) + ", …"


def _cut(text, width):
    return text if cell_len(text) <= width else text[:max(width - 1, 1)] + "…"
