"""Exporters are pure: fixed records in, bytes out, compared with golden files.
Set IPCLAB_UPDATE_GOLDEN=1 to rewrite the golden files after an intended change."""
import os
from pathlib import Path

import numpy as np

from ipclab import analysis
from ipclab.export import to_csv, to_markdown
from ipclab.matrix import Case
from ipclab.runner import Outcome
from ipclab.scenario import StatSettings

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
    outcomes = [
        Outcome(tcp, "ok", samples=base, cpus={"client_cpus": [0], "server_cpus": [1]},
                client={"runtime": "g++ 12.2.0"}, server={"runtime": "OpenJDK 25"}),
        Outcome(uds, "ok", samples=base // 2, cpus={"client_cpus": [0], "server_cpus": [1]}),
        Outcome(udp, "not-applicable", "65536 B is over the limit"),
        Outcome(pipe, "failed", "server was killed by SIGKILL during the case; client: io: "
                "end of stream"),
        Outcome(grpc, "ok", samples=base * 3, cpus={"client_cpus": [0], "server_cpus": [1]}),
    ]
    out = []
    for o in outcomes:
        record = analysis.case_record(o)
        out.append(analysis.analyse(record, o.samples, SETTINGS))
    return analysis.add_ratios(out, SETTINGS)


def check(name, text):
    path = GOLDEN / name
    if os.environ.get("IPCLAB_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_ratios_against_the_baseline_of_the_same_sizes():
    rs = records()
    assert rs[0]["ratio"] == 1.0 and rs[1]["ratio"] == 0.5
    assert rs[2]["ratio"] is None and rs[3]["ratio"] is None
    assert rs[0]["outliers_removed"] == 1 and rs[0]["raw"]["max"] == 900_000


def test_csv_golden():
    check("cases.csv", to_csv(records()))


def test_markdown_golden():
    check("table.md", to_markdown(records(), "ipclab: golden", "tcp", "median",
                                  notes=["a note"]))
