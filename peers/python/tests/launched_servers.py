"""What the suites of the servers ipclab starts per round (Redis, PROTOCOL.md 4.10; NATS, 4.11)
share: the orchestrator's own class of the server (ipclab.execute.<kind>_server), the file's
servers started once as a round starts one, and a responder whose server is lost."""
import importlib
import shutil
import tempfile

import pytest
from peers import Server


def server_class(kind):
    """ipclab.execute's class of the `kind` server ("redis": RedisServer, "nats": NatsServer),
    or None where the orchestrator cannot be imported or the server is not installed."""
    try:
        module = importlib.import_module(f"ipclab.execute.{kind}_server")
    except ImportError:
        return None
    if getattr(module, f"{kind}_binary")() is None:
        return None
    return getattr(module, f"{kind.capitalize()}Server")


def started_for_the_file(kind, *servers):
    """A module fixture's body: {key: server} of the `kind` servers, one per (key, its
    arguments between the parent directory and the name), started, stopped after the file and
    their directory removed. Skips where the server or the orchestrator is missing."""
    made = server_class(kind)
    if made is None:
        pytest.skip(f"no {kind}-server (make setup installs Debian's) or no orchestrator")
    parent = tempfile.mkdtemp(prefix="ipclabpy-")
    started = {}
    try:
        for key, *args in servers:
            started[key] = made(f"{parent}/{key}", parent, *args, "x")
            started[key].start()
        yield started
    finally:
        for server in started.values():
            server.stop()
        shutil.rmtree(parent, ignore_errors=True)


def check_a_lost_server_ends_the_responder(kind, mechanism, named, tmp_path, *args):
    """A responder of `mechanism` whose `kind` server (made with args) stops exits with the io
    error's code, its error naming the server (`named`: "Redis"; which error it is depends on
    where the responder was when the server went: a read's "closed the connection", or a write's
    or a slow start's reset or refused connection); one started with no server there gets no
    READY (its stdin held, as the orchestrator holds it: at end of stdin a server exits 0 at
    once, which could come first)."""
    made = server_class(kind)
    if made is None:
        pytest.skip(f"no {kind}-server")
    own = made(tmp_path / "s", tmp_path, *args, "x")
    url = own.start()
    try:
        responder = Server(mechanism, url)
    finally:
        own.stop()
    assert responder.proc.wait(10) == 5
    assert any(named in line for line in responder.drain_stderr())
    responder.stop()
    with pytest.raises(AssertionError, match=r"no READY \(exit 5\)"):
        Server(mechanism, url)
