"""The report's figures of pattern load (PROTOCOL.md 11.5; pure functions, RunData in, Charts
out): the latency–throughput curve, one line per way of serving (mechanism, server model, pair,
clients) over the rates it ran at, and each case's percentile spectrum, response time (from the
intended start) beside service time (from the actual send)."""
from ipclab.common.units import format_ns, format_rate
from ipclab.output.report.charts import Chart, Series
from ipclab.output.report.figure_parts import grouped, in_figures, numbered, ok_cases, \
    placement_caption, us
from ipclab.plan import matrix
from ipclab.plan import settings as setting_table
from ipclab.plan.patterns import LOAD, LOAD_FIGURES

CURVE = (("p50", "line"), ("p99", "dash"), ("p99_9", "dash"))
SPECTRUM = ("p50", "p90", "p99", "p99_9", "max")


def _load_cases(data):
    return [r for r in ok_cases(data, in_figures(LOAD_FIGURES)) if r.get("achieved_per_s")]


def _line(r):
    """A case's line: its label without the rate (the x axis)."""
    settings = tuple((n, v) for n, v in (r.get("settings") or {}).items()
                     if n != setting_table.RATE.name)
    return matrix.case_label({**r, "settings": settings})


def load_curve(data):
    cases = _load_cases(data)
    if not cases:
        return []
    sweeps = [r for r in cases if r.get("knee_per_s") is not None]
    series = [s for r in sweeps for s in _sweep_series(r)] + _knees(sweeps)
    for line, members in grouped([r for r in cases if r.get("knee_per_s") is None], _line):
        members = sorted(members, key=lambda r: r["achieved_per_s"])
        for i, (p, style) in enumerate(CURVE):
            series.append(Series(
                f"{line}" if i == 0 else f"{line} {p.replace('_', '.')}",
                [r["achieved_per_s"] for r in members],
                [us(r.get(f"response_{p}")) for r in members],
                hover=[_hover(r, p) for r in members], style=style, companion=i > 0))
    return [Chart("load-curve", "Load: response time against achieved rate",
                  "Response time from each request's intended start (coordinated omission "
                  "corrected): p50 solid, p99 and p99.9 dashed, each the median over rounds, "
                  "against the achieved rate; a line that bends up or stops short of its target "
                  "rate is past its capacity. A rate sweep draws its steps' p99 (its middle "
                  "round) and marks its knee. " + placement_caption(cases), "lines",
                  "achieved requests/s", "response time (µs, log)", y_log=True,
                  series=tuple(series))]


def _sweep_series(r):
    """A rate sweep's steps of its middle round: response p99 against achieved rate, as points
    (a step past the knee may achieve less than one before it, so a line would fold back)."""
    key = LOAD.entry_key
    rounds = [e[key] for e in r.get("rounds") or [] if e.get("status") == "ok"
              and (e.get(key) or {}).get("steps")]
    if not rounds:
        return []
    steps = sorted((s for s in rounds[len(rounds) // 2]["steps"] if s.get("status") == "ok"),
                   key=lambda s: s["rate"])
    return [Series(f"{_line(r)} (sweep steps, p99)", [s["achieved_per_s"] for s in steps],
                   [us(s["response_p99"]) for s in steps], style="points",
                   hover=[f"{numbered(r)}<br>step at {s['rate']:,}/s: achieved "
                          f"{format_rate(s['achieved_per_s'])}/s, p99 "
                          f"{format_ns(s['response_p99'] or 0)}, "
                          f"{'passed' if s.get('passed') else 'failed'}" for s in steps])]


def _knees(sweeps):
    """Every sweep's knee, one marker each at its SLO: the median over rounds, the rounds' range
    in the hover."""
    if not sweeps:
        return []
    return [Series("knee (at its SLO)", [r["knee_per_s"] for r in sweeps],
                   [us(r.get("slo_ns")) for r in sweeps], style="points",
                   hover=[f"{numbered(r)}<br>knee {r['knee_per_s']:,.0f}/s (rounds "
                          f"{r.get('knee_low'):,.0f}–{r.get('knee_high'):,.0f}), SLO "
                          f"{format_ns(r.get('slo_ns') or 0)}" for r in sweeps])]


def _hover(r, p):
    return (f"{numbered(r)}<br>achieved {format_rate(r['achieved_per_s'])} of "
            f"{r.get('target_per_s'):,}/s<br>response {p.replace('_', '.')} "
            f"{format_ns(r.get(f'response_{p}') or 0)}, service "
            f"{format_ns(r.get(f'service_{p}') or 0)}")


def load_spectrum(data):
    cases = _load_cases(data)
    if not cases:
        return []
    names = [p.replace("_", ".") for p in SPECTRUM]
    series = []
    for r in cases:
        group = numbered(r)
        for kind, style in (("response", "line"), ("service", "dash")):
            values = [us(r.get(f"{kind}_{p}")) for p in SPECTRUM]
            series.append(Series(f"{kind} time", names, values, style=style, group=group,
                                 hover=[f"{group}<br>{kind} {n}: {format_ns(r.get(f'{kind}_{p}') or 0)}"
                                        for n, p in zip(names, SPECTRUM)]))
    return [Chart("load-spectrum", "Load: percentile spectrum per case",
                  "Each case's response time (from the intended start) and service time (from "
                  "the actual send) at p50 … max, medians over rounds: where the two part, "
                  "requests waited for the server, which a closed-loop client would not have "
                  "recorded. " + placement_caption(cases), "lines", "percentile",
                  "time (µs, log)", y_log=True, series=tuple(series),
                  groups=tuple(numbered(r) for r in cases))]
