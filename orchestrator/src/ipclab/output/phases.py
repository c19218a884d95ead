"""Pattern burst (PROTOCOL.md 11.4): phases.csv, one row per case, side and phase, and the
published study's Table 1 shape (rows: phases; columns: server models; cells: mean ± 95% CI).
Pure functions of the case records (burst.py computed each record's `phases`)."""
import csv
import io

from ipclab.execute.burst import PHASES
from ipclab.common.units import format_ns, format_ns_interval

COLUMNS = ("case_id", "side", "phase", "count", "mean_ns", "ci95_low_ns", "ci95_high_ns",
           "median_ns", "p99_ns", "max_ns")


def has_phases(records):
    return any(r.get("pattern") == "burst" for r in records)


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


def server_models(records, versus=None):
    """The study's Table 1: one column per burst case (its server model, and the pair when the
    run has several), one row per server phase; a phase the model does not have is "—"."""
    from ipclab.output.study import Study  # study.py lists this shape: import it late
    cases = [r for r in records if r.get("pattern") == "burst" and r["status"] in ("ok", "failed")]
    if not cases:
        return []
    pairs = {(r["client"], r["server"]) for r in cases}
    headers = ["phase"] + [r["server_model"] + (f"\n{r['client']}→{r['server']}"
                                                if len(pairs) > 1 else "") for r in cases]
    by_case = [{row["phase"]: row for row in r.get("phases") or [] if row["side"] == "server"}
               for r in cases]
    rows = []
    for phase in PHASES:
        cells = [phase]
        for record, phases in zip(cases, by_case):
            if record["status"] != "ok":
                cells.append("failed")
            else:
                cells.append(mean_and_ci(phases[phase]) if phase in phases else "—")
        rows.append(cells)
    rows.append(["conns/s"] + [f"{r['conns_per_s']:.0f}" if r.get("conns_per_s") else "-"
                               for r in cases])
    rows.append(["failed connections"] + [str(r.get("connections_failed") or 0) for r in cases])
    rows.append(["ListenOverflows"] + [_count(r.get("listen_overflows")) for r in cases])
    n = cases[0].get("connections")
    caption = ("server phases per connection, mean ± half width of its 95% confidence interval "
               "(Student's t over every connection of every ok round), as the study's Table 1; "
               "— : the model has no such phase; conns/s: connections served / the burst's "
               f"duration (median of rounds); {n} connections per case over all rounds; "
               "ListenOverflows: the kernel's counter over the case (machine-wide)")
    return [Study(title="server models: phases per connection", headers=tuple(headers),
                  right=tuple([False] + [True] * len(cases)), rows=rows, caption=caption,
                  failed=[f"case {r['index']}: {r['reason']}" for r in cases
                          if r["status"] == "failed"], wrap=True)]


def _count(value):
    return "-" if value is None else str(value)
