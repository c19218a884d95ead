"""A case whose clients were spread over hosts (execute/spread.py): a row per client host over
its ok rounds, for the client-hosts table (output/client_hosts.py). Its round entries keep the
rows the pattern's merge made (`hosts`: ok, failed, rate_per_s, release_late_ns, clock offset;
a burst's also first_start_ns and start_spread_ns)."""
import statistics

import numpy as np

from ipclab.analyse import stats
from ipclab.plan import patterns


def figures(rounds):
    """{"client_hosts": rows} when the rounds were spread over hosts, else {}."""
    if not any(r.get("hosts") for r in rounds):
        return {}
    by_host = {}
    for r in rounds:
        for row in r.get("hosts") or []:
            by_host.setdefault(row["host"], []).append(row)
    return {"client_hosts": [_row(host, rows) for host, rows in by_host.items()]}


def _row(host, rows):
    """Sums of ok and failed, medians of the rate, first start and start spread, the latest
    release, the last round's clock offset and its uncertainty."""
    def median(key):
        values = [x[key] for x in rows if x.get(key) is not None]
        return float(statistics.median(values)) if values else None
    return {"host": host, "rounds": len(rows), "ok": sum(x.get("ok") or 0 for x in rows),
            "failed": sum(x.get("failed") or 0 for x in rows), "rate_per_s": median("rate_per_s"),
            "first_start_ns": median("first_start_ns"), "start_spread_ns": median("start_spread_ns"),
            "release_late_ns": max(x.get("release_late_ns") or 0 for x in rows),
            "clock_offset_ns": rows[-1].get("clock_offset_ns"),
            "clock_uncertainty_ns": rows[-1].get("clock_uncertainty_ns")}


def analyse(record, rounds, settings, rng):
    """For a case spread over hosts: each host's samples per round (the merged samples are its
    hosts' one after the other, `ok` of each), the median's interval over hosts, rounds and
    samples, each host's median with its interval in its client_hosts row, and a warning when
    a host differs from the others. Nothing for other cases, or when a round's hosts do not
    account for its samples."""
    cells = _cells(record, rounds, settings)
    if cells is None:
        return []
    names, cells = cells
    record["median_ci_low"], record["median_ci_high"] = stats.host_median_ci(cells, rng)
    pooled = [np.sort(np.concatenate(host)) for host in cells]
    medians = [float(np.median(x)) for x in pooled]
    intervals = [stats.median_ci_of_round(x) for x in pooled]
    for row in record.get("client_hosts") or []:
        if row["host"] in names:
            i = names.index(row["host"])
            row["median_ns"], (row["median_ci_low_ns"], row["median_ci_high_ns"]) = \
                medians[i], intervals[i]
    if len(cells) > 1 and stats.rounds_disagree(medians, intervals):
        slow = names[int(np.argmax(medians))]
        return [stats.advise("host-differs", f"{slow}'s median is "
                             f"{max(medians) / min(medians):.2f}× the fastest host's")]
    return []


def _cells(record, rounds, settings):
    """(host names, cells[h][r]: host h's samples in round r inside the case's outlier fences)."""
    pattern = patterns.of_record(record)
    if not pattern.spreads:
        return None
    entries = {e["round"]: (e.get(pattern.entry_key) or {}).get("hosts")
               for e in record.get("rounds") or [] if e.get("status") == "ok"}
    names = None
    by_host = {}
    fences = _fences(rounds, record, settings)
    for r, x in rounds.items():
        rows = entries.get(r)
        if not rows or sum(row.get("ok") or 0 for row in rows) != len(x):
            return None
        if names is None:
            names = [row["host"] for row in rows]
        if [row["host"] for row in rows] != names:
            return None
        start = 0
        for row in rows:
            part = np.asarray(x[start:start + row["ok"]])
            start += row["ok"]
            if fences is not None:
                part = part[(part >= fences[0]) & (part <= fences[1])]
            by_host.setdefault(row["host"], []).append(np.sort(part))
    cells = [by_host[n] for n in names or []]
    if not cells or any(c.size == 0 for host in cells for c in host):
        return None
    return names, cells


def _fences(rounds, record, settings):
    if patterns.of_record(record).outliers(settings.outliers) != "tukey":
        return None
    return stats.tukey_fences(np.concatenate(list(rounds.values())), settings.tukey_k)
