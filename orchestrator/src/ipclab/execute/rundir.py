"""The results directory of a run, saved after every round of every case, so nothing finished is
ever lost.

    run.json          the scenario, the resolved cases, the environment, the preflight probe, the
                      order of every round, every case's record with its rounds
    cases.csv         one row per case (export/csv.py)
    table.md          the human table (export/markdown.py)
    samples/<id>.r<k>.i64         raw round trips of round k of each case: little-endian int64 ns
    samples/<id>.r<k>.warmup.i64  the warm-up round trips of that round (flagged as warm-up)
    logs/<id>.r<k>.<role>.stderr  the peers' stderr of a failed round
    phases.csv        burst: one row per case, side and phase (export/phases.py)
    burst/<id>.r<k>.phases.csv    burst: the server's phases of every connection of round k
    burst/<id>.r<k>.records.csv   burst: the client's record of every connection (PROTOCOL.md 11.4)
"""
import json
import os
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from ipclab.analyse import case_stats
from ipclab.execute import burst
from ipclab import output as export
from ipclab.analyse import stats
from ipclab.execute import wire
from ipclab.output import phases as export_phases
from ipclab.output import wire as wire_view
from ipclab.common.errors import UserError

# run.json schema history:
#   ipclab.run/1 (0.1.0): first version.
#   ipclab.run/2 (0.2.0): rounds. A record holds `rounds` (one entry per finished round: order,
#     samples and warm-up samples files, median and its interval, drift, noise), `round_medians`,
#     `round_spread`, `median_ci_low`/`_high` (hierarchical bootstrap), `stable`, and
#     `ratio_ci_low`/`_high` with `verdict`; `samples_file` is gone (per round now); `warnings`
#     are {kind, text}. The document gains `rounds` (each round's case order), `preflight` and
#     `statistics_parameters`. `ipclab report` reads /1 and rewrites it as /2.
#   ipclab.run/3 (0.3.0): patterns stream and short (PROTOCOL.md 11). A case has
#     `message_size` (stream; its request and response sizes are null); a record has the
#     throughput fields of ipclab/throughput.py (msgs_per_s … time_wait, null where they do not
#     apply); a stream round's entry keeps `stream` (the client result's messages, windows,
#     stream_ns, lost, client_cpu, server_cpu), a short round's `time_wait`. A stream's time
#     statistics are per message of each window. The scenario gains `report` (table, versus) and
#     run.messages, run.windows. `ipclab report` reads /1 and /2 and rewrites them as /3.
#     Added within /3 (optional fields, older readers ignore them): run.link and run.wire_bytes,
#     the scenario's `hosts` and environment.hosts (the server's host); with wire bytes a round's
#     entry keeps `wire` (wire.per_call: per-call bytes and packets each way, conn_bytes, the
#     counters of the measured and calibration pairs) and a record the columns of wire.FIELDS.
SCHEMA = "ipclab.run/3"
OLD_SCHEMAS = ("ipclab.run/1", "ipclab.run/2")


