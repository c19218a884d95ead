"""End to end for the settings of contracts 3 and 4 (plan/settings.py, PROTOCOL.md 1, 10.1, 11.2), as a
user runs them through the CLI: void operations in every framework of every language, one-way
short connections counted by the server, Nagle left on, JSON REST bodies, a CORBA string
payload, a file-poll interval. Few iterations, one round: the suite's time matters."""
import pytest

from test_e2e import LANGS, ROTATION, cases_csv, ipclab, seed  # noqa: F401 (seed: a fixture)

pytestmark = pytest.mark.e2e
RPC = "rest,grpc,thrift-binary,thrift-compact,ice,corba,soap"


def run(tmp_path, seed, *args):
    out = tmp_path / "run"
    done = ipclab("run", "--iterations", "30", "--warmup", "5", "--seed", str(seed),
                  "--out", str(out), *args)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return cases_csv(out), done.stdout


def not_ok(rows):
    return [(r["id"], r["status"], r["reason"]) for r in rows
            if r["status"] not in ("ok", "not-applicable")]


# Both kinds of put (bytes and a record) around the rotation but java -> python, the slowest
# pair (a JVM client a case), puts records only: its client's byte puts go to C++ above and its
# server's come from C++, and each peer's own suite puts both kinds in every framework.
VOID_PAYLOADS = {("java", "python"): "small"}


@pytest.mark.parametrize("client, server", ROTATION)
def test_void_operations_in_every_framework(tmp_path, seed, client, server):
    payloads = VOID_PAYLOADS.get((client, server), "bytes,small")
    rows, out = run(tmp_path, seed, "--mechanism", f"{RPC},rmi", "--client", client,
                    "--server", server, "--response-size", "void", "--payload", payloads)
    assert not_ok(rows) == []
    ran = [r for r in rows if r["status"] == "ok"]
    assert len(ran) >= 6 * len(payloads.split(",")) and all(r["reply"] == "void" for r in ran)
    assert {r["payload"] for r in ran} == set(payloads.split(","))
    assert all(r["response_size"] == "0" for r in ran if r["payload"] == "bytes")
    assert ("16 B/void" in out) == ("bytes" in payloads)


@pytest.mark.parametrize("lang", LANGS)
def test_one_way_short_connections_every_one_counted(tmp_path, seed, lang):
    rows, _ = run(tmp_path, seed, "--pattern", "short", "--mechanism", "tcp,sysv-mq",
                  "--client", lang, "--server", lang, "--request-size", "1KiB",
                  "--response-size", "0", "--reply", "one-way,echo", "--iterations", "200")
    assert not_ok(rows) == []
    assert sorted((r["mechanism"], r["reply"]) for r in rows) == [
        ("sysv-mq", "echo"), ("sysv-mq", "one-way"), ("tcp", "echo"), ("tcp", "one-way")]
    assert all(int(r["raw_count"]) == 200 for r in rows)  # the server counted every one (else the
    # client fails the case: PROTOCOL.md 11.2)


@pytest.mark.parametrize("client, server", ROTATION)
def test_the_mechanism_options(tmp_path, seed, client, server):
    rows, _ = run(tmp_path, seed, "--mechanism", "tcp,rest,corba,file-poll", "--client", client,
                  "--server", server, "--nodelay", "off", "--rest-body", "octet,json",
                  "--corba-payload", "octets,string", "--poll-interval-us", "500")
    assert not_ok(rows) == []
    ok = {(r["mechanism"], r.get("nodelay"), r.get("rest_body"), r.get("corba_payload"),
           r.get("poll_interval_us")) for r in rows if r["status"] == "ok"}
    assert ("tcp", "off", "", "", "") in ok and ("file-poll", "", "", "", "500") in ok
    assert ("corba", "", "", "string", "") in ok
    assert {("rest", "off", b, "", "") for b in ("octet", "json")} <= ok  # Nagle on is the
    # default every other test runs


def test_a_study_run_judges_its_claims_and_report_judges_them_again(tmp_path, seed):
    # The Java IPC paper's scenario at its smallest size over three of its mechanisms: its claims
    # about 40 B are judged; those about 4000 B and 40000 B, and figure 1's about the Long alone
    # (8 B), are set aside with a note.
    import json
    import re
    out = tmp_path / "run"
    done = ipclab("run", "scenarios/linux-ipc-java.toml", "--mechanism", "tcp,fifo,sysv-mq",
                  "--java-binding", "jni", "--request-size", "40", "--response-size", "40",
                  "--iterations", "50", "--warmup", "10", "--rounds", "2", "--seed", str(seed),
                  "--out", str(out))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    line = re.compile(r"replication: (\d) of 4 claims hold, (\d) fail, (\d) cannot tell"
                      r"( \(beyond the study: \d+ rows?, \d+ with another verdict\))?; "
                      r"see table\.md")
    found = line.search(done.stdout.replace("\n", " "))
    assert found and sum(map(int, found.groups()[:3])) == 4, done.stdout[-2000:]
    assert "6 claim(s) of the scenario set aside" in done.stdout.replace("\n", " ")
    claims = json.loads((out / "run.json").read_text())["claims"]
    assert [c["text"] for c in claims][0] == "for minimal data every IPC mechanism beats the socket"
    assert all(c["verdict"] in ("holds", "fails", "cannot tell") and c["pairs"] for c in claims)
    assert "## claims of the study" in (out / "table.md").read_text()
    again = ipclab("report", str(out))
    assert again.returncode == 0 and found.group(0) in again.stdout.replace("\n", " ")
