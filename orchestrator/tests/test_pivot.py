"""Pivot tables (output/pivot.py) and their `[report]` settings: fixed records in, cells out."""
from pathlib import Path

import pytest

from ipclab.common.errors import UserError
from ipclab.output import markdown, model, pivot, study
from ipclab.output.page import Page
from ipclab.plan import matrix
from ipclab.plan.scenario import build_scenario, load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def record(index, mechanism, req, resp, mean, status="ok", client="java", **extra):
    trimmed = {"mean": mean, "median": mean * 0.9, "std": mean / 10, "ci95_low": mean * 0.95,
               "ci95_high": mean * 1.05, "p99": mean * 2}
    return {"index": index, "id": f"c{index}", "mechanism": mechanism, "client": client,
            "server": "cpp", "pattern": "rr", "request_size": req, "response_size": resp,
            "message_size": None, "payload": "bytes", "sequence_length": None,
            "placement": "cross-core", "status": status,
            "reason": None if status == "ok" else "why",
            "trimmed": trimmed if status == "ok" else None,
            "median_ci_low": mean * 0.85, "median_ci_high": mean * 0.95, **extra}


def thesis_records():
    return [record(1, "corba", 16, 16, 1_224_000), record(2, "jni", 16, 16, 6_500),
            record(3, "tcp", 16, 16, 338_900), record(4, "corba", 16, 1024, 1_207_000),
            record(5, "jni", 16, 1024, 5_100), record(6, "tcp", 16, 1024, 340_000,
                                                      status="failed"),
            record(7, "corba", 134217728, 134217728, 0, status="not-applicable"),
            record(8, "jni", 134217728, 134217728, 97_565_000_000 / 1000)]


THESIS = pivot.Spec(rows=("request_size", "response_size"), columns="mechanism", cell="mean",
                    ratio_to="jni", ratio_axis="mechanism")


def test_thesis_shape_sizes_as_rows_mechanisms_as_columns_times_jni():
    table = pivot.pivot(thesis_records(), THESIS)
    headers, rows = pivot.text_rows(table)
    assert headers == ["request", "response", "corba", "jni", "tcp"]
    assert [r[:2] for r in rows] == [["16 B", "16 B"], ["16 B", "1 KiB"],
                                     ["128 MiB", "128 MiB"]]
    assert rows[0][2].startswith("1.224 ms (188× jni)")   # 1224 / 6.5 = 188.3
    assert rows[0][3].startswith("6.5 µs (1× jni)")
    assert rows[0][4].startswith("338.9 µs (52.1× jni)")
    assert "[1.163–1.285]" in rows[0][2]                  # the mean's interval, value's unit
    assert rows[1][4] == "failed" and rows[2][2] == "n/a" and rows[2][4] == "-"
    assert table.cells[((16, 16), "corba")].ratio == pytest.approx(1_224_000 / 6_500)


def test_a_column_where_no_case_applies_is_left_out_with_a_note():
    records = [*thesis_records(), record(9, "shm", 16, 16, 0, status="not-applicable"),
               record(10, "shm", 16, 1024, 0, status="not-applicable")]
    table = pivot.pivot(records, THESIS)
    assert table.column_keys == ["corba", "jni", "tcp"]     # shm: n/a everywhere
    assert not any(column == "shm" for _, column in table.cells)
    assert "left out, as no case of theirs applies: shm" in table.notes
    # One n/a among ok cells keeps its column (corba at 128 MiB above).
    assert pivot.pivot(thesis_records(), THESIS).notes == []


def test_a_row_value_as_reference_gives_percent_per_column():
    records = [record(i, m, s, s, t) for i, (m, s, t) in enumerate(
        [("tcp", 40, 281_296), ("fifo", 40, 177_989), ("tcp", 400, 273_088),
         ("fifo", 400, 169_501)], start=1)]
    spec = pivot.Spec(rows=("mechanism",), columns="request_size", cell="mean",
                      ratio_to="tcp", ratio_axis="mechanism", ratio_as="percent")
    table = pivot.pivot(records, spec)
    headers, rows = pivot.text_rows(table)
    assert headers == ["mechanism", "40 B", "400 B"]   # zip sizes: response adds no row
    assert rows[0][1].startswith("281.3 µs (100% of tcp)")
    assert rows[1][1].startswith("178 µs (63% of tcp)")
    assert rows[1][2].startswith("169.5 µs (62% of tcp)")
    small = pivot.Spec(rows=(), columns="mechanism", ratio_as="percent")
    assert pivot.format_ratio(0.0028, small) == "0.28%" and pivot.format_ratio(1.0, small) == "100%"


