"""soap (PROTOCOL.md 10.3): the zeep client against the spyne server as separate processes,
and the server against what the contract names: the committed WSDL (stock zeep built from it
calls every operation; spyne's generated WSDL describes the same messages), curl's raw
envelope, one kept-alive HTTP/1.1 connection, validation faults."""
import contextlib
import json
import shutil
import socket
import struct
import subprocess
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from lxml import etree
from peers import Server, run_peer

from ipclab_peer import structs
from ipclab_peer.payload import REQUEST_STREAM, RESPONSE_STREAM, payload

zeep = pytest.importorskip("zeep")
# spyne 2.14 imports cgi (removed in Python 3.13); the in-process stand-in imports spyne.
pytestmark = pytest.mark.filterwarnings("ignore:'cgi' is deprecated:DeprecationWarning")

MiB = 1 << 20
SEED = "5"
TNS = "urn:ipclab:soap"
WSDL = Path(__file__).resolve().parents[3] / "protocol" / "idl" / "ipclab_soap.wsdl"
ENVELOPE = "http://schemas.xmlsoap.org/soap/envelope/"
XSD = "http://www.w3.org/2001/XMLSchema"
WSDL_NS = "http://schemas.xmlsoap.org/wsdl/"
# PROTOCOL.md 10.3's curl example, as given there.
FINISH = ('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
          '<finish xmlns="urn:ipclab:soap"/></soap:Body></soap:Envelope>')
HEADERS = {"Content-Type": "text/xml; charset=utf-8"}


@pytest.fixture(scope="module")
def servers():
    """One server per fault for the module: start-up is most of a case."""
    running = {}

    def get(fault="none"):
        if fault not in running:
            running[fault] = Server("soap", "127.0.0.1:0", "--seed", SEED, "--fault", fault)
        return running[fault]
    yield get
    codes = {fault: server.stop() for fault, server in running.items()}
    assert all(code == 0 for code in codes.values()), codes


def drive(directory, endpoint, *args, iterations=3):
    samples, result = Path(directory) / "samples.bin", Path(directory) / "result.json"
    proc = run_peer(["drive", "--mechanism", "soap", "--endpoint", endpoint, "--seed", SEED,
                     "--iterations", str(iterations), "--samples-file", str(samples),
                     "--result-file", str(result), *args], timeout=120)
    loaded = json.loads(result.read_text()) if result.exists() else None
    return proc, loaded, samples.read_bytes() if samples.exists() else b""


def check_ok(run, iterations):
    proc, result, samples = run
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert (result["status"], result["samples"]) == ("ok", iterations)
    assert all(0 < s < 10**11 for s in struct.unpack(f"<{iterations}q", samples))


@pytest.mark.parametrize("size", [16, MiB])
def test_bytes_round_trips(size, servers, workdir):
    server = servers()
    check_ok(drive(workdir, server.endpoint, "--request-size", str(size), "--response-size",
                   str(size), "--warmup", "1"), 3)
    assert server.drain_stderr() == []


@pytest.mark.parametrize("kind", structs.KINDS)
def test_records_round_trip(kind, servers, workdir):
    check_ok(drive(workdir, servers().endpoint, "--payload", kind, "--sequence-length", "5"), 3)


def test_void_calls(servers, workdir):
    """put; putSmall, putMedium and putLarge are called by the stock zeep test below."""
    check_ok(drive(workdir, servers().endpoint, "--void", "--request-size", "16"), 3)


@pytest.mark.parametrize("args", [["--request-size", "16", "--response-size", "16"],
                                  ["--payload", "medium"]])
def test_flipped_response_is_a_payload_mismatch(args, servers, workdir):
    proc, result, samples = drive(workdir, servers("flip-response-byte").endpoint, *args)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.startswith("ipclab-peer: payload-mismatch: ")
    assert result["error_kind"] == "payload-mismatch" and samples == b""


