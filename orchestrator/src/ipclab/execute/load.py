"""Pattern load (PROTOCOL.md 11.5): requests on a schedule over many persistent connections. What
the runner adds to a load case (both peers' flags, the client's per-request records file) and
what a round keeps of it: the records file itself in RUN/load/, its HdrHistogram interval logs
beside it, and a few reductions per round in run.json (analyse/load.py combines the rounds).

Methods, stated once (docs/load.md says why):
- Response time = received − intended start: the time a user waits, coordinated omission
  corrected. Service time = received − sent: what a closed-loop client would have recorded.
  Lateness = sent − intended start; the part of it the client alone is to blame for is
  sent − max(intended start, the previous response on the same connection): a connection whose
  previous request has not come back waits for it (the server's delay, not the client's).
- Percentiles are nearest-rank over the round's measured requests without error
  (analyse/load.py's reductions, kept in the round's entry).
- Achieved rate: the client's `achieved_per_s` (ok measured requests over the time from the
  measured part's start to its last response).
- A rate sweep (`--rate sweep`) is one round made of steps, each a fresh pair of peers at one
  rate: a step passes when its response p99 kept the SLO (--slo; by default 3 × the first
  step's p99) and it kept its rate: every measured request answered without error, the last no
  later than the SLO after the schedule's end (rate_kept says why not 99% of the achieved rate).
  From --sweep-from the rate doubles until a step fails (or halves until one passes), then
  bisects between the highest pass and the lowest failure until they are within
  SWEEP_RESOLUTION of each other or SWEEP_STEPS steps were run.
  The knee is the highest rate that passed; the round keeps that step's samples and files.
"""
import csv
import dataclasses
import io
import json
import numpy as np

from ipclab.analyse import load as figures
from ipclab.execute import burst
from ipclab.plan import settings as setting_table
from ipclab.records import hdr

COLUMNS = ("request", "connection", "measured", "intended_ns", "sent_ns", "received_ns", "error")
KEEP = ("clients", "rate", "arrival", "duration_ms", "warmup_ms", "requests_ok",
        "requests_failed", "errors", "achieved_per_s", "lateness_p99_ns",
        "hosts")  # hosts: a row per client host (spread.py)
SERVER_ENDS_ITSELF = False
HDR_INTERVAL_NS = 10**9           # one interval histogram per second of intended starts


# --- the runner's side ----------------------------------------------------------------------------

def server_flags(case, run, case_dir):
    return ["--pattern", case.pattern.name, "--server-model", case.server_model]


def drive_flags(case, run, case_dir):
    """The schedule's times and the files; its clients, rate and arrival are settings."""
    return ["--pattern", case.pattern.name,
            "--duration-ms", str(max(1, round(run.duration * 1000))),
            "--warmup-ms", str(round(run.load_warmup * 1000)),
            *burst.exchange_flags(case, run, case_dir)]


def before(place):
    return None


def finish(server, case_dir):
    """A load server runs until it is stopped: nothing to wait for."""


def units(case, run, result):
    """Measured requests the client counted, ok or failed (--explain counts per request)."""
    return result.get("requests_ok", 0) + result.get("requests_failed", 0)


def calibration_run(run):
    """--explain's calibration pair: the same warm-up, then a millisecond of the schedule (its
    first requests are the measured pair's)."""
    return dataclasses.replace(run, duration=0.001)


def ok_samples(case, run, result):
    """Samples an ok client writes: one per measured request without error (11.5.3)."""
    return result.get("requests_ok")


def collect(case_dir, before, run, time_wait, place):
    try:
        return {"records_text": (case_dir / "records.csv").read_text()}
    except OSError:
        return {}


# --- what a round keeps ---------------------------------------------------------------------------

def round_entry(outcome, key):
    """A load round's figures for run.json under `key`: the client's counts and rate, and the
    percentiles of its records (what analyse/load.py combines over rounds)."""
    if outcome.status != "ok":
        return {}
    client, part = outcome.client or {}, outcome.part or {}
    times = request_times(part.get("records_text") or "")
    return {key: {**{k: client.get(k) for k in KEEP},
                  **figures.reductions(times), "records_file": part.get("records_file"),
                  "hdr_files": part.get("hdr_files"),
                  **{k: part[k] for k in ("steps", "knee_per_s", "slo_ns") if k in part}}}


