"""The report's figures: a registry of small pure functions, each RunData in, a list of Charts
out (empty when the run has nothing for it: no streams, no wire bytes...). html.py and paper.py
draw every chart the registry returns, in registry order. Adding a figure is one function here,
decorated with @figure, and a test on a hand-made document.

Units: times in µs (the samples are ns), rates per second, CPU in µs per message. Statistics
are the saved run's (after outlier removal, `trimmed`; intervals from analyse/case_stats.py); nothing here
re-estimates them."""
from collections import defaultdict

import numpy as np

from ipclab.plan.matrix import describe_shape
from ipclab.output.report.charts import Chart, Heat, Series
from ipclab.common.units import format_ns, format_ns_interval, format_rate

FIGURES = []
TIMES = ("rr", "short")   # patterns whose samples are whole round trips or connections


def figure(function):
    FIGURES.append(function)
    return function


def charts(data):
    """Every chart of the run, in registry order."""
    return [chart for function in FIGURES for chart in function(data) or ()]


# --- shared helpers ---------------------------------------------------------------------------

def case_label(r):
    pattern = "" if r.get("pattern", "rr") == "rr" else f" {r['pattern']}"
    return f"{r['mechanism']}{pattern} {r['client']}→{r['server']} {describe_shape(r)} {r['placement']}"


def _numbered(r):
    return f"#{r['index']} {case_label(r)}"


def _ok(data, patterns=TIMES):
    return [r for r in data.records
            if r["status"] == "ok" and r.get("pattern", "rr") in patterns and r.get("trimmed")]


def _by(records, key):
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


def _us(ns):
    return None if ns is None else ns / 1e3


def _median_text(r):
    t = r["trimmed"]
    median = format_ns_interval(t["median"], r.get("median_ci_low"), r.get("median_ci_high"))
    return (f"{_numbered(r)}<br>median {median}"
            f"<br>p99 {format_ns_interval(t['p99'], None, None)}")


def _rate_series(name, records, key, unit):
    """Bars of a rate with its interval, one per case."""
    return Series(name, [case_label(r) for r in records], [r[key] for r in records],
                  low=[r.get(f"{key}_ci_low") for r in records],
                  high=[r.get(f"{key}_ci_high") for r in records],
                  hover=[f"{_numbered(r)}<br>{format_rate(r[key])} {unit} "
                         f"[{format_rate(r.get(f'{key}_ci_low'))}–{format_rate(r.get(f'{key}_ci_high'))}]"
                         for r in records], style="bar")


# --- the figures ------------------------------------------------------------------------------

def _x_axis(r):
    """(axis kind, x value): bytes moved per round trip, or a structured payload's sequence
    length (one axis per record type: records of different types are not comparable)."""
    if (r.get("payload") or "bytes") == "bytes":
        return "bytes", r["request_size"] + r["response_size"]
    return r["payload"], r["sequence_length"]


@figure
def latency_vs_size(data):
    """Per mechanism, median (with its 95% interval) and p99 against size, log-log."""
    out = []
    for (mechanism, kind), group in _by(_ok(data), lambda r: (r["mechanism"], _x_axis(r)[0])):
        placements = {r["placement"] for r in group}
        series = []
        for (pattern, pair, placement), rs in _by(group, lambda r: (r.get("pattern", "rr"),
                                                                     f"{r['client']}→{r['server']}",
                                                                     r["placement"])):
            rs = sorted(rs, key=lambda r: _x_axis(r)[1])
            name = pair + ("" if pattern == "rr" else f" {pattern}") + (
                f" {placement}" if len(placements) > 1 else "")
            x = [_x_axis(r)[1] for r in rs]
            hover = [_median_text(r) for r in rs]
            series.append(Series(f"{name} p50", x, [_us(r["trimmed"]["median"]) for r in rs],
                                 low=[_us(r.get("median_ci_low")) for r in rs],
                                 high=[_us(r.get("median_ci_high")) for r in rs], hover=hover))
            series.append(Series(f"{name} p99", x, [_us(r["trimmed"]["p99"]) for r in rs],
                                 hover=hover, style="dash"))
        x_title = ("request + response size (bytes, log)" if kind == "bytes"
                   else f"sequence length of {kind} records (elements, log)")
        out.append(Chart(
            f"latency-{mechanism}" + ("" if kind == "bytes" else f"-{kind}"),
            f"{mechanism}: time per round trip against size",
            "Solid: median with its 95% interval (hierarchical bootstrap over rounds); dashed: "
            "p99; after outlier removal. Short-pattern times are whole connections. "
            + placement_caption(group), "lines", x_title, "time (µs, log)", True, True,
            series=tuple(series)))
    return out


