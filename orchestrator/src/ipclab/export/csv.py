"""cases.csv: one row per case, every statistic in nanoseconds, failures with their reason."""
import csv
import io

from ipclab.analysis import STAT_FIELDS

CASE_COLUMNS = ["id", "index", "mechanism", "client", "server", "request_size", "response_size",
                "payload", "sequence_length", "placement", "pattern", "status", "reason", "client_cpus", "server_cpus"]
RAW_COLUMNS = ["count", "mean", "std", "median", "p99", "max"]
TAIL_COLUMNS = ["ratio", "baseline_id", "client_runtime", "server_runtime", "seconds",
                "samples_file", "warnings"]


def columns():
    return (CASE_COLUMNS + [_stat_name(f) for f in STAT_FIELDS] + ["outliers_removed"]
            + [f"raw_{_stat_name(f)}" for f in RAW_COLUMNS] + TAIL_COLUMNS)


def _stat_name(field):
    return field if field == "count" else f"{field}_ns"


def to_csv(records):
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns(), lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow(_flatten(record))
    return out.getvalue()


def _flatten(record):
    row = {c: _cell(record.get(c)) for c in CASE_COLUMNS + TAIL_COLUMNS}
    trimmed, raw = record.get("trimmed") or {}, record.get("raw") or {}
    for f in STAT_FIELDS:
        row[_stat_name(f)] = _cell(trimmed.get(f))
    for f in RAW_COLUMNS:
        row[f"raw_{_stat_name(f)}"] = _cell(raw.get(f))
    row["outliers_removed"] = _cell(record.get("outliers_removed"))
    return row


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(map(str, value)) if all(isinstance(v, int) for v in value) else "; ".join(value)
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e6 else f"{value:.1f}"
    return value
