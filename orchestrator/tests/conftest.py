import os
import tempfile
import time
import uuid

import pytest

from ipclab.execute import leaks
from ipclab.execute.probe import load_catalog

# Every process this session starts (ipclab runs, their peers, their ssh) inherits this tag, so
# the leak audit at its end can tell its own leftovers from another suite's live processes.
os.environ[leaks.TAG_VARIABLE] = uuid.uuid4().hex


@pytest.fixture(scope="session")
def catalog():
    return load_catalog(check=False)  # the real peers are checked in test_capabilities.py


def pytest_collection_modifyitems(config, items):
    """IPCLAB_TEST_SHARD=K/N keeps every N-th test from the K-th: `make test` runs the shards side
    by side, each in an IPC namespace of its own (scripts/isolated). Dealing test by test, not file
    by file, spreads the slow parametrised end-to-end tests evenly."""
    shard = os.environ.get("IPCLAB_TEST_SHARD")
    if not shard:
        return
    try:
        k, n = (int(part) for part in shard.split("/"))
        assert 1 <= k <= n
    except (ValueError, AssertionError):
        raise pytest.UsageError(f"IPCLAB_TEST_SHARD: expected K/N with 1 <= K <= N, got {shard!r}")
    config.hook.pytest_deselected(items=[t for i, t in enumerate(items) if i % n != k - 1])
    items[:] = [t for i, t in enumerate(items) if i % n == k - 1]


def pytest_sessionfinish(session, exitstatus):
    """The leak audit (execute/leaks.py): whatever this session's runs left behind fails it,
    listed: processes, IPC objects, scratch directories, namespaces, FIFOs and sockets under
    its temporary directories. A process may take a moment to go after its run's last test."""
    if session.config.option.collectonly:
        return
    watched = [session.config._tmp_path_factory.getbasetemp()]
    for _ in range(50):  # a browser's helpers, a JVM: up to 5 s to go
        left = leaks.find(os.environ[leaks.TAG_VARIABLE], tempfile.gettempdir(), watched)
        if not any(line.startswith("process ") for line in left):
            break
        time.sleep(0.1)
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line(f"leak audit: {len(left)} thing(s) left behind:", red=True)
        for line in left:
            reporter.write_line(f"  {line}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
