"""The report's figures of the patterns beyond round trips and of the wire (pure functions,
RunData in, Charts out): stream rates and CPU, short connections' rates, bytes per call, and a
burst's phases, per case and per connection."""
from ipclab.analyse.explained import median_of
from ipclab.common.units import format_ns, format_ns_interval
from ipclab.output.report.charts import Chart, Series
from ipclab.plan.patterns import CONNECTION_FIGURE, STREAM_FIGURES
from ipclab.records.fields import BURST_CLIENT_PHASES, BURST_PHASES
from ipclab.output.report.figure_parts import (case_label, grouped, in_figures, numbered, ok_cases,
                                               placement_caption, rate_series, us)


def stream_throughput(data):
    streams = [r for r in ok_cases(data, in_figures(STREAM_FIGURES)) if r.get("msgs_per_s")]
    if not streams:
        return []
    return [Chart("stream-throughput", "Streams: messages per second",
                  "Messages/s from the median window's time per message, with its 95% interval; "
                  "hover for MiB/s. " + placement_caption(streams), "bars", "",
                  "messages/s (log)", y_log=True,
                  series=(rate_series("messages/s", streams, "msgs_per_s", "msgs/s"),))]


CPU_PARTS = (("client user", "client_user_s"), ("client system", "client_sys_s"),
             ("server user", "server_user_s"), ("server system", "server_sys_s"))


def stream_cpu(data):
    streams = [r for r in ok_cases(data, in_figures(STREAM_FIGURES))
               if r.get("messages") and r.get("client_user_s") is not None]
    if not streams:
        return []
    labels = [case_label(r) for r in streams]
    series = tuple(Series(name, labels, [_per_message_us(r, key) for r in streams],
                          hover=[f"{numbered(r)}<br>{name}: {_per_message_us(r, key):.3g} µs/msg"
                                 for r in streams], style="bar")
                   for name, key in CPU_PARTS)
    return [Chart("stream-cpu", "Streams: CPU per message, by side",
                  "Each peer's user and system CPU from MARK_ACK to END_ACK (getrusage), over the "
                  "stream's messages, median over rounds, in µs per message; the stacked total is "
                  "netperf's service demand. " + placement_caption(streams), "bars", "",
                  "CPU per message (µs)", series=series, stacked=True)]


def _per_message_us(r, key):
    return (r.get(key) or 0.0) * 1e6 / r["messages"]


def short_rates(data):
    shorts = [r for r in ok_cases(data, in_figures(CONNECTION_FIGURE)) if r.get("conns_per_s")]
    if not shorts:
        return []
    series = rate_series("connections/s", shorts, "conns_per_s", "conns/s")
    hover = [f"{h}<br>TIME_WAIT at the end: {r.get('time_wait')}" for h, r in zip(series.hover, shorts)]
    return [Chart("short-rates", "Short connections: connections per second",
                  "One connection per round trip (open, request, response, close); rate from the "
                  "median connection time with its 95% interval. " + placement_caption(shorts),
                  "bars", "", "connections/s", series=(Series(**{**vars(series), "hover": hover}),))]


def wire_bytes(data):
    """Bytes per call on the wire and in the application (wire.py's record columns), one bar
    pair per case: framework, record and sequence length are in its
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


def explained_costs(data):
    """--explain's model per case (analyse/explained.py): its median as a stack of what the
    counted system calls, copies and wake-ups cost at this machine's floors and the rest."""
    cases = [r for r in data.records if r["status"] == "ok" and r.get("explain_model_ns")]
    if not cases:
        return []
    labels = [case_label(r) for r in cases]
    parts = [(f"explain_model_{p}_ns", name) for p, name in
             (("syscalls", "system calls"), ("copies", "copies"), ("wakeups", "wake-ups"))]
    series = [Series(name, labels, [(r.get(key) or 0) / 1000 for r in cases], style="bar")
              for key, name in parts]
    series.append(Series("unexplained", labels,
                         [max(median_of(r) - r["explain_model_ns"], 0) / 1000 for r in cases],
                         style="bar"))
    return [Chart("explained", "Where a call's time goes (--explain)",
                  "Each case's median as the model prices its counted system calls, copies and "
                  "wake-ups at this machine's floors, and the unexplained rest (the language's "
                  "and framework's own work). " + placement_caption(cases), "bars", "",
                  "µs per call", series=tuple(series), stacked=True)]


def _both(r, side):
    """Request + response bytes of one side, None when neither is known."""
    parts = [r.get(f"{side}_req_bytes"), r.get(f"{side}_resp_bytes")]
    return None if all(p is None for p in parts) else sum(p or 0 for p in parts)


def _wire_text(r):
    def number(v):
        return "-" if v is None else f"{v:.4g}"
    text = (f"{numbered(r)}<br>wire: request {number(r.get('wire_req_bytes'))} B, response "
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


def burst_phases(data):
    """Per burst case, each phase's mean with its 95% interval, by side (issue 11's phases.csv)."""
    if not data.phases:
        return []
    records = {r["id"]: r for r in data.records}
    series, groups = [], []
    for case_id, rows in grouped(data.phases, lambda row: row["case_id"]):
        group = numbered(records[case_id]) if case_id in records else str(case_id)
        groups.append(group)
        for side, side_rows in grouped(rows, lambda row: row["side"]):
            series.append(Series(
                str(side), [str(row["phase"]) for row in side_rows],
                [us(row["mean_ns"]) for row in side_rows],
                low=[us(row.get("ci95_low_ns")) for row in side_rows],
                high=[us(row.get("ci95_high_ns")) for row in side_rows],
                hover=[_phase_text(side, row) for row in side_rows], style="bar", group=group))
    cases = [records[c] for c in dict.fromkeys(row["case_id"] for row in data.phases) if c in records]
    return [Chart("burst-phases", "Bursts: time of each phase",
                  "Mean time of each phase of a connection with its 95% interval, client and "
                  "server side. " + (placement_caption(cases) if cases else ""), "bars", "phase",
                  "time (µs)", series=tuple(series), groups=tuple(groups))]


PHASES, CLIENT_PHASES = BURST_PHASES, BURST_CLIENT_PHASES


def burst_connections(data):
    """Each phase against the connection's index, one panel per burst case (its server model):
    the socket-server paper's figures, from the round's per-connection files (PROTOCOL.md 11.4:
    the server's phases, the client's records), one point per connection without error, one
    marker per round (and per client host where the clients ran on several)."""
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
        points = {}  # (round, client host or None) -> points: a spread case's hosts apart
        for k, rows in sorted(source[r["id"]].items()):
            for row in rows:
                if row.get(f"{phase}_ns") is not None and not row.get("error"):
                    points.setdefault((k, row.get("host")), []).append(
                        (row["conn_index"], row[f"{phase}_ns"]))
        if any(points.values()):
            groups.append(group)
            series += [Series(f"round {k}" + (f" {host}" if host else ""), [i for i, _ in p],
                              [us(v) for _, v in p], style="points", group=group)
                       for (k, host), p in points.items() if p]
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
