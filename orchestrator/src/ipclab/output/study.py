"""Tables in the shape of a published study, chosen by a scenario's `[report] table`: pure
functions from records to `Study` tables (headers, cells, caption), the Report's (model.py),
which `sections` hands every renderer, each in place of the table of every case on the terminal.
Adding a shape is adding one function to SHAPES.

stream-cpu: the message-queue-versus-socket comparison (a 2010 blog post, issue 10): per
pattern, one row per mechanism × client→server pair with the wall time, each side's user and
system seconds, messages/s, and each mechanism's ratios to the `versus` mechanism (report.versus,
default tcp; a variant such as "tcp nodelay off" names the socket as the study ran it) for the
same pair and placement.

pivot: the general shape (pivot.py): rows, columns, the statistic in the cell and a ratio
to one column, from `[report]` rows, columns, cell, ratio_to, ratio_as. The thesis's Table 4.1,
the Java IPC paper's Table 1 and the middleware study's figures are pivots."""
from dataclasses import dataclass

from ipclab.output import phases as _phases
from ipclab.output import pivot as _pivot
from ipclab.output.page import Line, Section, Table
from ipclab.records.fields import BURST_PHASES as PHASES
from ipclab.plan import patterns
from ipclab.plan.matrix import describe_shape, variant


@dataclass(frozen=True)
class Study:
    title: str
    headers: tuple      # a header may hold "\n": two lines in the terminal, one in Markdown
    right: tuple        # right-aligned columns
    rows: list          # rows of cell texts
    caption: str
    failed: list        # "case N: reason" for the cases that failed
    wrap: bool = False  # the terminal may wrap cells (a pivot's many wide columns)


def _seconds(value):
    return f"{value:.2f}" if value is not None else "-"


def _ratio(value, base):
    return f"{value / base:.2f}" if value is not None and base else "-"


def _cpu(record):
    parts = [record.get(k) for k in ("client_user_s", "client_sys_s", "server_user_s",
                                     "server_sys_s")]
    return sum(parts) if None not in parts else None


def _wall(record):
    """A stream's wall time (MARK_ACK to END_ACK); for short, the connections' time added up
    (an average round: every connection of it, one after another)."""
    if patterns.of_record(record).per_window:
        return record.get("stream_s")
    raw = record.get("raw")
    rounds = sum(1 for e in record.get("rounds") or [] if e.get("status") == "ok")
    return raw["mean"] * raw["count"] / rounds / 1e9 if raw and rounds else None


def _rate(record):
    """Messages (or connections) per second over the wall time, as the blog divided them."""
    if patterns.of_record(record).per_window:
        return record.get("stream_msgs_per_s")
    wall, raw = _wall(record), record.get("raw")
    rounds = sum(1 for e in record.get("rounds") or [] if e.get("status") == "ok")
    return raw["count"] / rounds / wall if wall and raw and rounds else None


def _is_versus(record, versus):
    """The record is the `versus` case: its mechanism with the settings `versus` names (its reply
    aside: a one-way short socket is the one-way queue's `versus`)."""
    settings = {k: v for k, v in (record.get("settings") or {}).items() if k != "reply"}
    return variant({**record, "settings": settings}, pattern=False) == versus


def _match(record):
    # The reply too: a one-way short connection is compared with the socket's one-way one.
    return (record["pattern"], record["client"], record["server"], record.get("message_size"),
            record.get("request_size"), record.get("response_size"), record["placement"],
            (record.get("settings") or {}).get("reply"))


def stream_cpu(records, versus):
    """One table per pattern with a median rate (stream, then short: the table's order) of the
    stream-cpu shape."""
    shown = [p for p in patterns.PATTERNS.values() if p.median_rate]
    ran = [r for r in records if r["status"] in ("ok", "failed")
           and patterns.of_record(r) in shown]
    base = {_match(r): r for r in ran if _is_versus(r, versus) and r["status"] == "ok"}
    places = len({r["placement"] for r in ran}) > 1
    studies = []
    for row in shown:
        pattern = row.name
        mine = [r for r in ran if r["pattern"] == pattern]
        if not mine:
            continue
        mine.sort(key=lambda r: (not _is_versus(r, versus), r["index"]))
        cpu = row.per_window
        headers = ["mechanism", "client→server", "size", *(["placement"] if places else []),
                   "wall s"]
        if cpu:
            headers += ["client\nuser s", "client\nsys s", "server\nuser s", "server\nsys s"]
        headers += ["msgs/s" if cpu else "conns/s", f"wall\n÷ {versus}"]
        if cpu:
            headers += [f"CPU\n÷ {versus}"]
        headers += ["status"]
        rows = []
        for r in mine:
            ok = r["status"] == "ok"
            other = base.get(_match(r)) if not _is_versus(r, versus) else None
            cells = [variant(r, pattern=False), f"{r['client']}→{r['server']}", describe_shape(r),
                     *([r["placement"]] if places else []), _seconds(_wall(r) if ok else None)]
            if cpu:
                cells += [_seconds(r.get(k) if ok else None)
                          for k in ("client_user_s", "client_sys_s", "server_user_s",
                                    "server_sys_s")]
            cells += [f"{_rate(r):,.0f}" if ok and _rate(r) else "-",
                      _ratio(_wall(r), _wall(other)) if ok and other else "-"]
            if cpu:
                cells += [_ratio(_cpu(r), _cpu(other)) if ok and other else "-"]
            cells += ["ok" if ok else "failed"]
            rows.append(cells)
        what = ("one-way stream: wall = the measured stream (median of rounds), user and sys "
                "each side's CPU over it, msgs/s = messages / wall" if cpu else
                "a connection per message (open, request, response, close): wall = the "
                "connections of a round added up, conns/s = connections / wall")
        caption = (f"{what}; ÷ {versus}: this mechanism over {versus} for the same pair "
                   f"(below 1: cheaper than {versus})")
        studies.append(Study(
            title=pattern, headers=tuple(headers),
            right=tuple(h not in ("mechanism", "client→server", "placement", "status")
                        for h in headers),
            rows=rows, caption=caption,
            failed=[f"case {r['index']}: {r['reason']}" for r in mine if r["status"] != "ok"]))
    return studies


