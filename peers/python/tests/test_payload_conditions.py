"""The conditions of what a client sends (contract 6, PROTOCOL.md 4.4, 10.2): the structured
records' --value-range and --records, drawn and round-tripped through every framework, and
none's --mock new-array. Their parsing is in test_conditions.py."""
import types

import pytest
from peers import Drive
from test_roundtrip import check_ok
from test_rpc import FRAMEWORKS, check_ok as check_rpc_ok, drive as rpc_drive
from test_rpc import servers  # noqa: F401 (the module's RPC servers, a fixture)

from ipclab_peer import inproc, payload, structs
from ipclab_peer.errors import PayloadMismatch
from ipclab_peer.rpc import drive as rpc_drive_module


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
