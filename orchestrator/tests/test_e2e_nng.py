"""End to end for NNG (PROTOCOL.md 4.9) through the CLI, what is NNG's own (what it shares with
ZeroMQ, every pair of C++, Java and Python round tripping and streaming and a corrupted response
failing its case, is in test_e2e_message_libraries.py): the pattern NNG does not carry (short)
said per case, and nothing for `ipclab leaks` after."""
import pytest

from test_e2e import ipclab
from test_e2e_message_libraries import cases_of_a_short_run

pytestmark = pytest.mark.e2e
MECHANISMS = ("nng-tcp", "nng-ipc")


def test_short_is_not_applicable(tmp_path):
    text = cases_of_a_short_run(tmp_path, MECHANISMS)
    for client in ("C++", "Java"):
        for mechanism in MECHANISMS:
            assert (f"the {client} peer drives {mechanism} with rr, stream only, not short"
                    in text), text
    assert ipclab("leaks").returncode == 0
