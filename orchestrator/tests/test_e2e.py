"""End to end, as a user runs it: the real CLI and the real C++, Java and Python peers.

Each test uses its own random seed, so any process still carrying `--seed <seed>` afterwards is a
leak of ours."""
import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ipclab.plan import matrix
from ipclab.execute.probe import load_catalog
from ipclab.plan.catalog import Language, repo_root
from ipclab.execute.runner import Runner
from ipclab.plan.scenario import build_scenario
from ipclab.execute.workspace import Workspace

pytestmark = pytest.mark.e2e
ROOT = repo_root()
LANGS = ["cpp", "java", "python"]
# Each language once as client and once as server: where a pair adds nothing a language's own
# code does not already show, the suite runs these three instead of all nine (its time matters).
ROTATION = [("cpp", "java"), ("java", "python"), ("python", "cpp")]
VECTORS = json.loads((ROOT / "protocol" / "vectors" / "vectors.json").read_text())


def _reference():
    """The contract's reference generator of payloads and headers (protocol/vectors/generate.py)."""
    spec = importlib.util.spec_from_file_location("ipclab_reference",
                                                  ROOT / "protocol" / "vectors" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = _reference()


@pytest.fixture(scope="module", autouse=True)
def peers_are_built():
    missing = {n: l.unavailable for n, l in load_catalog().languages.items() if l.unavailable}
    assert not missing, f"end-to-end tests need every peer built (make build): {missing}"


@pytest.fixture
def seed():
    value = random.randrange(2, 2**63)
    yield value
    assert leftovers(value) == [], "peer processes left behind"


def leftovers(seed):
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--seed" in args and str(seed).encode() in args:
            found.append(int(proc.name))
    return found


def our_scratch_dirs():
    return sorted(Path(os.environ.get("TMPDIR", "/tmp")).glob("ipclab-*"))


def quick_run(args):
    """`run` arguments with one round, no preflight probe and no report.html unless the test asks
    for them: the suite's end-to-end tests check peers and files, and one round keeps `make test`
    short (test_html_report.py asks for the page with --html)."""
    args = list(args)
    if args and args[0] == "run":
        for flag, value in (("--rounds", "1"), ("--preflight", "0")):
            if flag not in args:
                args += [flag, value]
        if "--html" not in args:
            args.append("--no-html")
    return args


def ipclab(*args, **kw):
    return subprocess.run([sys.executable, "-m", "ipclab", *quick_run(args)], capture_output=True,
                          text=True, cwd=ROOT, timeout=kw.pop("timeout", 900), **kw)


def start_run(seed, out, *args, sigint=signal.SIG_DFL):
    """`ipclab run ARGS` in the background, as a user would start a long run to interrupt.
    The child starts with SIGINT at `sigint`, whatever the shell that started the suite did:
    a non-interactive shell's `make test &` starts everything with SIGINT ignored."""
    return subprocess.Popen(
        [sys.executable, "-m", "ipclab", *quick_run(["run", *args]), "--seed", str(seed),
         "--out", str(out)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint))


def cases_csv(out):
    import csv
    with open(out / "cases.csv") as f:
        return list(csv.DictReader(f))


def rotation(langs):
    """ROTATION over the languages a mechanism offers: a→b, b→c, c→a (one language: itself)."""
    return [(c, langs[(i + 1) % len(langs)]) for i, c in enumerate(langs)]


def run_cases(catalog, raw, pairs=None, keep=None):
    """The cases of a scenario (a raw TOML dict) between `pairs` (client, server) that `keep`
    takes (all by default), one round each through the runner, no CLI: (scenario, outcomes)."""
    scenario = build_scenario(raw, "t", catalog, {}, "t")
    cases = [c for c in matrix.expand(scenario, catalog)
             if (pairs is None or (c.client, c.server) in pairs) and (keep is None or keep(c))]
    with Workspace() as ws:
        runner = Runner(scenario, catalog, ws)
        return scenario, [runner.run(case) for case in cases]


def offered(mechanism):
    """The languages whose peer both serves and drives `mechanism` (from the capability data)."""
    return [n for n, lang in load_catalog().languages.items()
            if lang.supports(mechanism, "serve") and lang.supports(mechanism, "drive")]


def run(*args, timeout=1800):
    """`ipclab run ARGS` as the suite runs it (one round, no probe, no page)."""
    return ipclab("run", *args, timeout=timeout)


def test_every_pair_over_every_mechanism(tmp_path, seed):
    before = our_scratch_dirs()
    out = tmp_path / "run"
    done = ipclab("run", "--mechanism", "tcp,udp,uds,pipe,fifo", "--client", "cpp,java,python",
                  "--server", "cpp,java,python", "--request-size", "16", "--response-size",
                  "1KiB", "--iterations", "300", "--warmup", "100", "--seed", str(seed),
                  "--out", str(out))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = cases_csv(out)
    assert len(rows) == 5 * 9
    bad = [(r["id"], r["reason"]) for r in rows if r["status"] != "ok"]
    assert bad == []
    for r in rows:
        assert int(r["raw_count"]) == 300 and float(r["median_ns"]) > 0
        samples = np.fromfile(out / r["samples_file"], dtype="<i8")
        assert samples.size == 300 and samples.min() > 0
    doc = json.loads((out / "run.json").read_text())
    assert doc["schema"] == "ipclab.run/3" and doc["complete"] is True
    assert doc["environment"]["kernel"] and doc["environment"]["git_revision"] is not None
    assert {r["client_runtime"].split()[0] for r in doc["results"]} >= {"g++", "CPython"}
    table_rows = [line for line in (out / "table.md").read_text().splitlines()
                  if line.startswith("| ") and line[2].isdigit()]
    # Every case is in the table; its status is ok, base, faster or slower, never failed.
    assert len(table_rows) == 45 and not any("failed" in row for row in table_rows)
    assert our_scratch_dirs() == before


def test_large_payloads_are_validated_across_languages(seed):
    # A socket between every pair, a named pipe with each language once as client and once as
    # server: each peer reads and writes every byte stream (uds, pipe too) through the same code,
    # which test_every_pair_over_every_mechanism runs at small sizes.
    _, outcomes = run_cases(load_catalog(), {
        "matrix": {"mechanism": ["tcp", "fifo"], "client": LANGS, "server": LANGS,
                   "request_size": ["1MiB"], "response_size": ["64KiB"]},
        "run": {"iterations": 5, "warmup": 1, "seed": seed}},
        keep=lambda c: c.mechanism == "tcp" or (c.client, c.server) in ROTATION)
    assert [(o.case.label, o.status, o.reason) for o in outcomes
            if o.status != "ok"] == [] and len(outcomes) == 9 + 3


def test_udp_above_its_limit_is_not_applicable(tmp_path, seed):
    out = tmp_path / "run"
    done = ipclab("run", "--mechanism", "udp", "--client", "cpp", "--server", "python",
                  "--request-size", "65483,65484", "--response-size", "16", "--iterations", "5",
                  "--warmup", "0", "--seed", str(seed), "--out", str(out))
    assert done.returncode == 0, done.stdout[-2000:]
    fits, too_big = cases_csv(out)
    assert fits["status"] == "ok"
    assert too_big["status"] == "not-applicable" and "65507" in too_big["reason"]


def test_killing_the_server_fails_that_case_only_and_leaves_nothing(tmp_path, seed):
    # Case 1 (128 MiB requests) runs for many seconds; case 2 (16 B) is quick.
    out = tmp_path / "run"
    before = our_scratch_dirs()
    proc = start_run(seed, out, "--mechanism", "uds", "--client", "cpp", "--server", "python",
                     "--request-size", "128MiB,16", "--response-size", "16",
                     "--iterations", "1000", "--warmup", "0")
    try:
        # Kill the server while the 128 MiB case's client runs (the round's order is shuffled).
        os.kill(wait_for_server(seed, "uds", client_has=b"134217728"), signal.SIGKILL)
        assert proc.wait(timeout=300) == 1
    finally:
        proc.kill()
    killed, after = sorted(cases_csv(out), key=lambda r: r["status"] != "failed")
    assert killed["status"] == "failed"
    assert "server was killed by SIGKILL during the case" in killed["reason"]
    assert "client: io:" in killed["reason"]
    assert after["status"] == "ok", after["reason"]
    assert list((out / "logs").iterdir())
    assert our_scratch_dirs() == before


def wait_for_server(seed, *mechanisms, timeout=60, client_has=None):
    """The server's PID, once it and a client run. Not a child of it with the same command line
    (the C++ server's stdin watcher): after the PIDs wrap around, the child's can be the lower."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        servers = {}
        for pid in leftovers(seed):
            try:
                args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue  # it ended between the listing and the read
            if b"serve" in args and any(m.encode() in args for m in mechanisms):
                servers[pid] = parent
        heads = [pid for pid, parent in servers.items() if parent not in servers]
        if heads and client_running(seed, client_has):
            return heads[0]
        time.sleep(0.05)  # polling a process table we do not own; not synchronisation of peers
    raise AssertionError(f"no {' or '.join(mechanisms)} server with seed {seed} appeared")


def client_running(seed, has=None):
    """A client of this run is running (with `has` among its arguments, if given)."""
    for p in leftovers(seed):
        try:
            args = Path(f"/proc/{p}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"drive" in args and (has is None or has in args):
            return True
    return False


def test_ctrl_c_keeps_finished_cases_and_cleans_up(tmp_path, seed):
    # Started with SIGINT ignored, as a background job of a script is: ipclab installs its own
    # handling, so Ctrl-C still stops it.
    out = tmp_path / "run"
    before = our_scratch_dirs()
    proc = start_run(seed, out, "--mechanism", "pipe,fifo", "--client", "cpp", "--server", "cpp",
                     "--request-size", "16", "--response-size", "16",
                     "--iterations", "20000000", "--warmup", "0", sigint=signal.SIG_IGN)
    try:
        # Either case may come first: the round's order is shuffled from the seed.
        wait_for_server(seed, "pipe", "fifo")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
    finally:
        proc.kill()
    doc = json.loads((out / "run.json").read_text())
    assert doc["interrupted"] is True and doc["complete"] is False
    assert our_scratch_dirs() == before


def faulty(catalog, name, fault="flip-response-byte"):
    """The language's peer, serving with `--fault FAULT` (tests/fault_wrapper.py)."""
    real = catalog.languages[name]
    wrapper = str(Path(__file__).with_name("fault_wrapper.py"))
    return Language(name=f"{fault}-{name}", display=f"{real.display} ({fault})",
                    command=[sys.executable, wrapper, fault, *real.argv(catalog.root), "--"],
                    mechanisms=real.mechanisms, patterns=real.patterns)


@pytest.mark.parametrize("server", LANGS)
def test_a_flipped_response_byte_is_a_payload_mismatch(server, seed):
    catalog = load_catalog()
    flipper = faulty(catalog, server)
    catalog.languages[flipper.name] = flipper
    raw = {"matrix": {"mechanism": ["tcp"], "client": LANGS, "server": [flipper.name],
                      "placement": ["unpinned"]},
           "run": {"iterations": 20, "warmup": 0, "seed": seed}}
    scenario = build_scenario(raw, "t", catalog, {}, "t")
    with Workspace() as ws:
        runner = Runner(scenario, catalog, ws)
        outcomes = [runner.run(case) for case in matrix.expand(scenario, catalog)]
    for outcome in outcomes:
        assert outcome.status == "failed"
        assert "payload mismatch" in outcome.reason, outcome.reason



def test_report_rerenders_a_saved_run(tmp_path, seed):
    out = tmp_path / "run"
    done = ipclab("run", "--mechanism", "uds", "--client", "cpp", "--server", "cpp",
                  "--iterations", "500", "--warmup", "10", "--seed", str(seed), "--out", str(out))
    assert done.returncode == 0
    original = (out / "cases.csv").read_text()
    (out / "cases.csv").unlink()
    (out / "table.md").unlink()
    assert ipclab("report", str(out)).returncode == 0
    assert (out / "cases.csv").read_text() == original and (out / "table.md").exists()
    assert ipclab("report", str(out), "--outliers", "none").returncode == 0
    assert cases_csv(out)[0]["outliers_removed"] == "0"


def test_rounds_interleave_cases_and_report_gives_the_same_intervals(tmp_path, seed):
    out = tmp_path / "run"
    done = ipclab("run", "--rounds", "3", "--preflight", "0.2", "--mechanism", "tcp,uds",
                  "--client", "cpp", "--server", "cpp", "--iterations", "300", "--warmup", "50",
                  "--placement", "same-core", "--seed", str(seed), "--out", str(out),
                  env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert max(len(line) for line in done.stdout.splitlines()) <= 100
    rows = cases_csv(out)
    assert len(rows) == 4 and all(r["status"] == "ok" for r in rows)
    for r in rows:
        assert r["rounds"] == "3" and r["stable"] in ("true", "false")
        low, high = float(r["median_ci_low_ns"]), float(r["median_ci_high_ns"])
        assert low <= float(r["median_ns"]) <= high and float(r["round_spread"]) >= 1
        assert float(r["ratio_ci_low"]) <= float(r["ratio"]) <= float(r["ratio_ci_high"])
    doc = json.loads((out / "run.json").read_text())
    assert [r["round"] for r in doc["rounds"]] == [1, 2, 3]
    assert all(sorted(r["order"]) == [1, 2, 3, 4] for r in doc["rounds"])
    assert doc["preflight"][0]["placement"] == "same-core" and doc["preflight"][0]["median_ns"] > 0
    for record in doc["results"]:
        assert [r["round"] for r in record["rounds"]] == [1, 2, 3]
        for entry in record["rounds"]:
            assert np.fromfile(out / entry["samples_file"], dtype="<i8").size == 300
            assert entry["warmup_samples"] == 50 and entry["noise"]["wall_s"] > 0
            assert np.fromfile(out / entry["warmup_samples_file"], dtype="<i8").size == 50
    original = (out / "cases.csv").read_text()
    assert ipclab("report", str(out)).returncode == 0
    assert (out / "cases.csv").read_text() == original
