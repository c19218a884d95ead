"""End to end for the kernel IPC mechanisms of PROTOCOL.md 4.1 to 4.4: each language the
capability data offers once as client and once as server, payloads validated, and nothing of
ours left in the kernel afterwards (after a full run, a killed server and Ctrl-C)."""
import ctypes
import os
import random
import signal
from pathlib import Path

import pytest

from ipclab.execute import ipcobjects
from ipclab.execute.probe import load_catalog
from test_e2e import (cases_csv, leftovers, offered, rotation, run, run_cases, start_run,
                      wait_for_server)

pytestmark = pytest.mark.e2e
KERNEL = ["sysv-mq", "posix-mq", "sysv-shm", "file", "file-poll", "shm", "shm-spin", "shm-futex"]
INPROCESS = {"direct": "cpp", "jni": "java", "ffm": "java", "ctypes": "python"}


def nothing_of_ours_left():
    assert ipcobjects.sysv_objects() == []
    assert ipcobjects.posix_objects() == []


def test_the_cpp_peer_offers_every_kernel_mechanism():
    # The other tests iterate over what the capability data offers; this keeps them honest.
    assert all("cpp" in offered(m) for m in KERNEL), {m: offered(m) for m in KERNEL}


@pytest.mark.parametrize("mechanism", KERNEL)
def test_each_language_both_ways_at_one_chunk_and_at_many(mechanism):
    # 16 B fits one queue message or slot; 3 000 000 B is many 8 KiB messages and several 1 MiB
    # slots, neither a multiple of them, so a partial last chunk is carried too. Each language
    # once as client and once as server at both (cutting and joining are each side's own code:
    # the other six pairs would run none that these three do not, at three times the time).
    langs = offered(mechanism)
    pairs = rotation(langs)
    _, outcomes = run_cases(load_catalog(), {
        "matrix": {"mechanism": [mechanism], "client": langs, "server": langs,
                   "request_size": [16, 3_000_000], "response_size": [16],
                   "placement": ["cross-core"]},
        "run": {"iterations": 5, "warmup": 1}}, pairs=pairs)
    statuses = [(o.case.label, o.status, o.reason) for o in outcomes]
    assert all(s[1] == "ok" for s in statuses), statuses
    assert len(statuses) == 2 * len(pairs)
    nothing_of_ours_left()


def test_in_process_calls_from_each_language(tmp_path):
    catalog = load_catalog()
    for mechanism, client in INPROCESS.items():
        assert catalog.languages[client].supports(mechanism, "drive"), (mechanism, client)
    out = tmp_path / "run"
    done = run("--mechanism", ",".join([*INPROCESS, "none"]), "--client", "cpp,java,python",
               "--server", "cpp,java,python", "--request-size", "16,16MiB",
               "--response-size", "16,16MiB", "--iterations", "10", "--warmup", "2",
               "--out", str(out))
    assert done.returncode == 0, done.stdout[-3000:]
    ran = {(r["mechanism"], r["client"], r["server"]) for r in cases_csv(out) if r["status"] == "ok"}
    expected = {(m, c, "cpp") for m, c in INPROCESS.items()} | \
               {("none", lang, lang) for lang in ("cpp", "java", "python")}
    assert ran == expected
    assert all(r["status"] in ("ok", "not-applicable") for r in cases_csv(out))
    nothing_of_ours_left()


def start_endless_case(mechanism, tmp_path):
    """A run of one cpp→cpp case that would last hours, started in the background to be cut.
    A receive may wait 3 s, not 10: shm's and shm-futex's clients notice a killed server only
    when a receive times out (the queues' see it at once)."""
    seed = random.randrange(2, 2**63)
    out = tmp_path / "run"
    scenario = tmp_path / "endless.toml"
    scenario.write_text(f'[matrix]\nmechanism = ["{mechanism}"]\nclient = ["cpp"]\n'
                        'server = ["cpp"]\nrequest_size = ["16"]\nresponse_size = ["16"]\n'
                        '[run]\niterations = 10000000000\nwarmup = 0\nio_timeout = 3\n')
    proc = start_run(seed, out, str(scenario))
    return seed, out, proc


@pytest.mark.parametrize("mechanism", ["sysv-mq", "posix-mq", "sysv-shm", "shm", "shm-futex"])
def test_a_killed_server_fails_its_case_and_its_objects_are_removed(mechanism, tmp_path):
    seed, out, proc = start_endless_case(mechanism, tmp_path)
    try:
        os.kill(wait_for_server(seed, mechanism), signal.SIGKILL)
        assert proc.wait(timeout=120) == 1
    finally:
        proc.kill()
    (case,) = cases_csv(out)
    assert case["status"] == "failed" and "killed by SIGKILL" in case["reason"]
    assert leftovers(seed) == []
    nothing_of_ours_left()


@pytest.mark.parametrize("mechanism", ["sysv-mq", "posix-mq", "sysv-shm", "shm", "file"])
def test_ctrl_c_mid_case_leaves_nothing_behind(mechanism, tmp_path):
    # SIGINT is what Ctrl-C sends to the foreground process group's leader, the orchestrator.
    seed, out, proc = start_endless_case(mechanism, tmp_path)
    try:
        wait_for_server(seed, mechanism)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
    finally:
        proc.kill()
    assert leftovers(seed) == []
    nothing_of_ours_left()
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob(f"ipclab-{proc.pid}-*"))


def test_objects_of_a_crashed_run_are_removed_at_the_next_start(tmp_path):
    libc = ctypes.CDLL(None, use_errno=True)
    key = ipcobjects.SYSV_TAG | random.randrange(1, 1 << 16)
    assert libc.msgget(key, 0o1000 | 0o600) >= 0  # a queue a killed server left behind
    Path("/dev/shm/ipclab-999999999-1").write_bytes(b"")
    out = tmp_path / "run"
    done = run("--mechanism", "uds", "--client", "cpp", "--server", "cpp", "--iterations", "10",
               "--out", str(out))
    assert done.returncode == 0
    assert "removed 2 IPC object(s) with the ipclab tag" in done.stdout
    nothing_of_ours_left()
