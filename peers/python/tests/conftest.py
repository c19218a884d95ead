import shutil
import tempfile

import pytest


@pytest.fixture
def workdir():
    """A short private directory: uds paths must stay under 108 bytes. The prefix keeps it
    out of the orchestrator tests' check for leftover ipclab-* scratch directories."""
    path = tempfile.mkdtemp(prefix="ipclabpy-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
