"""Pivot tables: a run's cases laid out as a published study lays them out, chosen by a
scenario's `[report]` (table = "pivot", rows, columns, cell, ratio_to, ratio_as). Pure: records in,
a `Pivot` out (numbers, for an HTML report or JSON), and its text form (`cell_text`, headers) for
table.md and the terminal.

    rows      the axes whose values make a row, e.g. ["request_size", "response_size"]
    columns   the axis whose values make the columns, e.g. "mechanism"
    cell      the statistic in a cell (CELLS), with its 95% interval where one exists; a list of
              them makes one table each (the middleware study: mean time, then wire bytes)
    ratio_to  a value of the column axis ("jni"), or { axis = value } for a row axis
              ({ mechanism = "tcp" } when mechanisms are rows): each cell also shows its statistic
              over the reference cell's, the one in the same row (or column) with that value
              ("× jni", or with ratio_as = "percent" "% of tcp")

An axis named neither in rows nor in columns whose values would put two cases in one cell is
added to the rows (after the named ones), so no case is hidden or two cases folded into one.
The ratio is the cell statistic over the reference cell's (a ratio of the two figures shown, as
the studies divide them); the per-round paired intervals of ratios are in the table of every
case."""
from dataclasses import dataclass, field

from ipclab.plan.report_spec import PIVOT_AXES as AXES  # noqa: F401 (re-exported)
from ipclab.plan.report_spec import RATIO_FORMATS  # noqa: F401
from ipclab.common.units import (format_ns, format_ns_interval, format_rate, format_rate_interval,
                          format_size)
from ipclab.plan.matrix import axis_value

_SIZE_AXES = ("request_size", "response_size", "message_size")
_NUMERIC_AXES = (*_SIZE_AXES, "sequence_length")


def _trimmed(key, low=None, high=None):
    """A statistic of the trimmed (outlier-free) figures, with its interval fields if any."""
    def get(r):
        t = r.get("trimmed") or {}
        return t.get(key), r.get(low) if low else None, r.get(high) if high else None
    return get


def _mean(r):
    t = r.get("trimmed") or {}
    return t.get("mean"), t.get("ci95_low"), t.get("ci95_high")


def _record(key):
    return lambda r: (r.get(key), r.get(f"{key}_ci_low"), r.get(f"{key}_ci_high"))


def _wire(*keys):
    """Bytes on the wire per call (wire.py, --wire-bytes): one direction or their sum."""
    def get(r):
        parts = [r.get(k) for k in keys]
        return (sum(parts) if None not in parts else None), None, None
    return get


@dataclass(frozen=True)
class CellKind:
    label: str          # what the table's caption calls it
    get: object         # record -> (value, low, high); None where it does not apply
    unit: str           # "ns" (a duration), "rate" (per second), "bytes", "number"
    spread: bool = False  # "mean±sd": the value ± the standard deviation, no interval


CELLS = {
    "median": CellKind("median [95% CI, hierarchical bootstrap]",
                       _trimmed("median", "median_ci_low", "median_ci_high"), "ns"),
    "mean": CellKind("mean [95% CI, hierarchical bootstrap]", _mean, "ns"),
    "mean±sd": CellKind("mean ± standard deviation", _mean, "ns", spread=True),
    "min": CellKind("minimum", _trimmed("min"), "ns"),
    "p90": CellKind("90th percentile", _trimmed("p90"), "ns"),
    "p99": CellKind("99th percentile", _trimmed("p99"), "ns"),
    "p99_9": CellKind("99.9th percentile", _trimmed("p99_9"), "ns"),
    "max": CellKind("maximum", _trimmed("max"), "ns"),
    "msgs_per_s": CellKind("messages/s [95% CI]", _record("msgs_per_s"), "rate"),
    "mib_per_s": CellKind("MiB/s [95% CI]", _record("mib_per_s"), "number"),
    "conns_per_s": CellKind("connections/s [95% CI]", _record("conns_per_s"), "rate"),
    "cpu_us_per_msg": CellKind("CPU µs per message (both sides)", _record("cpu_us_per_msg"),
                               "number"),
    # The middleware study's other figure: L3 bytes per call, counted by the kernel (--wire-bytes)
    "wire_bytes": CellKind("bytes on the wire per call (IP layer, both ways)",
                           _wire("wire_req_bytes", "wire_resp_bytes"), "bytes"),
    "wire_req_bytes": CellKind("request bytes on the wire per call (IP layer)",
                               _wire("wire_req_bytes"), "bytes"),
    "wire_resp_bytes": CellKind("response bytes on the wire per call (IP layer)",
                                _wire("wire_resp_bytes"), "bytes"),
}


