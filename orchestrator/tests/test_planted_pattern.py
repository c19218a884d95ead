"""A pattern made of new parts, planted by this test alone: a row in the pattern table
(plan/patterns.py), an execute part (execute/parts.py's Part) and a figure part (analyse/parts.py's
FigurePart). It is planned, run against the fake peer, saved in a run directory and analysed
with no other module touched: the stages loop over the table and the parts' registries instead
of naming patterns. What a real pattern adds beyond these three is the peers' side and its
documentation (docs/extending.md, "Add a pattern")."""
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ipclab.analyse import parts as figure_parts
from ipclab.analyse import saved
from ipclab.execute import parts as execute_parts
from ipclab.execute import plain
from ipclab.execute.rundir import RunStore
from ipclab.execute.runner import Runner
from ipclab.execute.workspace import Workspace
from ipclab.plan import matrix, patterns
from ipclab.plan.catalog import Language
from ipclab.output import model, publish
from ipclab.output.publish import Publisher
from ipclab.plan.scenario import build_scenario

FAKE = str(Path(__file__).with_name("fake_peer.py"))
PING = patterns.Pattern("ping", "11.9", "pings", execute="ping", entry_key="ping",
                        whole_times=True, note="pings (ping)", note_rank=9)


def _drive_flags(case, run, case_dir):
    """The fake peer speaks rr: the planted pattern's client is one."""
    flags = plain.drive_flags(case, run, case_dir)
    return [*flags[:flags.index("--pattern")], "--pattern", patterns.DEFAULT.name,
            *flags[flags.index("--pattern") + 2:]]


# Its execute part: the plain one, with its own flags and what a round keeps.
PING_PART = SimpleNamespace(**{name: getattr(plain, name) for name in dir(plain)
                               if not name.startswith("_")})
PING_PART.drive_flags = _drive_flags
PING_PART.round_entry = lambda outcome, key: {key: {"pings": len(outcome.samples)}}


class PingFigures:
    """Its figure part: the pings each ok round kept, summed."""
    FIELDS = ("pings",)

    @staticmethod
    def figures(record):
        if patterns.of_record(record) is not PING:
            return {}
        return {"pings": sum(e["ping"]["pings"] for e in record["rounds"] if e.get("ping"))}

    @staticmethod
    def warnings(record):
        return []


@pytest.fixture
def planted(catalog, monkeypatch):
    monkeypatch.setitem(patterns.PATTERNS, "ping", PING)
    monkeypatch.setattr(patterns, "NAMES", (*patterns.NAMES, "ping"))
    monkeypatch.setitem(execute_parts.PARTS, "ping", PING_PART)
    monkeypatch.setattr(figure_parts, "PARTS", (*figure_parts.PARTS, PingFigures))
    catalog.languages["fake"] = Language(name="fake", display="Fake",
                                         command=[sys.executable, FAKE],
                                         mechanisms={"tcp": ["drive", "serve"]},
                                         patterns={"tcp": ["rr", "ping"]})
    monkeypatch.setenv("FAKE_SERVER", "ok")
    monkeypatch.setenv("FAKE_CLIENT", "ok")
    yield catalog
    del catalog.languages["fake"]


def test_a_planted_pattern_is_planned_run_saved_and_analysed(planted, tmp_path):
    raw = {"matrix": {"mechanism": ["tcp"], "client": ["fake"], "server": ["fake"],
                      "placement": ["unpinned"], "pattern": ["ping"]},
           "run": {"iterations": 10, "warmup": 0, "ready_timeout": 5, "case_timeout": 10,
                   "rounds": 2}}
    scenario = build_scenario(raw, "t.toml", planted, {}, "t")
    (case,) = matrix.expand(scenario, planted)
    assert case.pattern is PING and case.skip_status is None and "ping" in case.label
    with Workspace() as ws:
        runner = Runner(scenario, planted, ws)
        store = RunStore(tmp_path / "run", scenario, {}, [case],
                         publish=Publisher(scenario)).create()
        for round_index in (1, 2):
            outcome = runner.run(case, round_index)
            assert outcome.status == "ok", outcome.reason
            store.add(outcome)
        store.finish()
    (live,) = store.records  # analysed as each round was published, as `ipclab run` does
    assert live["pings"] == 20
    out = tmp_path / "run"
    assert "| 1 | tcp | ping | fake→fake |" in (out / "table.md").read_text()  # its row, timed
    document = saved.load(out)  # and again from the saved run, as `ipclab report` does
    kept = saved.reanalyse(out, document, scenario.statistics)
    (record,) = document["results"]
    assert record["status"] == "ok" and record["pings"] == 20
    assert [e["ping"] for e in record["rounds"]] == [{"pings": 10}, {"pings": 10}]
    assert record["trimmed"]["count"] == 20
    publish.write_outputs(out, model.build(document, scenario.statistics, kept))
    assert case.id in (out / "cases.csv").read_text()
