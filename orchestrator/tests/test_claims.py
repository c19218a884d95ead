"""Claims of a study (plan/claims.py) and their verdicts (analyse/claims.py): synthetic runs whose
intervals lie on one side of a claim, on the other, or across it; "≈" bands; and the scenario
checks that refuse a bad claim with one line."""
from pathlib import Path

import numpy as np
import pytest

from ipclab.analyse import case_stats
from ipclab.analyse import claims as verdicts
from ipclab.common.errors import UserError
from ipclab.output import claims as claims_out
from ipclab.output import model
from ipclab.plan import claims, matrix
from ipclab.execute.probe import load_catalog
from ipclab.plan.scenario import StatSettings, build_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def run_of(medians, rounds=5, n=400, spread=0.02, seed=3, servers=None):
    """Records and kept samples of cases "mechanism: median ns" (java→java, 40 B, or java→the
    server `servers` names), each with `rounds` rounds of `n` samples around its median, the
    rounds' medians `spread` apart."""
    rng = np.random.default_rng(seed)
    records, kept = [], {}
    for index, (mechanism, median) in enumerate(medians.items(), 1):
        server = (servers or {}).get(mechanism, "java")
        case = matrix.Case(index, mechanism, "java", server, 40, 40, "cross-core", "rr")
        record = {**case.as_dict(), "status": "ok", "reason": None,
                  "rounds": [{"round": r, "status": "ok"} for r in range(1, rounds + 1)]}
        samples = {r: median * (1 + rng.normal(0, spread)) * rng.lognormal(0, 0.05, n)
                   for r in range(1, rounds + 1)}
        kept[record["id"]] = case_stats.analyse(record, samples, StatSettings(outliers="none"))
        records.append(record)
    return records, kept


def claim(**fields):
    return claims.Claim(**{"text": "t", "a": {"mechanism": ["fifo"]},
                           "b": {"mechanism": ["tcp"]}, "relation": "<", **fields})


def test_an_interval_on_the_claimed_side_holds_on_the_other_fails_across_cannot_tell():
    records, kept = run_of({"fifo": 63_000, "tcp": 100_000, "uds": 100_500})
    faster = verdicts.judge([claim()], records, kept)[0]
    assert faster.verdict == verdicts.HOLDS
    pair = faster.pairs[0]
    assert pair.low < pair.figure < pair.high < 1 and pair.figure == pytest.approx(0.63, rel=0.05)
    assert verdicts.judge([claim(relation=">")], records, kept)[0].verdict == verdicts.FAILS
    same = verdicts.judge([claim(a={"mechanism": ["uds"]})], records, kept)[0]
    assert same.pairs[0].low < 1 < same.pairs[0].high
    assert same.verdict == verdicts.CANNOT_TELL and "more" in same.advice


def test_about_claims_against_a_band():
    records, kept = run_of({"fifo": 63_000, "tcp": 100_000})
    near = claim(relation="≈", value=0.6, tolerance=0.2)     # band 0.48–0.72 holds 0.63
    far = claim(relation="≈", value=0.3, tolerance=0.2)      # band 0.24–0.36: apart
    assert [v.verdict for v in verdicts.judge([near, far], records, kept)] == \
        [verdicts.HOLDS, verdicts.FAILS]


def test_the_mock_pairs_whatever_the_other_cases_server():
    # `none` has no server: its cases are java→java beside java→cpp ones (the thesis's mock).
    records, kept = run_of({"none": 1_000, "tcp": 100_000, "fifo": 60_000},
                           servers={"tcp": "cpp", "fifo": "cpp"})
    mock = claim(a={"mechanism": ["none"]}, b={"mechanism": ["tcp", "fifo"]})
    found = verdicts.judge([mock], records, kept)[0]
    assert len(found.pairs) == 2 and found.verdict == verdicts.HOLDS
    apart = claim(a={"mechanism": ["fifo"]}, b={"mechanism": ["tcp"]})
    records[2]["server"] = "java"     # two served cases on different servers still do not pair
    assert verdicts.judge([apart], records, kept)[0].pairs == []


def test_a_claim_against_a_number_uses_the_cases_own_interval():
    records, kept = run_of({"fifo": 63_000, "tcp": 100_000})
    below = claim(b=None, value=80_000)
    mean_above = claim(b=None, value=50_000, relation=">", statistic="mean")
    found = verdicts.judge([below, mean_above], records, kept)
    assert [v.verdict for v in found] == [verdicts.HOLDS, verdicts.HOLDS]
    assert claims_out.measured_text(found[0]).startswith("6")       # "63.xx µs [..]"
    assert not found[0].comparison


