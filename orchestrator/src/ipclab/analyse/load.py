"""Pattern load (PROTOCOL.md 11.5): a case's figures from its ok rounds' reductions
(execute/load.py states the methods and keeps each round's), and whether the schedule was kept.

The case's response-time median, p99 and intervals come from its samples like any other case's
(case_stats.py), untrimmed: under load the tail is the result (the row's `keeps_tail`). Here: the
achieved rate (median over rounds), the percentiles of response, service and lateness (each the
median over rounds of the round's nearest-rank percentile), the errors, and two checks per round:
- the client kept its schedule: its own lateness p99 (what it alone is late by, not the waits
  for the previous answer on its connection) at most CLIENT_LATE_NS;
- the rate was achieved: at least ACHIEVED_SHARE of the target.
"""
import statistics

from ipclab.analyse import hosts, reduce, stats
from ipclab.common.units import format_ns
from ipclab.plan import patterns

# The pattern whose row's `execute` names the execute/ module of this module's name.
PART = __name__.rpartition(".")[2]
CLIENT_LATE_NS = 1_000_000   # a client more than 1 ms behind its own schedule (p99) did not keep it
ACHIEVED_SHARE = 0.99        # of the target rate
TIMES = ("response", "service", "lateness", "client_lateness")
PERCENTILES = (50, 90, 99, 99.9, 100)   # of each time, per round
# The fields a load case adds to its record (and cases.csv).
FIELDS = ("achieved_per_s", "target_per_s", "requests_ok", "requests_failed", "errors",
          *(f"{t}_{p}" for t in TIMES for p in ("p50", "p90", "p99", "p99_9", "max")),
          "schedule_kept", "rate_achieved", "knee_per_s", "knee_low", "knee_high", "slo_ns")


def reductions(times):
    """A round's nearest-rank percentiles of each time ({name: int64 array}, execute/load.py's
    request_times): what a round's entry keeps and a rate sweep's step is judged by; empty
    without requests."""
    return {name: {_pname(p): int(v) for p, v in reduce.ranked(times[name], PERCENTILES).items()}
            for name in TIMES if times.get(name) is not None and times[name].size}


def _pname(p):
    return "max" if p == 100 else f"p{p:g}".replace(".", "_")


def figures(record):
    """A load case's fields ({} for other patterns)."""
    pattern = patterns.of_record(record)
    if pattern.execute != PART:
        return {}
    out = dict.fromkeys(FIELDS)
    rounds = [e[pattern.entry_key] for e in record.get("rounds") or []
              if e.get("status") == "ok" and e.get(pattern.entry_key)]
    if not rounds:
        return out
    out["target_per_s"] = rounds[0].get("rate")
    out["achieved_per_s"] = _median(r.get("achieved_per_s") for r in rounds)
    for key in ("requests_ok", "requests_failed"):
        out[key] = sum(r.get(key) or 0 for r in rounds)
    errors = {}
    for r in rounds:
        for kind, n in (r.get("errors") or {}).items():
            errors[kind] = errors.get(kind, 0) + n
    out["errors"] = "; ".join(f"{k} {n}" for k, n in sorted(errors.items())) or None
    for name in TIMES:
        for p in ("p50", "p90", "p99", "p99_9", "max"):
            out[f"{name}_{p}"] = _median((r.get(name) or {}).get(p) for r in rounds)
    out["schedule_kept"] = all(_client_kept(r) for r in rounds)
    out["rate_achieved"] = all(_rate_achieved(r) for r in rounds)
    knees = [r["knee_per_s"] for r in rounds if r.get("knee_per_s") is not None]
    if any("steps" in r for r in rounds):  # a rate sweep: the knee over rounds, its range
        out["knee_per_s"] = _median(knees)
        out["knee_low"], out["knee_high"] = (min(knees), max(knees)) if knees else (None, None)
        out["slo_ns"] = _median(r.get("slo_ns") for r in rounds)
    out.update(hosts.figures(rounds))
    return out


def warnings(record):
    """The schedule's warnings, naming the side that limited it; a sweep's steps beyond its knee
    are expected to fail and are not warned about."""
    out = []
    if record.get("slo_ns") is not None:  # a sweep: no step passed is the one thing to say
        if record.get("knee_per_s") is None:
            out.append(stats.advise("no-knee", f"no rate kept the SLO of "
                                               f"{format_ns(record['slo_ns'])}"))
        return out
    if record.get("schedule_kept") is False:
        out.append(stats.advise("client-late", (
            f"the {record['client']} client's own lateness p99 was "
            f"{format_ns(record.get('client_lateness_p99') or 0)} (over "
            f"{format_ns(CLIENT_LATE_NS)} in a round)")))
    if record.get("rate_achieved") is False:
        out.append(stats.advise("below-rate", (
            f"achieved {record.get('achieved_per_s') or 0:,.0f} of {record.get('target_per_s'):,} "
            f"requests/s")))
    return out


def _client_kept(entry):
    late = (entry.get("client_lateness") or {}).get("p99")
    return late is not None and late <= CLIENT_LATE_NS


def _rate_achieved(entry):
    achieved, target = entry.get("achieved_per_s"), entry.get("rate")
    return bool(achieved and target) and achieved >= ACHIEVED_SHARE * target


def _median(values):
    found = [v for v in values if v is not None]
    return float(statistics.median(found)) if found else None
