"""End to end for ZeroMQ (PROTOCOL.md 4.8) through the runner and the CLI: every pair of the
languages that have zmq-tcp and zmq-ipc (C++, Java, Python), rr and a stream, few round trips and
small sizes; a response corrupted in flight failing its case; no socket file left in the case
directories and nothing for `ipclab leaks` after; and the patterns ZeroMQ does not carry said per
case."""
import pytest

from ipclab.execute import leaks
from ipclab.execute.probe import load_catalog
from ipclab.execute.runner import Runner
from ipclab.execute.workspace import Workspace
from ipclab.plan import matrix
from ipclab.plan.scenario import build_scenario
from test_e2e import faulty, ipclab, offered, rotation, run_cases, seed  # noqa: F401 - a fixture

pytestmark = pytest.mark.e2e
MECHANISMS = ("zmq-tcp", "zmq-ipc")


def run_leaving_no_socket(catalog, raw):
    """The scenario's cases, one round each; asserts no FIFO or socket is left in the run's
    workspace once they are done (a server removes its ipc files), then returns the outcomes."""
    scenario = build_scenario(raw, "t", catalog, {}, "t")
    with Workspace() as ws:
        runner = Runner(scenario, catalog, ws)
        outcomes = [runner.run(case) for case in matrix.expand(scenario, catalog)]
        assert leaks.special_files(ws.path) == []
    return outcomes


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_every_pair_round_trips_and_streams(mechanism, seed):
    langs = offered(mechanism)
    assert {"cpp", "java", "python"} <= set(langs)
    for pattern, sizes in (("rr", {"request_size": ["16", "64KiB"], "response_size": ["16"]}),
                           ("stream", {"message_size": ["1KiB"]})):
        outcomes = run_leaving_no_socket(load_catalog(), {
            "matrix": {"mechanism": [mechanism], "client": langs, "server": langs,
                       "pattern": [pattern], "placement": ["unpinned"], **sizes},
            "run": {"iterations": 50, "warmup": 5, "messages": 500, "windows": 5,
                    "seed": seed}})
        assert [(o.case.label, o.status, o.reason) for o in outcomes if o.status != "ok"] == []
        assert {(o.case.client, o.case.server) for o in outcomes} == \
            {(c, s) for c in langs for s in langs}
        recorded = [(o.case.label, o.libraries) for o in outcomes]  # each side's library version
        assert all("zmq" in got["client_library"] and "zmq" in got["server_library"]
                   for _, got in recorded), recorded


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_response_corrupted_in_flight_fails_the_case(mechanism, seed):
    catalog = load_catalog()
    langs = offered(mechanism)
    for client, server in rotation(langs):
        bad = faulty(catalog, server)
        catalog.languages[bad.name] = bad
        _, (outcome,) = run_cases(catalog, {
            "matrix": {"mechanism": [mechanism], "client": [client], "server": [bad.name],
                       "placement": ["unpinned"]},
            "run": {"iterations": 10, "warmup": 0, "seed": seed}})
        assert outcome.status == "failed", outcome.case.label
        assert "payload mismatch" in outcome.reason, outcome.reason


def test_short_is_not_applicable(tmp_path):
    out = tmp_path / "run"
    done = ipclab("run", "--mechanism", "zmq-tcp,zmq-ipc", "--client", "cpp,java",
                  "--server", "cpp", "--pattern", "short", "--iterations", "5", "--rounds", "1",
                  "--out", str(out))
    assert done.returncode == 0, done.stderr
    text = (out / "cases.csv").read_text()
    for client in ("C++", "Java"):
        for mechanism in MECHANISMS:
            assert (f"the {client} peer drives {mechanism} with rr, stream only, not short"
                    in text), text
    assert ipclab("leaks").returncode == 0
