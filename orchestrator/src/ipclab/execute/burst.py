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
  has ended, where the server listens: in its network namespace under --link, on its host over
  ssh under [hosts] (somaxconn too: it is per namespace). The case reports after − before,
  summed over rounds (TIME_WAIT: the last round's count at the end). They count the whole
  namespace or host: anything else there adds to them.
- conns/s is the client's connections_ok × 10^9 / burst_ns (release to last close), the median
  over rounds.
"""
import csv
import io
import json
from dataclasses import replace

import numpy as np

from ipclab.execute.places import LOCAL
from ipclab.records.fields import BURST_CLIENT_PHASES, BURST_COUNTERS, BURST_PHASES

PHASES, CLIENT_PHASES, COUNTERS = BURST_PHASES, BURST_CLIENT_PHASES, BURST_COUNTERS
SERVER_WAIT = 30.0  # seconds a burst server gets to finish its last connections by itself
FAILED_WAIT = 2.0   # ... when some connections failed: those that never reached it never will


# --- the runner's side ----------------------------------------------------------------------------

def server_flags(case, run, case_dir):
    return ["--server-model", case.server_model, "--connections", str(run.connections),
            "--phases-file", str(case_dir / "phases.csv"), "--backlog", str(run.backlog)]


def drive_flags(case, run, case_dir):
    return ["--pattern", case.pattern.name, "--connections", str(run.connections),
            "--connectors", str(run.connectors), "--processes", str(run.processes),
            *exchange_flags(case, run, case_dir)]


def exchange_flags(case, run, case_dir):
    """A client's sizes, io timeout and three files: a burst's and a load's alike."""
    return ["--request-size", str(case.request_size), "--response-size", str(case.response_size),
            "--io-timeout", f"{run.io_timeout:g}",
            "--samples-file", str(case_dir / "samples.i64"),
            "--records-file", str(case_dir / "records.csv"),
            "--result-file", str(case_dir / "result.json")]


def before(place):
    """What the runner keeps from before the server starts: the kernel's counters where the
    server will listen (places.Place)."""
    return read_counters(place)


def finish(server, case_dir):
    """After the client: a burst server ends by itself once it served every connection."""
    server.wait(server_wait(case_dir))


def units(case, run, result):
    """Connections the client made, ok or not (--explain counts per connection)."""
    return result.get("connections_ok", 0) + result.get("connections_failed", 0)


def calibration_run(run):
    """--explain's calibration pair: one connection."""
    return replace(run, connections=1)


def ok_samples(case, run, result):
    """Samples an ok client writes: one per connection that went well (11.4.4)."""
    return result.get("connections_ok")


def searches(case):
    """A burst case is run as given (load.py's rate sweep searches)."""
    return False


# A burst server ends by itself (exit 0): killed or failed, the refused connections that follow
# are not a result, so its death fails the case.
SERVER_ENDS_ITSELF = True


def server_wait(case_dir):
    """How long to let the server end by itself once the client is done: a connection the client
    gave up on may never have reached it, and then it waits for ever (it is stopped and writes
    the connections it saw)."""
    try:
        result = json.loads((case_dir / "result.json").read_text())
    except (OSError, ValueError):
        return FAILED_WAIT
    return SERVER_WAIT if result.get("connections_failed") == 0 else FAILED_WAIT


def read_counters(place):
    """The kernel's TCP counters now in `place`'s network namespace or host, None where a file
    cannot be read."""
    found = dict.fromkeys(COUNTERS)
    names = {"ListenOverflows": "listen_overflows", "ListenDrops": "listen_drops",
             "TCPSynRetrans": "syn_retrans"}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        try:
            found.update(parse_counters(place.read_text(path), names))
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


def somaxconn(place):
    """The kernel's cap on a listen backlog where the server listens (per network namespace)."""
    try:
        return int(place.read_text("/proc/sys/net/core/somaxconn").strip())
    except (OSError, ValueError):
        return None


def collect(case_dir, before, run, time_wait, place):
    """The round's burst part: counters' differences where the server listened (`place`), the
    backlog asked and the kernel's cap there, the two per-connection files' text (kept in the run
    directory for plots): the server's phases from where it ran, the client's records from here
    (where spread.py merges those of several hosts)."""
    after = read_counters(place)
    def text(name, where):
        try:
            return where.case_file(case_dir / name).decode(errors="replace")
        except OSError:
            return None
    delta = {k: (after[k] - before[k] if after.get(k) is not None and before.get(k) is not None
                 else None) for k in COUNTERS}
    return {**delta, "backlog": run.backlog, "somaxconn": somaxconn(place), "time_wait": time_wait,
            "phases_text": text("phases.csv", place), "records_text": text("records.csv", LOCAL)}


# --- spread over client hosts (spread.py) -----------------------------------------------------

def shares(case, run, hosts):
    """(case, run) per client host: the connections split as evenly as can be, each host with
    the scenario's connectors and processes (as the study ran 200 threads on each host)."""
    return [(case, replace(run, connections=n, connectors=min(run.connectors, n)))
            for n in even_split(run.connections, hosts)]


def even_split(total, parts):
    """`total` over `parts` hosts, as even as can be (the first ones get one more)."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def merge_hosts(hosts, case_dir):
    """One client's files from the hosts' (spread.HostFiles): records.csv with `host` and
    `start_ns` (the start in ns since the agreed release on our time line: its host's offset
    from its own release plus how late that release came), renumbered in the order of those
    starts; the samples of those that went well, host by host; a result with the sums, `burst_ns` from the
    agreed release to the last end, and a row per host."""
    rows, lines, samples = [], [], []
    for host in hosts:
        mine = _on_agreed_line(host)
        rows += mine
        samples += [int(r["total_ns"]) for r in mine if not r["error"]]
        starts = [int(r["start_ns"]) for r in mine] or [0]
        lines.append(host.row(ok=host.result.get("connections_ok"),
                              failed=host.result.get("connections_failed"),
                              rate_per_s=host.result.get("conns_per_s"),
                              first_start_ns=min(starts), start_spread_ns=max(starts) - min(starts),
                              end_ns=(host.result.get("burst_ns") or 0)
                              + (host.result.get("release_late_ns") or 0)))
    rows.sort(key=lambda r: int(r["start_ns"]))
    for index, row in enumerate(rows):
        row["conn_index"] = str(index)
    _write_csv(case_dir / "records.csv", rows)
    ok_rows = [r for r in rows if not r["error"]]
    # the hosts' samples one host after the other, as its `ok` says (analyse/hosts.py splits them)
    np.asarray(samples, dtype="<i8").tofile(case_dir / "samples.i64")
    errors = {}
    for row in rows:
        if row["error"]:
            errors[row["error"]] = errors.get(row["error"], 0) + 1
    burst_ns = max(line.pop("end_ns") for line in lines)
    merged = {key: value for key, value in hosts[0].result.items()
              if key not in ("release_ns", "release_late_ns")}  # one host's clock
    merged.update(connections=len(rows), connections_ok=len(ok_rows),
                  connections_failed=len(rows) - len(ok_rows), errors=errors,
                  slow_connects=sum(int(r["slow_connect"] or 0) for r in rows), burst_ns=burst_ns,
                  conns_per_s=len(ok_rows) * 1e9 / burst_ns if burst_ns else 0.0,
                  samples=len(ok_rows), iterations=len(rows), hosts=lines)
    (case_dir / "result.json").write_text(json.dumps(merged))


def _on_agreed_line(host):
    release = int(host.result.get("release_ns") or 0)
    late = int(host.result.get("release_late_ns") or 0)
    rows = list(csv.DictReader(io.StringIO(host.records)))
    for row in rows:
        row["host"] = host.name
        row["start_ns"] = str(int(row["connect_start_ns"]) - release + late)
    return rows


def _write_csv(path, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[*rows[0].keys()] if rows else ["conn_index"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


# --- what a round keeps ---------------------------------------------------------------------------

def round_entry(outcome, key):
    """A burst round's figures for run.json under `key` (the pattern row's entry_key): the
    client's counts, the counters, where its files are kept, and every connection's phase times
    (what the case's summary pools)."""
    if outcome.status != "ok":
        return {}
    b, client = outcome.part or {}, outcome.client or {}
    keep = ("connections", "connections_ok", "connections_failed", "slow_connects", "errors",
            "burst_ns", "conns_per_s", "hosts")  # hosts: a row per client host (spread.py)
    values = phase_values(b.get("phases_text"), b.get("records_text"))
    return {key: {**{k: client.get(k) for k in keep},
                      **{k: b.get(k) for k in (*COUNTERS, "backlog", "somaxconn", "time_wait",
                                               "phases_file", "records_file")},
                      "values": {f"{side}:{phase}": v for (side, phase), v in values.items()}}}


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


def save_files(run_dir, case, round_index, info):
    """Writes a round's per-connection files to RUN/<pattern>/ (RUN/burst/) and notes their names
    in `info`."""
    folder = run_dir / case.pattern.name
    folder.mkdir(exist_ok=True)
    for key, suffix in (("phases_text", "phases.csv"), ("records_text", "records.csv")):
        if info.get(key):
            name = f"{case.pattern.name}/{case.id}.r{round_index}.{suffix}"
            (run_dir / name).write_text(info[key])
            info[key.replace("_text", "_file")] = name
