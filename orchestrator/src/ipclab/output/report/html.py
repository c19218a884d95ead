"""report.html: one self-contained page (pure: RunData in, text out).

Plotly, because its JavaScript library can be inlined once and every figure then is a few
kilobytes of JSON drawn by it: hover (case, median, interval), zoom and log axes work offline.
The page names no URL: plotly.js is inlined, styles are in the page, and a Content-Security-Policy
of default-src 'none' makes the browser refuse any request it might still try."""
import html
import json
import math

import numpy as np
from plotly.offline import get_plotlyjs

from ipclab.output.columns import COLUMNS, applicable
from ipclab.output.report import figures
from ipclab.output.report import sections as report_sections
from ipclab.output.report.data import RunData
from ipclab.common.units import format_ns
from ipclab.plan import patterns
from ipclab.plan.matrix import describe_exclusion

# Marks told apart without colour too: dash patterns and marker symbols cycle with the series.
DASHES = ("solid", "dot", "dashdot", "longdash")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "triangle-down", "star")
CONFIG = {"displaylogo": False, "responsive": True}


def render(report, data=None, sections=()):
    """The page of a Report (output/model.py); `data` (report/data.py) adds the samples the
    figures draw. What was found comes first (a study's claims and their verdicts; otherwise the
    headline figure, first of the figures), then the figures, the study tables (a pivot,
    stream-cpu, server-models, as in table.md), every case, the bytes on the wire and the burst
    phases; `sections` are extra (title, html) blocks after them (`ipclab compare`, see
    table_section); the warnings, and last the scenario and the machine it ran on."""
    document = report.document
    charts = figures.charts(data if data is not None else RunData(report))
    body = [f"<h1>{_e(report.title)}</h1>", _status(document)]
    body += _sections(report_sections.claims(report))
    body.append(_contents(charts))
    body += [_chart_block(i, chart) for i, chart in enumerate(charts)]
    body += _sections(report_sections.studies(report))
    body += ["<h2 id='cases'>Cases</h2>", summary_table(report.records, report.ratio_caption)]
    body += _sections([*report_sections.wire(report), *report_sections.explained(report),
                       *report_sections.phases(report), *sections])
    body.append(_notes(report))
    body.append(f"<div class='meta'><div>{_scenario(document)}</div>"
                f"<div>{_environment(document)}</div></div>")
    figures_json = json.dumps([plotly_figure(c) for c in charts], separators=(",", ":"),
                              allow_nan=False).replace("</", "<\\/")
    return PAGE.format(title=_e(report.title), style=STYLE, plotly=get_plotlyjs(),
                       body="\n".join(body), figures=figures_json, config=json.dumps(CONFIG),
                       script=SCRIPT)


def _sections(titled):
    return [f"<h2>{_e(t)}</h2>{fragment}" for t, fragment in titled]


def table_section(title, headers, table_rows):
    """A (title, html) section of a plain sortable table, for other reports to add to the page
    (`ipclab compare`'s verdicts, a study's pivot): headers are strings, rows lists of cells."""
    return title, report_sections.table(headers, table_rows)


def compare_section(comparison):
    """The seam for `ipclab compare` in HTML: its plain data (`Comparison.as_dict()`: a, b,
    rule, varied, pairs) as a sortable table section; compare.py computes, this only lays out."""
    def cells(pair):
        if pair["status"] != "compared":
            reason = f": {pair['reason']}" if pair.get("reason") else ""
            return [pair["label"], "", "", "", "", pair["status"] + reason]
        interval = f"{pair['ratio']:.3f}"
        if pair.get("low") is not None:
            interval += f" [{pair['low']:.3f}–{pair['high']:.3f}]"
        return [pair["label"], format_ns(pair["median_a"]), format_ns(pair["median_b"]), interval,
                "-" if pair.get("p") is None else f"{pair['p']:.3g}", pair["verdict"]]
    title, table = table_section(f"Compared: B = {comparison['b']} against A = {comparison['a']}",
                                 ["case", "A median", "B median", "B/A [95% CI]", "p", "verdict"],
                                 [cells(p) for p in comparison["pairs"]])
    varied = "".join(f"<li>{_e(k)}: {_e(a)} (A) → {_e(b)} (B)</li>"
                     for k, (a, b) in comparison["varied"].items())
    claims = comparison.get("claims") or []
    changed = "".join(f"<li>claim changed: {_e(c['claim'])}: {_e(c['a'])} (A) → {_e(c['b'])} (B)</li>"
                      for c in claims if c["a"] != c["b"])
    kept = (f"<p>Claims: {sum(c['a'] != c['b'] for c in claims)} of {len(claims)} changed verdict."
            f"</p><ul>{changed}</ul>" if claims else "")
    return title, (f"<ul>{varied}</ul>{kept}{table}"
                   f"<p class='caption'>{_e(comparison['rule'])}</p>")


