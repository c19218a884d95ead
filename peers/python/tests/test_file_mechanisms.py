"""The file mechanisms (file, file-poll) of PROTOCOL.md 4.2: malformed request files, a
directory with leftovers, private request files."""
import os
import stat
import subprocess
import time
from pathlib import Path

import pytest
from ipc_objects import FILES, MALFORMED, REJECTED, start_server
from peers import PEER, Drive, peer_env, run_peer
from test_roundtrip import check_ok

from ipclab_peer import frame


@pytest.mark.parametrize("mechanism", FILES)
def test_malformed_files(mechanism, workdir):
    server = start_server(mechanism, workdir, "--poll-interval-us", "500")
    try:
        directory = server.endpoint
        reasons = {"truncated payload": "length mismatch"}  # a file has no end of stream
        for vector in MALFORMED:
            temporary = os.path.join(directory, "req.tmp")
            Path(temporary).write_bytes(bytes.fromhex(vector["hex"]))
            os.rename(temporary, os.path.join(directory, "req"))
            reason = reasons.get(vector["reason"], vector["reason"])
            assert server.stderr_line() == REJECTED + reason, vector["name"]
        # A well-formed header whose file is longer than it announces.
        Path(directory, "req.tmp").write_bytes(frame.encode_header(frame.REQUEST, 0, 4, 0)
                                               + bytes(5))
        os.rename(os.path.join(directory, "req.tmp"), os.path.join(directory, "req"))
        assert server.stderr_line() == REJECTED + "length mismatch"
        run = Drive(workdir, mechanism, directory, 16, 16, iterations=3)
        check_ok(run, mechanism, 16, 16, 3)
        assert os.listdir(directory) == []
    finally:
        assert server.stop() == 0
    assert server.drain_stderr() == []


def test_file_server_refuses_a_directory_with_leftovers(workdir):
    directory = os.path.join(workdir, "files")
    os.mkdir(directory, 0o700)
    Path(directory, "req").write_bytes(b"stale")
    run = run_peer(["serve", "--mechanism", "file", "--endpoint", directory])
    assert run.returncode == 5, run.stderr
    assert run.stderr.startswith("ipclab-peer: io: ") and run.stdout == ""
    assert os.listdir(directory) == ["req"]


def test_files_are_private(workdir):
    """The client's request files are 0600 (seen by a reader that is not a server)."""
    directory = os.path.join(workdir, "files")
    os.mkdir(directory, 0o700)
    proc = subprocess.Popen(PEER + [
        "drive", "--mechanism", "file-poll", "--endpoint", directory, "--request-size", "16",
        "--response-size", "16", "--iterations", "1", "--io-timeout", "0.5",
        "--samples-file", os.path.join(workdir, "s"), "--result-file",
        os.path.join(workdir, "r")], env=peer_env(), stderr=subprocess.PIPE, text=True)
    try:
        request = Path(directory, "req")
        deadline = time.monotonic() + 10
        while not request.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert stat.S_IMODE(request.stat().st_mode) == 0o600
        assert proc.wait(10) == 6
        assert proc.stderr.read().startswith("ipclab-peer: timeout: ")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
