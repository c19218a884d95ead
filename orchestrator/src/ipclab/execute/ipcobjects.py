"""Kernel IPC objects that servers create (PROTOCOL.md section 4.1), found by their ipclab tag.

A server removes its objects itself; this module is the safety net for a server that could not
(SIGKILL, a crash, a bug): the runner removes the objects a dead server's READY named, and each
run starts by sweeping tagged objects that no live run owns."""
import ctypes
import ctypes.util
import functools
import os
import re
import subprocess
from pathlib import Path

SYSV_TAG, SYSV_TAG_MASK = 0x1C1A0000, 0xFFFF0000
SYSV_TABLES = {"msg": "-q", "shm": "-m", "sem": "-s"}  # /proc/sysvipc file -> ipcrm flag
POSIX_DIRS = (Path("/dev/shm"), Path("/dev/mqueue"))
_POSIX_NAME = re.compile(r"^ipclab-(\d+)-")


def sysv_objects(with_fields=False):
    """(kind, id, key) of every System V object carrying the ipclab tag (and its /proc row)."""
    found = []
    for kind in SYSV_TABLES:
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        except OSError:
            continue
        names = lines[0].split() if lines else []
        for line in lines[1:]:
            fields = dict(zip(names, line.split()))
            key, ident = int(fields["key"]) & 0xFFFFFFFF, int(line.split()[1])  # msqid, shmid, semid
            if key & SYSV_TAG_MASK == SYSV_TAG:
                found.append((kind, ident, key, fields) if with_fields else (kind, ident, key))
    return found


def posix_objects():
    """Paths of POSIX shared memory and queues (when /dev/mqueue is mounted) with the tag."""
    return [entry for d in POSIX_DIRS if d.is_dir() for entry in d.glob("ipclab-*")]


# A load client's reply queues over posix-mq: one per connection, /ipclab-<server pid>-r<c>,
# c < 1024 (PROTOCOL.md 11.5.5).
POSIX_QUEUE_SUFFIXES = ("1", "2", *(f"r{c}" for c in range(1024)))


def remove_named(endpoint):
    """Removes what a READY endpoint names ("sysv:0x1c1a1234", a load server's
    "sysv:0x1c1a1234,0x1c1a9234", "posix:/ipclab-77", iceoryx2's "posix:/ipclab-77,DIR" whose
    DIR is the case's, PROTOCOL.md 4.12); returns how many objects were still there."""
    if endpoint.startswith("sysv:"):
        keys = {int(key, 16) for key in endpoint[5:].split(",")}
        keys = {key for key in keys if key & SYSV_TAG_MASK == SYSV_TAG}  # never touch others'
        return sum(_ipcrm(kind, ident) for kind, ident, k in sysv_objects() if k in keys)
    if endpoint.startswith("posix:/ipclab-"):
        prefix = endpoint[len("posix:/"):].split(",", 1)[0]
        # Queues are not listed unless /dev/mqueue is mounted, so unlink the contract's names.
        queues = sum(_mq_unlink(f"/{prefix}-{suffix}") for suffix in POSIX_QUEUE_SUFFIXES)
        shm = sum(_remove_posix(p) for p in Path("/dev/shm").glob(f"{prefix}-*"))
        return queues + shm
    return 0


def sweep():
    """Removes tagged objects left by earlier runs; call only while holding the run lock, so no
    live run's objects are taken. POSIX names carry their server's pid: live ones are kept."""
    sysv, posix = orphans()
    return sum(_ipcrm(kind, ident) for kind, ident, _ in sysv) + sum(map(_remove_posix, posix))


def orphans():
    """([(kind, id, key)], [path]): the tagged objects no live process uses, System V and POSIX
    (what sweep removes, and what the leak audit reports)."""
    objects = sysv_objects(with_fields=True)
    in_use = {key for kind, _, key, f in objects if _sysv_in_use(kind, f)}
    # A semaphore set has no owner pid in /proc; sysv-shm pairs it with a segment of its key.
    sysv = [(kind, ident, key) for kind, ident, key, _ in objects if key not in in_use]
    posix = [path for path in posix_objects()
             if (match := _POSIX_NAME.match(path.name)) and not pid_alive(int(match.group(1)))]
    return sysv, posix


def _sysv_in_use(kind, fields):
    """An object a live process has used: a peer run outside ipclab (a unit test, say)."""
    pids = {"msg": ("lspid", "lrpid"), "shm": ("cpid", "lpid")}.get(kind, ())
    if kind == "shm" and int(fields.get("nattch", 0)) > 0:
        return True
    return any(int(fields[p]) > 0 and pid_alive(int(fields[p])) for p in pids)


def _ipcrm(kind, ident):
    done = subprocess.run(["ipcrm", SYSV_TABLES[kind], str(ident)], capture_output=True)
    return int(done.returncode == 0)


def _remove_posix(path):
    if path.parent.name == "mqueue":
        return _mq_unlink("/" + path.name)
    try:
        path.unlink()
        return 1
    except FileNotFoundError:
        return 0


def _mq_unlink(name):
    return int(_librt().mq_unlink(name.encode()) == 0)


@functools.cache
def _librt():
    """Loaded once: find_library runs ldconfig, about a millisecond per call."""
    return ctypes.CDLL(ctypes.util.find_library("rt") or "librt.so.1", use_errno=True)


def pid_alive(pid):
    """Whether a process exists (PermissionError: it does, but is not ours)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
