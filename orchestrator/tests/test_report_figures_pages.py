"""Both drawings of every figure (Plotly JSON checked by plotly's own validator, matplotlib
figures drawn with Agg) and the HTML page they go on: plotly inlined once, the case table, a
comparison's page, a run where nothing finished, the page's scenario rows."""
import json

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from dataclasses import replace
from html import escape

from ipclab.analyse import compare
from ipclab.output import cases, html, run_info, sections
from ipclab.output import compare as compared
from ipclab.output.page import Page, Section, Table
from ipclab.output.report import figures, paper, plotly
from report_runs import every_figure_run, keys, record, run


def test_every_plotly_figure_passes_plotlys_validator():
    charts = figures.charts(every_figure_run())
    assert len(keys(charts)) == len(set(keys(charts))) >= 6
    for chart in charts:
        figure = plotly.figure(chart)
        go.Figure(figure)  # raises on any property Plotly does not know
        json.dumps(figure, allow_nan=False)


def test_page_inlines_plotly_once_and_names_no_url():
    data = every_figure_run()
    planted = Section("more", "compared", tables=(Table(("a",), (("<b>",),)),))
    with_more = replace(sections.page(data.report),
                        sections=(*sections.page(data.report).sections, planted))
    page = html.render(with_more, html.Options(figures.charts(data)))
    plotly_js = get_plotlyjs()
    assert page.count(plotly_js) == 1
    rest = page.replace(plotly_js, "")
    assert "http://" not in rest and "https://" not in rest and "<link" not in rest
    assert "default-src 'none'" in rest
    assert rest.count("class='fig'") == len(figures.charts(every_figure_run()))
    assert "&lt;b&gt;" in rest and "a note" in rest and "it broke" in rest


def test_paper_draws_every_kind_of_chart_with_its_panels(tmp_path):
    for chart in figures.charts(every_figure_run()):
        fig = paper.draw(chart)
        panels = max(len(chart.groups), 1)
        assert sum(ax.get_visible() for ax in fig.axes if ax.get_label() != "<colorbar>") == panels
        assert fig.get_suptitle() == chart.title
        paper.plt.close(fig)
    written = paper.write(run([record(1)]), tmp_path)   # the latency chart and the heat map
    assert sorted(p.name for p in written) == ["heatmap-tcp.png", "heatmap-tcp.svg",
                                               "latency-tcp.png", "latency-tcp.svg"]
    assert all(p.stat().st_size > 1000 for p in written)


def cases_page(records, caption=None):
    return html.render(Page("t", (Section("cases", "every case",
                                          tables=(cases.every_case(records, caption),)),)))


def test_summary_table_sorts_numbers_by_value():
    table = cases_page([record(1, median=9_000.0), record(2, median=10_000.0)])
    assert "data-k='9000'" in table and "data-k='10000'" in table


def test_the_case_table_puts_each_interval_under_its_value_to_fit_a_window():
    import re
    r = record(1, median=1_923_000.0, ratio=0.05, ratio_ci_low=0.04, ratio_ci_high=0.08,
               rounds_ok=3, round_spread=1.17)
    r["trimmed"].update(mean=2_326_000.0, ci95_low=1_900_000.0, ci95_high=2_800_000.0, p99=5.7e6,
                        std=1.2e6)
    table = cases_page([r], "× the baseline")
    (row,) = re.findall(r"<tbody><tr>(.*?)</tr>", table)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells[6] == "1.923 ms<br><span class='ci'>[1.731–2.308]</span>", cells
    lines = [max(len(re.sub("<[^>]+>", "", p)) for p in c.split("<br>")) for c in cells]
    assert sum(lines) < 110, lines     # one line per cell was ~150 characters


def test_a_comparison_is_a_page_of_the_same_renderer():
    comparison = compare.Comparison(
        "run-a", "run-b", {"placement": ("same-core", "cross-core")},
        [compare.Pair("tcp cpp→cpp 16 B/16 B", "compared", 1000.0, 1200.0, 1.2, 1.1, 1.3, 0.001,
                      "slower", rounds_a=3, rounds_b=3),
         compare.Pair("uds cpp→cpp 16 B/16 B", "only in A")],
        claims=[("fifo < tcp", "holds", "fails"), ("mq < tcp", "holds", "holds")])
    page = html.render(compared.page(comparison))
    assert "claim changed: fifo &lt; tcp: holds (A) → fails (B)" in page
    assert "1 of 2 changed verdict" in page and "mq &lt;" not in page
    assert "B: run-b" in page and "1.20 [1.10–1.30]" in page and "only in A" in page
    assert "same-core (A) → cross-core (B)" in page and escape(compare.RULE) in page


def test_a_run_where_nothing_finished_has_a_page_without_figures():
    failed = [record(1, status="failed"), record(2, status="not-applicable", trimmed=None)]
    assert figures.charts(run(failed)) == []
    page = html.render(sections.page(run(failed).report), html.Options([]))
    assert "No case finished: nothing to draw." in page and "it broke" in page


def test_the_pages_scenario_lists_only_what_its_patterns_read():
    def page_scenario(pattern):
        document = {"scenario": {"name": "s", "matrix": {"mechanism": ["tcp"], "pattern": [pattern],
                                                         "server_model": ["thread"],
                                                         "message_size": [1024], "exclude": []},
                                 "run": {"iterations": 10, "connectors": 200, "messages": 5,
                                         "backlog": 512}, "statistics": {}}}
        return dict(run_info.scenario(document))
    rr = page_scenario("rr")
    assert "iterations" in rr and "mechanism" in rr
    assert not any(k in rr for k in ("connectors", "backlog", "server_model", "messages",
                                      "message_size"))
    burst = page_scenario("burst")
    assert "connectors" in burst and "server_model" in burst and "messages" not in burst
    assert "exclude" not in rr   # an empty list: no row


def test_the_pages_scenario_names_each_excluded_combination():
    document = {"scenario": {"name": "s", "run": {}, "statistics": {}, "matrix": {
        "mechanism": ["rest", "tcp"], "pattern": ["rr"],
        "exclude": [{"mechanism": ["rest"], "request_size": [134217728]}]}}}
    assert dict(run_info.scenario(document))["exclude"] == "mechanism rest; request_size 128 MiB"