def default_out_dir(root, scenario_name):
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(root) / "results" / f"{stamp}-{scenario_name}"


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class RunStore:
    def __init__(self, out_dir, scenario, environment, cases, notes=()):
        self.dir = Path(out_dir)
        self.scenario = scenario
        self.rounds_planned = scenario.run.rounds
        self.document = {
            "schema": SCHEMA, "complete": False, "interrupted": False,
            "scenario": scenario.as_dict(),
            "statistics_method": stats.__doc__.strip(),
            "statistics_parameters": statistics_parameters(),
            "environment": environment, "notes": list(notes), "preflight": None,
            "cases": [c.as_dict() for c in cases],
            "rounds": [],
            "results": [case_stats.case_record(c) for c in cases if c.skip_status],
        }
        self._by_id = {r["id"]: r for r in self.document["results"]}
        self._samples = {}  # id -> round -> raw samples of the ok rounds
        self.kept = {}      # id -> round -> sorted samples inside the fences (case_stats.analyse)
        self._ratios = {}   # intervals already drawn (case_stats.add_ratios)

    def create(self):
        if self.dir.exists() and any(self.dir.iterdir()):
            raise UserError(f"--out {self.dir}: the directory exists and is not empty")
        (self.dir / "samples").mkdir(parents=True, exist_ok=True)
        self.save()
        return self

    def set_preflight(self, probes, notes):
        self.document["preflight"] = probes
        self.document["notes"] += notes
        self.save()

    def start_round(self, index, order):
        self.document["rounds"].append({"round": index, "order": [c.index for c in order],
                                        "started": _now(), "finished": None})
        self.save()

    def finish_round(self, index):
        self.document["rounds"][index - 1]["finished"] = _now()
        self.save()

    def add(self, outcome, position=None):
        """Saves one finished round of a case and re-analyses that case."""
        case, r = outcome.case, outcome.round
        record = self._by_id.get(case.id)
        if record is None:
            record = self._by_id[case.id] = case_stats.case_record(case, self.rounds_planned)
            self.document["results"].append(record)
            self.document["results"].sort(key=lambda rec: rec["index"])
        samples_file = self._write(f"samples/{case.id}.r{r}.i64", outcome.samples)
        warmup_file = self._write(f"samples/{case.id}.r{r}.warmup.i64", outcome.warmup_samples)
        if outcome.burst:  # the per-connection files, for plots (burst.py)
            burst.save_files(self.dir, case.id, r, outcome.burst)
        for role, text in outcome.logs.items():
            (self.dir / "logs").mkdir(exist_ok=True)
            (self.dir / "logs" / f"{case.id}.r{r}.{role}.stderr").write_text(text)
        case_stats.add_round(record, outcome, samples_file, warmup_file, position)
        if self.scenario.run.wire_bytes:
            wire.add_round(record, outcome)
        if outcome.status == "ok" and outcome.samples is not None:
            self._samples.setdefault(case.id, {})[r] = outcome.samples
        self.kept[case.id] = case_stats.analyse(record, self._samples.get(case.id, {}),
                                              self.scenario.statistics, self.scenario.run.seed)
        self.save()
        return record

    def _write(self, name, samples):
        if samples is None or not samples.size:
            return None
        samples.astype("<i8").tofile(self.dir / name)
        return name

    def finish(self, interrupted=False):
        self.document["complete"] = not interrupted
        self.document["interrupted"] = interrupted
        self.document["environment"]["finished"] = _now()
        self.save()

    @property
    def records(self):
        return self.document["results"]

    def save(self):
        write_outputs(self.dir, self.document, self.scenario.statistics, self.kept, self._ratios)


def statistics_parameters():
    return {"level": 0.95, "bootstrap_resamples": stats.BOOTSTRAP_RESAMPLES,
            "bootstrap_rng": "numpy default_rng([seed, crc32(case id)]); for ratios "
                             "default_rng([seed, crc32(case id), crc32(baseline id)])",
            "unstable_spread": stats.UNSTABLE_SPREAD, "drift_p": stats.DRIFT_P,
            "drift_effect": stats.DRIFT_EFFECT}


def write_outputs(out_dir, document, settings, kept, ratio_cache=None):
    """Rewrites run.json, cases.csv and table.md from the document (ratios recomputed)."""
    records = case_stats.add_ratios(document["results"], settings, kept,
                                  document["scenario"]["run"].get("seed", 1), ratio_cache)
    label = case_stats.baseline_label(settings)
    title = f"ipclab: {document['scenario']['name']}"
    _atomic_write(out_dir / "run.json", export.to_json(document))
    _atomic_write(out_dir / "cases.csv", export.to_csv(records))
    if export_phases.has_phases(records):
        _atomic_write(out_dir / "phases.csv", export_phases.to_csv(records))
    table = export.to_markdown(records, title, label, settings.compare,
                               notes=_table_notes(document, settings))
    studies = studies_of(document)
    if studies:  # the study's shape first, every case below it
        table = export.study_to_markdown(studies, title) + "\n" + table.replace(
            f"# {title}", "## every case", 1)
    wire_section = wire_view.to_markdown(records)  # --wire-bytes: bytes per call
    _atomic_write(out_dir / "table.md", table + ("\n" + wire_section if wire_section else ""))


