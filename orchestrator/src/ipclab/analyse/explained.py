"""--explain's model of a case's time: what its counted calls would cost at this machine's floors
(execute/floors.py), beside the measured median.

    predicted ≈ system calls × one call's cost + bytes copied × a byte's copy cost
                + wake-ups × one wake-up's cost

per round trip (rr) or connection (short), both sides summed: in a round trip one side's calls
follow the other's. Bytes copied are (request + response) × the mechanism's copies
(protocol/mechanisms.toml); wake-ups are the voluntary context switches (a side that blocked and
had to be woken), priced at the same-core wake-up for same-core cases and the cross-core one
otherwise. What the model leaves out (the language's and the framework's own work, interrupts,
cache misses) is the unexplained rest: where it is most of the median, that is a finding. Streams,
bursts and loads are not modelled: their sides and connections work at once, so their costs do
not add up to one message's, connection's or request's time."""
from ipclab.plan import patterns

SIDES = ("client", "server")
PARTS = ("syscalls", "copies", "wakeups")
FIELDS = (*(f"explain_model_{p}_ns" for p in PARTS), "explain_model_ns", "explain_model_share")


def add_model(records, floors):
    """Sets FIELDS on every counted record (None where the model does not apply); without floors
    (a run saved before they were measured) the records keep what they have."""
    if not floors or "syscall_ns" not in floors:
        return
    for record in records:
        if record.get("explain_client_voluntary") is None:
            continue
        record.update(dict.fromkeys(FIELDS))
        parts = model(record, floors)
        if parts:
            record.update({f"explain_model_{k}_ns": v for k, v in parts["parts"].items()},
                          explain_model_ns=parts["total"], explain_model_share=parts["share"])


def model(record, floors):
    """{"parts": {part: ns or None}, "total": ns, "share": of the median} or None (a stream, a
    burst, a load; no floors, no median)."""
    median, pattern = median_of(record), patterns.of_record(record)
    if not floors or "syscall_ns" not in floors or not median or not pattern.explains_time():
        return None
    parts = {"syscalls": _both(record, "syscalls", floors["syscall_ns"]),
             "copies": _copies(record, floors),
             "wakeups": _both(record, "voluntary", _wake_ns(record, floors))}
    total = sum(v for v in parts.values() if v is not None)
    return {"parts": parts, "total": total, "share": total / median}


def median_of(record):
    """The case's median time (after outlier removal), ns, or None."""
    return (record.get("trimmed") or {}).get("median")


def _both(record, count, price):
    values = [record.get(f"explain_{side}_{count}") for side in SIDES]
    if price is None or all(v is None for v in values):
        return None
    return max(sum(v for v in values if v is not None), 0.0) * price


def _copies(record, floors):
    copies = record.get("explain_copies")
    per_byte = floors.get("copy_ns_per_byte") or {}
    if copies is None:
        return None
    total = 0.0
    for size in (record.get("request_size"), record.get("response_size")):
        price = per_byte.get(str(size))
        if size and price is None:
            return None
        total += copies * (size or 0) * (price or 0.0)
    return total


def _wake_ns(record, floors):
    wake = floors.get("wake_ns") or {}
    return wake.get("same-core" if record.get("placement") == "same-core" else "cross-core")


# What `ipclab compare` reports as a changed cost: per call and side, at least this much apart in
# absolute terms and relatively (counts per call of a noisy run move by a few hundredths).
CHANGED = {"syscalls": 0.5, "voluntary": 0.3, "involuntary": 0.3, "page_faults": 0.5,
           "migrations": 0.3}
CHANGED_SHARE = 0.2


def changed_costs(a, b):
    """["client syscalls 2.0 → 4.0", ...]: the counted costs per call that differ between two
    records of one case (A's, B's), by at least CHANGED and CHANGED_SHARE of the larger."""
    out = []
    for side in SIDES:
        for name, least in CHANGED.items():
            va, vb = (r.get(f"explain_{side}_{name}") for r in (a, b))
            if va is None or vb is None:
                continue
            if abs(vb - va) >= least and abs(vb - va) >= CHANGED_SHARE * max(abs(va), abs(vb)):
                out.append(f"{side} {name.replace('_', ' ')} {va:.1f} → {vb:.1f}")
    return out
