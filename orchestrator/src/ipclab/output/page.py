"""The page every renderer lays out, in no format: a title and its sections, each a heading, a
lead, tables of cell texts and lines under them. The section modules (sections.py lists them)
make the Sections of a Report; the renderers (terminal.py, markdown.py, html.py) lay out any
page and name no section, so a section is written once for every format. csv.py and json.py
write the page's records and document.

A section says which readers it is for (`media`): the terminal is read once and has little
room, so a section may hand it a shorter form of its own (a line per kind of warning, the table
of the cases that ran) and leave the files the whole."""
from dataclasses import dataclass, field

TERMINAL, MARKDOWN, HTML = "terminal", "markdown", "html"
EVERY = frozenset({TERMINAL, MARKDOWN, HTML})
FILES = frozenset({MARKDOWN, HTML})     # table.md and report.html: read at leisure, searched
SCREEN = frozenset({TERMINAL})
PAGE_ONLY = frozenset({HTML})

# How a line or a row reads (the terminal's colour, the page's class); None: plainly.
TONES = (None, "note", "warning", "failed", "good", "quiet", "strong")


@dataclass(frozen=True)
class Line:
    """A line of text: `text`, then `items` (a list a narrow reader may shorten to its first few
    and "…") and `tail`. `fit`: on a screen one line, cut to the width rather than wrapped.
    `detail`: True, a detail for who asks for every one (--verbose); False, the summary such a
    reader gets instead; None, for everyone."""
    text: str
    tone: str | None = None
    items: tuple = ()
    tail: str = ""
    fit: bool = False
    detail: bool | None = None

    def __str__(self):
        return self.text + ", ".join(self.items) + self.tail


def shown(lines, verbose):
    """The lines for a reader who asks for every detail (`verbose`) or not."""
    return [line for line in lines if line.detail is None or line.detail == verbose]


@dataclass(frozen=True)
class Table:
    """Rows of cell texts under headers. A header may hold "\\n" (two lines on a screen, one
    elsewhere); a cell's "\\n" puts what follows (its interval) under its value. No headers: a
    table of (name, value) rows. The rest are hints a renderer may use: a screen of limited width
    keeps the columns of lowest `priority` that fit (None: only when every column is asked
    for), says a `fold` column once in the title when all its cells agree (unless its value is
    one of those named), and cuts the `elastic` column to the width left; `keys` sort a page's
    table by number."""
    headers: tuple
    rows: tuple
    right: tuple = ()       # per column: right-aligned (numbers)
    title: str = ""         # its own heading, under its section's (one of several tables)
    caption: str = ""       # what the cells are, under the table
    explains: int | None = None  # the column the caption is about: no caption without it
    notes: tuple = ()       # Lines under it
    tones: tuple = ()       # per row: its tone (failed, quiet, good) or None
    keys: tuple = ()        # per row, per column: the number the cell sorts by, or None
    wrap: bool = False      # a screen may wrap cells (else it cuts them with …)
    priority: tuple = ()    # per column (see above); (): every column, always
    fold: tuple = ()        # per column: None, never folded; else the values left unsaid
    elastic: int | None = None

    def is_right(self, column):
        return bool(self.right) and self.right[column]

    def tone(self, row):
        return self.tones[row] if self.tones else None


@dataclass(frozen=True)
class Section:
    """One section of a page. `key` names it (the page's anchor); `headline`: what the run was
    for, first on the page (before its figures)."""
    key: str
    title: str | None = None
    lead: tuple = ()        # paragraphs under the heading: what the section holds
    tables: tuple = ()
    lines: tuple = ()       # Lines after the tables
    media: frozenset = EVERY
    headline: bool = False


@dataclass(frozen=True)
class Page:
    title: str
    sections: tuple = ()
    records: list = field(default_factory=list)     # the cases (cases.csv, phases.csv)
    document: dict = field(default_factory=dict)    # the whole, as run.json holds it

    def shown(self, medium):
        """The sections for `medium` (TERMINAL, MARKDOWN, HTML), in order."""
        return [s for s in self.sections if medium in s.media]
