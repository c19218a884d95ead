"""End to end for the RPC mechanisms of PROTOCOL.md section 10: every language pair the
capability data offers, sized and structured payloads validated, and each server answering a
stock client of its framework that ipclab did not write (stubs generated here from
protocol/idl/ by the framework's own compiler, or curl), which shows the servers speak the real
protocol rather than a private one."""
import base64
import importlib
import importlib.util
import json
import os
import random
import select
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

from ipclab.execute.probe import load_catalog
from ipclab.plan.catalog import repo_root
from test_e2e import REF, cases_csv, leftovers, offered, rotation, run, run_cases

pytestmark = pytest.mark.e2e
ROOT = repo_root()
IDL = ROOT / "protocol" / "idl"
VECTORS = json.loads((ROOT / "protocol" / "vectors" / "vectors.json").read_text())
RPC = ["rest", "grpc", "thrift-binary", "thrift-compact", "ice", "corba"]
STRUCTURED = ["grpc", "thrift-binary", "thrift-compact", "ice"]




def test_rpc_mechanisms_are_offered_by_every_language_and_rmi_by_java_alone():
    catalog = load_catalog()
    for mechanism in [*RPC, "soap"]:
        assert offered(mechanism) == ["cpp", "java", "python"], mechanism
    assert offered("rmi") == ["java"]
    assert not catalog.languages["cpp"].supports("rmi", "drive")


@pytest.mark.parametrize("mechanism", [*RPC, "rmi"])
def test_each_language_carries_1_mib_both_ways(mechanism):
    # Each language once as client and once as server (its own message-size limits and coder on
    # each side; every pair would run no code these do not, at three times the time). Small
    # payloads go around the rotation in test_e2e_settings (16 B, void).
    langs = offered(mechanism)
    pairs = rotation(langs)
    _, outcomes = run_cases(load_catalog(), {
        "matrix": {"mechanism": [mechanism], "client": langs, "server": langs,
                   "request_size": ["1MiB"], "response_size": ["1MiB"],
                   "placement": ["unpinned"]},
        "run": {"iterations": 20, "warmup": 2}}, pairs=pairs)
    assert [(o.case.label, o.status, o.reason) for o in outcomes if o.status != "ok"] == []
    assert {(o.case.client, o.case.server) for o in outcomes} == set(pairs)


@pytest.mark.parametrize("mechanism", STRUCTURED)
def test_structured_payloads_each_language_both_ways(mechanism):
    # Every record (the large one has every kind of field the others have) with each language
    # once as client and once as server: each side's own coder encodes and checks each one.
    langs = offered(mechanism)
    _, outcomes = run_cases(load_catalog(), {
        "matrix": {"mechanism": [mechanism], "client": langs, "server": langs,
                   "payload": ["small", "medium", "large"], "sequence_length": [300],
                   "placement": ["unpinned"]},
        "run": {"iterations": 10, "warmup": 2}}, pairs=rotation(langs))
    assert [(o.case.label, o.status, o.reason) for o in outcomes if o.status != "ok"] == []
    assert len(outcomes) == 3 * len(langs)


def test_soap_carries_1_mib_and_every_record_around_the_rotation():
    # SOAP's XML (base64 bytes, schema-validated records) costs 0.1-0.3 s a 1 MiB call in the
    # Python and C++ libraries: each language once as client and once as server keeps both of
    # its sides checked at a third of every pair's time (test_e2e_settings runs its void
    # operations around the rotation too).
    langs = offered("soap")
    _, outcomes = run_cases(load_catalog(), {
        "matrix": {"mechanism": ["soap"], "client": langs, "server": langs,
                   "payload": ["bytes", "small", "medium", "large"], "request_size": ["1MiB"],
                   "response_size": ["1MiB"], "sequence_length": [300],
                   "placement": ["unpinned"]},
        "run": {"iterations": 5, "warmup": 1}}, pairs=rotation(langs))
    assert [(o.case.label, o.status, o.reason) for o in outcomes if o.status != "ok"] == []
    assert len(outcomes) == 4 * len(langs)


def test_structured_payloads_over_a_kernel_mechanism_are_not_applicable(tmp_path):
    out = tmp_path / "run"
    done = run("--mechanism", "tcp", "--client", "cpp", "--server", "cpp", "--payload", "small",
               "--iterations", "5", "--out", str(out))
    (case,) = cases_csv(out)
    assert done.returncode == 0
    assert case["status"] == "not-applicable" and "RPC mechanism" in case["reason"]


# --- stock clients ---------------------------------------------------------------------------

