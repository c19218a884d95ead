"""A saved run read back (`ipclab report`, `compare`, `history`): run.json upgraded to today's
schema, and every case analysed again from its raw samples files."""
import json
from pathlib import Path

import numpy as np

from ipclab.analyse import case_stats, pooled, stats
from ipclab.common.errors import UserError
from ipclab.records.schema import OLD_SCHEMAS, SCHEMA


def statistics_parameters():
    return {"level": 0.95, "bootstrap_resamples": stats.BOOTSTRAP_RESAMPLES,
            "bootstrap_rng": "numpy default_rng([seed, crc32(case id)]); for ratios "
                             "default_rng([seed, crc32(case id), crc32(baseline id)])",
            "unstable_spread": stats.UNSTABLE_SPREAD, "drift_p": stats.DRIFT_P,
            "drift_effect": stats.DRIFT_EFFECT, "pooled_min_cases": pooled.MIN_CASES,
            "pooled_outlier_p": pooled.OUTLIER_P}


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
    document["round_variance_prior"] = pooled.moderate(document["results"], settings)
    return kept
