"""End-to-end: pattern load (PROTOCOL.md 11.5) through the CLI and the runner: the C++ client
against each language's load servers, the HdrHistogram logs it leaves, coordinated omission shown
by a stalling server, and a rate sweep finding a token bucket's capacity. Small schedules: these
check behaviour, not speed."""
import dataclasses
import json
import sys
from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

from ipclab.analyse import load as analysis
from ipclab.execute import load
from ipclab.execute.runner import Runner
from ipclab.execute.workspace import Workspace
from ipclab.plan import matrix
from ipclab.execute.probe import load_catalog
from ipclab.plan.scenario import build_scenario
from ipclab.records import hdr
from test_e2e import cases_csv, ipclab, rotation, run_cases, seed  # noqa: F401,F811 (seed: a fixture)

pytestmark = pytest.mark.e2e
SHORT = ["--duration", "300ms", "--load-warmup", "100ms"]


def load_run(tmp_path, seed, *args):
    """`ipclab run --pattern load` with a short schedule: tcp and the C++ client unless `args`
    say otherwise."""
    out = tmp_path / "run"
    defaults = [x for flag, value in (("--mechanism", "tcp"), ("--client", "cpp"))
                if flag not in args for x in (flag, value)]
    done = ipclab("run", "--pattern", "load", *defaults, "--clients", "4", "--seed", str(seed),
                  "--out", str(out), *SHORT, *args)
    return out, done


def test_the_cpp_client_loads_every_languages_servers(tmp_path, seed):
    catalog = load_catalog()
    models = {lang: catalog.languages[lang].load_models.get("tcp", []) for lang in
              ("cpp", "java", "python")}
    wanted = [m for m in ("epoll", "thread-pool", "thread") if any(m in v for v in models.values())]
    out, done = load_run(tmp_path, seed, "--server", "cpp,java,python", "--rate", "500,2000",
                         "--server-model", ",".join(wanted))
    assert done.returncode == 0, done.stdout + done.stderr
    cases = cases_csv(out)
    ran = [c for c in cases if c["server_model"] in models[c["server"]]]
    assert ran and all(c["status"] == "ok" for c in ran), [c["reason"] for c in ran]
    for c in cases:
        if c not in ran:  # a model the language's load server lacks: said, with why
            assert c["status"] == "not-applicable" and "load server model" in c["reason"]
    for c in ran:
        target = int(c["target_per_s"])
        assert c["rate"] == str(target) and int(c["requests_ok"]) > 0
        # Never above the schedule; how close below it a loaded machine keeps is bench load's
        # question, not a test's (CI once saw 686/s of 2000 beside three builds).
        assert 0 < float(c["achieved_per_s"]) < 1.5 * target
        assert float(c["service_p50"]) <= float(c["response_p50"])  # a wait is never negative
        assert float(c["response_p99"]) <= float(c["response_max"])
        for kind in ("response", "service"):   # HdrHistogram logs, read back with its reader
            log = out / "load" / f"{c['id']}.r1.{kind}.hlog"
            reader = HistogramLogReader(str(log), HdrHistogram(*hdr.RANGE))
            total = 0
            while (h := reader.get_next_interval_histogram()) is not None:
                total += h.get_total_count()
            assert total == int(c["requests_ok"]), (kind, c["id"])
    doc = json.loads((out / "run.json").read_text())
    entry = doc["results"][0]["rounds"][0]["load"]
    assert entry["records_file"].startswith("load/") and "p99" in entry["response"]


def test_every_language_loads_every_languages_uds_server(tmp_path, seed):
    out, done = load_run(tmp_path, seed, "--client", "cpp,java,python", "--mechanism", "uds",
                         "--server", "cpp,java,python", "--rate", "1000",
                         "--server-model", "thread")
    assert done.returncode == 0, done.stdout + done.stderr
    cases = cases_csv(out)
    assert len(cases) == 9 and all(c["status"] == "ok" for c in cases), [c["reason"] for c in cases]
    assert all(int(c["requests_ok"]) == 300 for c in cases)  # 300 ms at 1000/s, every one


def around_the_rotation(seed, mechanisms, models, keep=None, **matrix_keys):
    """One round of each rotation pair (every language once as client, once as server) per
    mechanism and model, through the runner: the outcomes, skipped cases included."""
    langs = ["cpp", "java", "python"]
    _, outcomes = run_cases(load_catalog(), {
        "matrix": {"mechanism": mechanisms, "client": langs, "server": langs, "pattern": ["load"],
                   "server_model": models, "rate": [500], "clients": [4],
                   "placement": ["unpinned"], **matrix_keys},
        "run": {"seed": seed, "duration": "300ms", "load_warmup": "100ms"}},
        pairs=set(rotation(langs)), keep=keep)
    return outcomes


def test_every_language_loads_a_message_queue_server_around_the_rotation(seed):
    # One request queue shared by every client, replies by connection (11.5.5): 4 clients'
    # requests interleave in it, each answer (3 messages of 20000 B) must reach its own
    # connection. The peers' own suites cover the iterative model; the leak audit, the queues.
    outcomes = around_the_rotation(seed, ["sysv-mq", "posix-mq"], ["thread-pool"],
                                   request_size=[64], response_size=[20000])
    assert len(outcomes) == 6 and [(o.case.label, o.reason) for o in outcomes
                                   if o.status != "ok"] == []
    assert all(o.client["requests_ok"] == 150 for o in outcomes)  # 300 ms at 500/s, every one


