"""Contract version 6's conditions as flags (PROTOCOL.md 1, 4.4, 10.2, 11.1, 11.2): the stream
server's --read-size, the rr server's --backlog, short's --source, the structured records'
--value-range and --records, none's --mock; and the thrift codecs (the C codec for both
protocols since thrift 0.23). Each: parsing and its bad values, then what it does."""
import json
import os
import socket
import subprocess
import threading
import types

import pytest
from peers import Drive, Server, describe, run_peer, serving
from test_cli import assert_usage_error, drive_args
from test_client import read_request, response
from test_roundtrip import check_ok
from test_rpc import FRAMEWORKS, check_ok as check_rpc_ok, drive as rpc_drive
from test_stream import check_stream_ok, stream
from test_vectors import BytesLink

from ipclab_peer import cli, frame, inproc, payload, structs
from ipclab_peer.errors import PayloadMismatch
from ipclab_peer.messages import take_messages
from ipclab_peer.reader import FrameReader
from ipclab_peer.rpc import drive as rpc_drive_module

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


# ---- --read-size ----------------------------------------------------------------------------

class AskingLink(BytesLink):
    """A link that hands out what it holds as the reads ask, logging each read's size."""

    def __init__(self, data):
        super().__init__(data, piece=len(data))
        self.asked = []

    def read_into(self, view):
        self.asked.append(len(view))
        return super().read_into(view)


class Counted:
    def __init__(self):
        self.messages = []

    def add(self, view, count):
        self.messages.append((bytes(view), count))


@pytest.mark.parametrize("size,count,limit", [(3000, 4, 1024), (100, 50, 1024), (7, 9, 5),
                                              (100, 3, 1_000_000), (1, 1, 1)])
def test_each_read_of_message_bytes_asks_for_min_of_n_and_what_is_due(size, count, limit):
    """A MARK of `count` messages of `size` bytes, its messages, END: the MARK is read as
    before (greedily, with whatever message bytes came with it), each later read asks for
    exactly min(N, the announced bytes not yet buffered), and END is left for the next frame."""
    messages = b"".join(payload.payload(1, payload.REQUEST_STREAM, 1 + i, size)
                        for i in range(count))
    mark, end = frame.encode_mark(0, size, count), frame.encode_header(frame.END, 9, 0, 0)
    link = AskingLink(mark + messages + end)
    reader = FrameReader(capacity=64, read_size=limit)
    reader.attach(link)
    assert reader.next_frame()[0] == frame.MARK
    assert link.asked == [64]  # the control frame's greedy read, message bytes and all
    tally = Counted()
    take_messages(reader, tally, size, count)
    assert b"".join(view for view, _ in tally.messages) == messages
    due = len(messages) - min(len(messages), 64 - len(mark))
    for ask in link.asked[1:]:
        assert ask == min(limit, due)
        due -= ask  # the link has what is asked for, so each read brings all of it
    assert due == 0  # and nothing past the K messages was asked for
    asked = len(link.asked)
    assert reader.next_frame()[:2] == (frame.END, 9)
    assert len(link.asked) == asked + (len(mark + messages + end) > 64)  # END: greedy


def test_read_size_0_reads_greedily():
    messages = payload.payload(1, payload.REQUEST_STREAM, 1, 3000) * 4
    link = AskingLink(frame.encode_mark(0, 3000, 4) + messages)
    reader = FrameReader(capacity=64)
    reader.attach(link)
    reader.next_frame()
    take_messages(reader, Counted(), 3000, 4)
    assert max(link.asked) > 1024  # the whole room of the buffer, not a bounded read


@pytest.mark.parametrize("mechanism", ["tcp", "uds", "pipe", "fifo"])
@pytest.mark.parametrize("size,limit", [(3000, 1024), (100, 1024), (1027, 1)])
def test_streams_with_a_read_size(mechanism, size, limit, workdir):
    messages = 20 if limit == 1 else 300
    with serving(mechanism, workdir, "--read-size", str(limit)) as case:
        run = stream(workdir, case, mechanism, size, messages, "--warmup", "3")
        case.release_client_fds()
        check_stream_ok(run, mechanism, size, messages, warmup=3)
        assert case.server.drain_stderr() == []