def studies_of(document):
    """The study tables the scenario's `[report] table` asks for (none for "cases")."""
    report = document["scenario"].get("report") or {}
    return export.study_tables(report.get("table", "cases"), document["results"],
                               report.get("versus", "tcp"), report)


def _table_notes(document, settings):
    patterns = {r.get("pattern", "rr") for r in document["results"]}
    what = {"rr": "round trips", "short": "whole connections (short)",
            "stream": "a stream window's time per message (stream)"}
    notes = [f"Times are {', '.join(what[p] for p in ('rr', 'short', 'stream') if p in patterns)}; "
             f"statistics after outlier removal "
             f"({settings.outliers}{f', k = {settings.tukey_k:g}' if settings.outliers == 'tukey' else ''}); "
             f"raw figures are in cases.csv."]
    notes += document.get("notes", [])
    for record in document["results"]:
        for warning in record.get("warnings") or []:
            notes.append(f"case {record['index']}: {warning['text']}")
    return notes


def _atomic_write(path, text):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def load(run_dir):
    """A saved run's document (a /1 document upgraded to the /2 layout), for `ipclab report`."""
    path = Path(run_dir) / "run.json"
    try:
        document = json.loads(path.read_text())
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise UserError(f"{path}: not valid JSON: {e}") from None
    schema = document.get("schema") if isinstance(document, dict) else None
    if schema == "ipclab.run/1":
        document = _upgrade_v1(document)
    if schema in OLD_SCHEMAS:
        return _upgrade_v2(document)
    if schema != SCHEMA:
        raise UserError(f"{path}: schema {schema!r} is not one of "
                        f"{', '.join(repr(s) for s in (*OLD_SCHEMAS, SCHEMA))}")
    return document


def _upgrade_v1(document):
    """/1 had one round per case and one samples file: it becomes round 1."""
    document["schema"] = SCHEMA
    document["scenario"]["run"].setdefault("rounds", 1)
    document.setdefault("rounds", [])
    document.setdefault("preflight", None)
    document["statistics_method"] = stats.__doc__.strip()
    document["statistics_parameters"] = statistics_parameters()
    for record in document["results"]:
        ran = record["status"] in ("ok", "failed")
        record["rounds_planned"] = 1 if ran else 0
        record["rounds"] = [{"round": 1, "position": None, "status": record["status"],
                             "reason": record.get("reason"), "seconds": record.get("seconds"),
                             "samples": (record.get("raw") or {}).get("count") or 0,
                             "samples_file": record.get("samples_file"),
                             "warmup_samples": None, "warmup_samples_file": None,
                             "noise": None, "notes": []}] if ran else []
        record.pop("samples_file", None)
    return document


def _upgrade_v2(document):
    """/2 knew only rr: no message sizes, no report settings."""
    document["schema"] = SCHEMA
    document["scenario"].setdefault("report", {"table": "cases", "versus": "tcp"})
    for item in (*document["cases"], *document["results"]):
        item.setdefault("message_size", None)
    return document


def reanalyse(run_dir, document, settings):
    """Recomputes every record's statistics from its saved raw samples under `settings`; returns
    what write_outputs needs for the ratios (id -> round -> kept samples)."""
    seed = document["scenario"]["run"].get("seed", 1)
    kept = {}
    for record in document["results"]:
        rounds = {}
        for entry in record.get("rounds") or []:
            if entry.get("status") == "ok" and entry.get("samples_file"):
                rounds[entry["round"]] = np.fromfile(Path(run_dir) / entry["samples_file"],
                                                     dtype="<i8")
        kept[record["id"]] = case_stats.analyse(record, rounds, settings, seed)
    return kept