def test_an_axis_that_splits_a_cell_becomes_a_row_axis_and_nothing_is_folded():
    records = [record(1, "tcp", 16, 16, 1000), record(2, "tcp", 16, 16, 2000, client="python"),
               record(3, "jni", 16, 16, 10)]
    table = pivot.pivot(records, pivot.Spec(rows=("request_size",), columns="mechanism"))
    assert table.row_axes == ("request_size", "client")
    assert len(table.row_keys) == 2 and "client" in table.notes[0]
    assert len(table.cells) == 3


def test_without_an_ok_reference_there_are_no_ratios_and_a_note_says_so():
    records = [record(1, "tcp", 16, 16, 1000), record(2, "jni", 16, 16, 10, status="failed")]
    table = pivot.pivot(records, THESIS)
    assert all(c.ratio is None for c in table.cells.values())
    assert "no ok case with mechanism = jni" in pivot.caption(table)


def test_statistics_other_than_the_mean():
    r = record(1, "tcp", 16, 16, 1000)
    spread = pivot.Spec(rows=("request_size",), columns="mechanism", cell="mean±sd")
    assert pivot.text_rows(pivot.pivot([r], spread))[1][0][1] == "1 µs ± 100 ns"
    median = pivot.Spec(rows=("request_size",), columns="mechanism", cell="median")
    assert pivot.text_rows(pivot.pivot([r], median))[1][0][1] == "900 ns\n[850–950]"
    data = pivot.pivot([r], median).as_dict()
    assert data["cells"][0]["value"] == 900 and data["column_keys"] == ["tcp"]


def test_markdown_of_the_pivot_study_puts_each_cell_on_one_line():
    report = {"table": "pivot", "rows": ["request_size", "response_size"],
              "columns": "mechanism", "cell": "mean", "ratio_to": {"mechanism": "jni"}}
    studies = study.tables("pivot", thesis_records(), "tcp", report)
    text = markdown.render(Page("t", tuple(study.sections(model.of_records([], "t", None, "median",
                                                                         studies=studies)))))
    assert "| request | response | corba | jni | tcp |" in text
    assert "| 16 B | 16 B | 1.224 ms (188× jni) [1.163–1.285] |" in text
    assert "- failed: case 6: why" in text


def build(report, catalog):
    return build_scenario({"report": report}, "s.toml", catalog, {}, "s")


def test_the_study_scenarios_load_with_their_pivots(catalog):
    thesis = load_scenario(SCENARIOS / "thesis-java-cpp.toml", catalog)
    assert vars(thesis.report) == {
        "table": "pivot", "versus": "tcp", "rows": ["request_size", "response_size"],
        "columns": "variant", "cell": "mean±sd", "ratio_to": {"variant": "jni JNI copies"},
        "ratio_as": "times", "figures": ["bars-by-size", "histogram"]}
    ipc = load_scenario(SCENARIOS / "linux-ipc-java.toml", catalog)
    assert ipc.report.ratio_to == {"variant": "tcp nodelay off java objects"}
    assert ipc.report.ratio_as == "percent"
    assert (ipc.run.rounds, ipc.statistics.skip_rounds) == (20, 1)   # the last 19 of 20 runs
    variants = {c.label for c in matrix.expand(ipc, catalog)}
    assert {"tcp nodelay off java objects", "sysv-mq JNI java objects", "sysv-shm JNI java objects",
            "fifo JNI java objects", "sysv-mq", "shm"} <= {v.split(" java→java")[0] for v in variants}
    assert load_scenario(SCENARIOS / "middleware.toml", catalog).report.columns == "mechanism"
    assert load_scenario(SCENARIOS / "mq-vs-socket.toml", catalog).report.table == "stream-cpu"
    sizes = build({"table": "pivot", "rows": ["mechanism"], "columns": "request_size",
                   "ratio_to": "1KiB"}, catalog)
    assert sizes.report.ratio_to == {"request_size": 1024}


