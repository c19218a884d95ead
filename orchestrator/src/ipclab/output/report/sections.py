"""report.html's tables beside the figures, each from the Report (output/model.py): the study
tables and pivots of the scenario's `[report]`, the bytes on the wire per call and the phases of
each burst connection. Pure: a Report in, (title, html) sections out; html.py places them."""
import html

from ipclab.common.units import format_ns
from ipclab.analyse import claims as claim_verdicts
from ipclab.output import claims as claims_out
from ipclab.output import phases as export_phases

PHASE_HEADERS = ("#", "case", "side", "phase", "count", "mean [95% CI]", "median", "p99", "max")


def table(headers, rows, right=(), caption=None, marked=()):
    """A plain sortable table: headers and rows of cell texts; `right`: right-aligned columns
    (by index); `marked`: rows shown as failed."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    lines = []
    num, failed = " class='num'", " class='failed'"
    for i, row in enumerate(rows):
        cells = "".join(f"<td{num if k in right else ''}>{_lines(c)}</td>"
                        for k, c in enumerate(row))
        lines.append(f"<tr{failed if i in marked else ''}>{cells}</tr>")
    under = f"<caption>{_e(caption)}</caption>" if caption else ""
    return (f"<div class='wide'><table class='sortable'>{under}<thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(lines)}</tbody></table></div>")


def claims(report):
    """The study's claims with their verdicts (output/claims.py's rows), first on the page: they
    are what a study's run is for. A claim that does not hold is marked."""
    if not report.claims:
        return []
    rows = claims_out.rows(report.claims)
    marked = {i for i, row in enumerate(rows)
              if row[-1] != claim_verdicts.HOLDS and not row[0].startswith(claims_out.BEYOND)}
    notes = "".join(f"<li>{_e(v.text)}: {_e(v.verdict)}: {_e(v.advice)}</li>"
                    for v in report.claims if v.advice)
    return [(claim_verdicts.summary_line(report.claims),
             table(claims_out.HEADERS, rows, caption=claim_verdicts.RULE, marked=marked)
             + (f"<ul class='notes'>{notes}</ul>" if notes else "")), *why(report)]


def why(report):
    """What decides each claim that does not hold (analyse/why.py): the claim judged with one
    condition changed at a time, a row per change."""
    if not report.why:
        return []
    parts = []
    for found in report.why:
        rows = [(t.changed, t.verdict, claims_out.measured_text(t.found)
                 if t.found.measured else "-", str(len(t.found.pairs))) for t in found.tried]
        parts.append(f"<h3>{_e(found.text)}</h3><p>{_e(found.verdict)} as the study ran it; "
                     f"{_e(found.finding)}</p>"
                     + (table(("condition changed", "verdict", "measured", "pairs"), rows)
                        if rows else ""))
    return [("What decides the claims that do not hold", "".join(parts))]


def studies(report):
    """One section per study table (a pivot, stream-cpu, server-models), titled as the terminal
    and table.md title it; a study's failed cases listed under it."""
    out = []
    for study in report.studies:
        headers = [h.replace("\n", " ") for h in study.headers]
        right = {i for i, r in enumerate(study.right) if r}
        marked = {i for i, row in enumerate(study.rows)
                  if study.headers[-1] == "status" and row[-1] != "ok"}  # a pivot has no status
        failed = "".join(f"<li>failed: {_e(f)}</li>" for f in study.failed)
        out.append((study.title, table(headers, study.rows, right, study.caption, marked)
                    + (f"<ul class='notes'>{failed}</ul>" if failed else "")))
    return out


def wire(report):
    """The bytes on the wire per call (--wire-bytes), leanest first, and the ranking lines."""
    return _table_with_notes("Bytes on the wire per call", report.wire, {0, 4, 5, 6, 7},
                             report.wire and report.wire.ranking)


def explained(report):
    """--explain's table: each counted case's costs per call and the model beside its median."""
    return _table_with_notes("Explained: what each call costs", report.explained,
                             {0, 2, 3, 4, 5, 6, 7}, report.explained and report.explained.findings)


def _table_with_notes(title, section, right, notes):
    """A section of the Report's (headers, rows, caption) with its lines below, or none."""
    if not section:
        return []
    items = "".join(f"<li>{_e(line)}</li>" for line in notes)
    return [(title, table(section.headers, section.rows, right, section.caption)
             + (f"<ul class='notes'>{items}</ul>" if items else ""))]


def phases(report):
    """Each burst case's phases (phases.csv's rows): mean with its interval, median, p99, max."""
    if not report.phases:
        return []
    by_id = {r["id"]: r for r in report.records}
    rows = []
    for row in report.phases:
        record = by_id.get(row["case_id"], {})
        case = " ".join(str(x) for x in (record.get("mechanism"), record.get("server_model"),
                                          f"{record.get('client')}→{record.get('server')}") if x)
        rows.append((str(record.get("index", "")), case, row["side"], row["phase"],
                     str(row.get("count") or 0), export_phases.mean_and_ci(row),
                     format_ns(row.get("median_ns")), format_ns(row.get("p99_ns")),
                     format_ns(row.get("max_ns"))))
    return [("Phases of each connection (bursts)",
             table(PHASE_HEADERS, rows, {0, 4, 5, 6, 7, 8},
                   "Mean time of each phase with its 95% bootstrap interval, per case and side "
                   "(phases.csv)."))]


def every(report):
    """The sections of the Report, in the page's order."""
    return [*studies(report), *wire(report), *phases(report)]


def _lines(text):
    """A cell's text, its "\\n" (a pivot's value above its interval) a line break."""
    return _e(text).replace("\n", "<br>")


def _e(text):
    return html.escape(str(text), quote=True)