class Server:
    """One peer server started by hand, as a user would to try it with another client."""

    def __init__(self, language, mechanism, seed):
        argv = load_catalog().languages[language].argv(ROOT)
        self.seed = seed
        self.proc = subprocess.Popen(
            [*argv, "serve", "--mechanism", mechanism, "--endpoint", "127.0.0.1:0",
             "--seed", str(seed)],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.endpoint = self._ready()

    def _ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 1)
            if ready:
                line = self.proc.stdout.readline().decode()
                assert line.startswith("READY "), line
                return json.loads(line[6:])["endpoint"]
            assert self.proc.poll() is None, self.proc.stderr.read().decode()
        raise AssertionError("no READY")

    @property
    def host_port(self):
        host, port = self.endpoint.rsplit(":", 1)
        return host, int(port)

    def stop(self):
        self.proc.terminate()
        assert self.proc.wait(timeout=20) == 0
        # The C++ server's stdin watcher (a child) ends by PR_SET_PDEATHSIG a moment after it.
        deadline = time.monotonic() + 5
        while leftovers(self.seed) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert leftovers(self.seed) == []


@pytest.fixture
def server(request):
    made = []

    def start(language, mechanism):
        made.append(Server(language, mechanism, random.randrange(2, 2**63)))
        return made[-1]
    yield start
    for s in made:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def small_record():
    return next(v["value"] for v in VECTORS["structs"]
                if v["kind"] == "small" and v["seed"] == 1 and v["sequence_length"] == 5)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Stubs generated here, from the IDL, with each framework's own compiler."""
    out = tmp_path_factory.mktemp("stock")
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{IDL}", f"--python_out={out}",
                    f"--grpc_python_out={out}", str(IDL / "ipclab_grpc.proto")], check=True)
    subprocess.run(["thrift", "--gen", "py", "-out", str(out), str(IDL / "ipclab_thrift.thrift")],
                   check=True)
    sys.path.insert(0, str(out))
    yield out
    sys.path.remove(str(out))


@pytest.mark.parametrize("language", ["cpp", "java", "python"])
def test_the_grpc_server_answers_a_stock_grpcio_client(language, server, generated):
    import grpc
    pb = importlib.import_module("ipclab_grpc_pb2")
    stubs = importlib.import_module("ipclab_grpc_pb2_grpc")
    s = server(language, "grpc")
    with grpc.insecure_channel(s.endpoint) as channel:
        stub = stubs.BenchStub(channel)
        reply = stub.Call(pb.CallRequest(seq=3, wanted=100, request=REF.payload(s.seed, 1, 3, 50)),
                          timeout=30)
        assert reply.response == REF.payload(s.seed, 2, 3, 100)
        record = small_record()
        assert stub.EchoSmall(pb.Small(**record), timeout=30) == pb.Small(**record)
        assert stub.Finish(pb.FinishRequest(), timeout=30).corrupted == 0
        stub.Call(pb.CallRequest(seq=4, wanted=0, request=b"not the payload"), timeout=30)
        assert stub.Finish(pb.FinishRequest(), timeout=30).corrupted == 1
    s.stop()


@pytest.mark.parametrize("protocol", ["binary", "compact"])
@pytest.mark.parametrize("language", ["cpp", "java", "python"])
def test_the_thrift_server_answers_a_stock_thrift_client(language, protocol, server, generated):
    from thrift.protocol import TBinaryProtocol, TCompactProtocol
    from thrift.transport import TSocket, TTransport
    bench = importlib.import_module("ipclab_thrift.Bench")
    types = importlib.import_module("ipclab_thrift.ttypes")
    s = server(language, f"thrift-{protocol}")
    transport = TTransport.TBufferedTransport(TSocket.TSocket(*s.host_port))
    make = TBinaryProtocol.TBinaryProtocol if protocol == "binary" else TCompactProtocol.TCompactProtocol
    client = bench.Client(make(transport))
    transport.open()
    try:
        assert client.call(3, 100, REF.payload(s.seed, 1, 3, 50)) == REF.payload(s.seed, 2, 3, 100)
        record = small_record()
        assert client.echoSmall(types.Small(**record)) == types.Small(**record)
        assert client.finish() == 0
    finally:
        transport.close()
    s.stop()


@pytest.mark.parametrize("language", ["cpp", "java", "python"])
def test_the_rest_server_answers_curl(language, server, tmp_path):
    s = server(language, "rest")
    request = tmp_path / "request.bin"
    request.write_bytes(REF.payload(s.seed, 1, 3, 50))
    got = subprocess.run(
        ["curl", "-sS", "--fail", "--data-binary", f"@{request}",
         "-H", "Content-Type: application/octet-stream",
         f"http://{s.endpoint}/call/3?wanted=100"], capture_output=True, check=True, timeout=30)
    assert got.stdout == REF.payload(s.seed, 2, 3, 100)
    record = small_record()
    echoed = subprocess.run(
        ["curl", "-sS", "--fail", "-H", "Content-Type: application/json", "-d", json.dumps(record),
         f"http://{s.endpoint}/echo/small"], capture_output=True, check=True, timeout=30)
    assert json.loads(echoed.stdout) == record
    bad = subprocess.run(
        ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H",
         "Content-Type: application/json", "-d", '{"n1": "not an int"}',
         f"http://{s.endpoint}/echo/small"], capture_output=True, text=True, timeout=30)
    assert bad.stdout == "400"
    s.stop()


