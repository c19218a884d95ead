"""The table of every case (columns.py's registry) for each reader: table.md and report.html get
every case and column with the run's notes under it (and the page a line per kind of warning);
the terminal the cases that ran, the columns that fit its width, then a line per udp stream
that lost datagrams, per status of the cases not run, per note and per kind of warning (every
warning with --verbose). With a study's tables (study.py) the terminal shows those instead of
the cases. Pure: a Report (output/model.py) in, Sections out."""
from ipclab.output.columns import applicable, chosen_percentiles, columns_for
from ipclab.output.page import FILES, PAGE_ONLY, SCREEN, Line, Section, Table
from ipclab.plan import patterns

# The number a page's column sorts by (its text would sort "9 µs" after "10 µs").
SORT_KEYS = {
    "index": lambda r: r["index"],
    "median": lambda r: (r.get("trimmed") or {}).get("median"),
    "mean": lambda r: (r.get("trimmed") or {}).get("mean"),
    "std": lambda r: (r.get("trimmed") or {}).get("std"),
    "p99": lambda r: (r.get("trimmed") or {}).get("p99"),
    "ratio": lambda r: r.get("ratio"),
    **{k: (lambda r, k=k: r.get(k)) for k in ("msgs_per_s", "mib_per_s", "cpu_us_per_msg",
                                             "conns_per_s", "lost", "time_wait", "round_spread")},
}
SKIPPED = ("not-applicable", "unavailable")
URGENT = 5.5   # the status's priority when a case failed or is unstable: before p99 and the ratio


def sections(report):
    columns = columns_for(chosen_percentiles(report.document))
    out = [Section("cases", "every case", tables=(every_case(report.records, report.ratio_caption,
                                                             report.table_notes, columns),),
                   media=FILES)]
    if report.warnings or report.lost:
        out.append(Section("warnings", "warnings by kind", lines=(
            *(warning_line(g) for g in report.warnings), *(Line(t) for t in report.lost)),
            media=PAGE_ONLY))
    out.append(Section("cases-ran", tables=() if report.studies or not report.shown
                       else (ran(report.shown, report.ratio_caption, columns),),
                       lines=screen_lines(report), media=SCREEN))
    return out


def every_case(records, caption=None, notes=(), columns=None):
    """Every case and every column (of `columns`, columns.py's for the default percentiles
    unless given) that says something about them, each figure's interval under it; the run's
    notes below."""
    columns = columns or columns_for()
    columns = applicable(columns, records) if records else list(columns)
    return Table(headers=tuple(c.header for c in columns),
                 rows=tuple(tuple(_two_lines(c.cell(r)) for c in columns) for r in records),
                 right=tuple(c.right for c in columns), caption=caption or "",
                 notes=tuple(Line(n) for n in notes),
                 tones=tuple(_tone(r) for r in records),
                 keys=tuple(tuple(_key(c, r) for c in columns) for r in records))


def ran(records, caption=None, columns=None):
    """The cases that ran, for a reader with a width: the columns by priority (the status
    first among equals when a case failed or is unstable), the pattern and the placement said
    once when every case has the same (round trips unsaid), the rounds in the title."""
    columns = applicable(columns or columns_for(), records)
    urgent = any(r["status"] != "ok" or r.get("stable") is False for r in records)
    rounds = max((r.get("rounds_planned") or 0 for r in records), default=0)
    keys = [c.key for c in columns]
    return Table(headers=tuple(c.header for c in columns),
                 rows=tuple(tuple(c.cell(r) for c in columns) for r in records),
                 right=tuple(c.right for c in columns), title=f"{rounds} round"
                 + ("s" if rounds != 1 else ""), caption=caption or "",
                 explains=keys.index("ratio") if "ratio" in keys else None,
                 tones=tuple(None if r["status"] == "ok" else "failed" for r in records),
                 priority=tuple(URGENT if urgent and c.key == "status" else c.priority
                                for c in columns),
                 fold=tuple((patterns.DEFAULT.name,) if c.key == "pattern"
                            else () if c.key == "placement" else None for c in columns),
                 elastic=keys.index("status"))


def screen_lines(report):
    return (*(Line(t, "warning", fit=True) for t in report.lost),
            *(Line(t, "quiet", fit=True) for t in report.skipped),
            *(Line(f"note: {n}", "warning") for n in report.notes),
            *(Line(f"warning: {w}", "warning", detail=True) for w in report.case_warnings),
            *(warning_line(g, detail=False) for g in report.warnings))


def warning_line(group, detail=None):
    """"warning: WHAT in N cases (1, 2, …): TODO"; a fact with nothing to do is a note."""
    n = len(group.cases)
    label = "note" if group.fact else "warning"
    return Line(f"{label}: {group.what} in {n} case{'s' if n != 1 else ''} (",
                "quiet" if group.fact else "warning", items=tuple(map(str, group.cases)),
                tail=f"): {group.todo}", fit=True, detail=detail)


def _two_lines(text):
    """A value above its interval ("1.9 ms" over "[1.5–2.4]", "± 3 µs")."""
    for mark in (" [", " ± "):
        value, found, rest = str(text).partition(mark)
        if found:
            return f"{value}\n{mark.lstrip()}{rest}"
    return text


def _key(column, record):
    if record["status"] != "ok" and column.key != "index":
        return None
    key = SORT_KEYS.get(column.key, lambda r: None)(record)
    return key if isinstance(key, (int, float)) else None


def _tone(record):
    if record["status"] == "ok":
        return None
    return "quiet" if record["status"] in SKIPPED else "failed"