@dataclass(frozen=True)
class Spec:
    rows: tuple
    columns: str
    cell: str = "median"
    ratio_to: object = None   # the reference value …
    ratio_axis: str | None = None  # … of this axis (columns or one of rows)
    ratio_as: str = "times"

    @classmethod
    def each(cls, report):
        """One Spec per statistic of a scenario's report settings (a dict, as saved in run.json:
        `cell` one name or a list of them, `ratio_to` {axis: value})."""
        ratio = report.get("ratio_to") or {}
        axis, value = next(iter(ratio.items())) if ratio else (None, None)
        cells = report.get("cell") or "median"
        return [cls(rows=tuple(report.get("rows") or ()), columns=report.get("columns"),
                    cell=cell, ratio_to=value, ratio_axis=axis,
                    ratio_as=report.get("ratio_as") or "times")
                for cell in ([cells] if isinstance(cells, str) else cells)]


@dataclass(frozen=True)
class Cell:
    status: str         # "ok", "failed", "not-applicable", "unavailable", "pending"
    value: float | None = None
    low: float | None = None
    high: float | None = None
    std: float | None = None
    ratio: float | None = None
    case: int | None = None   # the case's index (its row in the table of every case)


@dataclass
class Pivot:
    spec: Spec
    row_axes: tuple            # spec.rows plus the varying axes named nowhere
    row_keys: list             # tuples of axis values, in order
    column_keys: list          # values of spec.columns, in order
    cells: dict                # (row key, column key) -> Cell
    notes: list = field(default_factory=list)

    def as_dict(self):
        """Plain data (JSON-ready) for an HTML report."""
        return {"rows": list(self.row_axes), "columns": self.spec.columns,
                "cell": self.spec.cell, "ratio_to": self.spec.ratio_to,
                "ratio_axis": self.spec.ratio_axis, "ratio_as": self.spec.ratio_as,
                "row_keys": [list(k) for k in self.row_keys], "column_keys": self.column_keys,
                "cells": [{"row": list(r), "column": c, **vars(cell)}
                          for (r, c), cell in self.cells.items()],
                "notes": self.notes}


def pivot(records, spec):
    """The Pivot of `records` (every case, skipped ones too) under `spec`."""
    extra = _separating_axes(records, spec)
    row_axes = (*spec.rows, *extra)
    cells = {}
    for r in records:
        key = (tuple(axis_value(r, a) for a in row_axes), axis_value(r, spec.columns))
        cells[key] = _cell(r, spec)
    row_keys = sorted({k[0] for k in cells}, key=_order(records, row_axes))
    column_keys = sorted({k[1] for k in cells}, key=_order(records, (spec.columns,), single=True))
    notes = ([f"rows also split by {', '.join(extra)} (else two cases would share a cell)"]
             if extra else [])
    column_keys, left_out = _applicable_columns(cells, row_keys, column_keys)
    if left_out:
        cells = {key: cell for key, cell in cells.items() if key[1] not in left_out}
        notes.append(f"left out, as no case of theirs applies: {', '.join(map(str, left_out))}")
    if spec.ratio_to is not None:
        notes += _add_ratios(cells, row_axes, spec)
    return Pivot(spec, row_axes, row_keys, column_keys, cells, notes)


def _applicable_columns(cells, row_keys, column_keys):
    """(kept, left out): a column whose every cell is not-applicable (a pattern the mechanism
    does not have at these sizes, say) says nothing and is left out; a failed, pending or
    unavailable cell keeps its column, since that is something to see."""
    def empty(column):
        present = [cells[(row, column)] for row in row_keys if (row, column) in cells]
        return all(cell.status == "not-applicable" for cell in present)
    left_out = [c for c in column_keys if empty(c)]
    return [c for c in column_keys if c not in left_out], left_out


def _separating_axes(records, spec):
    """The axes, beyond the named ones, that tell apart cases which would share a cell: each
    added only if it splits some cell (request and response sizes that go together, as with
    sizes = "zip", need no extra row)."""
    axes = [*spec.rows, spec.columns]

    def distinct(axes):
        return len({tuple(axis_value(r, a) for a in axes) for r in records})

    extra = []
    for a in AXES:
        if distinct(axes) == len(records):
            break
        if a == "variant":  # a composite of other axes: a table gets it only by naming it
            continue
        if a not in axes and not _covered(a, axes) and distinct([*axes, a]) > distinct(axes):
            axes.append(a)
            extra.append(a)
    return tuple(extra)


def _covered(axis, named):
    # "pair" is client and server together; either of them named makes it redundant, and back;
    # "variant" holds the mechanism and the pattern.
    if axis == "pair":
        return "client" in named or "server" in named
    if axis in ("mechanism", "pattern") and "variant" in named:
        return True
    return axis in ("client", "server") and "pair" in named


def _order(records, axes, single=False):
    """Sort key: sizes and lengths by number, the other axes in the order the cases came in
    (the scenario's order)."""
    first = {}
    for r in records:
        for a in axes:
            first.setdefault((a, axis_value(r, a)), len(first))

    def rank(a, v):
        if a in _NUMERIC_AXES:
            return (v is None, v or 0)
        return (False, first[(a, v)])

    if single:
        return lambda v: rank(axes[0], v)
    return lambda key: tuple(rank(a, v) for a, v in zip(axes, key))


