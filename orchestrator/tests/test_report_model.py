"""One Report per run (output/model.py), handed to every renderer: report.html shows what table.md
and the terminal show (the study tables and pivots, the bytes on the wire, the phases), and
table.md rendered from the Report is the golden file. On the saved run of test_report_golden.py."""
import re
from html import escape

import pytest
from rich.console import Console

from ipclab.analyse import saved
from ipclab.output import markdown, model, sections, terminal
from ipclab.output.report import HTML_NAME, figures, paper, write_html
from ipclab.output.report import data as report_data
from ipclab.plan.scenario import StatSettings
from test_report_golden import GOLDEN, VARIANTS, saved_run


def report_of(tmp_path, variant):
    run = saved_run(tmp_path, VARIANTS[variant])
    document = saved.load(run)
    settings = StatSettings(**document["scenario"]["statistics"])
    return run, model.build(document, settings, saved.reanalyse(run, document, settings))


def page_of(tmp_path, variant):
    run, report = report_of(tmp_path, variant)
    assert write_html(run, report) == run / HTML_NAME
    return (run / HTML_NAME).read_text(encoding="utf-8")


# (variant, a study table's title, one of its cells): as the golden table.md has them
STUDIES = [
    ("pivot", "Mean by response_size × pattern × client and mechanism</h2>",
     "29.16 µs (1× tcp)<br><span class='ci'>[24.12–35.40]</span>"),
    ("pivot-percent", "Median by mechanism × pattern × response_size and pair</h2>", None),
    ("stream-cpu", "<h2 id='study-1'>Stream</h2>", "74,693"),
    ("server-models", "Server models: phases per connection", "4.943 ms [0.029–13.391]"),
]


@pytest.mark.parametrize("variant,title,cell", STUDIES)
def test_report_html_shows_the_study_tables(tmp_path, variant, title, cell):
    page = page_of(tmp_path, variant)
    assert title in page
    if cell:
        assert f"<td class='num'>{cell}</td>" in page or f"<td>{cell}</td>" in page


def test_report_html_shows_the_wire_bytes_the_phases_and_the_warnings(tmp_path):
    run, report = report_of(tmp_path, "cases")
    page = write_html(run, report).read_text(encoding="utf-8")
    assert "<h2 id='wire'>Bytes on the wire per call</h2>" in page
    assert "<th>payload B</th>" in page and "<td>16 B/16 B burst</td>" in page
    assert "<td class='num'>-0.0256</td>" in page
    assert "<h2 id='phases'>Phases of each connection (bursts)</h2>" in page
    ids = [a or b for a, b in re.findall(r"id='([^']+)'|id=\"([^\"]+)\"",
                                                 page.split("</head>")[1])]
    assert len(ids) == len(set(ids)), "an anchor named twice (the figures' data is found by id)"
    assert "mean [95% CI]" in page
    assert report.warnings   # the saved run has a few: summed up by kind as the terminal does
    for group in report.warnings:
        assert escape(f"{group.what} in {len(group.cases)} case") in page
        assert escape(group.todo) in page


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_table_md_of_the_report_is_the_golden_file(tmp_path, variant):
    _, report = report_of(tmp_path, variant)
    assert markdown.render(sections.page(report)) == (GOLDEN / variant / "table.md").read_text()


def test_the_terminal_shows_the_report(tmp_path):
    _, report = report_of(tmp_path, "pivot")
    console = Console(width=200, record=True)
    for renderable, width in terminal.render(sections.page(report), terminal.Options(200)):
        console.print(renderable)
    text = console.export_text()
    assert "mean by response_size × pattern × client and mechanism" in text
    assert "bytes on the wire per call" in text


def test_burst_phase_bars_of_both_sides_draw(tmp_path):
    """Bars whose series have different categories (a burst's server and client phases)."""
    run, report = report_of(tmp_path, "cases")
    (chart,) = figures.burst_phases(report_data.load(run, report))
    assert {s.name for s in chart.series} == {"client", "server"}
    paper.plt.close(paper.draw(chart))