def test_refused_connection_is_an_io_error(workdir):
    proc, result, _ = drive(workdir, "127.0.0.1:1", "--request-size", "16",
                            "--response-size", "16", "--io-timeout", "5")
    assert proc.returncode == 5, proc.stderr
    assert result["error_kind"] == "io"


def test_silent_server_is_a_timeout(workdir):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        proc, result, _ = drive(workdir, "127.0.0.1:%d" % silent.getsockname()[1],
                                "--request-size", "16", "--response-size", "16",
                                "--io-timeout", "0.5")
    assert proc.returncode == 6, proc.stderr
    assert result["error_kind"] == "timeout"


def stock_service(endpoint):
    """Stock zeep, built from the committed WSDL, bound to the server's /soap."""
    client = zeep.Client(wsdl=str(WSDL))
    return client, client.create_service(f"{{{TNS}}}BenchBinding", f"http://{endpoint}/soap")


def test_stock_zeep_calls_every_operation(servers):
    client, service = stock_service(servers().endpoint)
    seed = int(SEED)
    service.finish()
    assert service.call(seq=7, wanted=9, request=payload(seed, REQUEST_STREAM, 7, 5)) == \
        payload(seed, RESPONSE_STREAM, 7, 9)
    for kind in structs.KINDS:
        record = structs.record(seed, kind, 3)
        value = client.get_type(f"{{{TNS}}}{kind.capitalize()}")(**record)
        echoed = getattr(service, "echo" + kind.capitalize())(record=value)
        assert {name: getattr(echoed, name) for name in record} == record
        assert getattr(service, "put" + kind.capitalize())(record=value) is None
    assert service.put(seq=3, request=payload(seed, REQUEST_STREAM, 3, 100)) is None
    assert service.finish() == 0


def test_finish_counts_corrupted_requests_and_resets(servers):
    _, service = stock_service(servers().endpoint)
    service.finish()
    service.call(seq=1, wanted=0, request=b"not the payload")
    service.put(seq=2, request=payload(int(SEED), REQUEST_STREAM, 3, 16))
    assert service.finish() == 2
    assert service.finish() == 0


def post(endpoint, body, action="finish"):
    request = urllib.request.Request(f"http://{endpoint}/soap", data=body.encode(), method="POST",
                                     headers={**HEADERS, "SOAPAction": f'"{TNS}:{action}"'})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, etree.fromstring(response.read())
    except urllib.error.HTTPError as err:
        return err.code, etree.fromstring(err.read())


def small(fields):
    inner = "".join(f"<{name}>{value}</{name}>" for name, value in fields)
    return (f'<soap:Envelope xmlns:soap="{ENVELOPE}"><soap:Body><echoSmall xmlns="{TNS}">'
            f"<record>{inner}</record></echoSmall></soap:Body></soap:Envelope>")


GOOD = [("n1", 1), ("n2", 2), ("s1", "abcd"), ("b1", "true"), ("li1", 3), ("li1", 4)]


@pytest.mark.parametrize("fields", [GOOD[1:], [("n1", "x")] + GOOD[1:],
                                    [("n1", 1 << 31)] + GOOD[1:]],
                         ids=["missing", "not-an-int", "over-32-bits"])
def test_invalid_record_is_a_client_fault(fields, servers):
    endpoint = servers().endpoint
    status, answer = post(endpoint, small(fields), "echoSmall")
    assert status == 500
    assert "ValidationError" in answer.findtext(f".//{{{ENVELOPE}}}Fault/faultcode")
    status, answer = post(endpoint, small(GOOD), "echoSmall")
    assert status == 200
    assert answer.findtext(f".//{{{TNS}}}result/{{{TNS}}}li1") == "3"


@pytest.mark.skipif(shutil.which("curl") is None, reason="no curl")
def test_curl_finish_as_the_contract_shows(servers):
    endpoint = servers().endpoint
    out = subprocess.run(["curl", "-s", "-H", "Content-Type: text/xml; charset=utf-8", "-H",
                          f'SOAPAction: "{TNS}:finish"', "--data", FINISH,
                          f"http://{endpoint}/soap"], capture_output=True, timeout=30,
                         check=True).stdout
    answer = etree.fromstring(out)
    assert answer.findtext(f"{{{ENVELOPE}}}Body/{{{TNS}}}finishResponse/{{{TNS}}}result") == "0"