@pytest.mark.parametrize("report,expected", [
    ({"table": "pivot", "columns": "mechanism"}, "s.toml: report.rows: missing"),
    ({"table": "pivot", "rows": ["size"], "columns": "mechanism"},
     "s.toml: report.rows: ['size'] must be distinct axes"),
    ({"table": "pivot", "rows": ["mechanism"], "columns": "mechanism"},
     "s.toml: report.columns: 'mechanism' is also in report.rows"),
    ({"table": "pivot", "rows": ["request_size"], "columns": "mech"},
     "s.toml: report.columns: unknown value 'mech'"),
    ({"table": "pivot", "rows": ["request_size"], "columns": "mechanism", "cell": "average"},
     "s.toml: report.cell: unknown value 'average'"),
    ({"table": "pivot", "rows": ["request_size"], "columns": "mechanism", "ratio_to": "jnii"},
     "s.toml: report.ratio_to: unknown mechanism 'jnii'"),
    ({"table": "pivot", "rows": ["request_size"], "columns": "mechanism",
      "ratio_to": {"client": "java"}}, "s.toml: report.ratio_to: {'client': 'java'} must be"),
    ({"table": "pivot", "rows": ["request_size"], "columns": "mechanism", "ratio_as": "x"},
     "s.toml: report.ratio_as: unknown value 'x'"),
    ({"rows": ["request_size"]}, "s.toml: report.rows: ['request_size'] applies only with"),
    ({"table": "pivots"}, "s.toml: report.table: unknown value 'pivots'"),
])
def test_bad_pivot_settings_name_file_field_and_value(catalog, report, expected):
    with pytest.raises(UserError) as e:
        build(report, catalog)
    assert str(e.value).startswith(expected)


def test_a_list_of_statistics_makes_one_table_each_wire_bytes_among_them():
    records = [record(1, "grpc", 0, 0, 100_000, wire_req_bytes=300, wire_resp_bytes=66.5),
               record(2, "ice", 0, 0, 150_000, wire_req_bytes=250, wire_resp_bytes=60)]
    report = {"table": "pivot", "rows": ["request_size"], "columns": "mechanism",
              "cell": ["mean", "wire_bytes"], "ratio_to": {"mechanism": "grpc"}}
    mean, wire = study.tables("pivot", records, "tcp", report)
    assert mean.rows[0][1:] == ["100 µs (1× grpc)\n[95–105]",
                                "150 µs (1.5× grpc)\n[142–158]"]
    assert wire.rows[0][1:] == ["366.5 B (1× grpc)", "310 B (0.846× grpc)"]
    assert "bytes on the wire" in wire.caption


def test_the_middleware_scenario_asks_for_both_tables(catalog):
    report = load_scenario(SCENARIOS / "middleware.toml", catalog).report
    assert report.cell == ["mean", "wire_bytes"] and report.ratio_to == {"mechanism": "grpc"}
    with pytest.raises(UserError, match="report.cell: unknown value 'bytes'"):
        build({"table": "pivot", "rows": ["payload"], "columns": "mechanism",
               "cell": ["mean", "bytes"]}, catalog)


def test_a_variant_column_holds_one_mechanism_run_several_ways():
    """The thesis's custom TCP protocol opened a socket per request: "tcp short" is a column of
    its own beside tcp over one connection, jni and rest with JSON bodies."""
    records = [record(1, "jni", 16, 16, 6_500), record(2, "tcp", 16, 16, 30_000),
               record(3, "tcp", 16, 16, 90_000, pattern="short"),
               record(4, "rest", 16, 16, 120_000, settings={"rest_body": "json"})]
    spec = pivot.Spec(rows=("request_size", "response_size"), columns="variant", cell="mean",
                      ratio_to="jni", ratio_axis="variant")
    headers, rows = pivot.text_rows(pivot.pivot(records, spec))
    assert headers == ["request", "response", "jni", "tcp", "tcp short", "rest json body"]
    assert rows[0][4].startswith("90 µs (13.8× jni)")
