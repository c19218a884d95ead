"""Renderers are pure: a page of fixed records in, bytes out, compared with golden files.
Set IPCLAB_UPDATE_GOLDEN=1 to rewrite the golden files after an intended change."""
import os
from pathlib import Path

import numpy as np
import pytest

from ipclab.analyse import case_stats
from ipclab.output import csv, markdown, model, sections
from ipclab.plan.matrix import Case
from ipclab.execute.runner import Outcome
from ipclab.plan.scenario import StatSettings
from ipclab.execute import rundir

GOLDEN = Path(__file__).with_name("golden")
SETTINGS = StatSettings(baseline={"mechanism": "tcp"})


def records():
    tcp = Case(1, "tcp", "cpp", "java", 16, 1024, "cross-core", "rr")
    uds = Case(2, "uds", "cpp", "java", 16, 1024, "cross-core", "rr")
    udp = Case(3, "udp", "cpp", "java", 65536, 16, "cross-core", "rr", "not-applicable",
               "65536 B is over the limit")
    pipe = Case(4, "pipe", "python", "cpp", 16, 1024, "cross-core", "rr")
    grpc = Case(5, "grpc", "python", "java", 0, 0, "cross-core", "rr", payload="medium",
                sequence_length=300)
    base = np.array([40_000 + (i % 10) * 100 for i in range(100)] + [900_000])
    cpus = {"client_cpus": [0], "server_cpus": [1]}
    rounds = {  # case -> the outcome of each round
        tcp: [Outcome(tcp, "ok", samples=base + 50 * r, cpus=cpus, round=r,
                      client={"runtime": "g++ 12.2.0", "warmup": 10}, server={"runtime": "OpenJDK 25"},
                      warmup_samples=np.arange(10) + 50_000) for r in (1, 2, 3)],
        uds: [Outcome(uds, "ok", samples=base // 2 + 30 * r, cpus=cpus, round=r) for r in (1, 2, 3)],
        pipe: [Outcome(pipe, "ok", samples=base, cpus=cpus, round=1),
               Outcome(pipe, "failed", "server was killed by SIGKILL during the case; client: io: "
                       "end of stream", round=2)],
        grpc: [Outcome(grpc, "ok", samples=base * 3, cpus=cpus, round=r) for r in (1, 2, 3)],
    }
    out, kept = [rundir.new_record(udp)], {}
    for case, outcomes in rounds.items():
        record = rundir.new_record(case, 3)
        for o in outcomes:
            rundir.add_round(record, o, f"samples/{case.id}.r{o.round}.i64")
        kept[case.id] = case_stats.analyse(
            record, {o.round: o.samples for o in outcomes if o.status == "ok"}, SETTINGS)
        out.append(record)
    out.sort(key=lambda r: r["index"])
    return case_stats.add_ratios(out, SETTINGS, kept)


def check(name, text):
    path = GOLDEN / name
    if os.environ.get("IPCLAB_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_ratios_against_the_baseline_of_the_same_sizes():
    rs = records()
    assert rs[0]["ratio"] == 1.0 and rs[0]["verdict"] == "baseline"
    assert rs[1]["ratio"] == pytest.approx(0.5, abs=0.01)
    assert rs[1]["ratio_ci_low"] < rs[1]["ratio"] < rs[1]["ratio_ci_high"] < 1
    assert rs[1]["verdict"] == "faster"
    assert rs[2]["ratio"] is None and rs[3]["ratio"] is None
    assert rs[3]["status"] == "failed" and rs[3]["reason"].startswith("round 2: server was killed")
    assert rs[0]["outliers_removed"] == 3 and rs[0]["raw"]["max"] == 900_150
    assert rs[0]["median_ci_low"] <= rs[0]["trimmed"]["median"] <= rs[0]["median_ci_high"]
    assert [r["round"] for r in rs[0]["rounds"]] == [1, 2, 3] and rs[0]["stable"] is True


def test_the_same_records_give_the_same_intervals():
    assert records() == records()


def page():
    return sections.page(model.of_records(records(), "ipclab: golden", "tcp", "median",
                                          table_notes=["a note"]))


def test_csv_golden():
    check("cases.csv", csv.render(page()))


def test_markdown_golden():
    check("table.md", markdown.render(page()))
