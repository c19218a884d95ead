import pytest

from ipclab.plan.catalog import load_catalog


@pytest.fixture(scope="session")
def catalog():
    return load_catalog(check=False)  # the real peers are checked in test_capabilities.py