@figure
def distributions(data):
    """Per mechanism, each case's ECDF on a log axis, one line per round (a menu picks the case)."""
    out = []
    cases = [r for r in data.records if r["status"] == "ok" and data.quantiles.get(r["id"])]
    for mechanism, group in _by(cases, lambda r: r["mechanism"]):
        series = []
        for r in group:
            for k, (p, x) in sorted(data.quantiles[r["id"]].items()):
                series.append(Series(f"round {k}", list(x / 1e3), list(p), style="step",
                                     group=_numbered(r)))
        streams = any(r.get("pattern") == "stream" for r in group)
        out.append(Chart(
            f"distribution-{mechanism}", f"{mechanism}: distribution of each case, by round",
            "Empirical CDF of every raw sample (before outlier removal) of each round, drawn "
            "through a quantile grid (every percent, then the tail to the maximum)"
            + ("; a stream's samples are its windows' time per message" if streams else "")
            + ". Rounds that disagree mean the machine changed between them. "
            + placement_caption(group), "lines",
            "time (µs, log)", "fraction of samples ≤ time", x_log=True,
            series=tuple(series), groups=tuple(_numbered(r) for r in group)))
    return out


@figure
def heatmaps(data):
    """Per mechanism, a client × server grid of medians for each shape (and placement)."""
    out = []
    runs = [r for r in data.records if r["status"] in ("ok", "failed")]
    for (mechanism, rate), group in _by(runs, lambda r: (r["mechanism"], r.get("pattern") == "stream")):
        if not any(r["status"] == "ok" for r in group):
            continue
        heats = []
        for name, cells in _by(group, _shape_name):
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
    return f"{r.get('pattern', 'rr')} {describe_shape(r)} {r['placement']}"


def _heat_value(r, rate):
    if r is None or r["status"] != "ok" or not r.get("trimmed"):
        return None
    return r.get("msgs_per_s") if rate else _us(r["trimmed"]["median"])


def _heat_hover(r, rate):
    if r is None or r["status"] != "ok" or not r.get("trimmed"):
        return _heat_text(r, rate) + (f": {r['reason']}" if r and r.get("reason") else "")
    if rate:
        return (f"{_numbered(r)}<br>{format_rate(r.get('msgs_per_s'))} msgs/s "
                f"[{format_rate(r.get('msgs_per_s_ci_low'))}–{format_rate(r.get('msgs_per_s_ci_high'))}]")
    return _median_text(r)


def _heat_text(r, rate):
    if r is None:
        return "did not run"
    if r["status"] != "ok" or not r.get("trimmed"):
        return r["status"]
    if rate:
        return f"{format_rate(r.get('msgs_per_s'))} msgs/s"
    return format_ns_interval(r["trimmed"]["median"], None, None)


@figure
def stream_throughput(data):
    streams = [r for r in _ok(data, ("stream",)) if r.get("msgs_per_s")]
    if not streams:
        return []
    return [Chart("stream-throughput", "Streams: messages per second",
                  "Messages/s from the median window's time per message, with its 95% interval; "
                  "hover for MiB/s. " + placement_caption(streams), "bars", "",
                  "messages/s (log)", y_log=True,
                  series=(_rate_series("messages/s", streams, "msgs_per_s", "msgs/s"),))]


