"""Reports people look at: report.html (html.py, Plotly) and figures for papers (paper.py,
matplotlib), both drawn from one registry of figures (figures.py) over the run's Report
(output/model.py) and its samples (data.py). A package of its own, not a module of export/: the exporters there are pure text
from records, while a report reads the samples again and writes image files."""
import os
from pathlib import Path

from ipclab.common.errors import UserError
from ipclab.output.report import data as report_data

HTML_NAME = "report.html"


def write_html(run_dir, report, sections=()):
    """Writes RUN/report.html of a Report (output/model.py) and the run's samples (atomically: a
    reader never sees half a page); returns its path."""
    from ipclab.output.report import html
    path = Path(run_dir) / HTML_NAME
    page = html.render(report, report_data.load(run_dir, report), sections)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        raise UserError(f"{path}: cannot write: {e.strerror}") from None
    return path


def write_figures(run_dir, report, out_dir):
    """Writes every figure as PNG and SVG into out_dir; returns the paths written."""
    from ipclab.output.report import paper
    try:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"--figures {out_dir}: cannot create the directory: {e.strerror}") from None
    return paper.write(report_data.load(run_dir, report), Path(out_dir))
