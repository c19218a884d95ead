"""What `ipclab run`, `report` and `compare` print: a page (output/page.py) as rich renderables,
each table fitted to the width (the columns of highest priority that fit, a constant column said
once in the title, the elastic one cut to what is left), each line in its tone, cut where it
must fit one line. Pure: a page in, [(renderable, width to print it at)] out (a wide table is as
wide as it needs; the full texts stay in the files)."""
from dataclasses import dataclass

from rich import box
from rich.cells import cell_len
from rich.table import Table as RichTable
from rich.text import Text

from ipclab.output.page import TERMINAL, shown

_MIN_ELASTIC = 12
STYLES = {"note": "yellow", "warning": "yellow", "failed": "red", "good": "green",
          "quiet": "dim", "strong": "bold"}


@dataclass(frozen=True)
class Options:
    width: int = 120
    wide: bool = False      # every column, whatever the width
    verbose: bool = False   # every detail (every warning of every case)


def render(page, options=None):
    options = options or Options()
    out = []
    for section in page.shown(TERMINAL):
        out += [(Text(paragraph, style="dim"), None) for paragraph in section.lead]
        for table in section.tables:
            out.append(_table(page.title, section.title, table, options))
            out += [(_line(line, options.width), None)
                    for line in shown(table.notes, options.verbose)]
        out += [(_line(line, options.width), None)
                for line in shown(section.lines, options.verbose)]
    return out


def _table(title, section_title, table, options):
    columns, said = _unfolded(table, options.wide)
    need = {i: max([cell_len(table.headers[i]), *(cell_len(row[i]) for row in table.rows)])
            for i in columns}
    fitted = bool(table.priority)
    if fitted and not options.wide:
        columns = _fit([i for i in columns if table.priority[i] is not None], table, need,
                       options.width)
    heading = " · ".join(filter(None, (title, section_title, *said, table.title)))
    caption = table.caption if table.explains is None or table.explains in columns else None
    rich = RichTable(title=heading, box=box.SIMPLE_HEAD, pad_edge=False,
                     caption=caption or None, caption_justify="left")
    used = sum(need[i] for i in columns if i != table.elastic) + 3 * (len(columns) - 1) + 2
    for i in columns:
        limit = (max(options.width - used, _MIN_ELASTIC)
                 if i == table.elastic and not options.wide else None)
        no_wrap = not options.wide if fitted else not table.wrap
        rich.add_column(table.headers[i], justify="right" if table.is_right(i) else "left",
                        no_wrap=no_wrap, overflow="fold" if fitted and options.wide else "ellipsis",
                        max_width=limit)
    for k, row in enumerate(table.rows):
        rich.add_row(*(row[i] for i in columns), style=STYLES.get(table.tone(k)))
    wide = used + need.get(table.elastic, 0) if options.wide and fitted else None
    return rich, wide


def _unfolded(table, wide):
    """(the columns left, the values said once in the title instead)."""
    columns, said = list(range(len(table.headers))), []
    if wide or not table.fold or not table.rows:
        return columns, said
    for i, unsaid in enumerate(table.fold):
        values = {row[i] for row in table.rows}
        if unsaid is not None and len(values) == 1:
            columns.remove(i)
            said += [v for v in values if v not in unsaid]
    return columns, said


def _fit(columns, table, need, width):
    """The columns, by priority, that fit in `width` (the elastic one counts at its minimum
    width: it takes what is left and shortens its texts)."""
    def room(i):
        return min(need[i], _MIN_ELASTIC) if i == table.elastic else need[i]
    chosen = []
    for i in sorted(columns, key=lambda i: table.priority[i]):
        trial = chosen + [i]
        if sum(map(room, trial)) + 3 * (len(trial) - 1) + 2 <= width or not chosen:
            chosen = trial
    return sorted(chosen)


def _line(line, width):
    text = str(line)
    if line.fit and cell_len(text) > width:
        if line.items:
            room = width - cell_len(line.text) - cell_len(line.tail)
            text = line.text + _shortened(line.items, room) + line.tail
        else:
            text = text[:max(width - 1, 1)] + "…"
    return Text(text, style=STYLES.get(line.tone))


def _shortened(items, room):
    """"1, 2, 3, …" within `room` characters (at least the first item)."""
    text = ", ".join(items)
    if cell_len(text) <= room:
        return text
    kept = []
    for item in items:
        if cell_len(", ".join([*kept, item]) + ", …") > room and kept:
            break
        kept.append(item)
    return ", ".join(kept) + ", …"
