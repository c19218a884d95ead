"""Contract version 2: peers describe themselves, and a peer that disagrees with its peer.toml, or
speaks another contract version, is refused with one line naming the peer, the field and both
values (PROTOCOL.md sections 1, 5 and 12)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ipclab.plan import capabilities
from ipclab.plan.capabilities import CONTRACT
from ipclab.plan import matrix
from ipclab.execute import probe
from ipclab.execute.probe import load_catalog
from ipclab.plan.catalog import Language, repo_root
from ipclab.common.errors import UserError
from ipclab.execute.runner import Outcome, Runner
from ipclab.plan.scenario import build_scenario
from ipclab.execute.workspace import Workspace

FAKE = str(Path(__file__).with_name("fake_peer.py"))
ROOT = repo_root()


def answer(**mechanisms):
    return {"contract": CONTRACT, "language": "fake", "runtime": "fake 1",
            "mechanisms": {m: {"roles": r, "patterns": ["rr"], "max_payload": 134217728}
                           for m, r in mechanisms.items()}}


def fake_language(**claims):
    return Language(name="fake", display="Fake", command=[sys.executable, FAKE],
                    mechanisms=claims, toml_path=Path("peers/fake/peer.toml"))


def test_an_agreeing_answer_passes(catalog):
    capabilities.compare(fake_language(tcp=["serve", "drive"]),
                         answer(tcp=["drive", "serve"]), catalog.mechanisms)


@pytest.mark.parametrize("claims,got,expected", [
    ({"tcp": ["serve", "drive"], "rmi": ["serve", "drive"]}, {"tcp": ["serve", "drive"]},
     "peers/fake/peer.toml: [mechanisms] rmi: peer.toml claims it, the Fake peer does not "
     "implement it"),
    ({"tcp": ["serve", "drive"]}, {"tcp": ["serve", "drive"], "udp": ["serve", "drive"]},
     "peers/fake/peer.toml: [mechanisms]: the Fake peer implements udp, peer.toml does not list it"),
    ({"tcp": ["serve", "drive"]}, {"tcp": ["drive"]},
     "peers/fake/peer.toml: [mechanisms] tcp roles: peer.toml says ['drive', 'serve'], the peer "
     "answers ['drive']"),
])
def test_a_disagreement_names_peer_field_and_both_values(catalog, claims, got, expected):
    with pytest.raises(UserError) as e:
        capabilities.compare(fake_language(**claims), answer(**got), catalog.mechanisms)
    assert str(e.value).startswith(expected)


def test_a_mechanism_whose_library_the_build_lacked_costs_only_itself(catalog):
    # peer.toml's `needs`: a peer built without libnng answers without nng-tcp; the peer is
    # kept, the mechanism is unsupported and says which library is missing.
    lang = fake_language(tcp=["serve", "drive"], **{"nng-tcp": ["serve", "drive"]})
    lang.needs = {"nng-tcp": "libnng (Debian libnng-dev)"}
    got = answer(tcp=["serve", "drive"])
    capabilities.compare(lang, got, catalog.mechanisms)
    capabilities.apply(lang, got, catalog.mechanisms)
    assert set(lang.mechanisms) == {"tcp"}
    assert lang.unsupported == {"nng-tcp": "the Fake peer was built without libnng (Debian "
                                            "libnng-dev)"}
    plain = fake_language(tcp=["serve", "drive"], **{"nng-tcp": ["serve", "drive"]})
    with pytest.raises(UserError, match=r"\[mechanisms\] nng-tcp: peer.toml claims it"):
        capabilities.compare(plain, got, catalog.mechanisms)  # no `needs`: a stale build


def test_another_contract_version_is_refused(catalog):
    stale = {**answer(tcp=["serve", "drive"]), "contract": 1}
    with pytest.raises(UserError, match=rf"contract: ipclab speaks contract {CONTRACT}, the Fake peer "
                                        r"answers 1: rebuild it"):
        capabilities.compare(fake_language(tcp=["serve", "drive"]), stale, catalog.mechanisms)


def test_a_wrong_limit_is_refused_and_a_kernel_limit_is_taken_from_the_peer(catalog):
    small = answer(udp=["serve", "drive"])
    with pytest.raises(UserError, match=r"\[max_payload\] udp: .* give 65483 B, the Fake peer "
                                        r"answers 134217728 B"):
        capabilities.compare(fake_language(udp=["serve", "drive"]), small, catalog.mechanisms)
    lang = fake_language(**{"uds-dgram": ["serve", "drive"]})
    got = answer(**{"uds-dgram": ["serve", "drive"]})
    got["mechanisms"]["uds-dgram"]["max_payload"] = 425928
    capabilities.compare(lang, got, catalog.mechanisms)
    capabilities.apply(lang, got, catalog.mechanisms)
    assert lang.size_limit("uds-dgram", 425928, 16) is None
    assert "over the Fake peer's uds-dgram limit of 425928 B" in lang.size_limit("uds-dgram",
                                                                                 425929, 16)


def copy_of_checkout(tmp_path, peer_toml):
    """A checkout with the real protocol/ and one peers/fake/peer.toml."""
    shutil.copytree(ROOT / "protocol", tmp_path / "protocol")
    (tmp_path / "peers" / "fake").mkdir(parents=True)
    (tmp_path / "peers" / "fake" / "peer.toml").write_text(peer_toml)
    return tmp_path


FAKE_TOML = f"""language = "fake"
display = "Fake"
command = [{json.dumps(sys.executable)}, {json.dumps(FAKE)}]
[mechanisms]
tcp = ["serve", "drive"]
uds = ["serve", "drive"]
"""


@pytest.mark.parametrize("command", [["list"], ["run", "--mechanism", "tcp", "--iterations", "5"]])
@pytest.mark.parametrize("env,expected", [
    ({"FAKE_CLAIMS": '{"tcp": ["serve", "drive"]}'},
     "[mechanisms] uds: peer.toml claims it, the Fake peer does not implement it"),
    ({"FAKE_CAPABILITIES": "stale"},
     "the Fake peer answered `capabilities` with exit 2 (ipclab-peer: usage: unknown subcommand "
     f"'capabilities'): it predates contract {CONTRACT}"),
    ({"FAKE_CLAIMS": '{"tcp": ["serve", "drive"], "uds": ["serve", "drive"]}',
      "FAKE_CONTRACT": "3"}, f"contract: ipclab speaks contract {CONTRACT}, the Fake peer answers 3"),
])
def test_list_and_run_refuse_a_peer_that_disagrees(tmp_path, monkeypatch, command, env, expected):
    root = copy_of_checkout(tmp_path, FAKE_TOML)
    out = subprocess.run([sys.executable, "-m", "ipclab", *command], capture_output=True,
                         text=True, timeout=120, cwd=root,
                         env={**__import__("os").environ, "IPCLAB_ROOT": str(root), **env})
    assert out.returncode == 2, out.stdout + out.stderr
    line = out.stderr.strip()
    assert line.splitlines() == [line]
    assert line == f"ipclab: error: {root}/peers/fake/peer.toml: {expected}" or \
        (line.startswith(f"ipclab: error: {root}/peers/fake/peer.toml: ") and expected in line), line
    assert not (root / "results").exists()


def test_the_answer_is_cached_per_build(tmp_path, monkeypatch):
    root = copy_of_checkout(tmp_path, FAKE_TOML)
    monkeypatch.setenv("FAKE_CLAIMS", '{"tcp": ["serve", "drive"], "uds": ["serve", "drive"]}')
    load_catalog(root, check=True)
    cached = json.loads((root / ".build" / "capabilities" / "fake.json").read_text())
    assert set(cached["answer"]["mechanisms"]) == {"tcp", "uds"}
    monkeypatch.setenv("FAKE_CAPABILITIES", "stale")   # not asked again: same build
    load_catalog(root, check=True)


@pytest.mark.parametrize("peer_dir", ["native", "java", "python"])
def test_every_real_peer_answers_and_agrees(peer_dir):
    catalog = load_catalog(check=False)
    (lang,) = [l for l in catalog.languages.values() if l.toml_path.parent.name == peer_dir]
    if lang.unavailable:
        pytest.skip(lang.unavailable)
    got = probe.ask(lang)
    capabilities.compare(lang, got, catalog.mechanisms)
    assert got["contract"] == CONTRACT and got["language"] == lang.name and got["runtime"]


def test_a_real_peer_toml_that_claims_too_much_is_refused(tmp_path):
    """A copy of the Python peer's peer.toml that claims rmi (Java only) makes `ipclab list`
    fail with one line naming the file and rmi."""
    real = (ROOT / "peers" / "python" / "peer.toml").read_text()
    shutil.copytree(ROOT / "protocol", tmp_path / "protocol")
    (tmp_path / "peers" / "python").mkdir(parents=True)
    (tmp_path / "peers" / "python" / "peer.toml").write_text(
        real.replace("[mechanisms]\n", '[mechanisms]\nrmi = ["serve", "drive"]\n'))
    out = subprocess.run([sys.executable, "-m", "ipclab", "list"], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path,
                         env={**__import__("os").environ, "IPCLAB_ROOT": str(tmp_path)})
    assert out.returncode == 2
    assert out.stderr.strip() == (f"ipclab: error: {tmp_path}/peers/python/peer.toml: "
                                  f"[mechanisms] rmi: peer.toml claims it, the Python peer does "
                                  f"not implement it (its capabilities list "
                                  f"{len(load_catalog(check=False).languages['python'].mechanisms)}"
                                  f" mechanisms, not rmi)")


def test_a_server_speaking_another_contract_fails_its_case(catalog, monkeypatch):
    catalog.languages["fake"] = fake_language(tcp=["drive", "serve"])
    monkeypatch.setenv("FAKE_SERVER", "stale")
    raw = {"matrix": {"mechanism": ["tcp"], "client": ["fake"], "server": ["fake"],
                      "placement": ["unpinned"]},
           "run": {"iterations": 5, "warmup": 0, "ready_timeout": 5, "case_timeout": 10}}
    try:
        scenario = build_scenario(raw, "t.toml", catalog, {}, "t")
        (case,) = matrix.expand(scenario, catalog)
        with Workspace() as ws:
            outcome = Runner(scenario, catalog, ws).run(case)
    finally:
        del catalog.languages["fake"]
    assert outcome.status == "failed"
    assert f"server speaks contract 1, ipclab speaks {CONTRACT}" in outcome.reason


def test_list_names_the_codec_a_peer_answers_for_a_mechanism(catalog):
    """A framework with two codecs (Python Thrift: C or pure Python) is listed with the one the
    built peer uses, from its capabilities, not from peer.toml; a mechanism without one shows none."""
    from ipclab.output.listing import _cell
    lang = fake_language(**{"thrift-compact": ["serve", "drive"], "tcp": ["serve", "drive"]})
    got = answer(**{"thrift-compact": ["serve", "drive"], "tcp": ["serve", "drive"]})
    got["mechanisms"]["thrift-compact"]["codec"] = "C (fastbinary)"
    capabilities.apply(lang, got, catalog.mechanisms)
    assert lang.codecs == {"thrift-compact": "C (fastbinary)"}
    assert "codec C (fastbinary)" in _cell(lang, "thrift-compact")
    assert "codec" not in _cell(lang, "tcp")


def test_the_library_a_peer_answers_is_listed_and_recorded_per_case(catalog, tmp_path):
    """A messaging library's version (`library`) shows in `ipclab list` and goes into each case's
    record for the side that ran it; a mechanism without one records none."""
    from ipclab.execute.rundir import add_round, new_record
    from ipclab.output.listing import _cell
    lang = fake_language(**{"zmq-tcp": ["serve", "drive"], "tcp": ["serve", "drive"]})
    got = answer(**{"zmq-tcp": ["serve", "drive"], "tcp": ["serve", "drive"]})
    got["mechanisms"]["zmq-tcp"]["library"] = "libzmq 4.3.4"
    capabilities.apply(lang, got, catalog.mechanisms)
    assert lang.libraries == {"zmq-tcp": "libzmq 4.3.4"}
    assert "libzmq 4.3.4" in _cell(lang, "zmq-tcp") and "libzmq" not in _cell(lang, "tcp")
    catalog.languages["fake"] = lang
    try:
        for mechanism, expected in (("zmq-tcp", "libzmq 4.3.4"), ("tcp", None)):
            case = next(c for c in matrix.expand(build_scenario(
                {"matrix": {"mechanism": [mechanism], "client": ["fake"], "server": ["fake"],
                            "placement": ["unpinned"]}}, "t", catalog, {}, "t"), catalog))
            with Workspace() as ws:
                libraries = Runner(build_scenario({}, "t", catalog, {}, "t"), catalog,
                                   ws)._libraries(case)
            outcome = Outcome(case, "ok", libraries=libraries, samples=np.zeros(1))
            record = add_round(new_record(case), outcome)
            assert (record["client_library"], record["server_library"]) == (expected, expected)
    finally:
        del catalog.languages["fake"]


def test_an_unsupported_mechanism_says_why_in_list_and_in_its_cases(catalog, tmp_path):
    """peer.toml's [unsupported] names why a peer lacks a mechanism: `ipclab list`'s cell and the
    not-applicable reason of a case that needs it say it; one it also claims is refused."""
    from ipclab.output.listing import _cell
    from ipclab.plan.catalog import _load_language
    toml = tmp_path / "peer.toml"
    base = 'language = "fake"\ndisplay = "Fake"\ncommand = ["x"]\n[mechanisms]\ntcp = ["serve", "drive"]\n'
    toml.write_text(base + '[unsupported]\nuds = "no sockets here"\n')
    lang = _load_language(toml, catalog.mechanisms, tmp_path)
    assert lang.unsupported == {"uds": "no sockets here"}
    assert "unsupported: no sockets here" in _cell(lang, "uds")
    assert _cell(fake_language(tcp=["serve", "drive"]), "uds") == "[dim]unsupported[/]"
    catalog.languages["fake"] = lang
    try:
        raw = {"matrix": {"mechanism": ["uds"], "client": ["fake"], "server": ["fake"],
                          "placement": ["unpinned"]}, "run": {"iterations": 5}}
        (case,) = matrix.expand(build_scenario(raw, "t.toml", catalog, {}, "t"), catalog)
    finally:
        del catalog.languages["fake"]
    assert case.skip_status == "not-applicable"
    assert case.skip_reason == "the Fake peer has no uds drive role: no sockets here"
    for wrong in ('tcp = "claimed above"', 'nosuch = "x"', 'uds = ""'):
        toml.write_text(base + "[unsupported]\n" + wrong + "\n")
        with pytest.raises(UserError, match=r"\[unsupported\]"):
            _load_language(toml, catalog.mechanisms, tmp_path)
