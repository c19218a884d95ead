"""End to end for ZeroMQ (PROTOCOL.md 4.8) through the CLI, what is ZeroMQ's own (what it shares
with NNG, every pair of C++, Java and Python round tripping and streaming and a corrupted response
failing its case, is in test_e2e_nng_and_zmq.py): the patterns ZeroMQ does not carry said per
case, and nothing for `ipclab leaks` after."""
import pytest

from test_e2e import ipclab

pytestmark = pytest.mark.e2e
MECHANISMS = ("zmq-tcp", "zmq-ipc")


def test_short_is_not_applicable(tmp_path):
    out = tmp_path / "run"
    done = ipclab("run", "--mechanism", "zmq-tcp,zmq-ipc", "--client", "cpp,java",
                  "--server", "cpp", "--pattern", "short", "--iterations", "5", "--rounds", "1",
                  "--out", str(out))
    assert done.returncode == 0, done.stderr
    text = (out / "cases.csv").read_text()
    for client in ("C++", "Java"):
        for mechanism in MECHANISMS:
            assert (f"the {client} peer drives {mechanism} with rr, stream only, not short"
                    in text), text
    assert ipclab("leaks").returncode == 0
