"""The figures of a run, drawn from one registry (figures.py) over its Report (output/model.py)
and its samples (data.py): Plotly JSON for report.html (plotly.py; output/html.py lays out the
page) and PNG and SVG for papers (paper.py, matplotlib). A package of its own: the renderers of
output/ are pure text from a page, while the figures read the samples again and write image
files. Here too the writing of the pages, atomically."""
import os
from pathlib import Path

from ipclab.common.errors import UserError
from ipclab.output.report import data as report_data

HTML_NAME = "report.html"


def write_html(run_dir, report):
    """Writes RUN/report.html of a Report and the run's samples; returns its path."""
    from ipclab.output import html, sections
    from ipclab.output.report import figures
    charts = figures.charts(report_data.load(run_dir, report))
    return write_page(Path(run_dir) / HTML_NAME,
                      html.render(sections.page(report), html.Options(charts)))


def write_page(path, text):
    """Writes `text` to `path` atomically (a reader never sees half a page); returns the path."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
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