SOAP_ENVELOPE = ('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">'
                 '<soap:Body>{}</soap:Body></soap:Envelope>')


def soap_post(endpoint, operation, body):
    """curl POSTs a SOAP 1.1 envelope written here by hand, as any SOAP client would send it."""
    got = subprocess.run(
        ["curl", "-sS", "--fail", "-H", "Content-Type: text/xml; charset=utf-8",
         "-H", f'SOAPAction: "urn:ipclab:soap:{operation}"', "--data-binary", "@-",
         f"http://{endpoint}/soap"], input=SOAP_ENVELOPE.format(body).encode(),
        capture_output=True, check=True, timeout=30)
    return ElementTree.fromstring(got.stdout)


@pytest.mark.parametrize("language", ["cpp", "java", "python"])
def test_the_soap_server_answers_curl(language, server):
    s = server(language, "soap")
    ns = "{urn:ipclab:soap}"
    request = base64.b64encode(REF.payload(s.seed, 1, 3, 50)).decode()
    answer = soap_post(s.endpoint, "call", f'<call xmlns="urn:ipclab:soap"><seq>3</seq>'
                                           f'<wanted>100</wanted><request>{request}</request></call>')
    result = answer.find(f".//{ns}callResponse/{ns}result")
    assert base64.b64decode(result.text) == REF.payload(s.seed, 2, 3, 100)
    bad = base64.b64encode(b"x" * 50).decode()
    soap_post(s.endpoint, "call", f'<call xmlns="urn:ipclab:soap"><seq>4</seq><wanted>1</wanted>'
                                  f'<request>{bad}</request></call>')
    finished = soap_post(s.endpoint, "finish", '<finish xmlns="urn:ipclab:soap"/>')
    assert finished.find(f".//{ns}finishResponse/{ns}result").text == "1"  # the corrupted one
    s.stop()


@pytest.mark.parametrize("language", ["cpp", "java", "python"])
def test_the_ice_server_answers_a_stock_ice_client(language, server, tmp_path):
    subprocess.run(["slice2py", f"--output-dir={tmp_path}", str(IDL / "ipclab_ice.ice")], check=True)
    script = f"""
import sys, json
sys.path.insert(0, {str(tmp_path)!r})
import Ice, ipclabice
with Ice.initialize(["--Ice.MessageSizeMax=0"]) as ic:
    host, port = sys.argv[1].rsplit(":", 1)
    bench = ipclabice.BenchPrx.checkedCast(ic.stringToProxy(f"bench:tcp -h {{host}} -p {{port}}"))
    out = bench.call(3, 100, bytes.fromhex(sys.argv[2]))
    rec = json.loads(sys.argv[3])
    small = ipclabice.Small(**rec)
    echoed = bench.echoSmall(small)
    print(json.dumps({{"response": bytes(out).hex(), "echo_ok": echoed == small,
                      "corrupted": bench.finish()}}))
"""
    s = server(language, "ice")
    done = subprocess.run([sys.executable, "-c", script, s.endpoint,
                           REF.payload(s.seed, 1, 3, 50).hex(), json.dumps(small_record())],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got == {"response": REF.payload(s.seed, 2, 3, 100).hex(), "echo_ok": True,
                   "corrupted": 0}
    s.stop()


@pytest.mark.parametrize("language", ["cpp", "java", "python"])
def test_the_corba_server_answers_a_stock_omniorbpy_client(language, server, tmp_path):
    omniidl = shutil.which("omniidl", path=str(Path(sys.executable).parent)) or "omniidl"
    subprocess.run([omniidl, "-bpython", f"-C{tmp_path}", str(IDL / "ipclab_corba.idl")], check=True)
    script = f"""
import sys, json
sys.path.insert(0, {str(tmp_path)!r})
from omniORB import CORBA
import ipclab_corba
orb = CORBA.ORB_init(["-ORBgiopMaxMsgSize", "268435456"], CORBA.ORB_ID)
bench = orb.string_to_object(sys.argv[1])._narrow(ipclab_corba.Bench)
out = bench.call(3, 100, bytes.fromhex(sys.argv[2]))
rec = json.loads(sys.argv[3])
small = ipclab_corba.Small(**rec)
echoed = bench.echoSmall(small)
same = all(getattr(echoed, k) == v for k, v in rec.items())
print(json.dumps({{"response": bytes(out).hex(), "echo_ok": same, "corrupted": bench.finish()}}))
orb.destroy()
"""
    s = server(language, "corba")
    # The cmeel wheel's _omnipy finds its libomniORB4 only through the loader's search path.
    cmeel = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "lib"
    env = {**os.environ, "LD_LIBRARY_PATH": str(cmeel)}
    done = subprocess.run([sys.executable, "-c", script, s.endpoint,
                           REF.payload(s.seed, 1, 3, 50).hex(), json.dumps(small_record())],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got == {"response": REF.payload(s.seed, 2, 3, 100).hex(), "echo_ok": True,
                   "corrupted": 0}
    s.stop()
