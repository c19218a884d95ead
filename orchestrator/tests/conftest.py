import os

import pytest

from ipclab.plan.catalog import load_catalog


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
