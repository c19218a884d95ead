"""What the report's figures share: a case's label, grouping, units and the captions that say where
the peers ran (latency_figures.py and pattern_figures.py draw with them)."""
from collections import defaultdict

from ipclab.output.report.charts import Series
from ipclab.plan import matrix
from ipclab.plan import patterns as pattern_table
from ipclab.plan import settings as setting_table
from ipclab.common.units import format_ns_interval, format_rate



# More lines than this on one chart and a figure draws panels instead: eighteen lines made a
# legend taller than the chart.
MAX_LINES = 8


def setting_facet(records, line):
    """For a chart with more than MAX_LINES lines (`line(record)`: its line's name), the setting
    that splits them into panels of the fewest lines each, as record -> panel name
    ("serialization: java"); None when the lines are few or no setting splits them."""
    if len({line(r) for r in records}) <= MAX_LINES:
        return None
    best = None
    for name in setting_table.NAMES:
        def panel(r, name=name):
            value = dict(r.get("settings") or {}).get(name, setting_table.SETTINGS[name].default)
            return f"{name.replace('_', ' ')}: {value}"
        panels = grouped(records, panel)
        widest = max(len({line(r) for r in rs}) for _, rs in panels)
        if len(panels) > 1 and (best is None or widest < best[0]):
            best = (widest, panel)
    return best and best[1]


def in_figures(group):
    """The patterns whose cases appear in the report's figure group `group` (their row's
    report_figures)."""
    return pattern_table.named(lambda p: group in p.report_figures)


TIMES = in_figures(pattern_table.TIME_FIGURES)  # samples are whole round trips or connections


def case_label(r):
    """A case as the figures name it: plan/matrix.py's label without the server model (a burst
    panel names its model itself)."""
    return matrix.case_label(r, server_model=False)


def numbered(r):
    return f"#{r['index']} {case_label(r)}"


def ok_cases(data, patterns=TIMES):
    return [r for r in data.records
            if r["status"] == "ok" and pattern_table.of_record(r).name in patterns
            and r.get("trimmed")]


def grouped(records, key):
    """Records grouped by key(record), groups and members in first-seen order."""
    groups = defaultdict(list)
    for r in records:
        groups[key(r)].append(r)
    return list(groups.items())


def _cpus(cpus):
    return ",".join(map(str, cpus)) if cpus else "any"


def placement_caption(records):
    """Where the peers ran: "cross-core (client on CPU 0, server on CPU 1)"."""
    seen = dict.fromkeys(f"{r['placement']} (client on CPU {_cpus(r.get('client_cpus'))}, "
                         f"server on CPU {_cpus(r.get('server_cpus'))})" for r in records)
    return "Placement: " + "; ".join(seen) + "."


def us(ns):
    return None if ns is None else ns / 1e3


def median_text(r):
    t = r["trimmed"]
    median = format_ns_interval(t["median"], r.get("median_ci_low"), r.get("median_ci_high"))
    return (f"{numbered(r)}<br>median {median}"
            f"<br>p99 {format_ns_interval(t['p99'], None, None)}")


def rate_series(name, records, key, unit):
    """Bars of a rate with its interval, one per case."""
    return Series(name, [case_label(r) for r in records], [r[key] for r in records],
                  low=[r.get(f"{key}_ci_low") for r in records],
                  high=[r.get(f"{key}_ci_high") for r in records],
                  hover=[f"{numbered(r)}<br>{format_rate(r[key])} {unit} "
                         f"[{format_rate(r.get(f'{key}_ci_low'))}–{format_rate(r.get(f'{key}_ci_high'))}]"
                         for r in records], style="bar")
