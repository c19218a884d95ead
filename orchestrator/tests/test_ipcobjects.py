"""The safety net for kernel objects: removal by READY name, the start-up sweep, the run lock."""
import ctypes
import os
import random

import pytest

from ipclab.execute import ipcobjects
from ipclab.common.errors import UserError
from ipclab.execute.workspace import Workspace

libc = ctypes.CDLL(None, use_errno=True)
IPC_CREAT, IPC_EXCL, IPC_RMID = 0o1000, 0o2000, 0


def tagged_queue():
    for _ in range(100):
        key = ipcobjects.SYSV_TAG | random.randrange(1, 1 << 16)
        qid = libc.msgget(ctypes.c_int(key - (1 << 32) if key >= 1 << 31 else key),
                          IPC_CREAT | IPC_EXCL | 0o600)
        if qid >= 0:
            return key, qid
    raise AssertionError("no free tagged key")


def queue_exists(qid):
    return any(kind == "msg" and ident == qid for kind, ident, _ in ipcobjects.sysv_objects())


def test_remove_named_removes_the_queue_a_ready_line_named():
    key, qid = tagged_queue()
    try:
        assert queue_exists(qid)
        assert ipcobjects.remove_named(f"sysv:0x{key:08x}") == 1
        assert not queue_exists(qid)
    finally:
        libc.msgctl(qid, IPC_RMID, None)


def test_remove_named_removes_both_queues_a_load_servers_ready_line_named():
    (k1, q1), (k2, q2) = tagged_queue(), tagged_queue()
    try:
        assert ipcobjects.remove_named(f"sysv:0x{k1:08x},0x{k2:08x}") == 2
        assert not queue_exists(q1) and not queue_exists(q2)
    finally:
        libc.msgctl(q1, IPC_RMID, None)
        libc.msgctl(q2, IPC_RMID, None)


def test_remove_named_unlinks_a_load_clients_posix_reply_queues():
    prefix = f"/ipclab-{2 ** 22 + random.randrange(1000)}"  # over pid_max: no live server's
    librt = ipcobjects._librt()
    librt.mq_open.restype = ctypes.c_int
    made = [f"{prefix}-1", f"{prefix}-r0", f"{prefix}-r1023"]
    for name in made:
        fd = librt.mq_open(name.encode(), os.O_CREAT | os.O_EXCL | os.O_RDONLY, 0o600, None)
        assert fd >= 0, os.strerror(ctypes.get_errno())
        os.close(fd)
    try:
        assert ipcobjects.remove_named(f"posix:{prefix}") == 3
    finally:
        for name in made:
            librt.mq_unlink(name.encode())


def test_remove_named_removes_an_iceoryx2_servers_shared_memory(tmp_path):
    # iceoryx2's READY names its prefix and its root directory (PROTOCOL.md 4.12); what its
    # prefix names in /dev/shm goes, the directory is the case's to remove.
    prefix = f"ipclab-{2 ** 22 + random.randrange(1000)}"  # over pid_max: no live server's
    made = [f"/dev/shm/{prefix}-0123_node.0_10_0.global_mgmt", f"/dev/shm/{prefix}-ab_1.data"]
    for path in made:
        with open(path, "x"):
            pass
    try:
        assert ipcobjects.remove_named(f"posix:/{prefix},{tmp_path}") == 2
        assert not any(os.path.exists(path) for path in made)
        assert tmp_path.is_dir()
    finally:
        for path in made:
            if os.path.exists(path):
                os.unlink(path)


def test_objects_without_the_tag_are_never_touched():
    qid = libc.msgget(0x0BAD0000 | random.randrange(1, 1 << 16), IPC_CREAT | 0o600)
    try:
        assert ipcobjects.remove_named("sysv:0x0bad0001") == 0
        assert ipcobjects.remove_named("127.0.0.1:5000") == 0
    finally:
        assert libc.msgctl(qid, IPC_RMID, None) == 0


@pytest.fixture
def run_lock():
    """The machine's run lock, as a run's sweep holds it: a sweep without it takes the fresh,
    not yet used queues of a run in progress (found when a concurrent `pytest` removed a live
    sysv-mq server's queue mid-case)."""
    import tempfile
    from ipclab.execute import workspace
    try:
        fd = workspace._take_run_lock(tempfile.gettempdir())
    except UserError as e:
        pytest.skip(f"the sweep needs the run lock: {e}")
    yield
    os.close(fd)


def test_sweep_removes_unused_tagged_objects_and_dead_runs_posix_names(tmp_path, run_lock):
    key, qid = tagged_queue()
    dead = "/dev/shm/ipclab-999999999-shm"
    live = f"/dev/shm/ipclab-{os.getpid()}-shm"
    for path in (dead, live):
        with open(path, "wb"):
            pass
    try:
        assert ipcobjects.sweep() >= 2
        assert not queue_exists(qid)
        assert not os.path.exists(dead) and os.path.exists(live)
    finally:
        libc.msgctl(qid, IPC_RMID, None)
        for path in (dead, live):
            if os.path.exists(path):
                os.unlink(path)


def test_one_run_at_a_time(tmp_path):
    with Workspace(tmp_path):
        with pytest.raises(UserError, match=f"another ipclab run \\(pid {os.getpid()}\\)"):
            Workspace(tmp_path).__enter__()
    with Workspace(tmp_path):
        pass  # the lock was released
