"""Secure by default, checked on real servers: every language's server, over every mechanism it
serves, listens on loopback only (when given 127.0.0.1:0, as the orchestrator gives it) and makes
its files and kernel objects owner-only (0600 files, FIFOs, sockets and IPC objects; the case's
directory 0700), while it runs. The leak audit (execute/leaks.py) checks what is left after."""
import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from ipclab.execute import endpoints
from ipclab.execute.peers import Peer
from ipclab.execute.probe import load_catalog

pytestmark = pytest.mark.e2e
CATALOG = load_catalog()
# A broker's or Redis responder listens nowhere and makes nothing: the server it connects to is
# the orchestrator's, started on 127.0.0.1 in a 0700 directory (test_broker.py,
# test_redis_server.py).
SERVED = [(lang, mech) for lang, l in CATALOG.languages.items()
          for mech in l.mechanisms if l.supports(mech, "serve")
          and not CATALOG.mechanism(mech).inprocess
          and not CATALOG.mechanism(mech).endpoint.startswith(("broker", "redis"))]
LOOPBACK = {"0100007F", "00000000000000000000000001000000",  # 127.0.0.1, ::1 in /proc/net
            "0000000000000000FFFF00000100007F"}                        # and ::ffff:127.0.0.1
SYSV_TABLES = ("/proc/sysvipc/msg", "/proc/sysvipc/shm", "/proc/sysvipc/sem")


def listening(pid):
    """The local addresses (hex, as /proc/net shows them) of every TCP socket the process `pid`
    listens on and every UDP socket it has bound: found by its descriptors' socket inodes, so
    a framework's extra listeners (a registry, a second adapter) count too."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table, state in (("tcp", "0A"), ("tcp6", "0A"), ("udp", "07"), ("udp6", "07")):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[9] in inodes and fields[3] == state:
                found.append(fields[1].rsplit(":", 1)[0])
    return found


def group_or_other(mode):
    return stat.S_IMODE(mode) & 0o077


def sysv_modes(keys):
    """{key: permission bits} of the System V objects with these keys (any of the three kinds)."""
    out = {}
    for table in SYSV_TABLES:
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[0]) in keys:
                out[f"{table}:{int(fields[0]):#x}"] = int(fields[2], 8)
    return out


def objects_of(ready, pid):
    """{name: mode} of what an `auto` (or iceoryx2's `library-dir`) server made: System V
    objects with the ipclab tag, POSIX queues and shared memory named for its pid."""
    keys = {int(word, 16) for word in str(ready["endpoint"]).replace(":", " ").replace(",", " ").split()
            if word.lower().startswith("0x1c1a")}
    out = sysv_modes(keys)
    for folder in ("/dev/mqueue", "/dev/shm"):
        for entry in Path(folder).glob(f"ipclab-{pid}*"):
            out[str(entry)] = entry.stat().st_mode
    return out


@pytest.fixture
def case_dir():
    """A private directory as short as the runner's (a Unix socket's path is at most 107
    bytes, and pytest's own tmp_path under `make test`'s TMPDIR is longer than that)."""
    path = Path(tempfile.mkdtemp(prefix="perm-"))   # 0700, in TMPDIR
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("lang,mech", SERVED, ids=[f"{lang}-{mech}" for lang, mech in SERVED])
def test_a_server_listens_on_loopback_and_makes_only_owner_only_things(lang, mech, case_dir):
    mechanism = CATALOG.mechanism(mech)
    endpoint = endpoints.prepare(mechanism, case_dir)
    argv = [*CATALOG.languages[lang].argv(CATALOG.root), "serve", "--mechanism", mech,
            "--endpoint", endpoint.server_arg, "--seed", "1"]
    peer = Peer("server", argv, case_dir, endpoint.server_fds).start()
    endpoint.release(endpoint.server_fds)
    try:
        ready = peer.wait_ready(60)
        if mechanism.endpoint == "inet":
            addresses = listening(peer.pid)
            assert addresses and set(addresses) <= LOOPBACK, addresses
        made = {str(p): p.lstat().st_mode for p in case_dir.rglob("*")
                if not p.name.startswith("server.")}   # the orchestrator's own log files
        if endpoint.scratch is not None:  # a library's directory beside the case's (iceoryx2)
            made.update({str(p): p.lstat().st_mode for p in endpoint.scratch.rglob("*")})
            assert group_or_other(os.stat(endpoint.scratch).st_mode) == 0
        if mechanism.endpoint in ("auto", "library-dir"):
            made.update(objects_of(ready, ready.get("pid", peer.pid)))
            assert made, f"no kernel object found for READY {ready['endpoint']}"
        loose = {name: oct(stat.S_IMODE(mode)) for name, mode in made.items()
                 if group_or_other(mode)}
        assert loose == {}, loose
        assert group_or_other(os.stat(case_dir).st_mode) == 0
    finally:
        peer.stop()
        endpoint.close()
