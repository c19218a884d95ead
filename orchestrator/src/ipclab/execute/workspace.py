"""The run's private scratch directory (0700): sockets, FIFOs, peer logs, raw files in flight.

Named ipclab-<pid>-*, so a later run can tell a directory whose owner died (SIGKILL, power loss)
from one in use, and remove it."""
import contextlib
import fcntl
import os
import re
import shutil
import tempfile
from pathlib import Path

from ipclab.execute import ipcobjects
from ipclab.common.errors import UserError

_NAME = re.compile(r"^ipclab-(\d+)-")


class Workspace:
    def __init__(self, parent=None):
        self.parent = Path(parent or tempfile.gettempdir())
        self.path = None
        self._lock = None
        self.swept = 0  # kernel objects of crashed runs removed at the start

    def __enter__(self):
        self._lock = _take_run_lock(self.parent)
        remove_stale(self.parent)
        self.swept = ipcobjects.sweep()
        self.path = Path(tempfile.mkdtemp(prefix=f"ipclab-{os.getpid()}-", dir=self.parent))
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)
        os.close(self._lock)

    def case_dir(self, case):
        path = self.path / f"c{case.index:04d}"
        path.mkdir(mode=0o700)
        return path


@contextlib.contextmanager
def run_lock(parent=None):
    """The run lock held without a run: for a check that must see no live run's objects (the
    leak audit); a UserError naming the run in progress otherwise."""
    fd = _take_run_lock(parent or tempfile.gettempdir())
    try:
        yield
    finally:
        os.close(fd)


def _take_run_lock(parent):
    """One run at a time per machine and user: two runs would disturb each other's timings, and
    the start-up sweep of tagged kernel objects must not take a live run's objects."""
    fd = os.open(Path(parent) / f"ipclab.{os.getuid()}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise UserError(f"another ipclab run (pid {holder}) is in progress on this machine; "
                        f"runs at the same time would disturb each other's timings") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


def remove_stale(parent):
    """Removes scratch directories of ipclab runs whose process no longer exists."""
    for entry in stale(parent):
        shutil.rmtree(entry, ignore_errors=True)


def stale(parent):
    """This user's scratch directories under `parent` whose run's process no longer exists."""
    return sorted(entry for entry in Path(parent).glob("ipclab-*")
                  if (match := _NAME.match(entry.name)) and entry.is_dir()
                  and entry.stat().st_uid == os.getuid()
                  and not ipcobjects.pid_alive(int(match.group(1))))
