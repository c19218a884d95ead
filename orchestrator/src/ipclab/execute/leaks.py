"""What ipclab's runs may leave behind, found after they have ended: the leak audit that closes
the test session (orchestrator/tests/conftest.py) and `ipclab leaks`.

Each kind of thing a run makes is named so that its owner can be told: processes carry the
audit's tag in their environment (a test session sets TAG_VARIABLE before starting anything, and
every peer inherits it), kernel IPC objects and scratch directories carry the ipclab tag and the
pid of the run that made them, network namespaces are ipclab-<pid>-…. Something is left over when
its owner is gone (a live run's objects are its own business) or, for a process, when it still
runs after the session that started it. Each finding is one line saying what and where."""
import os
import re
import stat
from pathlib import Path

from ipclab.execute import ipcobjects, network, workspace

TAG_VARIABLE = "IPCLAB_AUDIT_TAG"


def find(tag=None, temp_dir=None, watched=()):
    """Every leftover, one line each: processes carrying `tag` (other than this one and its
    ancestors), orphaned IPC objects, network namespaces of dead runs and ipclab network devices
    here, scratch directories of dead runs in `temp_dir`, and FIFOs and sockets anywhere under
    the `watched` directories."""
    found = [f"process {pid}: {command}" for pid, command in tagged_processes(tag)] if tag else []
    found += [f"process {pid} in the directory of a run that is gone ({where}): {command}"
              for pid, command, where in servers_of_gone_runs()]
    sysv, posix = ipcobjects.orphans()
    found += [f"System V {kind} id {ident} key {key:#010x}" for kind, ident, key in sysv]
    found += [f"POSIX IPC object {path}" for path in posix]
    found += [f"network namespace {name}" for name in network.orphans()]
    found += [f"network device {path.name}" for path in sorted(Path("/sys/class/net").glob("ipclab*"))]
    if temp_dir is not None:
        found += [f"scratch directory {path}" for path in workspace.stale(temp_dir)]
    for parent in watched:
        found += [f"{kind} {path}" for kind, path in special_files(parent)]
    return found


def tagged_processes(tag):
    """(pid, command line) of the live processes whose environment carries TAG_VARIABLE=tag,
    this process and its ancestors aside."""
    mine = _ancestors(os.getpid())
    marker = f"{TAG_VARIABLE}={tag}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        pid = int(entry.name)
        if pid in mine:
            continue
        try:
            if marker not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile, or not ours to read
        found.append((pid, command.strip()[:200]))
    return sorted(found)


_RUN_DIR = re.compile(r"/ipclab-(\d+)-[^/]*")


def servers_of_gone_runs():
    """(pid, command line, directory) of this user's processes whose working directory is in the
    scratch directory of a run whose process is gone (a round's Redis or NATS server keeps its
    directory as its working directory, 4.10, 4.11: one that outlived its run, however, is found
    here even when the directory was removed under it)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if entry.stat().st_uid != os.getuid():
                continue
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue  # gone meanwhile, or not ours to read
        match = _RUN_DIR.search(cwd)
        if not match or ipcobjects.pid_alive(int(match.group(1))):
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        found.append((int(entry.name), command.strip()[:200], cwd.removesuffix(" (deleted)")))
    return sorted(found)


def special_files(parent):
    """("FIFO" or "socket", path) of every such file under `parent`: a server removes its own."""
    found = []
    for root, _, files in os.walk(parent):
        for name in files:
            path = Path(root) / name
            try:
                mode = path.lstat().st_mode
            except OSError:
                continue
            if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
                found.append(("FIFO" if stat.S_ISFIFO(mode) else "socket", path))
    return sorted(found, key=lambda f: str(f[1]))


def _ancestors(pid):
    found = set()
    while pid > 1 and pid not in found:
        found.add(pid)
        try:
            stat_line = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat_line.rsplit(")", 1)[1].split()[1])  # the field after the state: ppid
    return found
