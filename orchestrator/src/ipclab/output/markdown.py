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
