"""Patterns stream and short: windows to rates, CPU figures, TIME_WAIT counting, the csv columns,
the terminal layout and the stream-cpu study table, from injected results (no peers)."""
import csv
import io

import numpy as np
import pytest
from rich.console import Console

from ipclab.analyse import case_stats
from ipclab.analyse import throughput
from ipclab.execute import network
from ipclab.output import csv as export_csv
from ipclab.output import markdown, model, sections, study
from ipclab.output.page import Page
from ipclab.plan.matrix import Case
from ipclab.execute.runner import Outcome, case_timeout, effective_warmup, expected_samples
from ipclab.plan.scenario import RunSettings, StatSettings
from ipclab.execute import rundir
from test_terminal import render

SETTINGS = StatSettings()


# --- pure figures -------------------------------------------------------------------------------

def test_windows_take_the_floor_and_the_last_takes_the_rest():
    assert list(throughput.window_messages(100, 10)) == [10] * 10
    assert list(throughput.window_messages(103, 10)) == [10] * 9 + [13]
    assert list(throughput.window_messages(1, 1)) == [1]
    with pytest.raises(ValueError):
        throughput.window_messages(3, 4)
    with pytest.raises(ValueError):
        throughput.window_messages(3, 0)


def test_per_message_divides_each_window_by_its_count():
    assert list(throughput.per_message([1000, 1000, 2600], 13)) == [250.0, 250.0, 520.0]


def test_a_rate_inverts_a_time_and_swaps_the_interval():
    assert throughput.rate(1000.0, 900.0, 1250.0) == (1e6, 800_000.0, pytest.approx(1e9 / 900))
    assert throughput.rate(None) == (None, None, None)
    assert throughput.rate(0.0, None, None) == (None, None, None)


def cpu(user_ms, sys_ms, vol=0, invol=0):
    return {"user_ns": user_ms * 1_000_000, "sys_ns": sys_ms * 1_000_000,
            "voluntary": vol, "involuntary": invol}


def stream_result(messages=1000, stream_ns=2_000_000_000, lost=0, client=None, server=None):
    return {"status": "ok", "runtime": "g++ 12.2.0", "warmup": 10, "messages": messages,
            "message_size": 1024, "windows": 10, "stream_ns": stream_ns, "lost": lost,
            "client_cpu": client or cpu(500, 1000, 10, 90),
            "server_cpu": server or cpu(250, 750, 400, 0)}


def test_one_stream_round_gives_wall_cpu_shares_and_cost_per_message():
    f = throughput.stream_round({"stream": stream_result()}, "stream")
    assert f["stream_s"] == 2.0 and f["stream_msgs_per_s"] == 500.0
    assert (f["client_user_s"], f["client_sys_s"]) == (0.5, 1.0)
    assert (f["server_user_s"], f["server_sys_s"]) == (0.25, 0.75)
    assert f["client_cpu_share"] == 0.75 and f["server_cpu_share"] == 0.5
    assert f["cpu_us_per_msg"] == 2500.0        # 2.5 s of CPU over 1000 messages
    assert f["csw_per_msg"] == 0.5 and f["lost"] == 0


def test_missing_cpu_figures_leave_their_fields_empty():
    s = stream_result()
    s["server_cpu"] = None
    f = throughput.stream_round({"stream": s}, "stream")
    assert f["server_user_s"] is None and f["cpu_us_per_msg"] is None
    assert f["client_user_s"] == 0.5
    assert throughput.stream_round({"stream": {"messages": 5, "stream_ns": 0}}, "stream") is None


STREAM = Case(1, "tcp", "cpp", "java", None, None, "cross-core", "stream", message_size=1024)
SHORT = Case(2, "tcp", "cpp", "java", 1024, 1, "cross-core", "short")
RR = Case(3, "uds", "cpp", "java", 16, 16, "cross-core", "rr")


def stream_record(rounds=((1_000_000, 2_000_000_000, 0), (1_100_000, 2_200_000_000, 0))):
    """A 1000-message stream in 10 windows per round: (window ns, stream ns, lost) per round."""
    record = rundir.new_record(STREAM, len(rounds))
    samples = {}
    for r, (window, wall, lost) in enumerate(rounds, start=1):
        x = np.full(10, window, dtype=np.int64)
        samples[r] = x
        rundir.add_round(record, Outcome(STREAM, "ok", samples=x, round=r,
                                           client=stream_result(stream_ns=wall, lost=lost)))
    kept = case_stats.analyse(record, samples, SETTINGS)
    return record, kept