def server_models(records, versus=None):
    """The study's Table 1: one column per burst case (its server model, and the pair when the
    run has several), one row per server phase; a phase the model does not have is "—"."""
    cases = [r for r in records if patterns.of_record(r).phases
             and r["status"] in ("ok", "failed")]
    if not cases:
        return []
    pairs = {(r["client"], r["server"]) for r in cases}
    headers = ["phase"] + [r["server_model"] + (f"\n{r['client']}→{r['server']}"
                                                if len(pairs) > 1 else "") for r in cases]
    by_case = [{row["phase"]: row for row in r.get("phases") or [] if row["side"] == "server"}
               for r in cases]
    rows = []
    for phase in PHASES:
        cells = [phase]
        for record, phases in zip(cases, by_case):
            if record["status"] != "ok":
                cells.append("failed")
            else:
                cells.append(_phases.mean_and_ci(phases[phase]) if phase in phases else "—")
        rows.append(cells)
    rows.append(["conns/s"] + [f"{r['conns_per_s']:.0f}" if r.get("conns_per_s") else "-"
                               for r in cases])
    rows.append(["failed connections"] + [str(r.get("connections_failed") or 0) for r in cases])
    rows.append(["ListenOverflows"] + [_count(r.get("listen_overflows")) for r in cases])
    n = cases[0].get("connections")
    caption = ("server phases per connection, mean [95% confidence interval: the percentile "
               "bootstrap of the mean over every connection of every ok round], as the study's "
               "Table 1 (which gave Student's t); "
               "— : the model has no such phase; conns/s: connections served / the burst's "
               f"duration (median of rounds); {n} connections per case over all rounds; "
               "ListenOverflows: the kernel's counter over the case (of the server's whole "
               "network namespace or host)")
    return [Study(title="server models: phases per connection", headers=tuple(headers),
                  right=tuple([False] + [True] * len(cases)), rows=rows, caption=caption,
                  failed=[f"case {r['index']}: {r['reason']}" for r in cases
                          if r["status"] == "failed"], wrap=True)]


def _count(value):
    return "-" if value is None else str(value)


def pivot_studies(records, report):
    """The pivots of `[report]` (a dict as saved in run.json) as Studies, one per statistic."""
    return [pivot_study(records, spec) for spec in _pivot.Spec.each(report)]


def pivot_study(records, spec):
    table = _pivot.pivot(records, spec)
    headers, rows = _pivot.text_rows(table)
    axes = " × ".join(table.row_axes)
    return Study(title=f"{table.spec.cell} by {axes} and {table.spec.columns}",
                 headers=tuple(headers),
                 right=tuple([False] * len(table.row_axes) + [True] * len(table.column_keys)),
                 rows=rows, caption=_pivot.caption(table),
                 failed=[f"case {r['index']}: {r['reason']}" for r in records
                         if r["status"] == "failed"], wrap=True)


# Shapes taking (records, versus); "pivot" takes the whole [report] (pivot_studies).
SHAPES = {"stream-cpu": stream_cpu, "server-models": server_models}


def tables(name, records, versus, report=None):
    """The study tables of shape `name`, or [] for "cases" (the ordinary table). `report`: the
    scenario's [report] settings (a dict), which a pivot reads."""
    if name == "pivot":
        return pivot_studies(records, report or {})
    return SHAPES[name](records, versus) if name in SHAPES else []


def sections(report):
    """A section per study table, titled as it is; its failed cases listed under it."""
    return [Section(f"study-{n}", s.title, tables=(Table(
        s.headers, tuple(tuple(row) for row in s.rows), s.right, caption=s.caption,
        notes=tuple(Line(f"failed: {f}", "failed", fit=True) for f in s.failed),
        tones=tuple("failed" if s.headers[-1] == "status" and row[-1] != "ok" else None
                    for row in s.rows),  # a pivot has no status
        wrap=s.wrap),)) for n, s in enumerate(report.studies, 1)]
