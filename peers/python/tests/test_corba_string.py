"""--corba-payload string (PROTOCOL.md 10.1): callString carries each payload byte b as
ALPHABET[b mod 62]; the server compares the mapped request and returns the mapped response."""
import types

import pytest
from test_rpc import check_ok, drive, servers  # noqa: F401 - the fixture

from ipclab_peer import payload, structs
from ipclab_peer.rpc import Framework
from ipclab_peer.transport import endpoints

SEED = 99
STRING = ["--corba-payload", "string"]


def test_the_mapping_is_the_alphabet_by_byte_mod_62():
    data = bytes(range(256))
    assert structs.as_text(data) == "".join(structs.ALPHABET[b % 62] for b in data)
    assert structs.as_text(bytearray(b"\x00\x3d\x3e\xff")) == "A9AH"  # 0, 61, 62 -> 0, 255 -> 7
    assert structs.as_text(b"") == ""


@pytest.mark.parametrize("request_size,response_size", [(0, 0), (16, 3), (1 << 20, 1 << 20)])
def test_call_string_round_trips(request_size, response_size, servers, workdir):  # noqa: F811
    run = drive(workdir, "corba", servers.get("corba").endpoint, *STRING, "--request-size",
                str(request_size), "--response-size", str(response_size), "--warmup", "1")
    check_ok(run, "corba", "bytes", (request_size, response_size), None, 3)


def test_a_flipped_response_is_a_mismatch(servers, workdir):  # noqa: F811
    run = drive(workdir, "corba", servers.get("corba", "flip-response-byte").endpoint,
                *STRING, "--request-size", "16", "--response-size", "16")
    assert run[0].returncode == 3, run[0].stderr
    assert "differs at payload offset 15" in run[0].stderr


def test_the_server_maps_and_counts(servers):  # noqa: F811
    """A plain omniORB client: callString's answer is the mapped response; a request that
    is not the mapped expected one is counted for finish."""
    corba = Framework("corba").load()
    options = types.SimpleNamespace(io_timeout=10, corba_payload="string")
    client = corba.Client(endpoints.parse_ior(servers.get("corba").endpoint), options)
    try:
        client.finish()
        request = structs.as_text(payload.payload(SEED, payload.REQUEST_STREAM, 7, 30))
        answer = client.call(7, 9, request)
        assert answer == structs.as_text(payload.payload(SEED, payload.RESPONSE_STREAM, 7, 9))
        client.call(8, 0, request)  # stamped for 7: corrupted
        client.call(7, 0, request[:-1] + ("A" if request[-1] != "A" else "B"))
        assert client.finish() == 2
    finally:
        client.close()


@pytest.mark.parametrize("mechanism,args", [
    ("grpc", ["--request-size", "8", "--response-size", "8"]),
    ("corba", ["--payload", "small"]),
    ("corba", ["--request-size", "8", "--response-size", "0", "--void"]),
])
def test_unsupported_combinations(mechanism, args, servers, workdir):  # noqa: F811
    endpoint = servers.get("corba").endpoint if mechanism == "corba" else "127.0.0.1:1"
    proc, result, _ = drive(workdir, mechanism, endpoint, *STRING, *args)
    assert proc.returncode == 7, proc.stderr
    assert result["error_kind"] == "unsupported"
