"""The human table's columns, shared by the Markdown and terminal renderers: each column's header,
alignment, cell and priority (the terminal keeps the highest-priority columns that fit its width;
Markdown and `--wide` show them all)."""
from dataclasses import dataclass
from typing import Callable

from ipclab.matrix import describe_shape
from ipclab.units import format_ns, format_ns_interval, format_ratio_interval


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    right: bool
    cell: Callable
    priority: int | None  # lower first; None: only in the wide table


def _figures(r):
    """The trimmed figures of an ok case (a failed case's finished rounds stay in cases.csv)."""
    return r.get("trimmed") if r.get("status") == "ok" else None


def _trimmed(field):
    return lambda r: format_ns(_figures(r)[field]) if _figures(r) else "-"


def _mean(r):
    t = _figures(r)
    if not t:
        return "-"
    half = (t["ci95_high"] - t["mean"]) if t.get("ci95_high") is not None else None
    return format_ns(t["mean"]) + (f" ± {format_ns(half)}" if half is not None else "")


def _median(r):
    t = _figures(r)
    if not t:
        return "-"
    return format_ns_interval(t["median"], r.get("median_ci_low"), r.get("median_ci_high"))


def _ratio(r):
    if r.get("verdict") == "baseline":
        return "1.00"
    return format_ratio_interval(r.get("ratio"), r.get("ratio_ci_low"), r.get("ratio_ci_high"))


def _outliers(r):
    if r.get("outliers_removed") is None or not _figures(r):
        return "-"
    return f"{r['outliers_removed']}/{r['raw']['count']}"


def _rounds(r):
    done = sum(1 for x in r.get("rounds") or [] if x.get("status") == "ok")
    return f"{done}/{r['rounds_planned']}" if r.get("rounds_planned") else "-"


def _spread(r):
    return f"{r['round_spread']:.2f}" if _figures(r) and r.get("round_spread") else "-"


def status(record):
    if record["status"] != "ok":
        return f"{record['status']}: {record['reason']}" if record.get("reason") else record["status"]
    verdict = record.get("verdict")
    text = {"faster": "faster", "slower": "slower", "baseline": "base"}.get(verdict, "ok")
    return text + (", unstable" if record.get("stable") is False else "")


def _pair(r):
    return f"{r['client']}→{r['server']}"


def _sizes(r):
    return describe_shape(r)


COLUMNS = (
    Column("index", "#", True, lambda r: str(r["index"]), 0),
    Column("mechanism", "mechanism", False, lambda r: r["mechanism"], 1),
    Column("pair", "client→server", False, _pair, 2),
    Column("sizes", "sizes", True, _sizes, 3),
    Column("placement", "placement", False, lambda r: r["placement"], 4),
    Column("median", "median [95% CI]", True, _median, 5),
    Column("mean", "mean ± 95% CI", True, _mean, None),
    Column("std", "std", True, _trimmed("std"), None),
    Column("p99", "p99", True, _trimmed("p99"), 6),
    Column("outliers", "outliers", True, _outliers, None),
    Column("rounds", "rounds", True, _rounds, None),
    Column("spread", "spread", True, _spread, None),
    Column("ratio", "× base [95% CI]", True, _ratio, 7),
    Column("status", "status", False, status, 8),
)


def ratio_caption(baseline_label, compare):
    if not baseline_label:
        return None
    return (f"× base: ratio to {baseline_label}'s {compare} in the same round; faster/slower only "
            f"if the interval excludes 1")
