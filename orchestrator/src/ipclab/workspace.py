"""The run's private scratch directory (0700): sockets, FIFOs, peer logs, raw files in flight.

Named ipclab-<pid>-*, so a later run can tell a directory whose owner died (SIGKILL, power loss)
from one in use, and remove it."""
import os
import re
import shutil
import tempfile
from pathlib import Path

_NAME = re.compile(r"^ipclab-(\d+)-")


class Workspace:
    def __init__(self, parent=None):
        self.parent = Path(parent or tempfile.gettempdir())
        self.path = None

    def __enter__(self):
        remove_stale(self.parent)
        self.path = Path(tempfile.mkdtemp(prefix=f"ipclab-{os.getpid()}-", dir=self.parent))
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)

    def case_dir(self, case):
        path = self.path / f"c{case.index:04d}"
        path.mkdir(mode=0o700)
        return path


def remove_stale(parent):
    """Removes scratch directories of ipclab runs whose process no longer exists."""
    for entry in Path(parent).glob("ipclab-*"):
        match = _NAME.match(entry.name)
        if match and entry.is_dir() and entry.stat().st_uid == os.getuid() \
                and not _alive(int(match.group(1))):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
