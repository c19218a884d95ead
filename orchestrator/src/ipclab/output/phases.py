"""Pattern burst (PROTOCOL.md 11.4): each burst case's phases per connection, on the page (their
numbers are phases.csv, csv.py), and a phase's mean with its interval as the tables write it
(study.py lays out the published study's Table 1). Pure: a Report's phase rows (analyse/burst.py
computed each record's `phases`) in, a Section out."""
from ipclab.common.units import format_ns, format_ns_interval
from ipclab.output.page import PAGE_ONLY, Section, Table

HEADERS = ("#", "case", "side", "phase", "count", "mean [95% CI]", "median", "p99", "max")
RIGHT = tuple(i in (0, 4, 5, 6, 7, 8) for i in range(len(HEADERS)))


def mean_and_ci(row):
    """"33.24 ms [21.02–61.50]": the mean and its 95% interval (a bootstrap one, so not
    symmetric: burst.py says why)."""
    if row.get("ci95_high_ns") is None:
        return format_ns(row["mean_ns"])
    return format_ns_interval(row["mean_ns"], row["ci95_low_ns"], row["ci95_high_ns"])


def sections(report):
    """Each burst case's phases: mean with its interval, median, p99, max."""
    if not report.phases:
        return []
    by_id = {r["id"]: r for r in report.records}
    rows = []
    for row in report.phases:
        record = by_id.get(row["case_id"], {})
        case = " ".join(str(x) for x in (record.get("mechanism"), record.get("server_model"),
                                          f"{record.get('client')}→{record.get('server')}") if x)
        rows.append((str(record.get("index", "")), case, row["side"], row["phase"],
                     str(row.get("count") or 0), mean_and_ci(row),
                     format_ns(row.get("median_ns")), format_ns(row.get("p99_ns")),
                     format_ns(row.get("max_ns"))))
    return [Section("phases", "phases of each connection (bursts)", tables=(Table(
        HEADERS, tuple(rows), RIGHT, caption="Mean time of each phase with its 95% bootstrap "
        "interval, per case and side (phases.csv)."),), media=PAGE_ONLY)]
