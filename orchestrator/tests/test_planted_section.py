"""A report section planted by this test alone: a function that makes a Section (output/page.py)
of the Report, as a section's module would, and its line in the registry (output/sections.py
SECTIONS). Every renderer lays it out with no other module touched: the terminal, table.md
(written by publish.py like every file of a run) and report.html; none of them names a section.
What a real section adds beyond its module and its line is its documentation
(docs/extending.md, "Add a report section")."""
import inspect
import io

import pytest
from rich.console import Console

from ipclab.common.units import format_ns
from ipclab.output import html, markdown, model, publish, sections, terminal
from ipclab.output.page import FILES, Line, Section, Table
from test_renderers import records


def slowest(report):
    """The planted section: the case with the largest median, and a line under it."""
    ran = [r for r in report.records if r["status"] == "ok"]
    if not ran:
        return []
    worst = max(ran, key=lambda r: r["trimmed"]["median"])
    row = (str(worst["index"]), worst["mechanism"], format_ns(worst["trimmed"]["median"]))
    table = Table(("#", "mechanism", "median"), (row,), (True, False, True),
                  caption="the largest median of the run")
    return [Section("slowest", "the slowest case", lead=("Which case took longest.",),
                    tables=(table,), lines=(Line("planted by a test", "note"),)),
            Section("slowest-files", "kept for the files", lines=(Line("not on a screen"),),
                    media=FILES)]


@pytest.fixture
def report(monkeypatch):
    monkeypatch.setattr(sections, "SECTIONS", (*sections.SECTIONS, slowest))
    return model.of_records(records(), "ipclab: planted", "tcp", "median")


def test_the_terminal_shows_the_planted_section(report):
    console = Console(file=io.StringIO(), width=100, force_terminal=False)
    for renderable, width in terminal.render(sections.page(report), terminal.Options(100)):
        console.print(renderable)
    text = console.file.getvalue()
    assert "slowest case" in text and "Which case took longest." in text
    assert "5   grpc" in text.split("slowest case")[1] and "planted by a test" in text
    assert "not on a screen" not in text        # a section for the files only


def test_table_md_holds_the_planted_section(report, tmp_path):
    publish.write_outputs(tmp_path, report)
    text = (tmp_path / "table.md").read_text()
    assert text.endswith("## the slowest case\n\nWhich case took longest.\n\n"
                         "| # | mechanism | median |\n|---:|---|---:|\n| 5 | grpc | 121.3 µs |\n\n"
                         "- the largest median of the run\n\n- planted by a test\n\n"
                         "## kept for the files\n\n- not on a screen\n")
    assert text == markdown.render(sections.page(report))


def test_report_html_holds_the_planted_section(report):
    page = html.render(sections.page(report))
    assert ("<h2 id='slowest'>The slowest case</h2>"
            "<p class='caption'>Which case took longest.</p>") in page
    assert "<td class='num'>5</td><td>grpc</td><td class='num'>121.3 µs</td>" in page
    assert "<li class='note'>planted by a test</li>" in page and "not on a screen" in page


def test_no_renderer_names_a_section():
    """The renderers lay out any section: none holds a section's key or title as a string."""
    from test_report_model import report_of
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        _, full = report_of(Path(tmp), "server-models")
    found = sections.page(full).sections
    assert {"cases", "wire", "phases", "scenario"} <= {s.key for s in found}
    for renderer in (terminal, markdown, html):
        source = inspect.getsource(renderer)
        for section in found:
            assert f"'{section.key}'" not in source and f'"{section.key}"' not in source
            assert f'"{section.title}"' not in source, (renderer, section.title)