CPU_PARTS = (("client user", "client_user_s"), ("client system", "client_sys_s"),
             ("server user", "server_user_s"), ("server system", "server_sys_s"))


@figure
def stream_cpu(data):
    streams = [r for r in _ok(data, ("stream",)) if r.get("messages") and r.get("client_user_s") is not None]
    if not streams:
        return []
    labels = [case_label(r) for r in streams]
    series = tuple(Series(name, labels, [_per_message_us(r, key) for r in streams],
                          hover=[f"{_numbered(r)}<br>{name}: {_per_message_us(r, key):.3g} µs/msg"
                                 for r in streams], style="bar")
                   for name, key in CPU_PARTS)
    return [Chart("stream-cpu", "Streams: CPU per message, by side",
                  "Each peer's user and system CPU from MARK_ACK to END_ACK (getrusage), over the "
                  "stream's messages, median over rounds, in µs per message; the stacked total is "
                  "netperf's service demand. " + placement_caption(streams), "bars", "",
                  "CPU per message (µs)", series=series, stacked=True)]


def _per_message_us(r, key):
    return (r.get(key) or 0.0) * 1e6 / r["messages"]


@figure
def short_rates(data):
    shorts = [r for r in _ok(data, ("short",)) if r.get("conns_per_s")]
    if not shorts:
        return []
    series = _rate_series("connections/s", shorts, "conns_per_s", "conns/s")
    hover = [f"{h}<br>TIME_WAIT at the end: {r.get('time_wait')}" for h, r in zip(series.hover, shorts)]
    return [Chart("short-rates", "Short connections: connections per second",
                  "One connection per round trip (open, request, response, close); rate from the "
                  "median connection time with its 95% interval. " + placement_caption(shorts),
                  "bars", "", "connections/s", series=(Series(**{**vars(series), "hover": hover}),))]


@figure
def warmup(data):
    """Per client language, the warm-up's course: each warm-up bin's median over the case's
    measured median, the median of that over the language's cases of one mechanism."""
    out = []
    cases = [r for r in _ok(data, ("rr",)) if data.warmup.get(r["id"])]
    for language, group in _by(cases, lambda r: r["client"]):
        series = []
        for mechanism, rs in _by(group, lambda r: r["mechanism"]):
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


@figure
def wire_bytes(data):
    """Bytes per call on the wire and in the application (wire.py's record columns, also read
    from cases.csv), one bar pair per case: framework, record and sequence length are in its
    label."""
    cases = [r for r in data.records if r["status"] == "ok" and r.get("wire_req_bytes") is not None]
    if not cases:
        return []
    labels = [case_label(r) for r in cases]
    hover = [_wire_text(r) for r in cases]
    series = (Series("on the wire", labels, [_both(r, "wire") for r in cases], hover=hover,
                     style="bar"),
              Series("application payload", labels, [_both(r, "app") for r in cases],
                     hover=hover, style="bar"))
    return [Chart("wire-bytes", "Bytes per call, on the wire and in the application",
                  "Request plus response bytes of one call as the kernel counted them at the IP "
                  "layer (headers, framing and encoding included; a stream: per message), beside "
                  "the application's own payload (none for structured records: their size is "
                  "the framework's). " + placement_caption(cases), "bars", "",
                  "bytes per call", series=series)]


def _both(r, side):
    """Request + response bytes of one side, None when neither is known."""
    parts = [r.get(f"{side}_req_bytes"), r.get(f"{side}_resp_bytes")]
    return None if all(p is None for p in parts) else sum(p or 0 for p in parts)