def test_every_language_loads_the_rpc_frameworks_servers_around_the_rotation(seed):
    # Over grpc and rest (11.5.4) each server is the framework's own, in the configuration its
    # rr server uses (the first of its load_models); a model the server lacks is not applicable.
    catalog = load_catalog()
    first = {(lang, mech): catalog.languages[lang].load_models.get(mech, [None])[0]
             for lang in catalog.languages for mech in ("grpc", "rest")}
    models = sorted({m for m in first.values() if m})
    outcomes = around_the_rotation(seed, ["grpc", "rest"], models)
    ran = [o for o in outcomes if o.case.server_model == first[(o.case.server, o.case.mechanism)]
           and "load" in catalog.languages[o.case.client].patterns.get(o.case.mechanism, [])]
    assert len(ran) == 6 and [(o.case.label, o.reason) for o in ran if o.status != "ok"] == []
    assert all(o.client["requests_ok"] == 150 for o in ran)  # 300 ms at 500/s, every one
    assert all(o.status == "not-applicable" for o in outcomes if o not in ran)


def faulty_cpp(catalog, fault):
    """The C++ peer serving with `--fault FAULT` (tests/fault_wrapper.py), under its own name."""
    real = catalog.languages["cpp"]
    wrapper = str(Path(__file__).with_name("fault_wrapper.py"))
    return dataclasses.replace(real, name=f"cpp-{fault.split(':')[0]}",
                               command=[sys.executable, wrapper, fault, *real.argv(catalog.root),
                                        "--"], artifact=None)


def run_with_server(catalog, server, seed, run, **settings):
    catalog.languages[server.name] = server
    raw = {"matrix": {"mechanism": ["tcp"], "client": ["cpp"], "server": [server.name],
                      "pattern": ["load"], "server_model": ["epoll"], "placement": ["unpinned"],
                      **{k: [v] for k, v in settings.items()}},
           "run": {"seed": seed, **run}}
    scenario = build_scenario(raw, "t", catalog, {}, "t")
    (case,) = matrix.expand(scenario, catalog)
    assert case.skip_status is None, case.skip_reason
    with Workspace() as ws:
        return Runner(scenario, catalog, ws).run(case)


def test_a_stalling_server_shows_coordinated_omission(seed):
    # 100 ms without answers every second, at 1000 req/s: a tenth of the requests were due while
    # the server stalled. From their intended start they waited up to 100 ms (corrected p99 well
    # over 50 ms); a closed-loop client would have sent them late and seen a fast server. Only
    # the one request in flight per connection at a stall waits inside its service time: with 4
    # connections, about 4 of every 1000 requests. Quiet, the service p99 is well under 5 ms;
    # `make test` runs suites side by side on 2 CPUs, where the burst of late requests after a
    # stall waits for the CPU too (its service p99 was 5.4 and 11 ms there, against a corrected
    # 92 and 95 ms), so the test asks for a service p99 under a quarter of the corrected one.
    catalog = load_catalog()
    outcome = run_with_server(catalog, faulty_cpp(catalog, "stall"), seed,
                              {"duration": "2500ms", "load_warmup": "500ms"},
                              rate=1000, clients=4)
    assert outcome.status == "ok", outcome.reason
    times = analysis.reductions(load.request_times(outcome.part["records_text"]))
    assert times["response"]["p99"] >= 50_000_000, times
    assert times["service"]["p99"] * 4 < times["response"]["p99"], times


def test_a_sweep_finds_a_token_buckets_capacity(seed):
    # Past the bucket's rate the queue grows for the whole step (p99 of tens to hundreds of ms);
    # below it p99 is a few ms even on a busy machine. A 20 ms SLO tells them apart where the
    # default (3 × the first step's p99) would hang on the first step's noise.
    capacity = 2000
    catalog = load_catalog()
    outcome = run_with_server(catalog, faulty_cpp(catalog, f"capacity:{capacity}"), seed,
                              {"duration": "400ms", "load_warmup": "100ms", "sweep_from": 500,
                               "slo": "20ms"}, rate="sweep", clients=4)
    assert outcome.status == "ok", outcome.reason
    knee, steps = outcome.part["knee_per_s"], outcome.part["steps"]
    # No step past the bucket passes, however busy the machine; below it a machine busy enough
    # (a load of 9 on 2 CPUs) fails steps now and then, which lowers the knee (within 10% of
    # the capacity on a quiet machine; 968/s and 1687/s for 2000/s beside three builds).
    assert all(not s["passed"] for s in steps if s["rate"] > 1.1 * capacity), steps
    assert 500 <= knee <= 1.1 * capacity, steps
    assert [s["rate"] for s in steps][:3] == [500, 1000, 2000]


@pytest.mark.parametrize("flag, value, words", [
    ("--rate", "0", "--rate: '0' is not a valid rate"),
    ("--clients", "0", "--clients: '0' is not a valid clients"),
    ("--arrival", "bursty", "--arrival: unknown arrival 'bursty'"),
    ("--rate", "sweep,5000", "--rate: sweep stands alone"),
    ("--mechanism", "pipe", "--mechanism: pipe serves one client at a time"),
])
def test_bad_load_input_is_one_line_and_exit_2(tmp_path, flag, value, words):
    flags = {"--pattern": "load", "--mechanism": "tcp", "--out": str(tmp_path / "r"), flag: value}
    done = ipclab("run", *(x for pair in flags.items() for x in pair))
    assert done.returncode == 2 and done.stderr.strip().startswith(f"ipclab: error: {words}")
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "r").exists()
