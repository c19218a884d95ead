"""What the tests of the message channels (sysv-mq, posix-mq, sysv-shm) and the file mechanisms
(file, file-poll) share (test_ipc_mechanisms.py, test_message_channels.py,
test_file_mechanisms.py): their names, a server of each, and the kernel objects they make.

Every kernel object a test creates (through a server or by hand) is recorded, and removed after
the test if it is still there, so a failing test leaves nothing behind; a test module that makes
objects imports the autouse fixture no_leftover_objects for that. Only objects named by our own
servers' READY lines are touched: other programs may use the ipclab tag meanwhile.
"""
import glob
import os
import subprocess
from pathlib import Path

import posix_ipc
import pytest
from peers import Server, malformed_vectors

from ipclab_peer.transport import channels

MiB = 1 << 20
MESSAGE_CHANNELS = ["sysv-mq", "posix-mq", "sysv-shm"]
FILES = ["file", "file-poll"]
MECHANISMS = MESSAGE_CHANNELS + FILES
REJECTED = "ipclab-peer: rejected frame: "
MALFORMED = malformed_vectors()

_endpoints = []  # READY endpoints (and hand-made ones) to remove after each test


def remember(endpoint):
    _endpoints.append(endpoint)
    return endpoint


def sysv_objects(key):
    """(kind, id) of every System V object with this key, from /proc/sysvipc."""
    found = []
    for kind in ("msg", "shm", "sem"):
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        for line in lines[1:]:
            fields = line.split()
            if int(fields[0]) & 0xFFFFFFFF == key:
                found.append((kind, int(fields[1])))
    return found


def objects_left(endpoint):
    """What is still there of the objects an endpoint names."""
    if endpoint.startswith("sysv:"):
        return sysv_objects(int(endpoint[len("sysv:"):], 16))
    prefix = endpoint[len("posix:"):]
    left = glob.glob(f"/dev/shm/{prefix[1:]}*")
    for direction in (1, 2):
        try:
            posix_ipc.MessageQueue(f"{prefix}-{direction}").close()
        except posix_ipc.ExistentialError:
            continue
        left.append(f"{prefix}-{direction}")
    return left


def remove_objects(endpoint):
    if endpoint.startswith("sysv:"):
        for kind, ident in sysv_objects(int(endpoint[len("sysv:"):], 16)):
            subprocess.run(["ipcrm", {"msg": "-q", "shm": "-m", "sem": "-s"}[kind], str(ident)],
                           capture_output=True)
        return
    prefix = endpoint[len("posix:"):]
    for direction in (1, 2):
        try:
            posix_ipc.unlink_message_queue(f"{prefix}-{direction}")
        except posix_ipc.ExistentialError:
            pass


@pytest.fixture(autouse=True)
def no_leftover_objects():
    yield
    while _endpoints:
        remove_objects(_endpoints.pop())


def start_server(mechanism, directory, *extra, track=True):
    if mechanism in FILES:
        endpoint = os.path.join(directory, mechanism)
        os.mkdir(endpoint, 0o700)
    else:
        endpoint = "auto"
    server = Server(mechanism, endpoint, *extra)
    if mechanism in MESSAGE_CHANNELS and track:
        remember(server.endpoint)
    return server


@pytest.fixture
def silent_objects():
    """Kernel objects made by the test itself, as a server would, but nobody answers."""
    made = []

    def make(mechanism):
        if mechanism == "posix-mq":
            prefix = f"/ipclab-{os.getpid()}"
            remember(f"posix:{prefix}")
            channels.create_posix_queues(prefix, made.append)
            return f"posix:{prefix}"
        if mechanism == "sysv-shm":
            key, memory, _ = channels.create_shm(made.append)
            remember(channels.format_sysv(key))
            memory.detach()
            return channels.format_sysv(key)
        key, _ = channels.create_sysv_queue(made.append)
        return remember(channels.format_sysv(key))
    yield make
    for remove in made:
        try:
            remove()
        except Exception:  # noqa: BLE001 - already removed by the test
            pass
