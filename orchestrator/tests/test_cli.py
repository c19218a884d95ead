"""The CLI as a user meets it: bad input is one clear line and exit 2, never a traceback."""
import subprocess
import sys

import pytest

from ipclab.plan.catalog import repo_root
from ipclab.plan.validator import MATRIX_AXES

IPCLAB = [sys.executable, "-m", "ipclab"]


def ipclab(*args, cwd=None):
    return subprocess.run([*IPCLAB, *args], capture_output=True, text=True, cwd=cwd or repo_root(),
                          timeout=120)


@pytest.mark.parametrize("args,expected", [
    (["run", "--mechanism", "tpc"], "ipclab: error: --mechanism: unknown mechanism 'tpc'"),
    (["run", "--request-size", "12XB"], "ipclab: error: --request-size: '12XB' is not a size"),
    (["run", "missing.toml"], "ipclab: error: missing.toml: no such scenario file"),
    (["run", "--iterations", "-5"], "ipclab: error: --iterations: '-5' is not a valid iterations"),
    (["run", "--rounds", "0"], "ipclab: error: --rounds: '0' is not a valid rounds"),
    (["run", "--rounds", "1.5"], "ipclab: error: --rounds: '1.5' is not a valid rounds"),
    (["report", "/nonexistent"], "ipclab: error: /nonexistent/run.json: cannot read"),
    (["run", "--percentiles", "0"], "ipclab: error: --percentiles: '0' is not a percentile"),
    (["run", "--percentiles", "50,100.5"], "ipclab: error: --percentiles: '100.5' is not a "
                                          "percentile: give numbers above 0 and below 100"),
    (["run", "--percentiles", "abc"], "ipclab: error: --percentiles: 'abc' is not a percentile"),
    (["report", "/nonexistent", "--percentiles", "99,nan"],
     "ipclab: error: --percentiles: 'nan' is not a percentile"),
])
def test_bad_input_is_one_line_and_exit_2(args, expected):
    out = ipclab(*args)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [out.stderr.strip()]
    assert out.stderr.startswith(expected)
    assert "Traceback" not in out.stderr


def test_unknown_scenario_key_names_the_file_and_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[matrix]\nmechanism = ["tcp"]\ncolour = "red"\n')
    out = ipclab("run", str(bad))
    assert out.returncode == 2
    # The known keys are the fixed axes, every setting of plan/settings.py, exclude, design, sizes.
    known = sorted({*MATRIX_AXES, "exclude", "design", "sizes"})
    assert {"arrival", "nodelay", "read_size", "mechanism", "sizes"} <= set(known)
    assert out.stderr.strip() == (f"ipclab: error: {bad}: unknown key 'matrix.colour' (known: "
                                  f"{', '.join(known)})")


def test_no_half_written_result_after_bad_input(tmp_path):
    out = ipclab("run", "--mechanism", "tpc", "--out", str(tmp_path / "r"))
    assert out.returncode == 2 and not (tmp_path / "r").exists()


def test_list_shows_every_mechanism_and_language():
    out = ipclab("list")
    assert out.returncode == 0
    for word in ("tcp", "udp", "uds", "pipe", "fifo", "C++", "Java", "Python"):
        assert word in out.stdout


def test_the_command_names_itself_and_its_versions():
    from ipclab import __version__
    from ipclab.plan.capabilities import CONTRACT
    done = ipclab("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == (f"ipclab {__version__} (peer contract {CONTRACT}, "
                                   f"protocol/PROTOCOL.md)")
    # The rest in this process (click's own runner): four more interpreters add nothing.
    from click.testing import CliRunner
    from ipclab.cli import cli
    for args in (["--help"], ["run", "--help"], ["report", "--help"], ["bench", "--help"]):
        usage = CliRunner().invoke(cli, args, prog_name="ipclab").output.splitlines()[0]
        assert usage.startswith("Usage: ipclab"), usage
    text = CliRunner().invoke(cli, ["--help"], prog_name="ipclab").output
    assert "burst" in text and "report.html" in text
