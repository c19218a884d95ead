"""report.html and compare.html: a page (output/page.py) as one self-contained HTML page. Its
headline sections first (a study's claims), then the figures when the page has them, then every
other section: its heading, lead, tables (sortable by a click on a header, numbers by value) and
lines. Pure: a page and its figures (report/figures.py) in, text out.

Plotly, because its JavaScript library can be inlined once and every figure then is a few
kilobytes of JSON drawn by it (report/plotly.py): hover (case, median, interval), zoom and log
axes work offline. The page names no URL: plotly.js is inlined (only in a page with figures),
styles are in the page, and a Content-Security-Policy of default-src 'none' makes the browser
refuse any request it might still try."""
import html
import json
from dataclasses import dataclass

from plotly.offline import get_plotlyjs

from ipclab.output.page import HTML, shown
from ipclab.output.report import plotly

NEWLINE = "\n"

@dataclass(frozen=True)
class Options:
    charts: list | None = None   # the page's figures (report/figures.py); None: a page without


def render(page, options=None):
    charts = (options or Options()).charts
    body, placed = [f"<h1>{_e(page.title)}</h1>"], charts is None
    for section in page.shown(HTML):
        if not placed and not section.headline:
            body.append(_figures(charts))
            placed = True
        body.append(_section(section))
    if not placed:
        body.append(_figures(charts))
    figures_json = json.dumps([plotly.figure(c) for c in charts or ()], separators=(",", ":"),
                              allow_nan=False).replace("</", "<\\/")
    library = f"<script>{get_plotlyjs()}</script>" if charts is not None else ""
    return PAGE.format(title=_e(page.title), style=STYLE, plotly=library, body="\n".join(body),
                       figures=figures_json, config=json.dumps(plotly.CONFIG), script=SCRIPT)


def _section(section):
    parts = ([f"<h2 id='{_e(section.key)}'>{_e(_capital(section.title))}</h2>"]
             if section.title else [])
    parts += [f"<p class='caption'>{_e(p)}</p>" for p in section.lead]
    for table in section.tables:
        parts += [f"<h3>{_e(table.title)}</h3>"] if table.title else []
        parts.append(_table(table))
    parts.append(_lines(section.lines))
    return "".join(parts)


def _table(table):
    """A sortable table, its caption under it, then its notes."""
    if not table.headers:   # (name, value) rows
        return "<table class='kv'>" + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>"
                                              for k, v in table.rows) + "</table>"
    if not table.rows:
        grid = f"<p class='caption'>{_e(table.caption)}</p>" if table.caption else ""
        return grid + _lines(table.notes)
    head = "".join(f"<th>{_e(h.replace(NEWLINE, ' '))}</th>" for h in table.headers)
    lines = []
    for k, row in enumerate(table.rows):
        keys = table.keys[k] if table.keys else ()
        cells = "".join(f"<td{_attributes(table, i, keys)}>{_cell(c)}</td>"
                        for i, c in enumerate(row))
        lines.append(f"<tr{_tone(table.tone(k))}>{cells}</tr>")
    under = f"<caption>{_e(table.caption)}</caption>" if table.caption else ""
    return (f"<div class='wide'><table class='sortable'>{under}<thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(lines)}</tbody></table></div>" + _lines(table.notes))


def _attributes(table, column, keys):
    align = " class='num'" if table.is_right(column) else ""
    key = keys[column] if keys else None
    return align + (f" data-k='{key:.6g}'" if isinstance(key, (int, float)) else "")


def _cell(text):
    """A cell's text; what follows its "\\n" (a value's interval) on a line of its own, smaller:
    a case's row then fits a 1400-pixel window with every column."""
    value, found, rest = str(text).partition("\n")
    if not found:
        return _e(value)
    return f"{_e(value)}<br><span class='ci'>{_e(rest).replace(NEWLINE, '<br>')}</span>"


def _lines(lines):
    items = "".join(f"<li{_tone(line.tone)}>{_e(line)}</li>"
                    for line in shown(lines, verbose=True))
    return f"<ul class='notes'>{items}</ul>" if items else ""


def _tone(tone):
    return f" class='{tone}'" if tone else ""


def _figures(charts):
    if not charts:
        return "<h2>Figures</h2><p>No case finished: nothing to draw.</p>"
    links = "".join(f"<li><a href='#figure-{_e(c.key)}'>{_e(c.title)}</a></li>" for c in charts)
    blocks = "".join(f"<section id='figure-{_e(chart.key)}'><div class='fig' id='fig-{i}'></div>"
                     f"<p class='caption'>{_e(chart.caption)}</p></section>"
                     for i, chart in enumerate(charts))
    return f"<h2>Figures</h2><ul class='toc'>{links}</ul>{blocks}"


def _capital(title):
    return title[:1].upper() + title[1:]


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
tr.failed td{background:#fde8e8}tr.good td{background:#e8f6e8}tr.quiet td{color:#888}
caption{caption-side:bottom;text-align:left;color:#555;padding:.3em 0}
table.kv th{width:14em;font-weight:normal;color:#555}
.caption{color:#444;font-size:.9em;max-width:70em}
li.warning{border-left:4px solid #e0a800;padding-left:.4em}li.failed{color:#a00}
li.strong{font-weight:bold}table.kv td{word-break:break-word}
.wide{overflow-x:auto}.fig{min-height:460px}ul.notes li{margin:.2em 0}
"""

SCRIPT = """
(function(){
  var figures = JSON.parse(document.getElementById('figure-data').textContent);
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
{plotly}
</head><body>
{body}
<script type="application/json" id="figure-data">{figures}</script>
<script>var CONFIG = {config};{script}</script>
</body></html>
"""