def read_response(stream):
    """(status line, body) of one HTTP/1.1 response with a Content-Length."""
    status = stream.readline().decode().rstrip()
    headers = {}
    while (line := stream.readline().decode().rstrip()):
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, stream.read(int(headers["content-length"]))


def test_one_connection_carries_many_calls(servers):
    host, port = servers().endpoint.split(":")
    body = FINISH.encode()
    request = (f"POST /soap HTTP/1.1\r\nHost: {host}\r\nContent-Type: text/xml; charset=utf-8"
               f'\r\nSOAPAction: "{TNS}:finish"\r\nContent-Length: {len(body)}\r\n\r\n'
               ).encode() + body
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        stream = sock.makefile("rb")
        for _ in range(20):
            sock.sendall(request)
            status, answer = read_response(stream)
            assert status == "HTTP/1.1 200 OK"
            assert b"finishResponse" in answer


def shapes(document):
    """What a WSDL's schema says of each global element (its wrapper's children) and record
    type: (name, type as a qualified name, minOccurs, maxOccurs, nillable) per child."""
    schema = etree.fromstring(document).find(f"{{{WSDL_NS}}}types/{{{XSD}}}schema")
    assert (schema.get("targetNamespace"), schema.get("elementFormDefault")) == \
        (TNS, "qualified")
    named = {node.get("name"): node for node in schema.findall(f"{{{XSD}}}complexType")}

    def qualified(node, text):
        prefix, _, local = text.rpartition(":")
        return f"{{{node.nsmap[prefix or None]}}}{local}"

    def children(complex_type):
        return [(e.get("name"), qualified(e, e.get("type")), e.get("minOccurs", "1"),
                 e.get("maxOccurs", "1"), e.get("nillable", "false"))
                for e in complex_type.iter(f"{{{XSD}}}element")]

    found = {f"type {name}": children(named[name]) for name in ("Small", "Medium", "Large")}
    for element in schema.findall(f"{{{XSD}}}element"):
        inline = element.find(f"{{{XSD}}}complexType")
        type_name = None if inline is not None else element.get("type").rpartition(":")[2]
        found[element.get("name")] = children(inline if inline is not None
                                              else named[type_name])
    return found


def test_generated_wsdl_describes_the_committed_messages(servers):
    with urllib.request.urlopen(f"http://{servers().endpoint}/soap?wsdl", timeout=10) as got:
        served = shapes(got.read())
    committed = shapes(WSDL.read_bytes())
    assert len(committed) == 3 + 18  # the records, and 9 operations' request and response
    assert {name: served.get(name) for name in committed} == committed


class FailingFinish:
    """The Bench of an in-process spyne server whose finish fails: spyne answers a
    soap:Fault (Server)."""

    def finish(self):
        raise RuntimeError("the stand-in fails finish")


@contextlib.contextmanager
def stand_in(bench):
    from ipclab_peer.rpc import soap_server
    from ipclab_peer.transport.endpoints import HostPort

    endpoint, serve = soap_server.start(HostPort("127.0.0.1", 0), None, bench)
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        serve.__self__.shutdown()  # serve is the server's serve_forever
        serve.__self__.server_close()
        thread.join()


def test_soap_fault_is_a_protocol_error(workdir):
    """PROTOCOL.md 10.3 (here from the client's first call, finish); a reply of the wrong
    length is a payload mismatch through drive.py, as test_rpc shows over rest."""
    with stand_in(FailingFinish()) as endpoint:
        proc, result, samples = drive(workdir, endpoint, "--request-size", "16",
                                      "--response-size", "16")
    assert proc.returncode == 4, proc.stderr
    assert proc.stderr.startswith("ipclab-peer: protocol: soap:Fault ")
    assert result["error_kind"] == "protocol" and samples == b""
