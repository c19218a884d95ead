"""The results directory of a run, saved after every case so nothing finished is ever lost.

    run.json          the scenario, the resolved cases, the environment, every case's record
    cases.csv         one row per case (export/csv.py)
    table.md          the human table (export/markdown.py)
    samples/<id>.i64  raw round trips of each ok case: little-endian int64 nanoseconds
    logs/<id>.<role>.stderr   the peers' stderr of each failed case
"""
import json
import os
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from ipclab import analysis, export, stats
from ipclab.errors import UserError

# run.json schema history:
#   ipclab.run/1 (0.1.0): first version.
SCHEMA = "ipclab.run/1"


def default_out_dir(root, scenario_name):
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(root) / "results" / f"{stamp}-{scenario_name}"


class RunStore:
    def __init__(self, out_dir, scenario, environment, cases, notes=()):
        self.dir = Path(out_dir)
        self.scenario = scenario
        self.document = {
            "schema": SCHEMA, "complete": False, "interrupted": False,
            "scenario": scenario.as_dict(),
            "statistics_method": stats.__doc__.strip(),
            "environment": environment, "notes": list(notes),
            "cases": [c.as_dict() for c in cases],
            "results": [],
        }

    def create(self):
        if self.dir.exists() and any(self.dir.iterdir()):
            raise UserError(f"--out {self.dir}: the directory exists and is not empty")
        (self.dir / "samples").mkdir(parents=True, exist_ok=True)
        self.save()
        return self

    def add(self, outcome):
        record = analysis.case_record(outcome)
        if outcome.samples is not None and outcome.samples.size:
            name = f"samples/{outcome.case.id}.i64"
            outcome.samples.astype("<i8").tofile(self.dir / name)
            record["samples_file"] = name
        for role, text in outcome.logs.items():
            (self.dir / "logs").mkdir(exist_ok=True)
            (self.dir / "logs" / f"{outcome.case.id}.{role}.stderr").write_text(text)
        analysis.analyse(record, outcome.samples, self.scenario.statistics)
        self.document["results"].append(record)
        self.save()
        return record

    def finish(self, interrupted=False):
        self.document["complete"] = not interrupted
        self.document["interrupted"] = interrupted
        self.document["environment"]["finished"] = datetime.now(timezone.utc).isoformat(
            timespec="seconds")
        self.save()

    @property
    def records(self):
        return self.document["results"]

    def save(self):
        write_outputs(self.dir, self.document, self.scenario.statistics)


def write_outputs(out_dir, document, settings):
    """Rewrites run.json, cases.csv and table.md from the document (ratios recomputed)."""
    records = analysis.add_ratios(document["results"], settings)
    label = analysis.baseline_label(settings)
    title = f"ipclab: {document['scenario']['name']}"
    _atomic_write(out_dir / "run.json", export.to_json(document))
    _atomic_write(out_dir / "cases.csv", export.to_csv(records))
    _atomic_write(out_dir / "table.md", export.to_markdown(
        records, title, label, settings.compare, notes=_table_notes(document, settings)))


def _table_notes(document, settings):
    notes = [f"Times are round trips; statistics after outlier removal "
             f"({settings.outliers}{f', k = {settings.tukey_k:g}' if settings.outliers == 'tukey' else ''}); "
             f"raw figures are in cases.csv."]
    notes += document.get("notes", [])
    for record in document["results"]:
        for warning in record.get("warnings") or []:
            notes.append(f"case {record['index']}: {warning}")
    return notes


def _atomic_write(path, text):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def load(run_dir):
    """A saved run's document and the raw samples of each record, for `ipclab report`."""
    path = Path(run_dir) / "run.json"
    try:
        document = json.loads(path.read_text())
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise UserError(f"{path}: not valid JSON: {e}") from None
    if document.get("schema") != SCHEMA:
        raise UserError(f"{path}: schema {document.get('schema')!r} is not {SCHEMA!r}")
    return document


def reanalyse(run_dir, document, settings):
    """Recomputes every record's statistics from its saved raw samples under `settings`."""
    for record in document["results"]:
        samples = None
        if record.get("samples_file"):
            samples = np.fromfile(Path(run_dir) / record["samples_file"], dtype="<i8")
        analysis.analyse(record, samples, settings)
    return document