def request_times(text):
    """{name: int64 array} of the measured requests without error: response, service, lateness
    and the client's own lateness (see the module's methods), and intended (ns from T0). The
    records may carry more columns after the contract's (merge_hosts adds the host)."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or tuple(rows[0][:len(COLUMNS)]) != COLUMNS:
        return {}
    body = rows[1:]
    before = _previous_answers(body)
    picked = [row for row in body if row[2] == "1" and not row[6] and row[4] and row[5]]
    intended = np.array([int(r[3]) for r in picked], dtype=np.int64)
    sent = np.array([int(r[4]) for r in picked], dtype=np.int64)
    received = np.array([int(r[5]) for r in picked], dtype=np.int64)
    previous = np.array([before[int(r[0])] for r in picked], dtype=np.int64)
    return {"intended": intended, "response": received - intended, "service": received - sent,
            "lateness": sent - intended, "client_lateness": sent - np.maximum(intended, previous)}


def _previous_answers(body):
    """{request: when the previous request on its connection was answered (0: none, or never)}."""
    out, last = {}, {}
    for row in sorted(body, key=lambda r: (int(r[1]), int(r[0]))):
        out[int(row[0])] = last.get(row[1], 0)
        last[row[1]] = int(row[5]) if row[5] else 0
    return out


def save_files(run_dir, case, round_index, info):
    """Writes a round's records to RUN/load/<id>.r<k>.records.csv and its response and service
    times as HdrHistogram interval logs (.response.hlog, .service.hlog), noting their names."""
    folder = run_dir / case.pattern.name
    folder.mkdir(exist_ok=True)
    text = info.get("records_text")
    if not text:
        return
    stem = f"{case.pattern.name}/{case.id}.r{round_index}"
    (run_dir / f"{stem}.records.csv").write_text(text)
    info["records_file"] = f"{stem}.records.csv"
    times = request_times(text)
    if times and times["intended"].size:
        info["hdr_files"] = {}
        for name in ("response", "service"):
            path = f"{stem}.{name}.hlog"
            write_hdr_log(run_dir / path, times["intended"], times[name])
            info["hdr_files"][name] = path


def write_hdr_log(path, intended, values):
    """An HdrHistogram interval log (records/hdr.py): one histogram per second of intended
    starts, values in ns."""
    seconds = intended // HDR_INTERVAL_NS
    last = int(seconds.max()) if intended.size else -1
    intervals = ((second, second + 1, values[seconds == second]) for second in range(last + 1))
    path.write_text(hdr.log_text(intervals, "ipclab load: response or service times in ns, "
                                            "by intended start"))


# --- spread over client hosts (spread.py) -----------------------------------------------------

def shares(case, run, hosts):
    """(case, run) per client host: the clients split as evenly as can be, the rate in
    proportion (largest remainders, so the shares add up to it)."""
    settings = dict(case.settings)
    clients, rate = settings[setting_table.CLIENTS.name], settings[setting_table.RATE.name]
    counts = burst.even_split(clients, hosts)
    exact = [rate * n / clients for n in counts]
    rates = [int(x) for x in exact]
    for i in sorted(range(hosts), key=lambda i: int(exact[i]) - exact[i])[:rate - sum(rates)]:
        rates[i] += 1
    return [(dataclasses.replace(case, settings=tuple(
        (n, {setting_table.CLIENTS.name: c, setting_table.RATE.name: r}.get(n, v))
        for n, v in case.settings)), run) for c, r in zip(counts, rates)]


def merge_hosts(hosts, case_dir):
    """One client's files from the hosts' (spread.HostFiles): the records of each host after
    the other's, requests and connections renumbered to stay apart, times moved onto the agreed
    release (each host's T0 came its release_late_ns after it), with its `host`; the samples
    (response times) of all; a result with the sums, the achieved rate the sum of the hosts'."""
    out, rows, lines = io.StringIO(), [], []
    request_base = connection_base = 0
    for host in hosts:
        body = list(csv.reader(io.StringIO(host.records)))[1:]
        late = int(host.result.get("release_late_ns") or 0)
        for r in body:
            rows.append([str(int(r[0]) + request_base), str(int(r[1]) + connection_base), r[2],
                         *(str(int(t) + late) if t else "" for t in r[3:6]), r[6], host.name])
        request_base += len(body)
        connection_base += int(host.result.get("clients") or 0)
        lines.append(host.row(ok=host.result.get("requests_ok"),
                              failed=host.result.get("requests_failed"),
                              rate_per_s=host.result.get("achieved_per_s")))
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows([[*COLUMNS, "host"], *rows])
    (case_dir / "records.csv").write_text(out.getvalue())
    (case_dir / "samples.i64").write_bytes(b"".join(host.samples for host in hosts))
    merged = {k: v for k, v in hosts[0].result.items() if k != "release_late_ns"}
    for key in ("iterations", "warmup", "samples", "clients", "rate", "requests_ok",
                "requests_failed"):
        merged[key] = sum(int(h.result.get(key) or 0) for h in hosts)
    merged["errors"] = {}
    for host in hosts:
        for kind, n in (host.result.get("errors") or {}).items():
            merged["errors"][kind] = merged["errors"].get(kind, 0) + n
    merged["achieved_per_s"] = sum(float(h.result.get("achieved_per_s") or 0) for h in hosts)
    merged["lateness_p99_ns"] = max((h.result.get("lateness_p99_ns") for h in hosts
                                     if h.result.get("lateness_p99_ns") is not None), default=None)
    merged["hosts"] = lines
    (case_dir / "result.json").write_text(json.dumps(merged))


# --- rate sweep -------------------------------------------------------------------------------------

SWEEP_STEPS, SWEEP_RESOLUTION, SLO_FACTOR = 14, 0.05, 3


def searches(case):
    """Whether the case's rate is to be found (--rate sweep) rather than given."""
    return dict(case.settings).get(setting_table.RATE.name) == setting_table.SWEEP


def at_rate(case, rate):
    """The case with its rate setting at `rate`."""
    settings = tuple((n, rate if n == setting_table.RATE.name else v) for n, v in case.settings)
    return dataclasses.replace(case, settings=settings)


def search(run_step, case, run, passes=None):
    """One sweep round (the module's methods): `run_step(case at a rate)` runs one fresh pair and
    returns its Outcome; returns the Outcome of the knee's step (or of the first step that did
    not end ok, or the first step when none passed) for `case`, with every step in its part.
    `passes(step, slo)` judges a step (its figures: rate, achieved_per_s, response_p99,
    client_late_p99); by default the SLO and the achieved rate."""
    sweep = Sweep(run_step, case, run, passes or within_slo)
    rate = run.sweep_from
    passed = sweep.step(rate)
    while passed is not None and len(sweep.steps) < SWEEP_STEPS:
        if sweep.low is None and rate > 1:          # bracket downwards until one passes
            rate = max(1, rate // 2)
        elif sweep.high is None and rate * 2 <= setting_table.RATE.most:   # or upwards
            rate *= 2
        elif sweep.low and sweep.high and (sweep.high - sweep.low) / sweep.low > SWEEP_RESOLUTION:
            rate = (sweep.low + sweep.high) // 2
        else:
            break
        passed = sweep.step(rate)
    return sweep.result()


def within_slo(step, slo):
    """A sweep step passes when its response p99 kept the SLO and it kept its rate."""
    return step["response_p99"] is not None and step["response_p99"] <= slo and rate_kept(step, slo)


def rate_kept(step, slo):
    """Every measured request answered without error, the last by the schedule's end plus the SLO.
    Why not `achieved_per_s` ≥ 99% of the rate: in a step of 400 ms that fails whenever the very
    last answer takes over ~6 ms (the client's figure runs to the last answer), and a Poisson
    schedule's count of arrivals (±7% at 500/s over 400 ms) alone misses 99% about every other
    step. A server past its capacity still fails: its backlog grows for the whole step, so its
    last answer comes later and later."""
    return (step.get("requests_failed") == 0 and step.get("overrun_ns") is not None
            and step["overrun_ns"] <= slo)


class Sweep:
    """The steps of one sweep round and the bracket they have narrowed."""

    def __init__(self, run_step, case, run, passes):
        self.run_step, self.case, self.passes = run_step, case, passes
        self.slo = run.slo and int(run.slo * 1e9)
        self.warmup, self.duration = run.load_warmup, run.duration
        self.steps, self.low, self.high, self.best, self.first, self.broken = [], None, None, None, None, None

    def step(self, rate):
        """Runs one step; True if it passed, False if not, None if it did not end ok."""
        outcome = self.run_step(at_rate(self.case, rate))
        self.first = self.first or outcome
        if outcome.status != "ok":
            self.broken = outcome
            self.steps.append({"rate": rate, "status": outcome.status})
            return None
        times = request_times((outcome.part or {}).get("records_text") or "")
        found = figures.reductions(times)
        p99 = found.get("response", {}).get("p99")
        self.slo = self.slo or (p99 and SLO_FACTOR * p99)
        client = outcome.client or {}
        step = {"rate": rate, "status": "ok", "achieved_per_s": client.get("achieved_per_s") or 0,
                "requests_failed": client.get("requests_failed", 0),
                "overrun_ns": self._overrun(times),
                "response_p99": p99, "client_late_p99": found.get("client_lateness", {}).get("p99")}
        passed = step["passed"] = bool(self.passes(step, self.slo))
        self.steps.append(step)
        if passed and (self.low is None or rate > self.low):
            self.low, self.best = rate, outcome
        if not passed and (self.high is None or rate < self.high):
            self.high = rate
        return passed

    def _overrun(self, times):
        """How long after the schedule's end (warm-up + duration) the last answer came (ns; ≤ 0
        when it came in time), None without answers."""
        if not times or not times["intended"].size:
            return None
        last = int((times["intended"] + times["response"]).max())
        return last - round((self.warmup + self.duration) * 1e9)

    def result(self):
        outcome = self.broken or self.best or self.first
        part = {**(outcome.part or {}), "steps": self.steps, "knee_per_s": self.low,
                "slo_ns": self.slo}
        return dataclasses.replace(outcome, case=self.case, part=part)

