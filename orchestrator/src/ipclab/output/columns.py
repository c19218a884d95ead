"""The table of every case's columns (cases.py lays them out for every reader): each column's
header, alignment, cell and priority (the terminal keeps the highest-priority columns that fit
its width; table.md, report.html and `--wide` show them all)."""
from dataclasses import dataclass
from typing import Callable

from ipclab.analyse.stats import DEFAULT_PERCENTILES, percentile_key
from ipclab.records.precision import precision_of
from ipclab.plan import patterns as pattern_table
from ipclab.plan import settings as setting_table
from ipclab.plan.matrix import describe_shape
from ipclab.common.units import (format_ns, format_ns_interval, format_rate_interval,
                                 format_ratio_interval)

@dataclass(frozen=True)
class Column:
    key: str
    header: str
    right: bool
    cell: Callable
    priority: int | None  # lower first; None: only in the wide table
    # which patterns' records it speaks of: a test of the record's pattern row, read when the
    # table is laid out (a row the table gains later is judged like the others); None: every one
    patterns: Callable | None = None
    needs: str | None = None    # ... and, if named, when a record has this field (a sweep's knee)


def applicable(columns, records):
    """The columns that say something about these records (a stream run has no round-trip
    times, a round-trip run no messages/s, a run without a rate sweep no knee)."""
    present = {pattern_table.of_record(r).name: pattern_table.of_record(r) for r in records}
    return [c for c in columns if any(c.patterns is None or c.patterns(p) for p in present.values())
            and (c.needs is None or any(r.get(c.needs) is not None for r in records))]


def whole_times(pattern):
    """Samples are whole round trips, connections or requests."""
    return pattern.whole_times


def _figures(r, patterns=whole_times):
    """The trimmed figures of an ok case of `patterns` (a failed case's finished rounds stay in
    cases.csv; a stream's times per message are there too)."""
    ok = r.get("status") == "ok" and (patterns is None or patterns(pattern_table.of_record(r)))
    return r.get("trimmed") if ok else None


def _trimmed(field):
    return lambda r: format_ns(_figures(r)[field]) if _figures(r) else "-"


def _percentile(key):
    """A percentile's cell; "-" where the record has none of it (analysed before it was asked
    for: `ipclab report --percentiles` analyses again)."""
    def cell(r):
        value = (_figures(r) or {}).get(key)
        return "-" if value is None else format_ns(value)
    return cell


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


def _rate(key):
    return lambda r: format_rate_interval(r.get(key), r.get(f"{key}_ci_low"),
                                          r.get(f"{key}_ci_high")) if r.get(key) else "-"


def _mib(r):
    return f"{r['mib_per_s']:.4g}" if r.get("mib_per_s") is not None else "-"


def _cpu_per_msg(r):
    return f"{r['cpu_us_per_msg']:.3g}" if r.get("cpu_us_per_msg") is not None else "-"


def _achieved(r):
    """"4,980 of 5,000": a load case's achieved rate against its target."""
    if r.get("achieved_per_s") is None or r.get("slo_ns") is not None:
        return "-"  # a sweep's rounds each stopped at their own knee: the knee column says it
    return f"{r['achieved_per_s']:,.0f} of {r.get('target_per_s') or 0:,}"


def _knee(r):
    """A rate sweep's knee, "2,050 [2,000–2,100]": the median over rounds and their range."""
    if r.get("knee_per_s") is None:
        return "-"
    low, high = r.get("knee_low"), r.get("knee_high")
    spread = f" [{low:,.0f}–{high:,.0f}]" if low is not None and high != low else ""
    return f"{r['knee_per_s']:,.0f}{spread}"


def _load_ns(key):
    return lambda r: format_ns(r[key]) if r.get(key) is not None else "-"


def _explained(r):
    """"12.0 | 8.0": system calls per call, client | server (--explain)."""
    client, server = r.get("explain_client_syscalls"), r.get("explain_server_syscalls")
    if client is None and server is None:
        return "-"
    return " | ".join("-" if v is None else f"{v:.1f}" for v in (client, server))


def _lost(r):
    return str(r["lost"]) if r.get("lost") is not None else "-"


def _time_wait(r):
    return str(r["time_wait"]) if r.get("time_wait") is not None else "-"


def _outliers(r):
    if r.get("outliers_removed") is None or not _figures(r, None):
        return "-"
    return f"{r['outliers_removed']}/{r['raw']['count']}"


def _rounds(r):
    """Rounds that finished of those planned; "7 (3+4)" when a precision target added some."""
    done, planned = sum(1 for x in r.get("rounds") or [] if x.get("status") == "ok"), \
        r.get("rounds_planned")
    if not planned:
        return "-"
    return f"{done} ({planned}+{done - planned})" if done > planned else f"{done}/{planned}"


