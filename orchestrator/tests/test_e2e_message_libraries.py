"""End to end for the message libraries, ZeroMQ (PROTOCOL.md 4.8), NNG (4.9), Redis (4.10),
NATS (4.11) and iceoryx2 (4.12), through the runner, one test over their mechanisms: each language that has the
mechanism once as client and once as server (test_e2e.py's rotation: every pair would triple
the time and run no code these three do not), rr and a stream, few round trips and small sizes,
each side's library recorded; a response corrupted in flight failing its case; no socket file
left in the case directories, no shared memory left for the runner to remove and no Redis or
NATS server once the round is over; and short,
which none carries, said per case. Redis's and NATS's own servers are in test_e2e_redis.py and
test_e2e_nats.py."""
import os

import pytest

from ipclab.execute import leaks
from ipclab.execute.probe import load_catalog
from ipclab.execute.nats_server import nats_binary
from ipclab.execute.redis_server import redis_binary
from ipclab.execute.runner import Runner
from ipclab.execute.workspace import Workspace
from ipclab.plan import matrix
from ipclab.plan.scenario import build_scenario
from test_e2e import faulty, ipclab, offered, rotation, run_cases, seed  # noqa: F401 - a fixture
from test_e2e_nats import nats_servers_of
from test_e2e_redis import redis_servers_of

pytestmark = pytest.mark.e2e
NO_REDIS = pytest.mark.skipif(redis_binary() is None,
                              reason="no redis-server: make setup installs Debian's")
NO_NATS = pytest.mark.skipif(nats_binary() is None,
                             reason="no nats-server: make setup installs Debian's")
MECHANISMS = ("nng-tcp", "nng-ipc", "zmq-tcp", "zmq-ipc",
              pytest.param("redis-tcp", marks=NO_REDIS), pytest.param("redis-uds", marks=NO_REDIS),
              pytest.param("nats", marks=NO_NATS), "iceoryx2", "iceoryx2-spin")
# Per library: the languages that must offer it, and a word each side's recorded library has
# (Redis: "hiredis", "redis-py", "jedis"; NATS: "nats.c", "jnats", "nats-py"; each names its
# client library, not the server). iceoryx2 has no Java binding (peers/java/peer.toml says why).
FAMILIES = {"nng": ({"cpp", "java", "python"}, "nng"), "zmq": ({"cpp", "java", "python"}, "zmq"),
            "redis": ({"cpp", "java", "python"}, ("redis", "jedis")),
            "nats": ({"cpp", "java", "python"}, "nats"), "iceoryx2": ({"cpp", "python"}, "iceoryx2")}


def run_leaving_no_socket(catalog, raw, pairs):
    """The scenario's cases between `pairs` (client, server), one round each; asserts no FIFO or
    socket is left in the run's workspace once they are done (a server removes its ipc files)
    and no Redis or NATS server outlived its round, then returns the outcomes."""
    scenario = build_scenario(raw, "t", catalog, {}, "t")
    with Workspace() as ws:
        runner = Runner(scenario, catalog, ws)
        outcomes = [runner.run(case) for case in matrix.expand(scenario, catalog)
                    if (case.client, case.server) in pairs]
        assert leaks.special_files(ws.path) == []
        assert [n for o in outcomes for n in o.notes if "IPC object" in n] == []
        assert redis_servers_of(os.getpid()) == [], "a Redis server outlived its round"
        assert nats_servers_of(os.getpid()) == [], "a NATS server outlived its round"
    return outcomes


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_each_language_round_trips_and_streams_both_ways(mechanism, seed):
    required, word = FAMILIES[mechanism.split("-")[0]]
    langs = offered(mechanism)
    assert required <= set(langs)
    pairs = set(rotation(langs))
    for pattern, sizes in (("rr", {"request_size": ["16", "64KiB"], "response_size": ["16"]}),
                           ("stream", {"message_size": ["1KiB"]})):
        outcomes = run_leaving_no_socket(load_catalog(), {
            "matrix": {"mechanism": [mechanism], "client": langs, "server": langs,
                       "pattern": [pattern], "placement": ["unpinned"], **sizes},
            "run": {"iterations": 50, "warmup": 5, "messages": 500, "windows": 5,
                    "seed": seed}}, pairs)
        assert [(o.case.label, o.status, o.reason) for o in outcomes if o.status != "ok"] == []
        assert {(o.case.client, o.case.server) for o in outcomes} == pairs
        recorded = [(o.case.label, o.libraries) for o in outcomes]  # each side's library version
        words = word if isinstance(word, tuple) else (word,)
        assert all(any(w in got["client_library"] for w in words)
                   and any(w in got["server_library"] for w in words)
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


def test_short_is_not_applicable_with_its_reason(tmp_path):
    # Every library mechanism at once (redis-* and nats only where their server is installed):
    # C++ and Java clients against a C++ server, each case not applicable with its reason (a
    # language its FAMILIES entry does not require names why it has no drive role), nothing left.
    mechanisms = [m for m in ("nng-tcp", "nng-ipc", "zmq-tcp", "zmq-ipc", "redis-tcp",
                              "redis-uds", "nats", "iceoryx2", "iceoryx2-spin")
                  if not (m.startswith("redis") and redis_binary() is None
                          or m == "nats" and nats_binary() is None)]
    out = tmp_path / "run"
    done = ipclab("run", "--mechanism", ",".join(mechanisms), "--client", "cpp,java",
                  "--server", "cpp", "--pattern", "short", "--iterations", "5", "--rounds", "1",
                  "--out", str(out))
    assert done.returncode == 0, done.stderr
    text = (out / "cases.csv").read_text()
    for name, client in (("cpp", "C++"), ("java", "Java")):
        for mechanism in mechanisms:
            required, _ = FAMILIES[mechanism.split("-")[0]]
            said = (f"the {client} peer drives {mechanism} with rr, stream only, not short"
                    if name in required else f"the {client} peer has no {mechanism} drive role")
            assert said in text, (said, text)
    assert ipclab("leaks").returncode == 0
