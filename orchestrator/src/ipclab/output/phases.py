"""Pattern burst (PROTOCOL.md 11.4): phases.csv, one row per case, side and phase, and a phase's
mean with its interval as the tables write it (output/study.py lays out the published study's
Table 1). Pure functions of the case records (analyse/burst.py computed each record's `phases`)."""
import csv
import io

from ipclab.common.units import format_ns, format_ns_interval
from ipclab.plan import patterns

COLUMNS = ("case_id", "side", "phase", "count", "mean_ns", "ci95_low_ns", "ci95_high_ns",
           "median_ns", "p99_ns", "max_ns")


def has_phases(records):
    return any(patterns.of_record(r).phases for r in records)


def to_csv(records):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for record in records:
        for row in record.get("phases") or []:
            writer.writerow([record["id"], *(_cell(row.get(c)) for c in COLUMNS[1:])])
    return out.getvalue()


def _cell(value):
    if value is None:
        return ""
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def mean_and_ci(row):
    """"33.24 ms [21.02–61.50]": the mean and its 95% interval (a bootstrap one, so not
    symmetric: burst.py says why)."""
    if row.get("ci95_high_ns") is None:
        return format_ns(row["mean_ns"])
    return format_ns_interval(row["mean_ns"], row["ci95_low_ns"], row["ci95_high_ns"])
