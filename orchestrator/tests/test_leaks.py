"""The leak audit (execute/leaks.py) that ends every test session: each kind of leftover is found
with where it is, and a session whose test leaks a FIFO fails naming it."""
import os
import subprocess
import sys
import time
from pathlib import Path

from ipclab.execute import leaks


def test_fifos_and_sockets_under_a_watched_directory_are_found_with_their_paths(tmp_path):
    import socket
    (tmp_path / "deep").mkdir()
    fifo = tmp_path / "deep" / "left.fifo"
    os.mkfifo(fifo)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "left.sock"))
        (tmp_path / "plain").write_text("not a leak")
        found = leaks.find(watched=[tmp_path])
    fifo.unlink()                                   # else this session's own audit fails
    (tmp_path / "left.sock").unlink()
    assert f"FIFO {fifo}" in found and f"socket {tmp_path / 'left.sock'}" in found
    assert not any("plain" in line for line in found)


def test_a_process_is_ours_when_it_carries_the_tag():
    tagged = subprocess.Popen(["sleep", "30"], env={**os.environ, leaks.TAG_VARIABLE: "t-1"})
    other = subprocess.Popen(["sleep", "30"], env={**os.environ, leaks.TAG_VARIABLE: "t-2"})
    try:
        _until_exec_done(tagged.pid)
        assert leaks.tagged_processes("t-1") == [(tagged.pid, "sleep 30")]
        assert f"process {tagged.pid}: sleep 30" in leaks.find("t-1")
    finally:
        for p in (tagged, other):
            p.kill()
            p.wait()
    assert leaks.tagged_processes("t-1") == []


def _until_exec_done(pid):
    """Popen returns once the child's exec has closed its close-on-exec pipe, which the kernel
    does before it lays out the new program's arguments and environment: until then
    /proc/PID/environ and cmdline read empty (CI saw the tagged sleep missed so once)."""
    deadline = time.monotonic() + 10
    while not Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"sleep"):
        assert time.monotonic() < deadline, f"process {pid} never showed its command line"
        time.sleep(0.001)


def test_a_scratch_directory_is_left_over_once_its_run_is_gone(tmp_path):
    dead = tmp_path / "ipclab-999999999-x"     # above any pid this kernel gives
    live = tmp_path / f"ipclab-{os.getpid()}-y"
    dead.mkdir()
    live.mkdir()
    found = leaks.find(temp_dir=tmp_path)
    assert f"scratch directory {dead}" in found and not any(str(live) in f for f in found)


def test_a_session_whose_test_leaks_a_fifo_fails_naming_it(tmp_path):
    """The real hook, in a session of its own: conftest.py's audit over one leaking test."""
    here = Path(__file__).parent
    (tmp_path / "conftest.py").write_text((here / "conftest.py").read_text())
    (tmp_path / "test_leaky.py").write_text(
        "import os\n\ndef test_leaks_a_fifo(tmp_path):\n"
        "    os.mkfifo(tmp_path / 'forgotten.fifo')\n")
    # Not this session's shard: the inner session's one test would be dealt to shard 1 only.
    env = {k: v for k, v in os.environ.items() if k != "IPCLAB_TEST_SHARD"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--basetemp", str(tmp_path / "base"), str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 1, done.stdout
    assert "1 passed" in done.stdout and "leak audit: 1 thing(s) left behind" in done.stdout
    (forgotten,) = (tmp_path / "base").rglob("forgotten.fifo")
    forgotten.unlink()                              # else this session's own audit fails
    assert f"FIFO {forgotten}" in done.stdout
