"""cases.csv and phases.csv: a page's records (output/page.py) as numbers. Pure: a page in, text
out.

cases.csv: one row per case, every statistic in nanoseconds, failures with their reason. The
time statistics are of round trips (rr), whole connections (short) or, for a stream, of each
window's time per message (analyse/throughput.py); the stream and short figures (msgs_per_s …
time_wait) are empty where they do not apply.

phases.csv (pattern burst, PROTOCOL.md 11.4): one row per burst case, side and phase (the
records' `phases`, analyse/burst.py); none for a run without burst cases."""
import csv
import io
import tomllib
from pathlib import Path

from ipclab.analyse.case_stats import stat_fields
from ipclab.analyse.burst import FIELDS as BURST_FIELDS
from ipclab.analyse.load import FIELDS as LOAD_FIELDS
from ipclab.analyse.throughput import FIELDS as PATTERN_COLUMNS
from ipclab.output.columns import chosen_percentiles
from ipclab.records.precision import precision_of
from ipclab.analyse.explained import FIELDS as MODEL_COLUMNS
from ipclab.records.fields import EXPLAIN_FIELDS as EXPLAIN_COLUMNS
from ipclab.records.fields import WIRE_FIELDS as WIRE_COLUMNS
from ipclab.plan import patterns
from ipclab.plan import settings as setting_table

CASE_COLUMNS = ["id", "index", "mechanism", "client", "server", "request_size", "response_size",
                "message_size", "payload", "sequence_length", "placement", "pattern", "status",
                "reason", "client_cpus", "server_cpus"]
RAW_COLUMNS = ["count", "mean", "std", "median", "p99", "max"]
ROUND_COLUMNS = ["rounds", "round_spread", "median_ci_low_ns", "median_ci_high_ns", "stable"]
# With a precision target (--precision): each case's median interval as ± a fraction of its
# median, and whether that met the target.
PRECISION_COLUMNS = ["median_ci_rel", "precision_met"]
TAIL_COLUMNS = ["ratio", "ratio_ci_low", "ratio_ci_high", "verdict", "baseline_id",
                "client_runtime", "server_runtime", "client_library", "server_library", "seconds",
                "samples_file", "warmup_samples", "warnings"]

# What a column means and its unit, where its name alone does not say: csv_columns.toml, data
# beside this module (output/schema.py publishes every column's).
_TABLES = tomllib.loads(Path(__file__).with_name("csv_columns.toml").read_text(encoding="utf-8"))
MEANINGS, UNITS = _TABLES["meanings"], _TABLES["units"]


def columns(wire=False, burst=False, settings=(), precision=False, load=False, explain=False,
            percentiles=stat_fields()):
    """Every column, the time statistics of `percentiles` (case_stats.stat_fields); the
    wire-bytes ones (wire.py) only for a run that counted them, the burst and load ones
    (burst.py, load.py) only for a run with such cases, a setting's (plan/settings.py) only for
    a run where some case has it at another value than its default, the precision ones for a
    run with a precision target."""
    return (CASE_COLUMNS + [_stat_name(f) for f in percentiles] + ["outliers_removed"]
            + [f"raw_{_stat_name(f)}" for f in RAW_COLUMNS] + ROUND_COLUMNS
            + (PRECISION_COLUMNS if precision else []) + list(PATTERN_COLUMNS)
            + (["server_model"] if burst or load else []) + (list(BURST_FIELDS) if burst else [])
            + (list(LOAD_FIELDS) if load else []) + list(settings)
            + (list(WIRE_COLUMNS) if wire else [])
            + (list(EXPLAIN_COLUMNS) + list(MODEL_COLUMNS) if explain else []) + TAIL_COLUMNS)


def _stat_name(field):
    return field if field == "count" else f"{field}_ns"


def render(page, options=None):
    """cases.csv of the page's records."""
    records = page.records
    out = io.StringIO()
    wire = any("wire_req_bytes" in r for r in records)
    burst = any(patterns.of_record(r).phases for r in records)
    load = any("achieved_per_s" in r for r in records)
    varied = {n for r in records for n, _ in setting_table.chosen(r.get("settings"))}
    shown = [n for n in setting_table.NAMES if n in varied]
    precision = any(r.get("precision_target") for r in records)
    explain = any(r.get("explain_client_voluntary") is not None for r in records)
    fields = stat_fields(chosen_percentiles(page.document))
    writer = csv.DictWriter(out, fieldnames=columns(wire, burst, shown, precision, load, explain,
                                                    fields),
                            lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for record in records:
        writer.writerow(_flatten(record, fields))
    return out.getvalue()


def _flatten(record, fields):
    row = {c: _cell(record.get(c)) for c in CASE_COLUMNS + list(PATTERN_COLUMNS) + TAIL_COLUMNS
           + [w for w in (*WIRE_COLUMNS, *EXPLAIN_COLUMNS) if w in record]
           + [b for b in ("server_model", *BURST_FIELDS, *LOAD_FIELDS) if b in record]
           if c not in ("samples_file", "warmup_samples", "warnings")}
    row.update({n: _cell(v) for n, v in (record.get("settings") or {}).items()})
    trimmed, raw = record.get("trimmed") or {}, record.get("raw") or {}
    for f in fields:
        row[_stat_name(f)] = _cell(trimmed.get(f))
    for f in RAW_COLUMNS:
        row[f"raw_{_stat_name(f)}"] = _cell(raw.get(f))
    row["outliers_removed"] = _cell(record.get("outliers_removed"))
    ok_rounds = [r for r in record.get("rounds") or [] if r.get("status") == "ok"]
    row["rounds"] = len(ok_rounds) if record.get("status") in ("ok", "failed") else ""
    row["round_spread"] = _cell(record.get("round_spread"))
    row["median_ci_low_ns"] = _cell(record.get("median_ci_low"))
    row["median_ci_high_ns"] = _cell(record.get("median_ci_high"))
    stable = record.get("stable")
    row["stable"] = "" if stable is None else str(stable).lower()
    width, met = precision_of(record)
    row["median_ci_rel"], row["precision_met"] = _cell(width), "" if met is None else str(met).lower()
    row["samples_file"] = "; ".join(r["samples_file"] for r in ok_rounds if r.get("samples_file"))
    row["warmup_samples"] = _cell([r["warmup_samples"] for r in ok_rounds
                                   if r.get("warmup_samples") is not None] or None)
    row["warnings"] = "; ".join(w["text"] if isinstance(w, dict) else str(w)
                                for w in record.get("warnings") or [])
    return row


PHASE_COLUMNS = ("case_id", "side", "phase", "count", "mean_ns", "ci95_low_ns", "ci95_high_ns",
                 "median_ns", "p99_ns", "max_ns")


def render_phases(page, options=None):
    """phases.csv of the page's records, or None when none is a burst case."""
    if not any(patterns.of_record(r).phases for r in page.records):
        return None
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(PHASE_COLUMNS)
    for record in page.records:
        for row in record.get("phases") or []:
            writer.writerow([record["id"], *(_phase_cell(row.get(c)) for c in PHASE_COLUMNS[1:])])
    return out.getvalue()


def _phase_cell(value):
    if value is None:
        return ""
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(map(str, value)) if all(isinstance(v, int) for v in value) else "; ".join(value)
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e6 else f"{value:.1f}"
    return value
