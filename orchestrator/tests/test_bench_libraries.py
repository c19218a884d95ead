"""`ipclab bench libraries` without a benchmark: each library's floor program (bench/floor/zmq.c,
bench/floor/nng.c) times every round trip, checks the echo and leaves nothing behind, refuses bad
arguments in one line, and the command prints a row per library mechanism with its library's
version. No timing is judged here (the machines are shared): only that the numbers are there."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from ipclab.plan.catalog import repo_root

BUILD = repo_root() / "bench" / "floor" / "build"
FLOOR = BUILD / "ipclab-floor-zmq"
needs_floor = pytest.mark.skipif(not FLOOR.exists(), reason="ipclab-floor-zmq not built "
                                 "(libzmq missing: scripts/setup-system, make build)")
# Each library's floor program, skipped where its library was missing at build time.
PROGRAMS = [pytest.param(BUILD / f"ipclab-floor-{lib}", id=lib, marks=pytest.mark.skipif(
    not (BUILD / f"ipclab-floor-{lib}").exists(), reason=f"ipclab-floor-{lib} not built "
    f"({library} missing: scripts/setup-system, make build)"))
    for lib, library in (("zmq", "libzmq"), ("nng", "libnng"))]


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_the_floor_times_each_round_trip_and_leaves_no_directory(program, transport):
    with tempfile.TemporaryDirectory() as scratch:  # short: an ipc path fits sun_path
        samples = Path(scratch) / "samples.i64"
        done = subprocess.run([str(program), transport, "--size", "64", "--iterations", "300",
                               "--warmup", "10", "--samples-file", str(samples)],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "TMPDIR": scratch})
        assert done.returncode == 0, done.stderr
        data = np.fromfile(samples, dtype="<i8")
        assert data.size == 300 and data.min() > 0
        assert [p.name for p in Path(scratch).iterdir()] == ["samples.i64"]  # ipc's dir gone


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("args", [["udp"], ["tcp", "--size", "x"], ["ipc", "--iterations", "0",
                                                                      "--samples-file", "/dev/null"]])
def test_the_floor_refuses_bad_arguments_in_one_line(program, args):
    done = subprocess.run([str(program), *args], capture_output=True, text=True, timeout=20)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("ipclab-floor:")


@pytest.mark.e2e
@needs_floor
def test_the_command_prints_a_row_per_library_mechanism_with_its_version():
    done = subprocess.run([sys.executable, "-m", "ipclab", "bench", "libraries", "--iterations",
                           "200", "--rounds", "1", "--placement", "unpinned"],
                          capture_output=True, text=True, timeout=300, cwd=repo_root(),
                          env={**os.environ, "COLUMNS": "250"})
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if "│ libzmq" in line]
    assert [line.split()[1] for line in rows] == ["zmq-tcp", "zmq-ipc"], done.stdout
    if (BUILD / "ipclab-floor-nng").exists():  # libnng was there: the peer has nng-* too
        rows += [line for line in done.stdout.splitlines() if "│ nng " in line]
        assert [line.split()[1] for line in rows][2:] == ["nng-tcp", "nng-ipc"], done.stdout
    assert all("µs" in line and " - " not in line for line in rows), done.stdout
