import compileall
import shutil
import tempfile

import pytest
from peers import GENERATED, SRC


def pytest_configure(config):
    """Byte-compiles the peer's sources (and its generated RPC stubs) once, as an interpreter
    allowed to write __pycache__ would on its first run: with PYTHONDONTWRITEBYTECODE set (as
    in some environments) every peer process compiled the 60-odd modules it imports anew,
    40 ms of CPU each; now each loads them (IPCLAB_PEER_EXEC=1: 231 s -> 188 s of CPU)."""
    for tree in (SRC, GENERATED):
        if tree.is_dir():
            compileall.compile_dir(str(tree), quiet=2)


@pytest.fixture
def workdir():
    """A short private directory: uds paths must stay under 108 bytes. The prefix keeps it
    out of the orchestrator tests' check for leftover ipclab-* scratch directories."""
    path = tempfile.mkdtemp(prefix="ipclabpy-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
