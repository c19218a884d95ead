"""Figures for papers: every chart of the registry as PNG and SVG with matplotlib (Agg: no
display needed). Readable in greyscale: series differ by marker and line style, bars by hatching,
heat maps use viridis (its lightness rises monotonically) with the value written in each cell.
The caption (units, placement) is printed under each figure."""
import math
import re
import textwrap

import matplotlib

matplotlib.use("Agg")  # before pyplot: never a display, also under a desktop session
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import LogFormatter, NullFormatter  # noqa: E402

MARKERS = ("o", "s", "^", "D", "v", "x", "+", "*", "P", "h")
LINESTYLES = ("-", "--", ":", "-.")
HATCHES = ("", "///", "\\\\\\", "xxx", "...", "+++", "ooo")
GREYS = ("0.1", "0.45", "0.7", "0.3", "0.85", "0.55")


class PlainLog(LogFormatter):
    """matplotlib's choice of which log ticks to label, written plainly (0.9, 60, 1000): not
    10² or 9e-01 on a paper's axis."""

    def __call__(self, x, pos=None):
        return f"{x:g}" if super().__call__(x, pos) else ""


def write(data, out_dir):
    """Writes <key>.png and <key>.svg per chart; returns the paths."""
    from ipclab.output.report.figures import charts
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for chart in charts(data):
        fig = draw(chart)
        for suffix in ("png", "svg"):
            path = out_dir / f"{_slug(chart.key)}.{suffix}"
            fig.savefig(path, dpi=150 if suffix == "png" else None)
            written.append(path)
        plt.close(fig)
    return written


def draw(chart):
    """One matplotlib Figure for a chart: one axes per panel (small multiples)."""
    panels = chart.panels()
    columns = min(3, len(panels))
    rows = math.ceil(len(panels) / columns)
    legend_beside = 3.0 if max(_entries(series) for _, series, _ in panels) > 6 else 0.0
    first = [s.name for s in panels[0][1]]
    fig, axes = plt.subplots(rows, columns, squeeze=False,
                             figsize=(5.2 * columns + legend_beside, 3.8 * rows + 0.8))
    for k, (ax, (group, series, heats)) in enumerate(zip(axes.flat, panels)):
        legend = k == 0 or [s.name for s in series] != first  # once, where panels share names
        if chart.kind == "heatmap":
            for heat in heats:
                _heat(ax, heat, chart)
        elif chart.kind == "bars":
            _bars(ax, series, chart, legend=legend)
        else:
            _lines(ax, series, chart, legend=legend)
        if group:
            ax.set_title(textwrap.fill(group, 48), fontsize=8)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(chart.title, fontsize=12)
    caption = textwrap.fill(chart.caption, 40 + 75 * columns)
    fig.text(0.01, 0.005, caption, fontsize=8, va="bottom")
    height = fig.get_size_inches()[1]
    # room for the title above the panels and the caption below them; laid out once here, so
    # saving needs no second layout pass (bbox_inches="tight" doubled the time of each file)
    below = (0.25 + 0.14 * (caption.count("\n") + 1)) / height
    fig.tight_layout(rect=(0, below, 1, 1 - 0.5 / height))
    return fig


def _lines(ax, series, chart, legend=True):
    paired = any(s.companion for s in series)
    for i, s in enumerate(series):
        points = [(x, y) for x, y in zip(s.x, s.y) if y is not None]
        if not points:
            continue
        x, y = zip(*points)
        style = {"color": GREYS[i % len(GREYS)] if s.style == "points" else None,
                 "label": None if s.companion else s.name}  # one entry: the caption says p99
        if s.style == "step":
            ax.step(x, y, where="post", linestyle=LINESTYLES[i % len(LINESTYLES)], **style)
        elif s.style == "points":
            ax.plot(x, y, linestyle="none", marker=MARKERS[i % len(MARKERS)], markersize=2, **style)
        else:  # p50/p99 pairs: one marker per pair, solid p50, dashed p99
            k = i // 2 if paired else i
            ax.plot(x, y, linestyle="--" if s.style == "dash" else "-" if paired else LINESTYLES[k % 4],
                    marker=MARKERS[k % len(MARKERS)], markersize=4, **style)
            if s.low is not None and s.high is not None:
                ax.errorbar(x, y, yerr=_errors(s), fmt="none", ecolor="0.3", capsize=2, lw=0.8)
    _axes(ax, chart)
    entries = _entries(series)
    if legend and entries > 6:  # many series: beside the axes, not over the data
        ax.legend(fontsize=6, ncols=2 if entries > 12 else 1, loc="upper left",
                  bbox_to_anchor=(1.02, 1), borderaxespad=0)
    elif legend and entries > 1:
        ax.legend(fontsize=6)