def _wire_text(r):
    def number(v):
        return "-" if v is None else f"{v:.4g}"
    text = (f"{_numbered(r)}<br>wire: request {number(r.get('wire_req_bytes'))} B, response "
            f"{number(r.get('wire_resp_bytes'))} B, {number(r.get('wire_packets_per_call'))} "
            f"packets per call<br>application: request {number(r.get('app_req_bytes'))} B, "
            f"response {number(r.get('app_resp_bytes'))} B")
    if r.get("wire_conn_bytes") is not None:
        text += f"<br>connection set-up and tear-down: {number(r['wire_conn_bytes'])} B"
    return text


def _phase_text(side, row):
    mean = format_ns_interval(row["mean_ns"], row.get("ci95_low_ns"), row.get("ci95_high_ns"))
    return (f"{side} {row['phase']}: mean {mean}<br>median {format_ns(row.get('median_ns'))}, "
            f"p99 {format_ns(row.get('p99_ns'))}, n = {row.get('count') or 0:.0f}")


@figure
def burst_phases(data):
    """Per burst case, each phase's mean with its 95% interval, by side (issue 11's phases.csv)."""
    if not data.phases:
        return []
    records = {r["id"]: r for r in data.records}
    series, groups = [], []
    for case_id, rows in _by(data.phases, lambda row: row["case_id"]):
        group = _numbered(records[case_id]) if case_id in records else str(case_id)
        groups.append(group)
        for side, side_rows in _by(rows, lambda row: row["side"]):
            series.append(Series(
                str(side), [str(row["phase"]) for row in side_rows],
                [_us(row["mean_ns"]) for row in side_rows],
                low=[_us(row.get("ci95_low_ns")) for row in side_rows],
                high=[_us(row.get("ci95_high_ns")) for row in side_rows],
                hover=[_phase_text(side, row) for row in side_rows], style="bar", group=group))
    cases = [records[c] for c in dict.fromkeys(row["case_id"] for row in data.phases) if c in records]
    return [Chart("burst-phases", "Bursts: time of each phase",
                  "Mean time of each phase of a connection with its 95% interval, client and "
                  "server side. " + (placement_caption(cases) if cases else ""), "bars", "phase",
                  "time (µs)", series=tuple(series), groups=tuple(groups))]


PHASES = ("accept", "loop", "spawn", "start_delay", "transfer", "total")
CLIENT_PHASES = ("connect", "response", "total")


@figure
def burst_connections(data):
    """Each phase against the connection's index, one panel per burst case (its server model):
    the socket-server paper's figures, from the round's per-connection files (PROTOCOL.md 11.4:
    the server's phases, the client's records), one point per connection without error, one
    marker per round."""
    out = []
    for side, phases, source in (("server", PHASES, data.connections),
                                 ("client", CLIENT_PHASES, data.client_connections)):
        cases = [r for r in data.records if source.get(r["id"])]
        for phase in phases:
            chart = _phase_chart(side, phase, cases, source)
            if chart:
                out.append(chart)
    return out


def _phase_chart(side, phase, cases, source):
    series, groups = [], []
    for r in cases:
        group = " ".join(x for x in (f"#{r['index']}", r.get("server_model"), case_label(r)) if x)
        points = {k: [(row["conn_index"], row[f"{phase}_ns"]) for row in rows
                      if row.get(f"{phase}_ns") is not None and not row.get("error")]
                  for k, rows in sorted(source[r["id"]].items())}
        if any(points.values()):
            groups.append(group)
            series += [Series(f"round {k}", [i for i, _ in p], [_us(v) for _, v in p],
                              style="points", group=group) for k, p in points.items() if p]
    if not series:
        return None
    name = phase.replace("_", " ")
    return Chart(
        f"burst-{side}-{phase.replace('_', '-')}",
        f"Bursts: {side} {name} time against the connection's index",
        f"The {side}'s {name} time of every connection without error (PROTOCOL.md 11.4), by "
        f"connection index ({'the order the server accepted them' if side == 'server' else 'the client numbering'}); "
        f"one panel per case and server model. " + placement_caption(cases), "lines",
        "connection index", f"{name} (µs, log)", y_log=True, series=tuple(series),
        groups=tuple(groups))