# --- the figures as Plotly JSON ------------------------------------------------------------------

def plotly_figure(chart):
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


# --- the page's text -----------------------------------------------------------------------------

SORT_KEYS = {
    "index": lambda r: r["index"],
    "median": lambda r: (r.get("trimmed") or {}).get("median"),
    "mean": lambda r: (r.get("trimmed") or {}).get("mean"),
    "std": lambda r: (r.get("trimmed") or {}).get("std"),
    "p99": lambda r: (r.get("trimmed") or {}).get("p99"),
    "ratio": lambda r: r.get("ratio"),
    **{k: (lambda r, k=k: r.get(k)) for k in ("msgs_per_s", "mib_per_s", "cpu_us_per_msg",
                                             "conns_per_s", "lost", "time_wait", "round_spread")},
}


def summary_table(records, ratio_caption=None):
    """Every case, every column of the wide table; a click on a header sorts by it (numbers by
    value, not by their text)."""
    shown = [r for r in records]
    columns = applicable(COLUMNS, shown)
    head = "".join(f"<th>{_e(c.header)}</th>" for c in columns)
    lines = []
    for r in shown:
        cells = []
        for c in columns:
            measured = r["status"] == "ok" or c.key == "index"
            key = SORT_KEYS.get(c.key, lambda r: None)(r) if measured else None
            sort = f" data-k='{key:.6g}'" if isinstance(key, (int, float)) else ""
            align = " class='num'" if c.right else ""
            cells.append(f"<td{align}{sort}>{_two_lines(c.cell(r))}</td>")
        status = "" if r["status"] == "ok" else f" class='{_e(r['status'])}'"
        lines.append(f"<tr{status}>{''.join(cells)}</tr>")
    caption = "Times after outlier removal; intervals are 95%. Click a header to sort."
    caption += f" {_e(ratio_caption)}." if ratio_caption else ""
    return (f"<div class='wide'><table class='sortable' id='summary'><caption>{caption}</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(lines)}</tbody></table></div>")


def _two_lines(text):
    """A value above its interval ("1.9 ms" over "[1.5–2.4]"): a case's row fits a 1400-pixel
    window with every column, where one line per cell ran 170 characters wide."""
    for mark in (" [", " ± "):
        value, found, rest = str(text).partition(mark)
        if found:
            return f"{_e(value)}<br><span class='ci'>{_e(mark.lstrip() + rest)}</span>"
    return _e(text)


def _status(document):
    if document.get("interrupted"):
        return ("<p class='warn'>This run was stopped before it finished: only its finished "
                "rounds are shown.</p>")
    if not document.get("complete"):
        return "<p class='warn'>This run had not finished when this report was written.</p>"
    return ""


def _scenario(document):
    """The scenario's parameters, those that only patterns it does not run read left out (a
    round-trip run lists no server models, backlog or connectors)."""
    scenario = document["scenario"]
    run = scenario.get("run", {})
    unused = _unused_keys(scenario.get("matrix", {}).get("pattern") or [patterns.DEFAULT.name])
    items = [("scenario", scenario["name"]), ("description", scenario.get("description", "")),
             ("source", scenario.get("source", ""))]
    matrix = scenario.get("matrix", {})
    items += [(k, ", ".join(map(str, v)) if isinstance(v, list) else str(v))
              for k, v in matrix.items() if k not in unused and k not in ("exclude", "design")]
    items += [("exclude", describe_exclusion(t)) for t in matrix.get("exclude") or []]
    items += [(f"design: {part}", describe_exclusion({a: [x] for a, x in table.items()}))
              for part, table in (matrix.get("design") or {}).items()]
    items += [(k, str(v)) for k, v in run.items() if k not in unused]
    items += [("statistics", ", ".join(f"{k} {v}" for k, v in scenario.get("statistics", {}).items()))]
    return "<h2>Scenario</h2>" + _pairs(items)


def _unused_keys(present):
    """The matrix axes and [run] keys that only patterns not in `present` read."""
    def keys(p):
        return {*p.run_keys, *p.axes}
    used = set().union(*(keys(patterns.of(name)) for name in present))
    return set().union(*(keys(p) for p in patterns.PATTERNS.values())) - used


