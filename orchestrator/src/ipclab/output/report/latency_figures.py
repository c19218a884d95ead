"""The report's latency figures (pure functions, RunData in, Charts out): the headline (every
mechanism's median, fastest first), time against size, each case's distribution by round,
client × server heat maps, and the warm-up's course."""
import numpy as np

from ipclab.common.units import format_ns_interval, format_rate
from ipclab.output.report.charts import Chart, Heat, Series
from ipclab.output.report.figure_parts import (MAX_LINES, grouped, in_figures, median_text,
                                               numbered, ok_cases, placement_caption, us)
from ipclab.plan import patterns
from ipclab.plan.matrix import describe_shape, variant


def _x_axis(r):
    """(axis kind, x value): bytes moved per round trip, or a structured payload's sequence
    length (one axis per record type: records of different types are not comparable)."""
    if (r.get("payload") or "bytes") == "bytes":
        return "bytes", r["request_size"] + r["response_size"]
    return r["payload"], r["sequence_length"]


def latency_vs_size(data):
    """Per mechanism, median (with its 95% interval) and p99 against size, log-log; a panel
    per client language when the language pairs are many (a median and its p99 are one line)."""
    out = []
    for (mechanism, kind), group in grouped(ok_cases(data), lambda r: (r["mechanism"], _x_axis(r)[0])):
        placements = {r["placement"] for r in group}
        lines = grouped(group, lambda r: (patterns.of_record(r).name, r["client"], r["server"],
                                          r["placement"]))
        faceted = len(lines) > MAX_LINES
        series = []
        for (pattern, client, server, placement), rs in lines:
            rs = sorted(rs, key=lambda r: _x_axis(r)[1])
            name = f"{client}→{server}" + patterns.label_suffix(pattern) + (
                f" {placement}" if len(placements) > 1 else "")
            x = [_x_axis(r)[1] for r in rs]
            hover = [median_text(r) for r in rs]
            panel = f"client {client}" if faceted else None
            series.append(Series(name, x, [us(r["trimmed"]["median"]) for r in rs],
                                 low=[us(r.get("median_ci_low")) for r in rs],
                                 high=[us(r.get("median_ci_high")) for r in rs], hover=hover,
                                 group=panel))
            series.append(Series(f"{name} p99", x, [us(r["trimmed"]["p99"]) for r in rs],
                                 hover=hover, style="dash", group=panel, companion=True))
        x_title = ("request + response size (bytes, log)" if kind == "bytes"
                   else f"sequence length of {kind} records (elements, log)")
        out.append(Chart(
            f"latency-{mechanism}" + ("" if kind == "bytes" else f"-{kind}"),
            f"{mechanism}: time per round trip against size",
            "Solid: median with its 95% interval (hierarchical bootstrap over rounds); dashed: "
            "the same pair's p99; after outlier removal. Short-pattern times are whole "
            "connections. " + ("A panel per client language. " if faceted else "")
            + placement_caption(group), "lines", x_title, "time (µs, log)", True, True,
            series=tuple(series),
            groups=tuple(dict.fromkeys(s.group for s in series)) if faceted else ()))
    return out


def distributions(data):
    """Per mechanism, each case's ECDF on a log axis, one line per round (a menu picks the case)."""
    out = []
    cases = [r for r in data.records if r["status"] == "ok" and data.quantiles.get(r["id"])]
    for mechanism, group in grouped(cases, lambda r: r["mechanism"]):
        series = []
        for r in group:
            for k, (p, x) in sorted(data.quantiles[r["id"]].items()):
                series.append(Series(f"round {k}", list(x / 1e3), list(p), style="step",
                                     group=numbered(r)))
        streams = any(patterns.of_record(r).per_window for r in group)
        out.append(Chart(
            f"distribution-{mechanism}", f"{mechanism}: distribution of each case, by round",
            "Empirical CDF of every raw sample (before outlier removal) of each round, drawn "
            "through a quantile grid (every percent, then the tail to the maximum)"
            + ("; a stream's samples are its windows' time per message" if streams else "")
            + ". Rounds that disagree mean the machine changed between them. "
            + placement_caption(group), "lines",
            "time (µs, log)", "fraction of samples ≤ time", x_log=True,
            series=tuple(series), groups=tuple(numbered(r) for r in group)))
    return out


def heatmaps(data):
    """Per mechanism, a client × server grid of medians for each shape (and placement)."""
    out = []
    runs = [r for r in data.records if r["status"] in ("ok", "failed")]
    for (mechanism, rate), group in grouped(runs, lambda r: (r["mechanism"],
                                                             patterns.of_record(r).per_window)):
        if not any(r["status"] == "ok" for r in group):
            continue
        heats = []
        for name, cells in grouped(group, _shape_name):
            clients = sorted({r["client"] for r in cells})
            servers = sorted({r["server"] for r in cells})
            at = {(r["client"], r["server"]): r for r in cells}
            z = [[_heat_value(at.get((c, s)), rate) for s in servers] for c in clients]
            text = [[_heat_text(at.get((c, s)), rate) for s in servers] for c in clients]
            hover = [[_heat_hover(at.get((c, s)), rate) for s in servers] for c in clients]
            heats.append(Heat(clients, servers, z, text, group=name, hover=hover))
        unit = "messages/s" if rate else "median time (µs)"
        out.append(Chart(
            f"heatmap-{mechanism}" + ("-stream" if rate else ""),
            f"{mechanism}: {'stream rate' if rate else 'median time'}, client × server",
            f"Each cell: {unit} of one client language (row) and server language (column); "
            f"empty: the case failed or did not run. " + placement_caption(group), "heatmap",
            "server", "client", heats=tuple(heats), groups=tuple(h.group for h in heats),
            colour_title=unit))
    return out


