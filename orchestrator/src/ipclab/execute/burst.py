"""Pattern burst (PROTOCOL.md 11.4): a burst of near-simultaneous connections against one server
model, with the server's per-connection phases. What the runner adds to a burst case (its flags,
the kernel's TCP counters around it, the files it collects) and what the analysis makes of it
(the case's figures, one summary row per side and phase). Pure functions except where a name
says it reads /proc.

Methods, stated once:
- A phase's statistics pool every connection of every ok round: count, mean with its 95%
  confidence interval, median, p99, max. A phase that does not apply to the model has no row.
  The interval is the percentile bootstrap of the mean (stats.bootstrap_mean_ci), not the
  published study's Student's t: a few 1 s SYN retransmissions among thousands of sub-millisecond
  connections put mean − t·s/√n below zero, which no duration can be.
- Kernel counters (TcpExt ListenOverflows, ListenDrops, TCPSynRetrans from /proc/net/netstat;
  TIME_WAIT sockets from /proc/net/tcp{,6}) are read just before the server starts and after it
  has ended; the case reports after − before, summed over rounds (TIME_WAIT: the last round's
  count at the end). They are machine-wide: anything else on the machine adds to them.
- conns/s is the client's connections_ok × 10^9 / burst_ns (release to last close), the median
  over rounds.
"""
import csv
import io
import json
import statistics

import numpy as np

from ipclab.analyse import stats

# Every server model the contract names (11.4); which language has which comes from its peer's
# capabilities (server_models).
MODELS = ("iterative", "thread", "virtual-thread", "process", "thread-pool", "process-pool",
          "epoll", "epoll-reuseport", "io_uring", "nio", "asyncio")
PHASES = ("accept", "loop", "spawn", "start_delay", "transfer", "total")
CLIENT_PHASES = ("connect", "response", "total")
COUNTERS = ("listen_overflows", "listen_drops", "syn_retrans")
# The fields a burst case adds to its record (and cases.csv); server_model is the case's own.
FIELDS = ("connections", "connections_ok", "connections_failed", "slow_connects", "errors",
          "backlog", "somaxconn", *COUNTERS, "time_wait_after")
RUN_LIMITS = {"connectors": 10000, "processes": 64, "backlog": 65535}  # the contract's ranges
SERVER_WAIT = 30.0  # seconds a burst server gets to finish its last connections by itself
FAILED_WAIT = 2.0   # ... when some connections failed: those that never reached it never will


# --- the runner's side ----------------------------------------------------------------------------

def server_flags(case, run, case_dir):
    return ["--server-model", case.server_model, "--connections", str(run.connections),
            "--phases-file", str(case_dir / "phases.csv"), "--backlog", str(run.backlog)]


def drive_flags(case, run, case_dir):
    return ["--pattern", "burst", "--connections", str(run.connections),
            "--connectors", str(run.connectors), "--processes", str(run.processes),
            "--request-size", str(case.request_size), "--response-size", str(case.response_size),
            "--io-timeout", f"{run.io_timeout:g}",
            "--samples-file", str(case_dir / "samples.i64"),
            "--records-file", str(case_dir / "records.csv"),
            "--result-file", str(case_dir / "result.json")]


def server_wait(case_dir):
    """How long to let the server end by itself once the client is done: a connection the client
    gave up on may never have reached it, and then it waits for ever (it is stopped and writes
    the connections it saw)."""
    try:
        result = json.loads((case_dir / "result.json").read_text())
    except (OSError, ValueError):
        return FAILED_WAIT
    return SERVER_WAIT if result.get("connections_failed") == 0 else FAILED_WAIT


def read_counters():
    """The kernel's TCP counters now (machine-wide), None where a file is missing."""
    found = dict.fromkeys(COUNTERS)
    names = {"ListenOverflows": "listen_overflows", "ListenDrops": "listen_drops",
             "TCPSynRetrans": "syn_retrans"}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        try:
            with open(path) as f:
                found.update(parse_counters(f.read(), names))
        except OSError:
            continue
    return found


def parse_counters(text, names):
    """{our name: value} from /proc/net/netstat or snmp's pairs of header and value lines."""
    out = {}
    lines = text.splitlines()
    for header, values in zip(lines[::2], lines[1::2]):
        keys, nums = header.split()[1:], values.split()[1:]
        for key, num in zip(keys, nums):
            if key in names and num.lstrip("-").isdigit():
                out[names[key]] = int(num)
    return out


def somaxconn():
    try:
        with open("/proc/sys/net/core/somaxconn") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def collect(case_dir, before, after, run, time_wait):
    """The round's burst part: counters' differences, the backlog asked and the kernel's cap, the
    two per-connection files' text (kept in the run directory for plots)."""
    def text(name):
        try:
            return (case_dir / name).read_text()
        except OSError:
            return None
    delta = {k: (after[k] - before[k] if after.get(k) is not None and before.get(k) is not None
                 else None) for k in COUNTERS}
    return {**delta, "backlog": run.backlog, "somaxconn": somaxconn(), "time_wait": time_wait,
            "phases_text": text("phases.csv"), "records_text": text("records.csv")}


# --- the analysis' side ---------------------------------------------------------------------------

def round_entry(outcome):
    """A burst round's figures for run.json: the client's counts, the counters, where its files
    are kept, and every connection's phase times (what the case's summary pools)."""
    b, client = outcome.burst or {}, outcome.client or {}
    keep = ("connections", "connections_ok", "connections_failed", "slow_connects", "errors",
            "burst_ns", "conns_per_s")
    values = phase_values(b.get("phases_text"), b.get("records_text"))
    return {"burst": {**{k: client.get(k) for k in keep},
                      **{k: b.get(k) for k in (*COUNTERS, "backlog", "somaxconn", "time_wait",
                                               "phases_file", "records_file")},
                      "values": {f"{side}:{phase}": v for (side, phase), v in values.items()}}}


def figures(record):
    """A burst case's fields (None for other patterns): sums over ok rounds, conns/s median."""
    out = dict.fromkeys(FIELDS)
    if record.get("pattern") != "burst":
        return {}
    rounds = [e["burst"] for e in record.get("rounds") or []
              if e.get("status") == "ok" and e.get("burst")]
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
    return out


def phase_values(phases_text, records_text):
    """{(side, phase): [ns, ...]} of one round's two files; empty fields are skipped."""
    out = {}
    for side, text, names in (("server", phases_text, PHASES),
                              ("client", records_text, CLIENT_PHASES)):
        if not text:
            continue
        for row in csv.DictReader(io.StringIO(text)):
            if side == "client" and row.get("error"):
                continue  # a failed connection's times are of its failure
            for name in names:
                cell = row.get(f"{name}_ns")
                if cell:
                    out.setdefault((side, name), []).append(int(cell))
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


def save_files(run_dir, case_id, round_index, info):
    """Writes a round's per-connection files to RUN/burst/ and notes their names in `info`."""
    folder = run_dir / "burst"
    folder.mkdir(exist_ok=True)
    for key, suffix in (("phases_text", "phases.csv"), ("records_text", "records.csv")):
        if info.get(key):
            name = f"burst/{case_id}.r{round_index}.{suffix}"
            (run_dir / name).write_text(info[key])
            info[key.replace("_text", "_file")] = name
