"""The analyse/ modules of the patterns with figures of their own (a stream's and short's rates
and CPU, a burst's phases, a load's percentiles), one interface (`FigurePart`) the case's
analysis loops over, so it names no pattern. Each reads the record's pattern row and answers
only for its own patterns."""
from typing import Protocol

from ipclab.analyse import burst, load, throughput


class FigurePart(Protocol):
    FIELDS: tuple  # the columns it adds (cases.csv)

    def figures(self, record) -> dict:
        """Its fields of an analysed record (None, or nothing, for another pattern's)."""

    def warnings(self, record) -> list:
        """Its advice on the record (stats.Warning), empty for another pattern's."""


PARTS: tuple[FigurePart, ...] = (throughput, burst, load)


def figures(record):
    """Every part's fields of the record."""
    out = {}
    for part in PARTS:
        out.update(part.figures(record))
    return out


def warnings(record):
    """Every part's warnings about the record."""
    return [w for part in PARTS for w in part.warnings(record)]