def test_every_pair_must_hold_and_one_failing_pair_fails_the_claim():
    records, kept = run_of({"fifo": 63_000, "tcp": 100_000, "uds": 50_000})
    every = claim(b={"mechanism": ["tcp", "uds"]})       # fifo < tcp holds, fifo < uds fails
    found = verdicts.judge([every], records, kept)[0]
    assert sorted(p.verdict for p in found.pairs) == [verdicts.FAILS, verdicts.HOLDS]
    assert found.verdict == verdicts.FAILS
    assert found.measured.verdict == verdicts.FAILS      # the pair that decides is shown


def test_a_case_that_did_not_run_leaves_its_claim_undecided():
    records, kept = run_of({"fifo": 63_000, "tcp": 100_000})
    records[1]["status"] = "failed"
    found = verdicts.judge([claim()], records, kept)[0]
    assert found.verdict == verdicts.CANNOT_TELL and "not run: failed" in found.advice


def test_a_pair_the_peers_cannot_run_is_left_out_of_the_verdict():
    """server-models' "a process spawns over 20x slower than a thread" names the Java server,
    which has no `process` model: that pair is not what the claim is about."""
    records, kept = run_of({"fifo": 63_000, "tcp": 100_000, "uds": 100_500})
    records[2]["status"] = "not-applicable"
    found = verdicts.judge([claim(b={"mechanism": ["tcp", "uds"]})], records, kept)[0]
    assert found.verdict == verdicts.HOLDS and len(found.pairs) == 1
    records[1]["status"] = "not-applicable"
    found = verdicts.judge([claim(b={"mechanism": ["tcp", "uds"]})], records, kept)[0]
    assert found.verdict == verdicts.CANNOT_TELL and not found.pairs
    assert "2 not applicable" in found.advice


def test_the_report_carries_the_verdicts_into_table_md_run_json_and_the_terminal_line():
    records, kept = run_of({"fifo": 63_000, "tcp": 100_000})
    document = {"scenario": {"name": "s", "statistics": {}, "run": {"seed": 1},
                             "claims": [claim(source="Table 1", study_value="63%").as_dict()]},
                "results": records}
    report = model.build(document, StatSettings(outliers="none"), kept)
    assert [v.verdict for v in report.claims] == [verdicts.HOLDS]
    assert document["claims"][0]["verdict"] == "holds"
    from ipclab.output import html, markdown, sections, terminal
    page = sections.page(report)
    text = markdown.render(page)
    assert text.startswith("# ipclab: s\n\n## claims of the study")   # what the run was for
    assert "| t | Table 1 | 63% | 0.6" in text and "| holds |" in text
    assert "- replication: 1 of 1 claim hold, 0 fail, 0 cannot tell." in text
    lines = [str(line) for line, _ in terminal.render(page)]
    assert lines[-1] == "replication: 1 of 1 claim hold, 0 fail, 0 cannot tell; see table.md"
    written = html.render(page)
    assert "<h2 id='claims'>Claims of the study</h2>" in written and "<td>holds</td>" in written
    assert written.index("Claims of the study") < written.index("Every case")


BASE = {"name": "c", "matrix": {"mechanism": ["tcp", "fifo"], "client": ["java"],
                                "server": ["java"], "request_size": ["40"],
                                "response_size": ["40"]}}


def scenario_with(*claim_tables, overrides=None):
    catalog = load_catalog(check=False)
    plan = build_scenario({**BASE, "claim": list(claim_tables)}, "s.toml", catalog,
                          overrides or {}, "c")
    return plan, matrix.expand(plan, catalog)


GOOD = {"text": "fifo beats the socket", "a": {"mechanism": "fifo"}, "b": {"mechanism": "tcp"},
        "relation": "<"}