def _spread(r):
    return f"{r['round_spread']:.2f}" if _figures(r, None) and r.get("round_spread") else "-"


def status(record):
    if record["status"] != "ok":
        return f"{record['status']}: {record['reason']}" if record.get("reason") else record["status"]
    verdict = record.get("verdict")
    text = {"faster": "faster", "slower": "slower", "baseline": "base"}.get(verdict, "ok")
    width, met = precision_of(record)
    wide = f", ±{100 * width:.1f}% > ±{100 * record['precision_target']:g}%" if met is False else ""
    return text + (", unstable" if record.get("stable") is False else "") + wide


def _pair(r):
    return f"{r['client']}→{r['server']}"


def _sizes(r):
    return describe_shape(r)


def _own(key):
    """The patterns whose row lists the column `key` as its own."""
    return lambda pattern: key in pattern.columns


COLUMNS = (
    Column("index", "#", True, lambda r: str(r["index"]), 0),
    Column("mechanism", "mechanism", False, lambda r: r["mechanism"], 1),
    Column("pattern", "pattern", False, lambda r: " ".join(  # and a burst's model, the settings
        filter(None, (pattern_table.of_record(r).name, r.get("server_model"),
                      setting_table.label_words(r.get("settings"))))), 1.5),
    Column("pair", "client→server", False, _pair, 2),
    Column("sizes", "sizes", True, _sizes, 3),
    Column("placement", "placement", False, lambda r: r["placement"], 4),
    Column("median", "median [95% CI]", True, _median, 5, whole_times),
    Column("msgs_per_s", "msgs/s [95% CI]", True, _rate("msgs_per_s"), 5, _own("msgs_per_s")),
    Column("mib_per_s", "MiB/s", True, _mib, 5.2, _own("mib_per_s")),
    Column("cpu_us_per_msg", "CPU µs/msg", True, _cpu_per_msg, 5.4, _own("cpu_us_per_msg")),
    Column("conns_per_s", "conns/s [95% CI]", True, _rate("conns_per_s"), 5.1, _own("conns_per_s")),
    Column("achieved_per_s", "req/s achieved", True, _achieved, 5.1, _own("achieved_per_s")),
    Column("knee_per_s", "knee req/s", True, _knee, 4.9, _own("knee_per_s"), "knee_per_s"),
    Column("service_p99", "service p99", True, _load_ns("service_p99"), 6.1, _own("service_p99")),
    Column("late_p99", "client late p99", True, _load_ns("client_lateness_p99"), 6.2,
           _own("late_p99")),
    Column("syscalls", "syscalls/call c | s", True, _explained, 6.5, None,
           "explain_client_syscalls"),
    Column("lost", "lost", True, _lost, None, _own("lost")),
    Column("time_wait", "TIME_WAIT", True, _time_wait, None, _own("time_wait")),
    Column("mean", "mean ± 95% CI", True, _mean, None, whole_times),
    Column("std", "std", True, _trimmed("std"), None, whole_times),
    Column("percentiles", "", True, None, 6, whole_times),  # percentile_columns's place
    Column("outliers", "outliers", True, _outliers, None),
    Column("rounds", "rounds", True, _rounds, None),
    Column("spread", "spread", True, _spread, None),
    Column("ratio", "× base [95% CI]", True, _ratio, 7),
    Column("status", "status", False, status, 8),
)


def chosen_percentiles(document):
    """The percentiles a run's tables show (`statistics.percentiles`; a run saved before the
    setting: the default)."""
    asked = ((document or {}).get("scenario") or {}).get("statistics") or {}
    return tuple(asked.get("percentiles") or DEFAULT_PERCENTILES)


def columns_for(percentiles=DEFAULT_PERCENTILES):
    """COLUMNS with a column per percentile asked for in the percentiles' place (the median
    has its own, with its interval), then the max. A narrow terminal keeps one tail among its
    first columns, p99 if asked, else the highest asked (what a user who asked for p99.99 came
    for); the others and the max come after the status, where there is room."""
    asked = [p for p in sorted(percentiles) if p != 50]
    tail = 99.0 if 99.0 in asked else max(asked, default=None)
    made = [Column(percentile_key(p), f"p{p:g}", True, _percentile(percentile_key(p)),
                   6 if p == tail else 8.5 + i / 10, whole_times) for i, p in enumerate(asked)]
    made.append(Column("max", "max", True, _percentile("max"), 9, whole_times))
    return [m for c in COLUMNS for m in (made if c.key == "percentiles" else [c])]


def ratio_caption(baseline_label, compare):
    if not baseline_label:
        return None
    return (f"× base: ratio to {baseline_label}'s {compare} in the same round; faster/slower only "
            f"if the interval excludes 1")
