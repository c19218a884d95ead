"""table.md: the result table as GitHub-flavoured Markdown."""
from ipclab.export import rows


def to_markdown(records, title, baseline_label, compare, notes=()):
    head = rows.headers(baseline_label, compare)
    lines = [f"# {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for record in records:
        lines.append("| " + " | ".join(_escape(c) for c in rows.row(record)) + " |")
    if notes:
        lines += ["", *[f"- {n}" for n in notes]]
    return "\n".join(lines) + "\n"


def _escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")
