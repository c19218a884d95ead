"""Links (network.py): parsing, what may cross a link, refusals (not root, no netem), and real cases
over veth, shaped by tbf, whose namespaces go away after the case, a killed peer and Ctrl-C."""
import os
import signal
import threading
import time

import pytest

from ipclab.execute import network
from ipclab.plan import link
from ipclab.plan import matrix
from ipclab.execute import rounds
from ipclab.common.errors import UserError
from ipclab.execute.places import LOCAL, Place, server_endpoint
from ipclab.execute.runner import Runner
from ipclab.plan.scenario import RunSettings, build_scenario
from ipclab.execute.workspace import Workspace

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="network namespaces need root")


def test_parse_accepts_the_documented_forms():
    assert link.parse(None, "x") == link.LOOPBACK
    assert link.parse("loopback", "x").text == "loopback"
    assert link.parse("veth", "x") == link.Link("veth")
    shaped = link.parse("veth:100mbit", "x")
    assert (shaped.rate, shaped.rate_bps, shaped.text) == ("100mbit", 100_000_000, "veth:100mbit")
    assert link.parse("VETH:1Gbit", "x").rate_bps == 10**9
    assert link.parse("veth:1gbit:5ms", "x").delay == "5ms"


@pytest.mark.parametrize("value,message", [
    ("wifi", "--link: unknown link 'wifi'"),
    ("loopback:1gbit", "unknown link"),
    ("veth:fast", "'fast' in 'veth:fast' is not a rate"),
    ("veth:100mbit:soon", "'soon' in 'veth:100mbit:soon' is not a delay"),
    ("veth:1bit", "below 8kbit"),
])
def test_parse_refuses_bad_links_naming_the_value(value, message):
    with pytest.raises(UserError, match=message):
        link.parse(value, "--link")


def test_scenario_names_the_file_and_key(catalog):
    with pytest.raises(UserError, match=r"t.toml: run.link: unknown link 'lan'"):
        build_scenario({"run": {"link": "lan"}}, "t.toml", catalog, {}, "t")
    with pytest.raises(UserError, match=r"t.toml: run.wire_bytes: 'yes' must be true or false"):
        build_scenario({"run": {"wire_bytes": "yes"}}, "t.toml", catalog, {}, "t")
    run = build_scenario({"run": {"link": "veth:1gbit"}}, "t.toml", catalog,
                         {"wire_bytes": True}, "t").run
    assert (run.link, run.wire_bytes) == ("veth:1gbit", True)


def test_tbf_parameters_hold_two_frames_and_100_ms():
    assert network.tbf_parameters(100_000_000) == (12_500, 1_250_000)
    assert network.tbf_parameters(1_000_000) == (3028, 65536)


def test_a_shaped_link_caps_the_warm_up_at_two_seconds_of_its_rate():
    assert link.warmup_bytes(RunSettings(link="veth:100mbit")) == 25_000_000
    assert link.warmup_bytes(RunSettings(link="veth")) > 1 << 40


def test_only_ip_mechanisms_cross_a_link(catalog):
    scenario = build_scenario({"matrix": {"mechanism": ["tcp", "uds", "grpc", "none"],
                                          "client": ["cpp"], "server": ["cpp"]},
                               "run": {"link": "veth"}}, "t.toml", catalog, {}, "t")
    cases = link.mark(matrix.expand(scenario, catalog), scenario.run, catalog)
    reasons = {c.mechanism: c.skip_reason for c in cases}
    assert reasons["tcp"] is None and reasons["grpc"] is None
    assert reasons["uds"] == ("uds does not use IP, so it cannot run over link veth (only tcp, "
                              "udp, the RPC mechanisms and the broker do)")
    assert "does not use IP" in reasons["none"]
    loop = build_scenario({"matrix": {"mechanism": ["uds"]}}, "t.toml", catalog, {}, "t")
    assert all(c.skip_reason is None or "IP" not in c.skip_reason
               for c in link.mark(matrix.expand(loop, catalog), loop.run, catalog))


