"""From outcomes (raw samples) to records (statistics, ratios, warnings). Pure: no I/O."""
from ipclab import stats

STAT_FIELDS = ("count", "min", "mean", "std", "median", "p90", "p99", "p99_9", "max",
               "ci95_low", "ci95_high")


def case_record(outcome):
    """The saved form of one case, before statistics: inputs, status, provenance."""
    case = outcome.case
    return {
        **case.as_dict(), "status": outcome.status, "reason": outcome.reason,
        **outcome.cpus, "seconds": round(outcome.seconds, 3), "notes": list(outcome.notes),
        "warmup": (outcome.client or {}).get("warmup"),
        "client_runtime": (outcome.client or {}).get("runtime"),
        "server_runtime": (outcome.server or {}).get("runtime"),
        "samples_file": None,
    }


def analyse(record, samples, settings):
    """Adds raw and trimmed statistics and advice to `record` (a dict) in place."""
    record["raw"] = record["trimmed"] = None
    record["outliers_removed"] = None
    record["warnings"] = []
    if samples is None or len(samples) == 0:
        return record
    kept, removed = stats.remove_outliers(samples, settings.outliers, settings.tukey_k)
    raw = stats.summarize(samples)
    trimmed = stats.summarize(kept) if len(kept) else raw
    record["raw"], record["trimmed"] = raw.as_dict(), trimmed.as_dict()
    record["outliers_removed"] = removed
    record["warnings"] = stats.advice(trimmed, raw.count, removed)
    return record


def add_ratios(records, settings):
    """Each ok record gets `ratio`: its statistic over the baseline case's with the same sizes,
    pattern and placement (unless the baseline names them). No baseline, no ratio."""
    selector = settings.baseline
    for record in records:
        record["ratio"] = None
        record["baseline_id"] = None
    if not selector:
        return records
    by_key = {}
    for record in records:
        if record["status"] == "ok" and all(record[k] == v for k, v in selector.items()):
            by_key.setdefault(_match_key(record, selector), record)
    for record in records:
        base = by_key.get(_match_key(record, selector))
        if record["status"] == "ok" and base is not None:
            record["ratio"] = stats.ratio(record["trimmed"][settings.compare],
                                          base["trimmed"][settings.compare])
            record["baseline_id"] = base["id"]
    return records


def _match_key(record, selector):
    # A case is compared with the baseline of its own sizes, pattern and placement, except where
    # the baseline fixes one of those itself.
    return tuple(record.get(k) for k in ("request_size", "response_size", "payload",
                                         "sequence_length", "pattern", "placement")
                 if k not in selector)


def baseline_label(settings):
    sel = settings.baseline
    if not sel:
        return None
    return "/".join(str(sel[k]) for k in ("mechanism", "client", "server", "placement", "pattern")
                    if k in sel)
