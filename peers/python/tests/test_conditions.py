"""Contract version 6's conditions as flags (PROTOCOL.md 1, 4.4, 10.2, 11.1, 11.2): the stream
server's --read-size, the rr server's --backlog, short's --source, the structured records'
--value-range and --records, none's --mock. Here: their parsing and bad values, and where each
cannot be honoured; what each does is in test_read_size.py (--read-size),
test_connection_conditions.py (--backlog, --source) and test_payload_conditions.py
(--value-range, --records, --mock)."""
import os

import pytest
from peers import Drive, Server, describe, run_peer
from test_cli import assert_usage_error, drive_args

from ipclab_peer import cli

SERVE_TCP = ["serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0"]
SHORT = ["--pattern", "short"]
RECORDS = {"--payload": "small", "--request-size": None, "--response-size": None,
           "--mechanism": "grpc"}


def assert_unsupported(proc, words):
    assert proc.returncode == 7, proc.stderr
    assert proc.stdout == "" and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("ipclab-peer: unsupported: ") and words in proc.stderr


# ---- parsing --------------------------------------------------------------------------------

def test_defaults_are_version_5s_behaviour():
    _, served = cli.parse(SERVE_TCP)
    assert (served.read_size, served.backlog) == (0, 512)
    _, driven = cli.parse(drive_args("/tmp", **{"--pattern": "short"}))
    assert (driven.source, driven.value_range, driven.records, driven.mock) == \
        ("rotate", "full", "one", "copy")
    _, driven = cli.parse(drive_args("/tmp"))  # rr: --source does not belong, its value stays
    assert driven.source == "rotate"


@pytest.mark.parametrize("flag,value,field,parsed", [
    ("--read-size", "1", "read_size", 1), ("--read-size", "1024", "read_size", 1024),
    ("--read-size", "134217728", "read_size", 134217728), ("--read-size", "0", "read_size", 0),
    ("--backlog", "1", "backlog", 1), ("--backlog", "50", "backlog", 50),
    ("--backlog", "65535", "backlog", 65535),
])
def test_serve_flags_parse(flag, value, field, parsed):
    _, config = cli.parse(SERVE_TCP + [flag, value])
    assert getattr(config, field) == parsed
    assert flag in config.given


REJECTED_SERVE = {
    "read size over MAX_PAYLOAD": ["--read-size", "134217729"],
    "read size with a unit": ["--read-size", "1KiB"],
    "negative read size": ["--read-size", "-1"],
    "read size twice": ["--read-size", "1", "--read-size", "2"],
    "backlog 0": ["--backlog", "0"],
    "backlog over 65535": ["--backlog", "65536"],
    "backlog with a sign": ["--backlog", "+5"],
    "read size without a value": ["--read-size"],
}


@pytest.mark.parametrize("extra", REJECTED_SERVE.values(), ids=REJECTED_SERVE)
def test_serve_rejects_bad_values(extra):
    assert_usage_error(run_peer(SERVE_TCP + extra))


@pytest.mark.parametrize("flag,value,field", [
    ("--value-range", "non-negative", "value_range"), ("--value-range", "full", "value_range"),
    ("--records", "per-call", "records"), ("--records", "one", "records"),
])
def test_record_flags_parse_with_a_structured_payload(flag, value, field):
    _, config = cli.parse(drive_args("/tmp", **RECORDS, **{flag: value}))
    assert getattr(config, field) == value


@pytest.mark.parametrize("value", ["rotate", "one"])
def test_source_parses_with_short(value):
    _, config = cli.parse(drive_args("/tmp", **{"--pattern": "short", "--source": value}))
    assert config.source == value


@pytest.mark.parametrize("value", ["copy", "new-array"])
def test_mock_parses(value):
    _, config = cli.parse(drive_args("/tmp", **{"--mechanism": "none", "--endpoint": "inproc",
                                                "--mock": value}))
    assert config.mock == value


REJECTED_DRIVE = {
    "source with rr": {"--source": "one"},
    "source with stream": {"--pattern": "stream", "--request-size": None,
                           "--response-size": None, "--iterations": None,
                           "--message-size": "16", "--messages": "10", "--source": "rotate"},
    "unknown source": {"--pattern": "short", "--source": "many"},
    "non-negative with bytes": {"--value-range": "non-negative"},
    "per-call with bytes": {"--records": "per-call"},
    "unknown value range": {**RECORDS, "--value-range": "positive"},
    "unknown records": {**RECORDS, "--records": "per-case"},
    "value range with stream": {"--pattern": "stream", "--request-size": None,
                                "--response-size": None, "--iterations": None,
                                "--message-size": "16", "--messages": "10",
                                "--value-range": "full"},
    "unknown mock": {"--mechanism": "none", "--endpoint": "inproc", "--mock": "zeros"},
}


@pytest.mark.parametrize("overrides", REJECTED_DRIVE.values(), ids=REJECTED_DRIVE)
def test_drive_rejects_bad_values(overrides, workdir):
    assert_usage_error(run_peer(drive_args(workdir, **overrides)))
    assert os.listdir(workdir) == []


def test_defaults_are_accepted_with_bytes(workdir):
    _, config = cli.parse(drive_args(workdir, **{"--value-range": "full", "--records": "one",
                                                 "--mock": "copy"}))
    assert (config.value_range, config.records, config.mock) == ("full", "one", "copy")


# ---- what cannot be honoured: unsupported ---------------------------------------------------

@pytest.mark.parametrize("mechanism,endpoint", [("udp", "127.0.0.1:0"), ("sysv-mq", "auto"),
                                                ("grpc", "127.0.0.1:0")])
def test_read_size_elsewhere_is_unsupported(mechanism, endpoint):
    assert_unsupported(run_peer(["serve", "--mechanism", mechanism, "--endpoint", endpoint,
                                 "--read-size", "1024"]), "--read-size")


def test_read_size_0_is_accepted_anywhere():
    with Server("udp", "127.0.0.1:0", "--read-size", "0") as server:
        assert server.ready["contract"] == 6


def test_read_size_with_a_server_model_is_unsupported(workdir):
    assert_unsupported(run_peer(SERVE_TCP + [
        "--server-model", "thread", "--connections", "1",
        "--phases-file", os.path.join(workdir, "p"), "--read-size", "1024"]), "--server-model")


@pytest.mark.parametrize("mechanism,endpoint", [("udp", "127.0.0.1:0"), ("sysv-mq", "auto"),
                                                ("grpc", "127.0.0.1:0")])
def test_backlog_where_nothing_listens_is_unsupported(mechanism, endpoint):
    # Given at all, even the default: the server has no listen() to give it to.
    assert_unsupported(run_peer(["serve", "--mechanism", mechanism, "--endpoint", endpoint,
                                 "--backlog", "512"]), "--backlog")


def test_source_one_over_uds_is_unsupported(workdir):
    run = Drive(workdir, "uds", os.path.join(workdir, "s"), 16, 16,
                extra=SHORT + ["--source", "one"])
    assert run.returncode == 7, describe(run)
    assert run.result["error_kind"] == "unsupported" and "--source one" in run.stderr


def test_mock_new_array_over_another_mechanism_is_unsupported(workdir):
    run = Drive(workdir, "tcp", "127.0.0.1:9", 16, 16, extra=["--mock", "new-array"])
    assert run.returncode == 7, describe(run)
    assert run.result["error_kind"] == "unsupported" and "--mock new-array" in run.stderr