def test_not_root_is_one_line_saying_what_to_do(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(UserError, match=r"link veth:100mbit needs root: .* run it as root"):
        network.check_machine(RunSettings(link="veth:100mbit"))
    network.check_machine(RunSettings())  # loopback without wire bytes needs nothing


def test_places_wrap_argv_without_a_shell():
    assert LOCAL.command(["peer", "serve"]) == ["peer", "serve"]
    assert Place("10.0.0.2", "ns1").command(["peer"]) == ["ip", "netns", "exec", "ns1", "peer"]
    assert server_endpoint(Place("10.0.0.2", "ns1")) == "10.0.0.2:0"


@needs_root
def test_a_delay_without_netem_is_one_clear_error():
    if network.netem_available():
        pytest.skip("this kernel has netem: a delay is applied, not refused")
    with pytest.raises(UserError, match=r"'veth:1gbit:5ms' asks for a delay of 5ms, but this "
                                        r"kernel .* has no netem"):
        network.check_machine(RunSettings(link="veth:1gbit:5ms"))
    assert _ours() == []


def _ours():
    prefix = f"ipclab-{os.getpid()}-"
    return [n for n in os.listdir(network.NETNS_DIR) if n.startswith(prefix)] \
        if network.NETNS_DIR.is_dir() else []


def _runner(catalog, link, size, **run):
    raw = {"matrix": {"mechanism": ["tcp"], "client": ["cpp"], "server": ["cpp"],
                      "request_size": [size], "response_size": ["16"],
                      "placement": ["unpinned"]},
           "run": {"iterations": 3, "warmup": 1, "rounds": 1, "link": link, **run}}
    scenario = build_scenario(raw, "t.toml", catalog, {}, "t")
    (case,) = matrix.expand(scenario, catalog)
    if case.skip_status:
        pytest.skip(f"{case.skip_status}: {case.skip_reason}")
    return scenario, case


@needs_root
def test_a_shaped_veth_case_runs_at_the_rate_and_leaves_nothing(catalog):
    scenario, case = _runner(catalog, "veth:10mbit", "64KiB")
    with Workspace() as ws:
        outcome = Runner(scenario, catalog, ws).run(case)
    assert outcome.status == "ok", outcome.reason
    # 64 KiB at 10 Mbit/s is 52 ms on the wire before headers; loopback takes well under 1 ms.
    assert float(outcome.samples.min()) >= 52e6
    assert _ours() == []


@needs_root
def test_a_killed_server_fails_the_case_and_the_namespaces_go(catalog):
    scenario, case = _runner(catalog, "veth:1mbit", "256KiB", iterations=50, io_timeout=2)
    with Workspace() as ws:
        runner = Runner(scenario, catalog, ws)
        threading.Thread(target=_kill_server_when_running, args=(runner,), daemon=True).start()
        outcome = runner.run(case)
    assert outcome.status == "failed"
    assert "server was killed by SIGKILL" in outcome.reason
    assert _ours() == []


def _kill_server_when_running(runner):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        servers = [p for p in list(runner.live) if p.role == "server"]
        if servers and len(runner.live) == 2:
            os.kill(servers[0].pid, signal.SIGKILL)
            return
        time.sleep(0.05)


@needs_root
def test_ctrl_c_mid_case_removes_the_namespaces(catalog):
    scenario, case = _runner(catalog, "veth:1mbit", "256KiB", iterations=50)
    rounds.install_interrupt_handlers()
    main = threading.get_ident()
    with Workspace() as ws:
        runner = Runner(scenario, catalog, ws)

        def interrupt():
            deadline = time.monotonic() + 20
            while len(runner.live) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            signal.pthread_kill(main, signal.SIGINT)

        threading.Thread(target=interrupt, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            runner.run(case)
        assert runner.live == []
    assert _ours() == []


@needs_root
def test_sweep_removes_namespaces_of_dead_runs():
    dead = f"ipclab-{_dead_pid()}-1-c"
    network._run(["ip", "netns", "add", dead])
    assert network.sweep() >= 1
    assert dead not in os.listdir(network.NETNS_DIR)


def _dead_pid():
    pid = 4_000_000
    while os.path.exists(f"/proc/{pid}"):
        pid += 1
    return pid