def _cell(record, spec):
    status = record["status"]
    if status != "ok":
        return Cell(status=status, case=record.get("index"))
    value, low, high = CELLS[spec.cell].get(record)
    std = (record.get("trimmed") or {}).get("std") if CELLS[spec.cell].spread else None
    return Cell(status="ok", value=value, low=low, high=high, std=std, case=record.get("index"))


def _add_ratios(cells, row_axes, spec):
    have_reference = False
    for (row, column), cell in list(cells.items()):
        base = cells.get(_reference(row, column, row_axes, spec))
        if base is None or base.status != "ok" or not base.value:
            continue
        have_reference = True
        if cell.status == "ok" and cell.value is not None:
            cells[(row, column)] = _with_ratio(cell, cell.value / base.value)
    if have_reference:
        return []
    return [f"no ok case with {spec.ratio_axis} = "
            f"{format_value(spec.ratio_axis, spec.ratio_to)}: no ratios"]


def _reference(row, column, row_axes, spec):
    """The key of the cell `(row, column)` is divided by: the reference value on its axis."""
    if spec.ratio_axis == spec.columns:
        return row, spec.ratio_to
    i = row_axes.index(spec.ratio_axis)
    return (*row[:i], spec.ratio_to, *row[i + 1:]), column


def _with_ratio(cell, ratio):
    return Cell(**{**vars(cell), "ratio": ratio})


# --- text -----------------------------------------------------------------------------------------

def format_value(axis, value):
    if value is None:
        return "-"
    if axis in _SIZE_AXES:
        return format_size(value)
    return str(value)


def _figure(value, unit):
    if value is None:
        return "-"
    if unit == "ns":
        return format_ns(value)
    if unit == "bytes":   # an average over calls may be fractional
        return f"{value:,.0f} B" if value == int(value) else f"{value:,.1f} B"
    return format_rate(value) if unit == "rate" else f"{value:.4g}"


def _interval(value, low, high, unit):
    """"[423.3–562.9]" in the value's unit and decimals (as the table of every case)."""
    if unit == "ns":
        return format_ns_interval(value, low, high).split(" ", 2)[2]
    if unit == "rate":
        return format_rate_interval(value, low, high).split("[", 1)[1].join("[")
    return f"[{low:.4g}–{high:.4g}]"


def format_ratio(ratio, spec):
    if spec.ratio_as == "percent":   # whole percent, but never 0% for a small share
        pct = ratio * 100
        return f"{pct:.0f}%" if pct >= 10 else f"{pct:.2g}%"
    return f"{ratio:,.0f}×" if ratio >= 100 else f"{ratio:.3g}×"


def cell_text(cell, spec):
    """"1.224 ms (187× jni)\n[1.190–1.250]"; "failed", "n/a" or "-" without a figure."""
    if cell is None:
        return "-"
    if cell.status != "ok":
        return {"failed": "failed", "pending": "pending"}.get(cell.status, "n/a")
    kind = CELLS[spec.cell]
    text = _figure(cell.value, kind.unit)
    if kind.spread and cell.std is not None:
        text += f" ± {_figure(cell.std, kind.unit)}"
    if cell.ratio is not None:
        reference = format_value(spec.ratio_axis, spec.ratio_to)
        text += (f" ({format_ratio(cell.ratio, spec)} of {reference})" if spec.ratio_as == "percent"
                 else f" ({format_ratio(cell.ratio, spec)} {reference})")
    if not kind.spread and None not in (cell.value, cell.low, cell.high):
        # the interval on a line of its own in the terminal (one line in Markdown)
        text += "\n" + _interval(cell.value, cell.low, cell.high, kind.unit)
    return text


def text_rows(table):
    """(headers, rows of cell texts): the row axes' values, then one cell per column value."""
    headers = [a.replace("_size", "").replace("_", " ") for a in table.row_axes]
    headers += [format_value(table.spec.columns, c) for c in table.column_keys]
    rows = []
    for key in table.row_keys:
        rows.append([format_value(a, v) for a, v in zip(table.row_axes, key)]
                    + [cell_text(table.cells.get((key, c)), table.spec) for c in table.column_keys])
    return headers, rows


def caption(table):
    spec = table.spec
    text = f"cells: {CELLS[spec.cell].label}"
    if spec.ratio_to is not None:
        reference = format_value(spec.ratio_axis, spec.ratio_to)
        along = "row" if spec.ratio_axis == spec.columns else "column"
        text += (f"; ({'x% of' if spec.ratio_as == 'percent' else 'r×'} {reference}): this cell's "
                 f"{spec.cell} over {reference}'s in the same {along}")
    text += "; n/a: not run (see the cases below), failed: the case failed"
    return "; ".join([text, *table.notes])
