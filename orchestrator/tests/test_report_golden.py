"""`ipclab report` on a saved run writes the same cases.csv, phases.csv and table.md, byte for byte,
under every table shape a scenario can ask for. The saved run (fixtures/mixed-run: rr, stream,
short and burst over tcp, uds and sysv-mq with wire bytes, two rounds) and the golden files were
made by the orchestrator before its stages were reshaped; an intended change of output rewrites
them with IPCLAB_UPDATE_GOLDEN=1."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RUN = HERE / "fixtures" / "mixed-run"
GOLDEN = HERE / "golden" / "report"
ROOT = HERE.parents[1]
# The report settings each golden directory was rendered with ([report] of a scenario).
VARIANTS = {
    "cases": {"table": "cases", "versus": "tcp"},
    "pivot": {"table": "pivot", "versus": "tcp", "rows": ["response_size", "pattern"],
              "columns": "mechanism", "cell": ["mean", "median", "wire_bytes"],
              "ratio_to": {"mechanism": "tcp"}, "ratio_as": "times"},
    "pivot-percent": {"table": "pivot", "versus": "tcp", "rows": ["mechanism"], "columns": "pair",
                      "cell": "median", "ratio_to": {"pair": "cpp→cpp"}, "ratio_as": "percent"},
    "stream-cpu": {"table": "stream-cpu", "versus": "tcp"},
    "server-models": {"table": "server-models", "versus": "tcp"},
}
FILES = ("cases.csv", "phases.csv", "table.md")


def saved_run(tmp_path, report):
    """A copy of the saved run whose scenario asks for `report`."""
    run = tmp_path / "run"
    shutil.copytree(RUN, run, ignore=shutil.ignore_patterns("scenario.toml"))
    document = json.loads((run / "run.json").read_text())
    document["scenario"]["report"] = report
    (run / "run.json").write_text(json.dumps(document))
    return run


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_report_rewrites_the_same_files(tmp_path, variant):
    run = saved_run(tmp_path, VARIANTS[variant])
    done = subprocess.run([sys.executable, "-m", "ipclab", "report", str(run)], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    for name in FILES:
        written = (run / name).read_text()
        golden = GOLDEN / variant / name
        if os.environ.get("IPCLAB_UPDATE_GOLDEN"):
            golden.write_text(written)
        assert written == golden.read_text(), f"{variant}/{name} differs from its golden file"