def _environment(document):
    env = document.get("environment", {})
    items = [(k, _text(v)) for k, v in env.items() if k != "toolchains"]
    items += [(f"toolchain {k}", v) for k, v in (env.get("toolchains") or {}).items()]
    for probe in document.get("preflight") or []:
        if "skipped" in probe:   # the floor was not built, or the placement is not here
            items.append((f"preflight {probe['placement']}", f"skipped: {probe['skipped']}"))
            continue
        items.append((f"preflight {probe['placement']}",
                      f"{probe['mechanism']} {probe['size']} B C floor, CPU {probe['client_cpu']}→"
                      f"{probe['server_cpu']}: median {format_ns(probe['median_ns'])}, "
                      f"p99 {format_ns(probe['p99_ns'])}"))
    return "<h2>Environment</h2>" + _pairs(items)


def _text(v):
    if isinstance(v, list):
        return ", ".join(map(str, v))
    return "unknown" if v is None else str(v)


def _pairs(items):
    return "<table class='kv'>" + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>"
                                          for k, v in items) + "</table>"


def _contents(charts):
    links = "".join(f"<li><a href='#{_e(c.key)}'>{_e(c.title)}</a></li>" for c in charts)
    if not charts:
        return "<h2>Figures</h2><p>No case finished: nothing to draw.</p>"
    return f"<h2>Figures</h2><ul class='toc'>{links}</ul>"


def _chart_block(i, chart):
    return (f"<section id='{_e(chart.key)}'><div class='fig' id='fig-{i}'></div>"
            f"<p class='caption'>{_e(chart.caption)}</p></section>")


def _notes(report):
    """The warnings by kind (as the terminal sums them up), the run's notes, then each case's
    warnings and the reason of each case that did not finish."""
    notes = [f"{g.what} in {len(g.cases)} case{'s' if len(g.cases) != 1 else ''} "
             f"({', '.join(map(str, g.cases))}): {g.todo}" for g in report.warnings]
    notes += list(report.notes) + report.lost
    for r in report.records:
        notes += [f"#{r['index']} {figures.case_label(r)}: {w['text'] if isinstance(w, dict) else w}"
                  for w in r.get("warnings") or []]
        if r["status"] not in ("ok",) and r.get("reason"):
            notes.append(f"#{r['index']} {figures.case_label(r)}: {r['status']}: {r['reason']}")
    if not notes:
        return "<h2>Warnings and notes</h2><p>None.</p>"
    return "<h2>Warnings and notes</h2><ul class='notes'>" + "".join(
        f"<li>{_e(n)}</li>" for n in notes) + "</ul>"


def _e(text):
    return html.escape(str(text), quote=True)


STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1300px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #ddd;padding:.2em .5em;vertical-align:top}
th{background:#f3f3f3;text-align:left}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th.asc::after{content:" \\25B2"}table.sortable th.desc::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td .ci{font-size:.85em;color:#555}
tr.failed td{background:#fde8e8}tr.not-applicable td,tr.unavailable td{color:#888}
caption{caption-side:bottom;text-align:left;color:#555;padding:.3em 0}
table.kv th{width:14em;font-weight:normal;color:#555}
.caption{color:#444;font-size:.9em;max-width:70em}
.warn{background:#fff4d6;padding:.5em;border-left:4px solid #e0a800}
.meta{display:flex;flex-wrap:wrap;gap:2em}.meta>div{flex:1 1 30em;min-width:0}
.meta td{word-break:break-word}
.wide{overflow-x:auto}.fig{min-height:460px}ul.notes li{margin:.2em 0}
"""

SCRIPT = """
(function(){
  var figures = JSON.parse(document.getElementById('figures').textContent);
  figures.forEach(function(f, i){ Plotly.newPlot('fig-' + i, f.data, f.layout, CONFIG); });
  document.querySelectorAll('table.sortable').forEach(function(table){
    table.querySelectorAll('th').forEach(function(th, col){
      th.addEventListener('click', function(){
        var asc = !th.classList.contains('asc');
        table.querySelectorAll('th').forEach(function(h){ h.classList.remove('asc', 'desc'); });
        th.classList.add(asc ? 'asc' : 'desc');
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        function key(row){ var c = row.cells[col]; var k = c.getAttribute('data-k');
          return k === null ? c.textContent : parseFloat(k); }
        rows.sort(function(a, b){
          var x = key(a), y = key(b), nx = typeof x === 'number', ny = typeof y === 'number';
          if (nx !== ny) return nx ? -1 : 1;   // numbers first, blanks and text after
          var d = nx ? x - y : x.localeCompare(y);
          return asc ? d : -d; });
        rows.forEach(function(r){ body.appendChild(r); });
      });
    });
  });
})();
"""

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
<script>{plotly}</script>
</head><body>
{body}
<script type="application/json" id="figures">{figures}</script>
<script>var CONFIG = {config};{script}</script>
</body></html>
"""