def test_a_read_size_server_still_serves_round_trips(workdir):
    with serving("tcp", workdir, "--read-size", "1024") as case:
        run = Drive(workdir, "tcp", case.endpoint, 5000, 3000, iterations=5)
        check_ok(run, "tcp", 5000, 3000, 5)


# ---- --backlog ------------------------------------------------------------------------------

def listen_backlog(*ss_args):
    """The backlog of a listening socket as the kernel reports it (ss: Send-Q of a
    listener)."""
    lines = subprocess.run(["ss", "-lH", *ss_args], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    fields = [line.split() for line in lines if "LISTEN" in line]
    assert len(fields) == 1, lines
    return int(fields[0][fields[0].index("LISTEN") + 2])


@pytest.mark.parametrize("backlog", [None, "50", "3"])
def test_the_tcp_rr_server_listens_with_the_backlog(backlog, workdir):
    extra = ["--backlog", backlog] if backlog else []
    with serving("tcp", workdir, *extra) as case:
        port = case.endpoint.rsplit(":", 1)[1]
        assert listen_backlog("-tn", f"sport = :{port}") == int(backlog or 512)


@pytest.mark.parametrize("backlog", [None, "50"])
def test_the_uds_rr_server_listens_with_the_backlog(backlog, workdir):
    extra = ["--backlog", backlog] if backlog else []
    with serving("uds", workdir, *extra) as case:
        assert listen_backlog("-x", "src", case.endpoint) == int(backlog or 512)


def test_short_against_a_server_with_a_small_backlog(workdir):
    with serving("tcp", workdir, "--backlog", "50") as case:
        run = Drive(workdir, "tcp", case.endpoint, 1024, 16, iterations=200, extra=SHORT)
        check_ok(run, "tcp", 1024, 16, 200, pattern="short")


# ---- --source -------------------------------------------------------------------------------

def test_source_one_connects_every_connection_from_127_0_0_1(workdir):
    """A stand-in server records where each connection comes from: with --source one, the
    kernel's choice, 127.0.0.1, for every one (END's included), each from a port of its own
    among those not in use."""
    from test_short import short_against_a_stand_in
    run, sources = short_against_a_stand_in(workdir, 50, ["--source", "one"])
    check_ok(run, "tcp", 16, 16, 50, warmup=2, pattern="short")
    assert [host for host, _ in sources] == ["127.0.0.1"] * 53


def test_source_one_still_makes_the_socket_before_the_clock():
    """tcp's connect_short with --source one: an unconnected, unbound socket (port 0) with
    TCP_NODELAY, connected only by connect()."""
    options = types.SimpleNamespace(io_timeout=5, nodelay="on", source="one")
    from ipclab_peer.mechanisms import MECHANISMS
    from ipclab_peer.transport import endpoints
    with socket.create_server(("127.0.0.1", 0)) as listener:
        endpoint = endpoints.HostPort("127.0.0.1", listener.getsockname()[1])
        pending = MECHANISMS["tcp"].connect_short(endpoint, options, 7)
        assert pending.sock.getsockname() == ("0.0.0.0", 0)
        assert pending.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        link = pending.connect()
        conn, address = listener.accept()
        assert address[0] == "127.0.0.1"
        link.close()
        conn.close()


def test_source_one_round_trips_against_our_server(workdir):
    with serving("tcp", workdir) as case:
        run = Drive(workdir, "tcp", case.endpoint, 100, 100, iterations=100,
                    extra=SHORT + ["--source", "one"])
        check_ok(run, "tcp", 100, 100, 100, pattern="short")


# ---- --value-range and --records ------------------------------------------------------------

INT_PREFIXES = ("n", "li")


def ints_of(record):
    for name, value in record.items():
        if name.startswith(INT_PREFIXES):
            yield from value if isinstance(value, list) else [value]


@pytest.mark.parametrize("kind", structs.KINDS)
@pytest.mark.parametrize("seed", [1, 99, 2**64 - 1])
def test_non_negative_ints_are_the_full_ones_low_31_bits(kind, seed):
    full = structs.record(seed, kind, 50)
    non_negative = structs.record(seed, kind, 50, "non-negative")
    assert list(non_negative) == list(full)
    assert all(0 <= value < 2**31 for value in ints_of(non_negative))
    assert [value & 0x7FFFFFFF for value in ints_of(full)] == list(ints_of(non_negative))
    assert any(value < 0 for value in ints_of(full))  # the full range does draw negatives
    for name, value in full.items():  # same draws: every other field is the same
        if not name.startswith(INT_PREFIXES):
            assert non_negative[name] == value, name


@pytest.mark.parametrize("kind", structs.KINDS)
@pytest.mark.parametrize("value_range", ["full", "non-negative"])
def test_the_record_stream_starts_with_todays_record_and_goes_on(kind, value_range):
    drawn = structs.records(7, kind, 5, value_range)
    first, second, third = next(drawn), next(drawn), next(drawn)
    assert first == structs.record(7, kind, 5, value_range)
    assert second != first and third != second
    assert list(second) == structs.field_names(kind)
    again = structs.records(7, kind, 5, value_range)
    assert [next(again) for _ in range(3)] == [first, second, third]
    assert next(structs.records(8, kind, 5, value_range)) != first


def test_record_k_plus_1_continues_from_the_state_record_k_left():
    """Small with sequence length 0 draws n1 n2, s1 (1 + its length), b1: record 2's n1 is
    the draw right after record 1's b1."""
    draws = structs._splitmix((1 ^ (3 * payload.GOLDEN)) & payload.MASK)
    values = [next(draws) for _ in range(64)]
    first = structs.record(1, "small", 0)
    used = 2 + 1 + len(first["s1"]) + 1
    second = next(d for i, d in enumerate(structs.records(1, "small", 0)) if i == 1)
    low = values[used] & 0xFFFFFFFF
    assert second["n1"] == (low - 2**32 if low >= 2**31 else low)


class StandInClient:
    """The interface drive.py uses (base.Client), keeping every value it is asked to make."""

    def __init__(self):
        self.made, self.sent = [], []

    def struct(self, kind, record):
        value = dict(record)
        self.made.append(value)
        return value

    @staticmethod
    def stamp(value, n1):
        value["n1"] = n1

    def echo(self, kind):
        def echo(value):
            self.sent.append(dict(value))
            return value
        return echo

    @staticmethod
    def fields(kind, value):
        return value


@pytest.mark.parametrize("records", ["one", "per-call"])
def test_per_call_draws_the_next_record_before_each_call(records):
    config = types.SimpleNamespace(payload="medium", seed=3, sequence_length=4, warmup=2,
                                   iterations=3, value_range="non-negative", records=records)
    client, samples = StandInClient(), []
    recorder = types.SimpleNamespace(add=lambda index, ns: samples.append(index))
    rpc_drive_module._struct_round_trips(config, recorder, client)
    drawn = structs.records(3, "medium", 4, "non-negative")
    expected = [next(drawn) for _ in range(5)] if records == "per-call" else \
        [structs.record(3, "medium", 4, "non-negative")] * 5
    assert client.sent == [{**record, "n1": sequence} for sequence, record in
                           enumerate(expected)]
    assert len(client.made) == (5 if records == "per-call" else 1)
    assert samples == [0, 1, 2, 3, 4]


from test_rpc import servers  # noqa: E402,F401 (the module's RPC servers, a fixture)


@pytest.mark.parametrize("mechanism", FRAMEWORKS + ["soap"])
@pytest.mark.parametrize("kind", ["small", "large"])
def test_per_call_non_negative_records_round_trip(mechanism, kind, servers, workdir):
    server = servers.get(mechanism)
    run = rpc_drive(workdir, mechanism, server.endpoint, "--payload", kind, "--warmup", "2",
                    "--records", "per-call", "--value-range", "non-negative", iterations=4)
    check_rpc_ok(run, mechanism, kind, (0, 0), 5, 4)


def test_per_call_records_are_checked_each_against_its_own(servers, workdir):
    """A server that flips a byte of every echo fails the per-call client too."""
    server = servers.get("grpc", "flip-response-byte")
    proc, result, _ = rpc_drive(workdir, "grpc", server.endpoint, "--payload", "medium",
                                "--records", "per-call")
    assert proc.returncode == 3, proc.stderr
    assert result["error_kind"] == "payload-mismatch"


# ---- --mock ---------------------------------------------------------------------------------

def test_mock_new_array_round_trips(workdir):
    run = Drive(workdir, "none", "inproc", 100, 1 << 20, iterations=50,
                extra=["--mock", "new-array", "--warmup", "3"])
    check_ok(run, "none", 100, 1 << 20, 50, warmup=3)


def _mock_config(response_size=1000):
    return types.SimpleNamespace(endpoint="inproc", seed=1, request_size=16,
                                 response_size=response_size, warmup=2, iterations=3,
                                 mock="new-array")


def _none():
    from ipclab_peer.mechanisms import MECHANISMS
    return MECHANISMS["none"]


def test_mock_new_array_makes_a_new_zero_filled_array_per_call(monkeypatch):
    made = []

    def new_array(size):
        made.append(size)
        return bytearray(size)

    monkeypatch.setattr(inproc, "bytearray", new_array, raising=False)
    samples = []
    recorder = types.SimpleNamespace(add=lambda index, ns: samples.append(index))
    inproc.rr(_mock_config(), _none(), recorder)
    # rr's own response buffer, then one array per call, warm-up included.
    assert made[-5:] == [1000] * 5
    assert samples == [0, 1, 2, 3, 4]


def test_mock_new_array_checks_the_length(monkeypatch):
    monkeypatch.setattr(inproc, "bytearray", lambda size: b"\0" * (size - 1), raising=False)
    recorder = types.SimpleNamespace(add=lambda index, ns: None)
    with pytest.raises(PayloadMismatch, match="999 bytes instead of 1000"):
        inproc.rr(_mock_config(), _none(), recorder)


# ---- thrift's codecs ------------------------------------------------------------------------

def test_capabilities_say_both_thrift_protocols_use_the_c_codec():
    answer = json.loads(run_peer(["capabilities"]).stdout)
    for name in ("thrift-binary", "thrift-compact"):
        assert answer["mechanisms"][name]["codec"] == "C (fastbinary)"
    assert "codec" not in answer["mechanisms"]["grpc"]


@pytest.mark.parametrize("protocol,decode", [("binary", "decode_binary"),
                                             ("compact", "decode_compact")])
def test_thrift_client_and_server_use_the_c_codec(protocol, decode):
    """The client's protocol and the server factory's protocols decode with fastbinary (the
    generated code calls `_fast_decode` when it is set, on a TBufferedTransport)."""
    from thrift.protocol import fastbinary
    from thrift.transport import TTransport

    from ipclab_peer.rpc import Framework
    client_protocol, factory = Framework("thrift_rpc").load().PROTOCOLS[protocol]
    transport = TTransport.TBufferedTransport(TTransport.TMemoryBuffer())
    for made in (client_protocol(transport, fallback=False),
                 factory(fallback=False).getProtocol(transport)):
        assert made._fast_decode is getattr(fastbinary, decode)
        assert made._fast_encode is getattr(fastbinary, decode.replace("de", "en", 1))
    assert isinstance(transport, TTransport.CReadableTransport)


def test_the_compact_c_codec_carries_records_across_buffer_refills(servers, workdir):
    """thrift 0.22's C compact decoder raised SystemError (PY_SSIZE_T_CLEAN) on a message
    that spanned a refill of the 4 KiB read buffer; a large record of 2000-element sequences
    spans many, both ways."""
    server = servers.get("thrift-compact")
    run = rpc_drive(workdir, "thrift-compact", server.endpoint, "--payload", "large",
                    "--sequence-length", "2000", "--records", "per-call", iterations=3)
    check_rpc_ok(run, "thrift-compact", "large", (0, 0), 2000, 3)
    assert server.drain_stderr() == []