def test_a_stream_case_is_analysed_per_message_and_reports_its_rates():
    record, kept = stream_record()
    # 100 messages per window: 10 000 and 11 000 ns per message
    assert record["trimmed"]["median"] == pytest.approx(10_500)
    assert sorted(kept) == [1, 2] and kept[1][0] == 10_000
    assert record["msgs_per_s"] == pytest.approx(1e9 / 10_500)
    assert record["msgs_per_s_ci_low"] <= record["msgs_per_s"] <= record["msgs_per_s_ci_high"]
    assert record["mib_per_s"] == pytest.approx(record["msgs_per_s"] * 1024 / 2**20)
    assert record["stream_s"] == pytest.approx(2.1)           # the median of the rounds
    # messages over that wall (476.2/s), not the median of the rounds' rates (477.3/s)
    assert record["stream_msgs_per_s"] == pytest.approx(1000 / 2.1)
    assert record["messages"] == 1000 and record["windows"] == 10
    assert record["cpu_us_per_msg"] == pytest.approx(2500.0)
    assert record["lost"] == 0 and record["conns_per_s"] is None
    assert [w["kind"] for w in record["warnings"]] == []       # 20 windows are enough
    assert record["rounds"][0]["stream"]["stream_ns"] == 2_000_000_000


def test_lost_messages_add_up_over_rounds():
    record, _ = stream_record(((1_000_000, 2_000_000_000, 3), (1_000_000, 2_000_000_000, 4)))
    assert record["lost"] == 7


def test_few_windows_advise_more_windows_not_more_iterations():
    record = rundir.new_record(STREAM, 1)
    x = np.full(4, 1_000_000, dtype=np.int64)
    rundir.add_round(record, Outcome(STREAM, "ok", samples=x, round=1, client=stream_result()))
    case_stats.analyse(record, {1: x}, SETTINGS)
    assert [w["kind"] for w in record["warnings"]] == ["few-windows"]


def short_record(time_wait=(812, 1630)):
    record = rundir.new_record(SHORT, len(time_wait))
    samples = {}
    for r, tw in enumerate(time_wait, start=1):
        samples[r] = np.full(200, 50_000, dtype=np.int64) + np.arange(200)
        rundir.add_round(record, Outcome(SHORT, "ok", samples=samples[r], round=r,
                                           time_wait=tw, client={"status": "ok"}))
    case_stats.analyse(record, samples, SETTINGS)
    return record


def test_a_short_case_reports_connections_per_second_and_the_last_time_wait():
    record = short_record()
    assert record["conns_per_s"] == pytest.approx(1e9 / record["trimmed"]["median"])
    assert record["conns_per_s_ci_low"] <= record["conns_per_s"] <= record["conns_per_s_ci_high"]
    assert record["time_wait"] == 1630 and record["msgs_per_s"] is None


def test_time_wait_counts_state_06_on_either_end_of_one_port():
    table = (
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
        "   0: 0101017F:8AE2 0100007F:1F90 06 00000000:00000000 03:00001146 00000000     0\n"
        "   1: 0201017F:8AE4 0100007F:1F90 06 00000000:00000000 03:00001146 00000000     0\n"
        "   2: 0301017F:8AE6 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000\n"
        "   3: 0401017F:8AE8 0100007F:1F91 06 00000000:00000000 03:00001146 00000000     0\n"
        "   4: 0100007F:1F90 0501017F:8AEA 06 00000000:00000000 03:00001146 00000000     0\n")
    assert network.count_time_wait(table, 0x1F90) == 3
    assert network.count_time_wait(table, 0x1F91) == 1
    assert network.count_time_wait("header only\n", 80) == 0


def test_a_full_time_wait_table_is_a_note_that_says_what_to_do():
    tw = "   1: 0100007F:1F90 0501017F:8AEA 06 00000000:00000000 03:00001146 00000000     0\n"
    tables = ["header\n" + tw * 2, "header\n" + tw]
    note = network.time_wait_table_full(tables, {network.TW_BUCKETS: "3\n"}.__getitem__)
    assert "TIME_WAIT table was full (3 sockets" in note and "wait 60 s" in note
    assert network.time_wait_table_full(tables, {network.TW_BUCKETS: "4\n"}.__getitem__) is None

    def missing(path):
        raise FileNotFoundError(path)
    assert network.time_wait_table_full(tables, missing) is None   # no /proc: nothing to say


# --- the runner's arithmetic --------------------------------------------------------------------

def test_stream_warm_up_windows_and_timeout_scale_with_the_stream():
    run = RunSettings(messages=5, windows=10, warmup=1000, warmup_max_bytes=10_240)
    assert expected_samples(STREAM, run) == 5                     # never more windows than messages
    assert effective_warmup(STREAM, run) == 10                    # 10 240 B / 1024 B per message (not 1048)
    #                                                             (bare messages, PROTOCOL.md 11.1)
    assert expected_samples(SHORT, run) == run.iterations
    long = RunSettings(messages=5_000_000, case_timeout=300)
    assert case_timeout(STREAM, long) > 300 + 5_000_000 * 500e-6
    assert case_timeout(RR, long) == 300


# --- outputs -------------------------------------------------------------------------------------

def records():
    stream, _ = stream_record()
    short = short_record()
    rr = rundir.new_record(RR, 1)
    x = np.full(100, 20_000, dtype=np.int64)
    rundir.add_round(rr, Outcome(RR, "ok", samples=x, round=1))
    case_stats.analyse(rr, {1: x}, SETTINGS)
    return [stream, short, rr]


