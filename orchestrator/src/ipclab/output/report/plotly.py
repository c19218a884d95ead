"""The figures (report/charts.py) as Plotly JSON for report.html: {data, layout} per chart for
Plotly.newPlot, its groups a menu showing one at a time. Pure: Charts in, plain data out."""
import html
import math

import numpy as np

# Marks told apart without colour too: dash patterns and marker symbols cycle with the series.
DASHES = ("solid", "dot", "dashdot", "longdash")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "triangle-down", "star")
CONFIG = {"displaylogo": False, "responsive": True}


def figure(chart):
    """{data, layout} for Plotly.newPlot; a chart with groups gets a menu showing one at a time."""
    traces, owners = [], []
    for panel, (group, series, heats) in enumerate(chart.panels()):
        for i, s in enumerate(series):
            leader = series[i - 1] if s.companion and i else None
            traces.append(_trace(s, i, chart, visible=panel == 0, leader=leader))
            owners.append(panel)
        for h in heats:
            traces.append(_heat_trace(h, chart, visible=panel == 0))
            owners.append(panel)
    layout = {"title": {"text": _e(chart.title)}, "hovermode": "closest", "height": 460,
              "margin": {"t": 60, "b": 90 if chart.kind == "bars" else 60},
              "legend": {"font": {"size": 11}},
              "xaxis": _axis(chart.x_title, chart.x_log), "yaxis": _axis(chart.y_title, chart.y_log)}
    if chart.kind == "bars":
        layout["barmode"] = "stack" if chart.stacked else "group"
        layout["xaxis"]["automargin"] = True
    if chart.kind == "heatmap":
        layout["xaxis"]["type"] = layout["yaxis"]["type"] = "category"
    if chart.groups:
        layout["updatemenus"] = [{
            "x": 0, "xanchor": "left", "y": 1.13, "yanchor": "top", "showactive": True,
            "buttons": [{"label": _e(g), "method": "restyle",
                         "args": [{"visible": [o == k for o in owners]}]}
                        for k, g in enumerate(chart.groups)]}]
        layout["margin"]["t"] = 100
    return {"data": traces, "layout": layout}


def _axis(title, log):
    axis = {"title": {"text": _e(title)}, "zeroline": False}
    if log:
        axis["type"] = "log"
    return axis


def _trace(s, i, chart, visible, leader=None):
    """A Plotly trace of a series; a companion (`leader`: the series it goes with) joins its
    leader's legend entry and is shown and hidden with it."""
    trace = {"name": _e(s.name), "x": _numbers(s.x), "y": _numbers(s.y), "visible": visible,
             "legendgroup": _e((leader or s).name)}
    if leader is not None:
        trace["showlegend"] = False
    if s.hover:
        trace["text"] = s.hover
        trace["hovertemplate"] = "%{text}<extra></extra>"
    if s.style == "bar":
        trace["type"] = "bar"
        trace["marker"] = {"pattern": {"shape": ["", "/", "\\", "x", ".", "+"][i % 6]}}
    else:
        trace["type"] = "scatter"
        trace["mode"] = {"step": "lines", "points": "markers"}.get(s.style, "lines+markers")
        if not s.hover:  # the series' name with the point, in the axes' units
            trace["hovertemplate"] = (f"{_e(s.name)}<br>{_e(chart.x_title)}: %{{x:.4g}}<br>"
                                      f"{_e(chart.y_title)}: %{{y:.4g}}<extra></extra>")
        trace["line"] = {"dash": "dash" if s.style == "dash" else DASHES[i % len(DASHES)]}
        if s.style == "step":
            trace["line"]["shape"] = "hv"
        trace["marker"] = {"symbol": SYMBOLS[(i // 2 if chart.kind == "lines" else i) % len(SYMBOLS)]}
    if s.low is not None and s.high is not None:
        trace["error_y"] = {"type": "data", "symmetric": False,
                            "array": _numbers([_gap(h, y) for h, y in zip(s.high, s.y)]),
                            "arrayminus": _numbers([_gap(y, lo) for y, lo in zip(s.y, s.low)])}
    return trace


def _heat_trace(h, chart, visible):
    return {"type": "heatmap", "x": h.columns, "y": h.rows, "z": [_numbers(row) for row in h.z],
            "text": h.text, "texttemplate": "%{text}", "customdata": h.hover or h.text,
            "hovertemplate": "client %{y} → server %{x}<br>%{customdata}<extra></extra>",
            "colorscale": "Viridis",
            "colorbar": {"title": {"text": _e(chart.colour_title)}}, "visible": visible,
            "name": _e(h.group or "")}


def _gap(a, b):
    return None if a is None or b is None else max(a - b, 0.0)


def _numbers(values):
    """JSON-safe and short: 5 significant digits, None for a missing or non-finite value."""
    out = []
    for v in values:
        if isinstance(v, str):
            out.append(v)
        elif v is None or not math.isfinite(v):
            out.append(None)
        else:
            out.append(float(f"{float(v):.5g}") if not isinstance(v, (int, np.integer)) else int(v))
    return out


def _e(text):
    return html.escape(str(text), quote=True)
