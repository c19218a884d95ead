"""End to end for NNG (PROTOCOL.md 4.9) through the CLI, what is NNG's own (what it shares with
ZeroMQ, every pair round tripping and streaming and a corrupted response failing its case, is in
test_e2e_message_libraries.py): what NNG does not carry (short; the Java peer, with its reason) said
per case, and nothing for `ipclab leaks` after."""
import pytest

from test_e2e import ipclab
from test_e2e_message_libraries import cases_of_a_short_run

pytestmark = pytest.mark.e2e
MECHANISMS = ("nng-tcp", "nng-ipc")


def test_short_and_java_are_not_applicable_with_their_reasons(tmp_path):
    text = cases_of_a_short_run(tmp_path, MECHANISMS)
    assert "drives nng-tcp with rr, stream only, not short" in text
    assert "drives nng-ipc with rr, stream only, not short" in text
    for mechanism in MECHANISMS:
        assert f"the Java peer has no {mechanism} drive role: no Java binding of NNG" in text
    assert ipclab("leaks").returncode == 0