def test_csv_has_the_pattern_columns_empty_where_they_do_not_apply():
    rows = list(csv.DictReader(io.StringIO(export_csv.render(Page("", records=records())))))
    stream, short, rr = rows
    for column in ("msgs_per_s", "mib_per_s", "client_user_s", "client_sys_s", "server_user_s",
                   "server_sys_s", "cpu_us_per_msg", "client_cpu_share", "csw_per_msg", "lost"):
        assert stream[column] != "" and short[column] == "" and rr[column] == "", column
    assert stream["message_size"] == "1024" and stream["request_size"] == ""
    assert float(stream["client_sys_s"]) == 1.0
    assert short["conns_per_s"] != "" and short["time_wait"] == "1630"
    assert stream["conns_per_s"] == "" and rr["time_wait"] == ""


def shown(records, width=120):
    console = Console(file=io.StringIO(), width=width, force_terminal=False)
    for line, at in render(records, "ipclab: t", None, "median", [], width):
        console.width = at or width
        console.print(line)
    return console.file.getvalue()


def test_a_stream_run_shows_throughput_instead_of_latency():
    stream, _ = stream_record()
    text = shown([stream])
    assert "msgs/s" in text and "MiB/s" in text and "CPU µs/msg" in text
    assert "median [95% CI]" not in text and "p99" not in text
    assert "stream" in text.splitlines()[0]                    # the pattern, said once


@pytest.mark.parametrize("width", [60, 80, 120])
def test_a_mixed_run_fits_the_width(width):
    text = shown(records(), width)
    assert max(len(line) for line in text.splitlines()) <= width


def test_lost_messages_are_said_on_the_terminal():
    record, _ = stream_record(((1_000_000, 2_000_000_000, 3), (1_000_000, 2_000_000_000, 4)))
    assert "lost 7 of 2000 messages" in shown([record])


def test_markdown_of_a_stream_run_has_no_latency_columns():
    stream, _ = stream_record()
    text = markdown.render(sections.page(model.of_records([stream], "t", None, "median")))
    assert "msgs/s [95% CI]" in text and "p99" not in text


# --- the stream-cpu study -----------------------------------------------------------------------

def study_records():
    out = []
    for index, (mech, wall, user) in enumerate((("tcp", 2_000_000_000, 500),
                                                ("sysv-mq", 1_000_000_000, 250)), start=1):
        case = Case(index, mech, "cpp", "cpp", None, None, "cross-core", "stream",
                    message_size=1024)
        record = rundir.new_record(case, 1)
        x = np.full(10, wall // 10, dtype=np.int64)
        rundir.add_round(record, Outcome(case, "ok", samples=x, round=1, client=stream_result(
            stream_ns=wall, client=cpu(user, 1000), server=cpu(user, 1000))))
        case_stats.analyse(record, {1: x}, SETTINGS)
        out.append(record)
    failed = rundir.new_record(Case(3, "posix-mq", "cpp", "cpp", None, None, "cross-core",
                                       "stream", message_size=1024), 1)
    rundir.add_round(failed, Outcome(STREAM, "failed", "client: io: boom", round=1))
    return out + [failed]


def test_the_stream_cpu_study_has_the_blog_shape_and_ratios_to_tcp():
    (table,) = study.tables("stream-cpu", study_records(), "tcp")
    assert [h.replace("\n", " ") for h in table.headers] == [
        "mechanism", "client→server", "size", "wall s", "client user s", "client sys s",
        "server user s", "server sys s", "msgs/s", "wall ÷ tcp", "CPU ÷ tcp", "status"]
    tcp, mq, failed = table.rows
    assert tcp[:4] == ["tcp", "cpp→cpp", "1 KiB msg", "2.00"] and tcp[9] == "-"
    assert mq[3] == "1.00" and mq[4] == "0.25" and mq[8] == "1,000"
    assert mq[9] == "0.50" and mq[10] == "0.83"     # (0.25+1+0.25+1) / (0.5+1+0.5+1)
    assert failed[-1] == "failed" and table.failed == ["case 3: client: io: boom"]
    assert study.tables("cases", study_records(), "tcp") == []


def test_the_study_is_printed_instead_of_the_case_table_and_written_as_markdown():
    studies = study.tables("stream-cpu", study_records(), "tcp")
    console = Console(file=io.StringIO(), width=120, force_terminal=False)
    for line, at in render(study_records(), "ipclab: mq", None, "median", [], 120,
                           studies=studies):
        console.print(line)
    text = console.file.getvalue()
    assert "ipclab: mq · stream" in text and "failed: case 3" in text
    assert max(len(line) for line in text.splitlines()) <= 120
    md = markdown.render(sections.page(model.of_records(study_records(), "ipclab: mq", None,
                                                        "median", studies=studies)))
    assert "| mechanism | client→server | size | wall s | client user s |" in md
