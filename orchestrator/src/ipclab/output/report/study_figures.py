"""The studies' own figures (pure functions, RunData in, Charts out), drawn when the scenario's
`[report] figures` names them (plan/report_spec.py STUDY_FIGURES): bars of mean ± sd per
mechanism, one panel per size (the thesis's figures 4.1-4.5), every mechanism on one chart of
time against size (the Java IPC paper's figure 2), grouped bars per sequence length, bytes
and time, one panel per record (the middleware study's figures), and a histogram of one case per
mechanism with a note on its shape (the thesis's section 4.1: "near-normal", hence mean ± sd)."""
import math

from ipclab.common.units import format_ns, format_ns_interval, format_size
from ipclab.output.report.charts import Chart, Series
from ipclab.output.report.figure_parts import (grouped, numbered, ok_cases, placement_caption,
                                               setting_facet, us)
from ipclab.plan.matrix import describe_shape, variant


def _wanted(data, name):
    report = (data.document.get("scenario") or {}).get("report") or {}
    return name in (report.get("figures") or ())


def _statistic(data):
    """The statistic the scenario compares (its tables' and claims'): "median" or "mean"."""
    return ((data.document.get("scenario") or {}).get("statistics") or {}).get("compare",
                                                                               "median")


def _point(r, statistic):
    """(value, low, high) in ns: the case's median or mean with its interval."""
    t = r["trimmed"]
    if statistic == "mean":
        return t["mean"], t.get("ci95_low"), t.get("ci95_high")
    return t["median"], r.get("median_ci_low"), r.get("median_ci_high")


def bars_by_size(data):
    """One panel per size (request/response), a bar per mechanism as its case ran it: the mean
    with the standard deviation as its whiskers, as the thesis drew them (Mock included)."""
    if not _wanted(data, "bars-by-size"):
        return []
    cases = [r for r in ok_cases(data) if (r.get("payload") or "bytes") == "bytes"]
    if not cases:
        return []
    series = []
    for shape, rs in grouped(cases, describe_shape):
        for r in rs:
            t = r["trimmed"]
            series.append(Series(variant(r), [variant(r)], [us(t["mean"])],
                                 low=[us(max(t["mean"] - t["std"], 0))],
                                 high=[us(t["mean"] + t["std"])],
                                 hover=[f"{numbered(r)}<br>mean {format_ns(t['mean'])} ± sd "
                                        f"{format_ns(t['std'])}"], style="bar", group=shape))
    return [Chart("bars-by-size", "Mean time per round trip, one panel per size",
                  "Bars: the mean; whiskers: ± one standard deviation (the spread of the samples, "
                  "not an interval of the mean). " + placement_caption(cases), "bars", "",
                  "mean time (µs)", series=tuple(series),
                  groups=tuple(dict.fromkeys(s.group for s in series)))]


def mechanisms_by_size(data):
    """One chart per language pair: every mechanism (as its case ran it) as a line of time
    against the request size, log-log; with many lines, a panel per value of the setting that
    splits them best (linux-ipc-java: the paper's serialized objects, then ipclab's frames)."""
    if not _wanted(data, "mechanisms-by-size"):
        return []
    statistic = _statistic(data)
    cases = [r for r in ok_cases(data) if (r.get("payload") or "bytes") == "bytes"]
    out = []
    for pair, group in grouped(cases, lambda r: f"{r['client']}→{r['server']}"):
        facet = setting_facet(group, variant) or (lambda r: None)
        series = []
        for (panel, name), rs in grouped(group, lambda r: (facet(r), variant(r))):
            rs = sorted(rs, key=lambda r: r["request_size"])
            points = [_point(r, statistic) for r in rs]
            series.append(Series(name, [r["request_size"] for r in rs],
                                 [us(p[0]) for p in points], low=[us(p[1]) for p in points],
                                 high=[us(p[2]) for p in points],
                                 hover=[f"{numbered(r)}<br>{statistic} {format_ns_interval(*p)}"
                                        for r, p in zip(rs, points)], group=panel))
        panels = tuple(dict.fromkeys(s.group for s in series if s.group))
        out.append(Chart(
            f"mechanisms-by-size-{pair.replace('→', '-')}",
            f"{pair}: every mechanism's time per round trip against size",
            f"One line per mechanism as its case ran it; the {statistic} with its 95% interval "
            f"(over the rounds). " + ("A panel per setting value. " if panels else "")
            + placement_caption(group), "lines",
            "request size (bytes, log)", f"{statistic} time (µs, log)", True, True,
            series=tuple(series), groups=panels))
    return out