def _entries(series):
    return sum(not s.companion for s in series)


def _bars(ax, series, chart, legend=True):
    categories = list(dict.fromkeys(x for s in series for x in s.x))
    width = 0.8 if chart.stacked else 0.8 / max(len(series), 1)
    bottom = [0.0] * len(categories)
    for i, s in enumerate(series):
        values = dict(zip(s.x, s.y))
        heights = [values.get(c) or 0.0 for c in categories]
        offsets = [k if chart.stacked else k - 0.4 + width * (i + 0.5) for k in range(len(categories))]
        ax.bar(offsets, heights, width, bottom=bottom if chart.stacked else None, label=s.name,
               color=GREYS[i % len(GREYS)], edgecolor="black", linewidth=0.5,
               hatch=HATCHES[i % len(HATCHES)])
        if s.low is not None and s.high is not None and not chart.stacked:
            below, above = _errors(s)  # by category: a series may lack some (a side's phases)
            gaps = {x: (b, a) for x, b, a in zip(s.x, below, above)}
            yerr = [[gaps.get(c, (0.0, 0.0))[k] for c in categories] for k in (0, 1)]
            ax.errorbar(offsets, heights, yerr=yerr, fmt="none", ecolor="black", capsize=2, lw=0.8)
        if chart.stacked:
            bottom = [b + h for b, h in zip(bottom, heights)]
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels([textwrap.fill(c, 22) for c in categories], rotation=60, ha="right", fontsize=6)
    _axes(ax, chart, x=False)
    if legend and len(series) > 1:
        ax.legend(fontsize=7)


def _heat(ax, heat, chart):
    z = [[math.nan if v is None else v for v in row] for row in heat.z]
    image = ax.imshow(z, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(heat.columns)), heat.columns)
    ax.set_yticks(range(len(heat.rows)), heat.rows)
    finite = [v for row in z for v in row if not math.isnan(v)]
    middle = (min(finite) + max(finite)) / 2 if finite else 0
    for i, row in enumerate(heat.text):
        for j, text in enumerate(row):
            dark = math.isnan(z[i][j]) or z[i][j] < middle
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if dark and not math.isnan(z[i][j]) else "black")
    ax.set_xlabel(chart.x_title)
    ax.set_ylabel(chart.y_title)
    ax.figure.colorbar(image, ax=ax, label=chart.colour_title, shrink=0.8)


def _axes(ax, chart, x=True):
    if x:
        ax.set_xlabel(chart.x_title)
        if chart.x_log:
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(PlainLog())
            ax.xaxis.set_minor_formatter(NullFormatter())  # 2×10³ 3×10³ … overlapped
    ax.set_ylabel(chart.y_title)
    if chart.y_log:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(PlainLog())
        # a range under two decades gets labelled minor ticks too (20, 30, 60)
        ax.yaxis.set_minor_formatter(PlainLog(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
    ax.grid(True, which="major", linewidth=0.3, color="0.8")


def _errors(s):
    """[below, above] distances of the interval from each value (0 where a bound is missing)."""
    below = [0.0 if y is None or lo is None else max(y - lo, 0.0) for y, lo in zip(s.y, s.low)]
    above = [0.0 if y is None or hi is None else max(hi - y, 0.0) for y, hi in zip(s.y, s.high)]
    return [below, above]


def _slug(key):
    return re.sub(r"[^A-Za-z0-9._-]+", "-", key)
