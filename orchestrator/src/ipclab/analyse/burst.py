"""Pattern burst (PROTOCOL.md 11.4): a case's figures from its ok rounds, and one summary row per
side and phase (execute/burst.py states the methods and keeps each round's values)."""
import statistics

import numpy as np

from ipclab.analyse import hosts, stats
from ipclab.records.fields import BURST_CLIENT_PHASES as CLIENT_PHASES
from ipclab.records.fields import BURST_COUNTERS as COUNTERS
from ipclab.records.fields import BURST_PHASES as PHASES
from ipclab.plan import patterns

# The fields a burst case adds to its record (and cases.csv); server_model is the case's own.
FIELDS = ("connections", "connections_ok", "connections_failed", "slow_connects", "errors",
          "backlog", "somaxconn", *COUNTERS, "time_wait_after")


def figures(record):
    """A burst case's fields (None for other patterns): sums over ok rounds, conns/s median."""
    out = dict.fromkeys(FIELDS)
    pattern = patterns.of_record(record)
    if not pattern.phases:
        return {}
    rounds = [e[pattern.entry_key] for e in record.get("rounds") or []
              if e.get("status") == "ok" and e.get(pattern.entry_key)]
    if not rounds:
        return out
    for key in ("connections", "connections_ok", "connections_failed", "slow_connects",
                *COUNTERS):
        values = [r.get(key) for r in rounds if r.get(key) is not None]
        out[key] = sum(values) if values else None
    errors = {}
    for r in rounds:
        for kind, n in (r.get("errors") or {}).items():
            errors[kind] = errors.get(kind, 0) + n
    out["errors"] = "; ".join(f"{k} {n}" for k, n in sorted(errors.items())) or None
    out["backlog"], out["somaxconn"] = rounds[-1].get("backlog"), rounds[-1].get("somaxconn")
    out["time_wait_after"] = rounds[-1].get("time_wait")
    rates = [r["conns_per_s"] for r in rounds if r.get("conns_per_s") is not None]
    out["conns_per_s"] = float(statistics.median(rates)) if rates else None
    out["phases"] = summarise(rounds)
    out.update(hosts.figures(rounds))
    return out


def summarise(rounds):
    """One row per side and phase over every ok round's connections."""
    pooled = {}
    for r in rounds:
        for key, values in (r.get("values") or {}).items():
            pooled.setdefault(key, []).extend(values)
    rows = []
    order = [("server", p) for p in PHASES] + [("client", p) for p in CLIENT_PHASES]
    for side, phase in order:
        values = pooled.get(f"{side}:{phase}")
        if values:
            rows.append({"side": side, "phase": phase, **describe(values)})
    return rows


def describe(values):
    x = np.asarray(values, dtype=float)
    n, mean = x.size, float(x.mean())
    low, high = stats.bootstrap_mean_ci(x) if n > 1 else (None, None)
    return {"count": int(n), "mean_ns": mean, "ci95_low_ns": low, "ci95_high_ns": high,
            "median_ns": float(np.median(x)), "p99_ns": float(np.percentile(x, 99)),
            "max_ns": float(x.max())}


def warnings(record):
    """A burst's warnings: none beyond the time statistics' own (its failed connections are figures)."""
    return []