def bars_by_sequence_length(data):
    """Per record type, bars grouped by sequence length, one bar per mechanism: the request's
    bytes on the wire (when counted) and the time of a call."""
    if not _wanted(data, "bars-by-sequence-length"):
        return []
    statistic = _statistic(data)
    cases = [r for r in ok_cases(data) if (r.get("payload") or "bytes") != "bytes"]
    out = []
    for what, unit, value in (
            ("bytes", "request bytes on the wire", lambda r: r.get("wire_req_bytes")),
            ("time", f"{statistic} time per call (µs)", lambda r: us(_point(r, statistic)[0]))):
        chosen = [r for r in cases if value(r) is not None]
        if not chosen:
            continue
        series = []
        for (payload, mechanism), rs in grouped(chosen, lambda r: (r["payload"], variant(r))):
            rs = sorted(rs, key=lambda r: r["sequence_length"])
            series.append(Series(mechanism, [f"length {r['sequence_length']}" for r in rs],
                                 [value(r) for r in rs], hover=[numbered(r) for r in rs],
                                 style="bar", group=payload))
        groups = tuple(dict.fromkeys(s.group for s in series))
        out.append(Chart(
            f"sequence-length-{what}", f"Records: {unit} by sequence length",
            "One panel per record, bars grouped by the sequence length, one per framework. "
            + placement_caption(chosen), "bars", "sequence length", unit,
            series=tuple(series), groups=groups))
    return out


# A sample is called near-normal within these moments (|skewness|, |excess kurtosis|), and
# likely two-moded above Sarle's bimodality coefficient of a uniform distribution, 5/9.
NORMAL_SKEW, NORMAL_KURTOSIS, BIMODAL = 0.5, 1.0, 5 / 9


def shape_note(h):
    """What a Histogram's moments say of its shape, in words a reader can check on the bars."""
    moments = f"skewness {h.skewness:.2f}, excess kurtosis {h.excess_kurtosis:.2f}"
    n = h.n
    coefficient = (h.skewness ** 2 + 1) / (h.excess_kurtosis + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3)))
    if abs(h.skewness) <= NORMAL_SKEW and abs(h.excess_kurtosis) <= NORMAL_KURTOSIS:
        shape = "near-normal: mean ± sd describes it"
    elif coefficient > BIMODAL:
        shape = f"likely two modes (bimodality coefficient {coefficient:.2f} > 0.555)"
    elif h.skewness > 0:
        shape = "right-skewed: a tail of slow calls"
    else:
        shape = "left-skewed"
    above = 100 * (h.mean / h.median - 1) if h.median else math.nan
    return f"{shape} ({moments}; the mean is {above:+.0f}% off the median)"


def _normal_shares(h, x):
    """The share of a bin centred at each x under the normal of the Histogram's mean and sd."""
    width = h.edges[1] - h.edges[0]
    if h.std <= 0:
        return [0.0 for _ in x]
    return [width / (h.std * math.sqrt(2 * math.pi)) * math.exp(-((v - h.mean) / h.std) ** 2 / 2)
            for v in x]


def histogram(data):
    """One panel per mechanism (as its case ran it), its case at the smallest size (the first in
    the matrix when several): the share of samples per bin, and the normal curve of the same
    mean and sd at the bins' centres."""
    if not _wanted(data, "histogram"):
        return []
    chosen = {}
    for r in sorted((r for r in ok_cases(data) if data.histograms.get(r["id"])),
                    key=lambda r: (r["request_size"] + r["response_size"], r["index"])):
        chosen.setdefault(variant(r), r)
    series = []
    for r in chosen.values():
        h = data.histograms[r["id"]]
        share = [c / h.n for c in h.counts]
        centres = (h.edges[:-1] + h.edges[1:]) / 2
        group = numbered(r)
        series.append(Series(f"{h.n} samples ({h.beyond} above the axis); {shape_note(h)}",
                             [us(x) for x in h.edges], share + share[-1:], style="step",
                             group=group))
        series.append(Series(f"normal: mean {format_ns(h.mean)}, sd {format_ns(h.std)}",
                             [us(x) for x in centres], _normal_shares(h, centres), style="dash",
                             group=group))
    if not series:
        return []
    sizes = [format_size(n) for n in sorted({r["request_size"] for r in chosen.values()})]
    return [Chart("histogram", "Distribution of one case per mechanism",
                  "Steps: the share of the case's samples in each bin (its measured rounds pooled, "
                  "before outlier removal, the axis cut at the 99.5th percentile); dashed: the "
                  "normal distribution of the same mean and standard deviation, which a mean ± sd "
                  f"summary assumes. Request sizes: {', '.join(sizes)}. " + placement_caption(
                      list(chosen.values())), "lines", "time (µs)", "share of samples",
                  series=tuple(series), groups=tuple(dict.fromkeys(s.group for s in series)))]
