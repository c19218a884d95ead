"""Pattern load (PROTOCOL.md 11.5) in the orchestrator: what a round keeps of the client's records
(execute/load.py), the HdrHistogram logs, a case's figures and warnings (analyse/load.py), and the
settings that shape a schedule, with their bad values refused."""
import csv
import io

import numpy as np
import pytest
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

from ipclab.analyse import load as analysis
from ipclab.common.errors import UserError
from ipclab.execute import load
from ipclab.plan import matrix
from ipclab.plan import settings as setting_table
from ipclab.plan.scenario import load_scenario
from ipclab.records import hdr


def records(rows):
    """A records file (11.5.3) from (request, connection, measured, intended, sent, received, error)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(load.COLUMNS)
    writer.writerows(["" if v is None else v for v in row] for row in rows)
    return out.getvalue()


# Two connections, a request every 1000 ns. Request 2 (connection 0) was due at 2000 but its
# connection's previous answer (request 0) came only at 2500: it waited for the server, then the
# client took 100 ns more. Request 3 is an error, request 0 the warm-up.
ROWS = [(0, 0, 0, 0, 10, 2500, None), (1, 1, 1, 1000, 1010, 1300, None),
        (2, 0, 1, 2000, 2600, 2900, None), (3, 1, 1, 3000, 3005, None, "timeout"),
        (4, 0, 1, 4000, 4001, 4201, None)]


def test_request_times_split_the_wait_for_the_server_from_the_clients_own_lateness():
    times = load.request_times(records(ROWS))
    assert times["intended"].tolist() == [1000, 2000, 4000]   # measured, without error
    assert times["response"].tolist() == [300, 900, 201]
    assert times["service"].tolist() == [290, 300, 200]
    assert times["lateness"].tolist() == [10, 600, 1]
    assert times["client_lateness"].tolist() == [10, 100, 1]  # request 2: 2600 - max(2000, 2500)


def test_a_records_file_with_another_header_gives_nothing():
    assert load.request_times("request,connection\n1,0\n") == {}
    assert analysis.reductions({}) == {}


def test_reductions_are_nearest_rank_percentiles():
    values = np.arange(1, 1001, dtype=np.int64)
    got = analysis.reductions({"response": values})["response"]
    assert got == {"p50": 500, "p90": 900, "p99": 990, "p99_9": 999, "max": 1000}


def test_hdr_logs_read_back_with_hdrhistograms_own_reader(tmp_path):
    intended = np.array([0, 10, 1_500_000_000, 1_600_000_000], dtype=np.int64)
    values = np.array([1000, 2000, 50_000_000, 3000], dtype=np.int64)
    path = tmp_path / "r.hlog"
    load.write_hdr_log(path, intended, values)
    reader = HistogramLogReader(str(path), HdrHistogram(*hdr.RANGE))
    counts, top = [], 0
    while (h := reader.get_next_interval_histogram()) is not None:
        counts.append(h.get_total_count())
        top = max(top, h.get_max_value())
    assert counts == [2, 2]           # one interval per second of intended starts
    assert abs(top - 50_000_000) / 50_000_000 < 0.001


def round_entry(rate=1000, achieved=1000.0, client_late_p99=10_000, response_p99=2_000_000):
    return {"status": "ok", "load": {
        "rate": rate, "achieved_per_s": achieved, "requests_ok": 100, "requests_failed": 1,
        "errors": {"timeout": 1},
        "response": {"p50": 1000, "p90": 2000, "p99": response_p99, "p99_9": 3_000_000, "max": 4_000_000},
        "service": {"p50": 900, "p90": 1000, "p99": 1100, "p99_9": 1200, "max": 1300},
        "client_lateness": {"p50": 1, "p90": 2, "p99": client_late_p99, "p99_9": 4, "max": 5}}}


def test_a_case_takes_the_median_over_rounds_and_sums_the_counts():
    record = {"pattern": "load", "client": "python", "rounds": [
        round_entry(response_p99=1_000_000), round_entry(response_p99=3_000_000),
        round_entry(response_p99=2_000_000), {"status": "failed"}]}
    got = analysis.figures(record)
    assert got["response_p99"] == 2_000_000 and got["service_max"] == 1300
    assert got["requests_ok"] == 300 and got["errors"] == "timeout 3"
    assert got["schedule_kept"] is True and got["rate_achieved"] is True
    assert analysis.warnings({**record, **got}) == []


def test_the_warnings_name_the_side_that_limited_the_rate():
    record = {"pattern": "load", "client": "python", "rounds": [
        round_entry(achieved=950.0), round_entry(client_late_p99=5_000_000)]}
    record.update(analysis.figures(record))
    kinds = {w.kind: w.text for w in analysis.warnings(record)}
    assert set(kinds) == {"client-late", "below-rate"}
    assert "python client" in kinds["client-late"] and "of 1,000 requests/s" in kinds["below-rate"]


def test_other_patterns_have_no_load_figures():
    assert analysis.figures({"pattern": "rr", "rounds": []}) == {}


def scenario(catalog, **overrides):
    return load_scenario(None, catalog, {"client": "cpp", "server": "cpp", "mechanism": "tcp",
                                         **overrides})


def test_clients_and_rate_are_named_in_every_load_case(catalog):
    plan = scenario(catalog, pattern="load", rate="1000,5000", clients="4",
                    server_model="epoll", duration="500ms", load_warmup="0")
    cases = matrix.expand(plan, catalog)
    assert [dict(c.settings)["rate"] for c in cases] == [1000, 5000]
    assert "×4 5,000/s" in cases[1].label and cases[1].id.endswith("-load-epoll-c4-r5000")
    assert setting_table.peer_flags(cases[1].settings, "drive") == ["--clients", "4",
                                                                     "--rate", "5000"]
    assert (plan.run.duration, plan.run.load_warmup) == (0.5, 0.0)
    assert load.drive_flags(cases[0], plan.run, __import__("pathlib").Path("/d"))[:6] == [
        "--pattern", "load", "--duration-ms", "500", "--warmup-ms", "0"]


def test_a_rate_asked_of_a_pattern_without_a_schedule_is_said_not_dropped(catalog):
    (case,) = matrix.expand(scenario(catalog, rate="5000"), catalog)
    assert case.skip_status == "not-applicable" and "setting of the load pattern" in case.skip_reason


@pytest.mark.parametrize("flag, value, words", [
    ("rate", "0", "not a valid rate"), ("rate", "-5", "not a valid rate"),
    ("rate", "20000000", "1 to 10,000,000"), ("clients", "0", "not a valid clients"),
    ("clients", "2000", "1 to 1,024"), ("arrival", "bursty", "unknown arrival 'bursty'"),
    ("duration", "0", "not a duration above 0"), ("load_warmup", "-1s", "warm-up time"),
])
def test_bad_schedule_values_are_one_line_naming_the_flag(catalog, flag, value, words):
    with pytest.raises(UserError) as caught:
        scenario(catalog, pattern="load", **{flag: value})
    message = str(caught.value)
    assert message.startswith(f"--{flag.replace('_', '-')}: ") and words in message
    assert "\n" not in message


class FakeRun:
    def __init__(self, sweep_from=500, slo=None):
        self.sweep_from, self.slo = sweep_from, slo
        self.load_warmup, self.duration = 0.0, 100e-6   # fake_step's 100 requests, 1 µs apart


def fake_step(capacity, calls):
    """A step at a rate: below `capacity` every answer takes 100 µs and the rate is achieved;
    above it the answers queue (10 ms) and only `capacity` req/s come back."""
    from dataclasses import dataclass, field

    @dataclass
    class Outcome:
        case: object
        status: str = "ok"
        client: dict = field(default_factory=dict)
        part: dict = field(default_factory=dict)

    def step(case):
        rate = dict(case.settings)["rate"]
        calls.append(rate)
        delay = 100_000 if rate <= capacity else 10_000_000
        rows = [(k, 0, 1, k * 1000, k * 1000, k * 1000 + delay, None) for k in range(100)]
        return Outcome(case, client={"achieved_per_s": float(min(rate, capacity)),
                                     "requests_failed": 0},
                       part={"records_text": records(rows)})
    return step


def sweep_case(catalog):
    (case,) = matrix.expand(scenario(catalog, pattern="load", rate="sweep",
                                     server_model="epoll"), catalog)
    return case


def test_a_sweep_brackets_then_bisects_to_the_capacity(catalog):
    case, calls = sweep_case(catalog), []
    assert load.searches(case) and setting_table.peer_flags(case.settings, "drive") == [
        "--clients", "8"]                      # no rate reaches a peer: each step sets its own
    got = load.search(fake_step(2000, calls), case, FakeRun())
    assert calls[:4] == [500, 1000, 2000, 4000]   # doubling until a step fails
    knee = got.part["knee_per_s"]
    assert 2000 <= knee <= 2000 * 1.05 and got.case is case
    assert got.part["slo_ns"] == 3 * 100_000      # 3 × the first step's p99
    assert [s["passed"] for s in got.part["steps"]][:4] == [True, True, True, False]
    entry = load.round_entry(got, "load")["load"]
    assert entry["knee_per_s"] == knee and len(entry["steps"]) == len(calls)


def test_a_sweep_whose_first_rate_fails_halves_until_one_passes(catalog):
    calls = []
    got = load.search(fake_step(300, calls), sweep_case(catalog), FakeRun(sweep_from=2000,
                                                                           slo=0.001))
    assert calls[:4] == [2000, 1000, 500, 250]
    assert 250 <= got.part["knee_per_s"] <= 300


@pytest.mark.parametrize("failed, overrun_ns, kept", [
    (0, -1_000, True), (0, 19_000_000, True),   # 19 ms late at the end: under 1% short, still kept
    (0, 21_000_000, False), (1, 0, False), (0, None, False)])
def test_a_step_keeps_its_rate_when_all_is_answered_by_the_schedules_end_plus_the_slo(
        failed, overrun_ns, kept):
    step = {"rate": 500, "achieved_per_s": 494.6, "requests_failed": failed,
            "overrun_ns": overrun_ns, "response_p99": 5_000_000}
    assert load.rate_kept(step, 20_000_000) is kept
    assert load.within_slo(step, 20_000_000) is kept
    assert not load.within_slo({**step, "response_p99": 21_000_000}, 20_000_000)


def test_a_sweep_in_a_list_of_rates_is_refused(catalog):
    with pytest.raises(UserError, match=r"^--rate: sweep stands alone"):
        scenario(catalog, pattern="load", rate="sweep,1000")


def test_the_knee_over_rounds_is_their_median_and_range():
    rounds = [{"status": "ok", "load": {**round_entry()["load"], "steps": [], "knee_per_s": k,
                                        "slo_ns": 300_000}} for k in (1900, 2100, 2000)]
    got = analysis.figures({"pattern": "load", "client": "cpp", "rounds": rounds})
    assert (got["knee_per_s"], got["knee_low"], got["knee_high"]) == (2000, 1900, 2100)
    assert analysis.warnings({"client": "cpp", **got}) == []


def test_load_over_a_mechanism_of_one_client_is_refused_alone_and_not_applicable_beside(catalog):
    with pytest.raises(UserError, match=r"^--mechanism: pipe serves one client at a time, and "
                                        r"load needs a server that serves several at once \(tcp, "):
        scenario(catalog, pattern="load", mechanism="pipe")
    made = matrix.expand(scenario(catalog, pattern="rr,load", mechanism="pipe",
                                  server_model="epoll"), catalog)
    assert [(c.pattern.name, c.skip_status) for c in made] == [("rr", None), ("load", "not-applicable")]


def test_a_request_over_one_message_is_not_applicable_to_load_over_a_shared_queue(catalog):
    made = matrix.expand(scenario(catalog, pattern="rr,load", mechanism="sysv-mq,posix-mq",
                                  request_size="8168,8169", server_model="iterative"), catalog)
    load_cases = {(c.mechanism, c.request_size): c for c in made if c.pattern.name == "load"}
    for mech in ("sysv-mq", "posix-mq"):
        assert "over 8168 B: under load every client shares one request queue" in \
            load_cases[mech, 8169].skip_reason
        assert "shares one request queue" not in (load_cases[mech, 8168].skip_reason or "")
    assert all(c.skip_status is None for c in made if c.pattern.name == "rr")


def test_a_sweep_without_a_passing_step_says_so():
    rounds = [{"status": "ok", "load": {**round_entry()["load"], "steps": [], "knee_per_s": None,
                                        "slo_ns": 300_000}}]
    got = analysis.figures({"pattern": "load", "client": "cpp", "rounds": rounds})
    assert got["knee_per_s"] is None and got["slo_ns"] == 300_000
    (warning,) = analysis.warnings({"client": "cpp", **got})
    assert warning.kind == "no-knee" and "300 µs" in warning.text
