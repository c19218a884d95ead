"""A claim judged as its study ran it (plan/claims.py `condition`, analyse/claims.py): the study's
pairs decide the verdict, every other pair is a row beyond the study; "most" and "between";
the total, sd and cv statistics; `ipclab why` (analyse/why.py); and `ipclab claims check`, each
claim on its own study's figures (analyse/claim_check.py)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ipclab.analyse import case_stats, claim_check, why
from ipclab.analyse import claims as verdicts
from ipclab.common.errors import UserError
from ipclab.output import claims as claims_out
from ipclab.plan import claims, matrix
from ipclab.execute.probe import load_catalog
from ipclab.plan.scenario import StatSettings, build_scenario, load_scenario

ROOT = Path(__file__).resolve().parents[2]


def run_of(cases, rounds=5, n=400, spread=0.02, seed=3, sd=0.05):
    """Records and kept samples of `cases`: (mechanism, server, placement, median ns[, sd])."""
    rng = np.random.default_rng(seed)
    records, kept = [], {}
    for index, (mechanism, server, placement, median, *spread_of) in enumerate(cases, 1):
        case = matrix.Case(index, mechanism, "java", server, 40, 40, placement, "rr")
        record = {**case.as_dict(), "status": "ok", "reason": None,
                  "rounds": [{"round": r, "status": "ok"} for r in range(1, rounds + 1)]}
        width = spread_of[0] if spread_of else sd
        samples = {r: median * (1 + rng.normal(0, spread)) * rng.lognormal(0, width, n)
                   for r in range(1, rounds + 1)}
        kept[record["id"]] = case_stats.analyse(record, samples, StatSettings(outliers="none"))
        records.append(record)
    return records, kept


def claim(**fields):
    return claims.Claim(**{"text": "fifo beats tcp", "a": {"mechanism": ["fifo"]},
                           "b": {"mechanism": ["tcp"]}, "relation": "<", **fields})


STUDY = {"server": ["cpp"], "placement": ["same-core"]}


def test_the_studys_pair_decides_and_an_extension_that_fails_is_a_row_beside_it():
    records, kept = run_of([("fifo", "cpp", "same-core", 60_000), ("tcp", "cpp", "same-core",
                            100_000), ("fifo", "python", "same-core", 300_000),
                            ("tcp", "python", "same-core", 100_000)])
    found = verdicts.judge([claim(condition=STUDY)], records, kept)[0]
    assert found.verdict == verdicts.HOLDS and len(found.pairs) == 1
    assert found.condition == "server cpp, placement same-core"
    [beyond] = found.beyond
    assert beyond.condition == "server python" and beyond.verdict == verdicts.FAILS
    assert beyond.measured.figure == pytest.approx(3.0, rel=0.1)
    # Without the condition the same run fails: the extension would decide it.
    assert verdicts.judge([claim()], records, kept)[0].verdict == verdicts.FAILS
    rows = claims_out.rows([found])
    assert rows[0][-1] == "holds" and "on server cpp, placement same-core" in rows[0][3]
    assert rows[1][0] == "↳ beyond the study: server python" and rows[1][-1] == "fails"
    line = verdicts.summary_line([found])
    assert line == ("replication: 1 of 1 claim hold, 0 fail, 0 cannot tell (beyond the "
                    "study: 1 row, 1 with another verdict)")
    assert found.as_dict()["beyond"][0]["verdict"] == "fails"


def test_a_setting_in_the_condition_is_met_by_a_case_it_does_not_apply_to():
    record = {"mechanism": "sysv-mq", "settings": {}, "client": "java", "server": "java"}
    assert claims.meets(record, {"nodelay": ["off"]})
    assert not claims.meets({**record, "settings": {"nodelay": "on"}}, {"nodelay": ["off"]})
    assert not claims.meets(record, {"server": ["cpp"]})


def test_no_pair_run_as_the_study_did_cannot_tell_and_says_where_to_look():
    records, kept = run_of([("fifo", "python", "same-core", 60_000),
                            ("tcp", "python", "same-core", 100_000)])
    found = verdicts.judge([claim(condition=STUDY)], records, kept)[0]
    assert found.verdict == verdicts.CANNOT_TELL and "runs as the study did" in found.advice
    assert found.beyond[0].verdict == verdicts.HOLDS


def test_most_pairs_is_enough_where_the_study_says_usually():
    records, kept = run_of([("fifo", "cpp", "same-core", 60_000),
                            ("tcp", "cpp", "same-core", 100_000),
                            ("uds", "cpp", "same-core", 90_000),
                            ("pipe", "cpp", "same-core", 40_000)])
    every = claim(b={"mechanism": ["tcp", "uds", "pipe"]})
    assert verdicts.judge([every], records, kept)[0].verdict == verdicts.FAILS
    most = claim(b={"mechanism": ["tcp", "uds", "pipe"]}, over="most")
    assert verdicts.judge([most], records, kept)[0].verdict == verdicts.HOLDS


def test_between_holds_for_a_middle_case_and_fails_for_the_fastest():
    records, kept = run_of([("grpc", "java", "cross-core", 100_000),
                            ("ice", "java", "cross-core", 150_000),
                            ("thrift-binary", "java", "cross-core", 60_000)])
    middle = claim(a={"mechanism": ["grpc"]}, b={"mechanism": ["ice", "thrift-binary"]},
                   relation="between")
    found = verdicts.judge([middle], records, kept)[0]
    assert found.verdict == verdicts.HOLDS and claims_out.measured_text(found) == "rank 2 of 3"
    fastest = claim(a={"mechanism": ["thrift-binary"]}, b={"mechanism": ["ice", "grpc"]},
                    relation="between")
    assert verdicts.judge([fastest], records, kept)[0].verdict == verdicts.FAILS


def test_total_sd_and_cv_are_judged_with_intervals():
    # tcp: twice fifo's time and four times its spread in absolute terms, twice in relative.
    records, kept = run_of([("fifo", "cpp", "same-core", 50_000, 0.05),
                            ("tcp", "cpp", "same-core", 100_000, 0.1)])
    total = verdicts.judge([claim(statistic="total", relation="≈", value=0.5, tolerance=0.1)],
                           records, kept)[0]
    assert total.verdict == verdicts.HOLDS
    alone = verdicts.judge([claim(b=None, statistic="total", relation=">", value=400 * 40_000)],
                           records, kept)[0]
    assert alone.verdict == verdicts.HOLDS and alone.measured.figure == pytest.approx(
        400 * 50_000, rel=0.1)
    sd = verdicts.judge([claim(statistic="sd", relation="<", value=0.4)], records, kept)[0]
    assert sd.verdict == verdicts.HOLDS and 0.15 < sd.measured.figure < 0.35
    cv = verdicts.judge([claim(statistic="cv", relation="≈", value=0.5, tolerance=0.3)],
                        records, kept)[0]
    assert cv.verdict == verdicts.HOLDS
    own = verdicts.judge([claim(b=None, statistic="cv", relation="<", value=0.1)],
                         records, kept)[0]
    pair = own.measured
    assert own.verdict == verdicts.HOLDS and 0.04 < pair.low < pair.figure < pair.high < 0.1


def test_why_names_the_condition_that_turns_a_failing_claim():
    # The study ran one CPU, where fifo loses; on two CPUs fifo wins.
    records, kept = run_of([("fifo", "cpp", "same-core", 150_000),
                            ("tcp", "cpp", "same-core", 100_000),
                            ("fifo", "cpp", "cross-core", 60_000),
                            ("tcp", "cpp", "cross-core", 100_000)])
    found = why.explain(claim(condition={"placement": ["same-core"]}), records, kept)
    assert found.verdict == verdicts.FAILS
    tried = {t.changed: t.verdict for t in found.tried}
    assert tried["placement same-core → cross-core"] == verdicts.HOLDS
    assert tried["statistic median → mean"] == verdicts.FAILS
    assert "holds with placement same-core → cross-core: placement decides it" in found.finding
    text = "\n".join(claims_out.why_lines(found))
    assert "fails as the study ran it" in text and "cross-core: holds, 0.6" in text


def test_why_says_plainly_when_nothing_the_run_holds_turns_it():
    records, kept = run_of([("fifo", "cpp", "same-core", 150_000),
                            ("tcp", "cpp", "same-core", 100_000),
                            ("fifo", "cpp", "cross-core", 160_000),
                            ("tcp", "cpp", "cross-core", 100_000)])
    found = why.explain(claim(condition={"placement": ["same-core"]}), records, kept)
    assert found.finding == ("no condition this run holds makes it hold: the study's "
                             "conclusion does not hold here")


BASE = {"name": "c", "matrix": {"mechanism": ["tcp", "fifo"], "client": ["java"],
                                "server": ["java"], "request_size": ["40", "400"],
                                "response_size": ["40"]}}


def checked(**fields):
    raw = {"text": "fifo beats the socket", "a": {"mechanism": "fifo"},
           "b": {"mechanism": "tcp"}, "relation": "<", **fields}
    plan = build_scenario({**BASE, "claim": [raw]}, "s.toml", load_catalog(check=False), {}, "c")
    return plan.claims[0], claim_check.check(plan.claims[0])


def test_a_claim_holds_on_its_figures_in_its_own_terms():
    _, found = checked(figures=[{"a": 63, "b": 100, "unit": "µs"}])
    assert found.verdict == verdicts.HOLDS
    # A rate claim read from times: the queue's time 0.874× the socket's is 1.144× its rate.
    _, rate = checked(statistic="msgs_per_s", relation="≈", value=1.13, tolerance=0.1,
                      figures=[{"a": 29714, "b": 33996.2, "unit": "ms"}])
    assert rate.verdict == verdicts.HOLDS and rate.rows[0][1] == pytest.approx(1.144, rel=1e-3)


def test_a_figure_that_contradicts_its_claim_is_one_line_naming_the_cell_and_value():
    claim_, found = checked(figures=[
        {"a": 63, "b": 100, "unit": "µs", "cell": "Table 1, 40 B", "at": {"request_size": "40"}},
        {"a": 120, "b": 100, "unit": "µs", "cell": "Table 1, 400 B", "at": {"request_size": 400}}])
    assert found.verdict == verdicts.FAILS
    [line] = claim_check.problems("s.toml", 0, found)
    assert line == ("s.toml: claim[0] \"fifo beats the socket\": figures[1] (Table 1, 400 B: "
                    "120 µs against 100 µs) is 1.2, not < 1: fails")
    _, narrowed = checked(where={"request_size": 40}, figures=[
        {"a": 63, "b": 100, "unit": "µs", "at": {"request_size": "40"}},
        {"a": 120, "b": 100, "unit": "µs", "at": {"request_size": 400}}])
    assert narrowed.verdict == verdicts.HOLDS and len(narrowed.rows) == 1


@pytest.mark.parametrize("bad, message", [
    ({"figures": [{"a": 1}]}, "figures[0]: the claim compares a with b: a figure row needs b"),
    ({"figures": [{"a": 1, "b": 2, "unit": "furlong"}]}, "figures[0].unit: unknown value"),
    ({"figures": [{"a": -1, "b": 2}]}, "figures[0]: -1: a study's figure must be a positive"),
    ({"figures": [{"a": 1, "b": 2, "unit": "B"}]}, "unit 'B' does not measure the claim's median"),
    ({"figures": [{"a": 1, "b": 2, "at": {"colour": "red"}}]}, "figures[0].at.colour: unknown"),
    ({"over": "some"}, "claim[0].over: unknown value 'some'"),
    ({"condition": {"placement": "on-the-moon"}}, "claim[0].condition.placement:"),
])
def test_bad_figures_and_conditions_are_one_line(bad, message):
    with pytest.raises(UserError) as error:
        checked(**bad)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_every_study_scenarios_claims_hold_on_their_own_figures():
    catalog = load_catalog(check=False)
    studies = 0
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        plan = load_scenario(path, catalog)
        for i, c in enumerate(plan.claims):
            found = claim_check.check(c)
            assert not claim_check.problems(path.name, i, found)
        studies += bool(plan.claims)
    assert studies >= 5


def test_claims_check_fails_on_the_thesis_files_claim_read_over_every_response_size(tmp_path):
    text = (ROOT / "scenarios/thesis-java-cpp.toml").read_text()
    start = text.index('text = "files are the slowest at small sizes"')
    narrow = 'where = { request_size = [16, 1024], response_size = [16, 1024] }'
    at = text.index(narrow, start)
    edited = tmp_path / "thesis.toml"
    edited.write_text(text[:at] + "where = { request_size = 16 }" + text[at + len(narrow):])
    done = subprocess.run([sys.executable, "-m", "ipclab", "claims", "check", str(edited)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("claim[2] \"files are the slowest at small sizes\": figures[14] (Table 4.1, "
            "16B/256KiB: files against REST: 2978 µs against 6382 µs) is 0.4666, not > 1: "
            "fails") in done.stdout
    ok = subprocess.run([sys.executable, "-m", "ipclab", "claims", "check"],
                        capture_output=True, text=True, cwd=ROOT)
    assert ok.returncode == 0, ok.stdout + ok.stderr
