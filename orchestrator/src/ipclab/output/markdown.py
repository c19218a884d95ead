"""table.md: the result table as GitHub-flavoured Markdown, every column and every case."""
from ipclab.output.columns import COLUMNS, applicable, ratio_caption


def to_markdown(records, title, baseline_label, compare, notes=()):
    columns = applicable(COLUMNS, records) if records else list(COLUMNS)
    head = [c.header for c in columns]
    lines = [f"# {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for record in records:
        lines.append("| " + " | ".join(_escape(c.cell(record)) for c in columns) + " |")
    caption = ratio_caption(baseline_label, compare)
    notes = ([caption] if caption else []) + list(notes)
    if notes:
        lines += ["", *[f"- {n}" for n in notes]]
    return "\n".join(lines) + "\n"


def _escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def report_markdown(report):
    """table.md of a Report (output/model.py): the study's shape first with every case below it,
    then the bytes on the wire per call (--wire-bytes)."""
    from ipclab.output import claims, client_hosts, explained, study, wire
    table = to_markdown(report.records, report.title, report.baseline_label, report.compare,
                        notes=report.table_notes)
    if report.studies:
        table = study.to_markdown(report.studies, report.title) + "\n" + table.replace(
            f"# {report.title}", "## every case", 1)
    if report.claims:  # a study's verdicts come first: they are what the run was for
        table = claims.markdown_of(report.claims, report.why) + "\n" + table
    section = wire.markdown_of(report.wire.rows, report.wire.ranking) if report.wire else ""
    if report.explained:
        section += ("\n" if section else "") + explained.markdown_of(report.explained.rows,
                                                                     report.explained.findings)
    spread = client_hosts.markdown_of(report.client_hosts)
    section += ("\n" if section and spread else "") + spread
    return table + ("\n" + section if section else "")
