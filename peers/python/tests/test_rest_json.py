"""--rest-body json (PROTOCOL.md 1, idl/rest.md): bytes travel as {"data": "<base64>"} with
Content-Type application/json; the server answers `call` in the form it was asked in and takes
both forms for `put`."""
import base64
import json

import pytest
from test_rpc import check_ok, drive, servers, stand_in_rest  # noqa: F401 - the fixture
from test_void import _post

from ipclab_peer import payload

SEED = 99
JSON = "application/json"


def as_json(data):
    return json.dumps({"data": base64.b64encode(data).decode()}).encode()


@pytest.mark.parametrize("request_size,response_size", [(0, 0), (100, 7), (1 << 20, 1 << 20)])
@pytest.mark.parametrize("pattern", ["rr", "short"])
def test_json_bodies_round_trips(request_size, response_size, pattern, servers,  # noqa: F811
                                 workdir):
    run = drive(workdir, "rest", servers.get("rest").endpoint, "--rest-body", "json",
                "--request-size", str(request_size), "--response-size", str(response_size),
                "--pattern", pattern, iterations=3)
    check_ok(run, "rest", "bytes", (request_size, response_size), None, 3)


def test_json_bodies_with_void(servers, workdir):  # noqa: F811
    run = drive(workdir, "rest", servers.get("rest").endpoint, "--rest-body", "json",
                "--request-size", "300", "--response-size", "0", "--void", iterations=3)
    check_ok(run, "rest", "bytes", (300, 0), None, 3)


def test_the_server_answers_in_the_form_it_was_asked_in(servers):  # noqa: F811
    url = "http://" + servers.get("rest").endpoint
    request = payload.payload(SEED, payload.REQUEST_STREAM, 3, 20)
    expected = payload.payload(SEED, payload.RESPONSE_STREAM, 3, 5)
    assert _post(url + "/finish", b"")[0] == 200
    status, body = _post(url + "/call/3?wanted=5", as_json(request), JSON)
    assert (status, json.loads(body)) == (200, {"data": base64.b64encode(expected).decode()})
    assert _post(url + "/call/3?wanted=5", request) == (200, expected)
    assert _post(url + "/put/3", as_json(request), JSON) == (204, b"")
    assert _post(url + "/put/3", request) == (204, b"")
    assert _post(url + "/put/4", as_json(request), JSON) == (204, b"")  # corrupted
    assert json.loads(_post(url + "/finish", b"")[1]) == {"corrupted": 1}


@pytest.mark.parametrize("body", [
    b'{"data": "AAAA", "more": 1}', b'{"data": 5}', b'["AAAA"]', b'{"data": "AA"}',
    b'{"data": "A!AA"}', b'{', b'{}',
])
def test_a_bad_json_form_is_a_400(body, servers):  # noqa: F811
    url = "http://" + servers.get("rest").endpoint
    assert _post(url + "/call/0?wanted=1", body, JSON)[0] == 400
    assert _post(url + "/put/0", body, JSON)[0] == 400


def test_the_client_sends_and_expects_the_json_form(workdir):
    """A stand-in server that answers only the JSON form, with the expected bytes."""
    seen = []

    def answer(path, headers, body):
        if path == "/finish":
            return 200, b'{"corrupted": 0}', JSON
        sequence = int(path.split("/")[2].split("?")[0])
        seen.append((headers["Content-Type"], json.loads(body)))
        return 200, as_json(payload.payload(SEED, payload.RESPONSE_STREAM, sequence, 4)), JSON

    with stand_in_rest(answer) as endpoint:
        run = drive(workdir, "rest", endpoint, "--rest-body", "json", "--request-size", "10",
                    "--response-size", "4", iterations=2)
    check_ok(run, "rest", "bytes", (10, 4), None, 2)
    assert seen == [(JSON, {"data": base64.b64encode(payload.payload(
        SEED, payload.REQUEST_STREAM, sequence, 10)).decode()}) for sequence in range(2)]


@pytest.mark.parametrize("mechanism", ["grpc", "tcp"])
def test_rest_body_json_elsewhere_is_unsupported(mechanism, workdir):
    proc, result, _ = drive(workdir, mechanism, "127.0.0.1:1", "--request-size", "8",
                            "--response-size", "8", "--rest-body", "json")
    assert proc.returncode == 7, proc.stderr
    assert result["error_kind"] == "unsupported"