def _shape_name(r):
    return f"{patterns.of_record(r).name} {describe_shape(r)} {r['placement']}"


def _heat_value(r, rate):
    if r is None or r["status"] != "ok" or not r.get("trimmed"):
        return None
    return r.get("msgs_per_s") if rate else us(r["trimmed"]["median"])


def _heat_hover(r, rate):
    if r is None or r["status"] != "ok" or not r.get("trimmed"):
        return _heat_text(r, rate) + (f": {r['reason']}" if r and r.get("reason") else "")
    if rate:
        return (f"{numbered(r)}<br>{format_rate(r.get('msgs_per_s'))} msgs/s "
                f"[{format_rate(r.get('msgs_per_s_ci_low'))}–{format_rate(r.get('msgs_per_s_ci_high'))}]")
    return median_text(r)


def _heat_text(r, rate):
    if r is None:
        return "did not run"
    if r["status"] != "ok" or not r.get("trimmed"):
        return r["status"]
    if rate:
        return f"{format_rate(r.get('msgs_per_s'))} msgs/s"
    return format_ns_interval(r["trimmed"]["median"], None, None)


def warmup(data):
    """Per client language, the warm-up's course: each warm-up bin's median over the case's
    measured median, the median of that over the language's cases of one mechanism."""
    out = []
    cases = [r for r in ok_cases(data, in_figures(patterns.WARMUP_FIGURE)) if data.warmup.get(r["id"])]
    for language, group in grouped(cases, lambda r: r["client"]):
        series = []
        for mechanism, rs in grouped(group, lambda r: r["mechanism"]):
            curves = [(x, y / r["trimmed"]["median"]) for r in rs
                      for x, y in data.warmup[r["id"]].values() if r["trimmed"]["median"] and len(x)]
            if not curves:
                continue
            x, y = _median_curve(curves)
            series.append(Series(mechanism, list(x), list(y),
                                 hover=[f"{language} client, {mechanism}<br>round trips ≈{xi:.0f}: "
                                        f"{yi:.2f}× the measured median ({len(curves)} curves)"
                                        for xi, yi in zip(x, y)]))
        if not series:
            continue
        out.append(Chart(
            f"warmup-{language}", f"{language} clients: warm-up",
            "Median of each stretch of warm-up round trips, divided by the case's measured "
            "median (1 = warm), the median over the cases and rounds of each mechanism. A curve "
            "that ends above 1 needs a longer --warmup. " + placement_caption(group), "lines",
            "warm-up round trip (index)", "× measured median (log)", y_log=True,
            series=tuple(series)))
    return out


def _median_curve(curves):
    """The pointwise median of curves over the bins they share (the shortest curve's length)."""
    n = min(len(x) for x, _ in curves)
    xs = np.median([x[:n] for x, _ in curves], axis=0)
    ys = np.median([y[:n] for _, y in curves], axis=0)
    return xs, ys


def headline(data):
    """The page's first figure when the run judged no claims: each mechanism's median round trip
    with its 95% interval, one bar per language pair, the mechanisms fastest first, at the run's
    smallest size; an unstable case (its rounds disagree) is marked in its mechanism's name."""
    if data.report.claims:
        return []
    cases = [r for r in ok_cases(data) if patterns.of_record(r).name == patterns.DEFAULT.name
             and (r.get("payload") or "bytes") == "bytes"]
    if not cases:
        return []
    smallest = min(cases, key=lambda r: (r["request_size"] + r["response_size"], r["index"]))
    cases = [r for r in cases if describe_shape(r) == describe_shape(smallest)]
    if len({variant(r) for r in cases}) < 2:
        return []   # one mechanism: its own time-against-size chart says it all

    def name(r):
        return variant(r) + (" (unstable)" if any(c.get("stable") is False for c in cases
                                                  if variant(c) == variant(r)) else "")
    best = {}
    for r in cases:
        best[name(r)] = min(best.get(name(r), float("inf")), r["trimmed"]["median"])
    order = sorted(best, key=best.get)
    placements = {r["placement"] for r in cases}
    series = []
    for pair, rs in grouped(cases, lambda r: f"{r['client']}→{r['server']}" + (
            f" {r['placement']}" if len(placements) > 1 else "")):
        rs = sorted(rs, key=lambda r: order.index(name(r)))
        series.append(Series(pair, [name(r) for r in rs], [us(r["trimmed"]["median"]) for r in rs],
                             low=[us(r.get("median_ci_low")) for r in rs],
                             high=[us(r.get("median_ci_high")) for r in rs],
                             hover=[median_text(r) for r in rs], style="bar"))
    return [Chart("headline", f"Each mechanism at {describe_shape(smallest)}, fastest first",
                  "The median round trip with its 95% interval (hierarchical bootstrap over "
                  "rounds), one bar per language pair; \"(unstable)\": a case of that mechanism "
                  "whose rounds disagree. " + placement_caption(cases), "bars", "",
                  "median time (µs)", series=tuple(series))]