@pytest.mark.parametrize("bad, message", [
    ({"relation": "<="}, "s.toml: claim[0].relation: unknown value '<='"),
    ({"statistic": "p42"}, "s.toml: claim[0].statistic: unknown value 'p42'"),
    ({"relation": "≈"}, "s.toml: claim[0].tolerance: None: a claim of \"≈\" needs"),
    ({"a": {"colour": "red"}}, "s.toml: claim[0].a.colour: unknown axis"),
    ({"a": {"mechanism": "carrier-pigeon"}}, "s.toml: claim[0].a.mechanism: unknown mechanism"),
    ({"value": -1}, "s.toml: claim[0].value: -1 must be a positive number"),
    ({"because": "x"}, "s.toml: claim[0].because: unknown key"),
])
def test_a_bad_claim_is_one_line_naming_it(bad, message):
    with pytest.raises(UserError) as error:
        scenario_with({**GOOD, **bad})
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_a_claim_naming_a_case_the_matrix_lacks_is_refused_at_load_time():
    plan, cases = scenario_with({**GOOD, "b": {"mechanism": "uds"}})
    with pytest.raises(UserError, match=r"^s.toml: claim\[0\].b: no case of the matrix is "
                                        r"mechanism uds$"):
        claims.check_planned(plan.claims, cases, plan.source, overridden=False)
    kept, note = claims.check_planned(plan.claims, cases, plan.source, overridden=True)
    assert kept == [] and "1 claim(s) of the scenario set aside" in note


def test_every_study_scenarios_claims_name_cases_of_its_matrix():
    catalog = load_catalog(check=False)
    from ipclab.plan.scenario import load_scenario
    with_claims = 0
    for path in sorted(SCENARIOS.glob("*.toml")):
        plan = load_scenario(path, catalog)
        kept, note = claims.check_planned(plan.claims, matrix.expand(plan, catalog), str(path),
                                          overridden=False)
        assert note is None and len(kept) == len(plan.claims)
        with_claims += bool(plan.claims)
    assert with_claims >= 4


def test_the_means_interval_accounts_for_the_rounds():
    # Three rounds whose means differ by ~20%: the t-interval over the pooled samples treats
    # them as one run and is far too narrow; the case's interval is drawn over the rounds.
    from ipclab.analyse import stats
    records, kept = run_of({"tcp": 100_000}, rounds=3, spread=0.2)
    trimmed = records[0]["trimmed"]
    pooled = np.concatenate(list(kept[records[0]["id"]].values()))
    pooled_low, pooled_high = stats.ci95_of_mean(pooled)
    assert trimmed["ci95_low"] < pooled_low and trimmed["ci95_high"] > pooled_high
    assert trimmed["ci95_high"] - trimmed["ci95_low"] > 5 * (pooled_high - pooled_low)


def test_compare_names_the_claims_whose_verdict_changed():
    from ipclab.analyse import compare
    made = []
    for fifo in (63_000, 160_000):   # FIFO beats the socket in A, loses in B
        records, kept = run_of({"fifo": fifo, "tcp": 100_000})
        document = {"scenario": {"name": "s", "statistics": {}, "run": {"seed": 1},
                                 "claims": [claim(text="fifo < tcp").as_dict(),
                                            claim(text="tcp fast", a={"mechanism": ["tcp"]},
                                                  b=None, value=1e9).as_dict()]},
                    "results": records}
        made.append(compare.Run(f"run{len(made)}", document, kept))
    found = compare.compare(*made)
    assert found.claims == [("fifo < tcp", "holds", "fails"), ("tcp fast", "holds", "holds")]
    from ipclab.output import compare as compared, markdown
    text = markdown.render(compared.page(found))
    assert "claim changed: fifo < tcp: holds (A) → fails (B)" in text
    assert "claims: 1 of 2 changed verdict" in text


def test_measured_is_the_pair_nearest_to_failing_when_all_hold():
    """"Measured: the pair furthest from the claim": with every pair holding, the one that
    decides is the nearest to the value, not the first judged."""
    from ipclab.analyse.claims import Row
    from ipclab.analyse.claim_pairs import HOLDS, PairVerdict
    pairs = [PairVerdict("m", "x", 0.0004, 0.0001, 0.0006, HOLDS),
             PairVerdict("m", "y", 0.14, 0.1, 0.2, HOLDS),
             PairVerdict("m", "z", 0.002, 0.001, 0.004, HOLDS)]
    assert Row("", HOLDS, pairs, "<", 1.0).measured.b == "y"
    assert Row("", HOLDS, pairs, ">", 0.0).measured.b == "x"
    assert Row("", HOLDS, pairs, "≈", 0.002).measured.b == "y"
    assert Row("", HOLDS, pairs, "between").measured.b == "x"
