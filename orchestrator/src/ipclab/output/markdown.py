"""table.md: a page (output/page.py) as GitHub-flavoured Markdown: the title, then each section
with its heading, lead, tables (every row and column) and lines as a list. Pure: a page in,
text out."""
from ipclab.output.page import MARKDOWN, shown


def render(page, options=None):
    lines = [f"# {page.title}"]
    for section in page.shown(MARKDOWN):
        lines += ["", *_section(section)]
    return "\n".join(lines) + "\n"


def _section(section):
    out = [f"## {section.title}", ""] if section.title else []
    for paragraph in section.lead:
        out += [paragraph, ""]
    for table in section.tables:
        out += _table(table)
    out += _items(str(line) for line in shown(section.lines, verbose=True))
    return out[:-1] if out and out[-1] == "" else out


def _table(table):
    out = [f"### {table.title}", ""] if table.title else []
    if not table.headers:    # (name, value) rows
        return out + _items(f"{name}: {value}" for name, value in table.rows)
    if table.rows:
        out += ["| " + " | ".join(_escape(h) for h in table.headers) + " |",
                "|" + "".join("---:|" if table.is_right(i) else "---|"
                              for i in range(len(table.headers)))]
        out += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in table.rows]
        out.append("")
    notes = [table.caption] if table.caption else []
    return out + _items([*notes, *(str(line) for line in shown(table.notes, verbose=True))])


def _items(texts):
    texts = [f"- {t}" for t in texts]
    return [*texts, ""] if texts else []


def _escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")
