"""End-to-end: pattern burst (PROTOCOL.md 11.4) against the Java and Python server models,
through the CLI with the C++ generator: every model of each language serves every connection
and reports the phases it has, one row per connection kept in the run directory; the `seed`
fixture checks that no thread-holding process or forked child of a model is left behind."""
import csv

import pytest

from test_e2e import cases_csv, ipclab, seed  # noqa: F401 (seed: a fixture)

pytestmark = pytest.mark.e2e
MODELS = {
    "java": ["iterative", "thread", "virtual-thread", "thread-pool", "nio"],
    "python": ["iterative", "thread", "process", "thread-pool", "process-pool", "asyncio"],
}
SPAWNING = {"thread", "virtual-thread", "process", "thread-pool", "asyncio"}
CONNECTIONS = 100


@pytest.mark.parametrize("server", sorted(MODELS))
def test_every_model_of_the_language_serves_every_connection_with_its_phases(
        server, tmp_path, seed):
    out = tmp_path / "run"
    done = ipclab("run", "--pattern", "burst", "--mechanism", "tcp", "--client", "cpp",
                  "--server", server, "--server-model", ",".join(MODELS[server]),
                  "--connections", str(CONNECTIONS), "--connectors", "20",
                  "--request-size", "1000", "--response-size", "8",
                  "--seed", str(seed), "--out", str(out))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    cases = {r["server_model"]: r for r in cases_csv(out)}
    assert sorted(cases) == sorted(MODELS[server])
    with open(out / "phases.csv") as f:
        phases = list(csv.DictReader(f))
    for model, case in cases.items():
        assert case["status"] == "ok", (model, case["reason"])
        assert (int(case["connections_ok"]), int(case["connections_failed"])) == (CONNECTIONS, 0)
        server_phases = {p["phase"]: p for p in phases
                         if p["case_id"] == case["id"] and p["side"] == "server"}
        expected = {"accept", "loop", "transfer", "total"} | (
            {"spawn", "start_delay"} if model in SPAWNING else set())
        assert set(server_phases) == expected, model
        for phase in expected - {"loop"}:
            assert server_phases[phase]["count"] == str(CONNECTIONS), (model, phase)
        # loop is empty only for an acceptor's last connection (a pool has one per worker).
        assert int(server_phases["loop"]["count"]) >= CONNECTIONS - 4, model
        with open(out / "burst" / f"{case['id']}.r1.phases.csv") as f:
            rows = list(csv.DictReader(f))
        assert [int(r["conn_index"]) for r in rows] == list(range(CONNECTIONS)), model
        assert all(r["error"] == "" for r in rows), model
