"""The strict command line: every rejection is exit 2 with exactly one line."""
import json
import math
import os
import tomllib
from pathlib import Path

import pytest
from peers import run_peer

from ipclab_peer import cli
from ipclab_peer.transport import endpoints

PEER_TOML = Path(__file__).resolve().parents[1] / "peer.toml"

SERVE = ["serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0"]


def drive_args(workdir, **overrides):
    flags = {"--mechanism": "tcp", "--endpoint": "127.0.0.1:9", "--request-size": "16",
             "--response-size": "16", "--iterations": "10",
             "--samples-file": os.path.join(workdir, "s"),
             "--result-file": os.path.join(workdir, "r")}
    flags.update(overrides)
    args = ["drive"]
    for name, value in flags.items():
        if value is not None:
            args += [name, value]
    return args


REJECTED_SERVE = {
    "nothing": [],
    "unknown subcommand": ["listen", "--mechanism", "tcp"],
    "unknown flag": SERVE + ["--verbose", "1"],
    "equals form": ["serve", "--mechanism=tcp", "--endpoint", "127.0.0.1:0"],
    "abbreviation": ["serve", "--mech", "tcp", "--endpoint", "127.0.0.1:0"],
    "repeated flag": SERVE + ["--seed", "1", "--seed", "2"],
    "missing endpoint": ["serve", "--mechanism", "tcp"],
    "flag without value": SERVE + ["--seed"],
    "flag followed by flag": ["serve", "--mechanism", "--endpoint", "127.0.0.1:0"],
    "seed overflows u64": SERVE + ["--seed", str(2**64)],
    "negative seed": SERVE + ["--seed", "-1"],
    "unknown fault": SERVE + ["--fault", "flip-everything"],
    "bad tcp endpoint": ["serve", "--mechanism", "tcp", "--endpoint", "localhost"],
    "bad port": ["serve", "--mechanism", "udp", "--endpoint", "127.0.0.1:65536"],
    "bad pipe endpoint": ["serve", "--mechanism", "pipe", "--endpoint", "3,4"],
    "drive flag given to serve": SERVE + ["--iterations", "3"],
}

REJECTED_DRIVE = {
    "bad number": {"--iterations": "1e3"},
    "number with a sign": {"--request-size": "+16"},
    "number with spaces": {"--request-size": " 16"},
    "non-ASCII digits": {"--request-size": "\u0661\u0666"},
    "size over the maximum": {"--response-size": "134217729"},
    "zero iterations": {"--iterations": "0"},
    "missing result file": {"--result-file": None},
    "zero timeout": {"--io-timeout": "0"},
    "timeout with a unit": {"--io-timeout": "30s"},
    "serve flag given to drive": {"--fault": "none"},
    "warm-up samples file without a value": {"--warmup-samples-file": "--iterations"},
}


def assert_usage_error(run):
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1
    assert run.stderr.startswith("ipclab-peer: usage: ")


@pytest.mark.parametrize("args", REJECTED_SERVE.values(), ids=REJECTED_SERVE.keys())
def test_serve_rejects(args):
    assert_usage_error(run_peer(args))


@pytest.mark.parametrize("overrides", REJECTED_DRIVE.values(), ids=REJECTED_DRIVE.keys())
def test_drive_rejects_without_writing_anything(overrides, workdir):
    assert_usage_error(run_peer(drive_args(workdir, **overrides)))
    assert os.listdir(workdir) == []


def test_defaults_and_limits():
    name, config = cli.parse(["drive", "--mechanism", "udp", "--endpoint", "[::1]:5",
                              "--request-size", "134217728", "--response-size", "0",
                              "--iterations", "1", "--samples-file", "s",
                              "--result-file", "r"])
    assert name == "drive"
    assert (config.request_size, config.response_size) == (134217728, 0)
    assert (config.pattern, config.warmup, config.seed, config.io_timeout) == ("rr", 0, 1, 30)
    _, config = cli.parse(SERVE + ["--seed", "18446744073709551615"])
    assert (config.seed, config.fault) == (2**64 - 1, "none")


def test_fractional_timeout():
    _, config = cli.parse(drive_args("/tmp", **{"--io-timeout": "0.5"}))
    assert math.isclose(config.io_timeout, 0.5)


@pytest.mark.parametrize("mechanism", ["sctp", "jni"])
def test_unknown_mechanism_is_unsupported_not_usage(mechanism):
    run = run_peer(["serve", "--mechanism", mechanism, "--endpoint", "x"])
    assert run.returncode == 7
    assert run.stderr.startswith("ipclab-peer: unsupported: ")


def test_capabilities_answers_what_peer_toml_claims():
    """One JSON line from the table of mechanisms; peer.toml (the orchestrator's view) must say
    the same, or the orchestrator refuses the peer."""
    run = run_peer(["capabilities"])
    assert run.returncode == 0 and run.stderr == ""
    assert run.stdout.count("\n") == 1
    answer = json.loads(run.stdout)
    assert (answer["contract"], answer["language"]) == (6, "python")
    assert answer["runtime"].startswith("CPython ")
    claimed = {name: spec if isinstance(spec, dict) else {"roles": spec}
               for name, spec in tomllib.loads(PEER_TOML.read_text())["mechanisms"].items()}
    assert {name: sorted(got["roles"]) for name, got in answer["mechanisms"].items()} == \
        {name: sorted(spec["roles"]) for name, spec in claimed.items()}
    for name, got in answer["mechanisms"].items():
        assert got["patterns"] == claimed[name].get("patterns", ["rr"]), name
        for models in ("server_models", "load_models"):
            assert got.get(models) == claimed[name].get(models), (name, models)
        assert ("load_models" in got) == ("load" in got["patterns"]), name
        assert 0 < got["max_payload"] <= 134217728, name
    patterns = {name: got["patterns"] for name, got in answer["mechanisms"].items()}
    assert [name for name, names in patterns.items() if "short" in names] == \
        ["tcp", "uds", "sysv-mq", "posix-mq", "rest"]
    assert [name for name, names in patterns.items() if "stream" not in names] == \
        ["none", "ctypes", "rest", "thrift-binary", "thrift-compact", "ice", "corba",
         "soap"]
    assert answer["mechanisms"]["udp"]["max_payload"] == 65483


@pytest.mark.parametrize("args", [["--mechanism", "tcp"], ["tcp"], ["--help"]])
def test_capabilities_takes_no_arguments(args):
    assert_usage_error(run_peer(["capabilities", *args]))


def test_endpoints_are_parsed_once_into_typed_values(workdir):
    _, config = cli.parse(drive_args(workdir, **{"--mechanism": "sysv-mq",
                                                 "--endpoint": "sysv:0x1c1a0001"}))
    assert config.endpoint == endpoints.SysvKey(0x1C1A0001)
    _, config = cli.parse(["serve", "--mechanism", "sysv-mq", "--endpoint", "auto"])
    assert config.endpoint == endpoints.Auto()
    _, config = cli.parse(SERVE)
    assert config.endpoint == endpoints.HostPort("127.0.0.1", 0)
    assert str(config.endpoint) == "127.0.0.1:0"
