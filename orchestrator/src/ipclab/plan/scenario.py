"""Scenario files (TOML) and command-line overrides, validated into one Scenario.

Every error names where the bad value came from (the file and key, or the flag) and the value.
"""
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ipclab.common.errors import UserError
from ipclab.plan import claims as claim_table
from ipclab.plan import hosts, patterns, report_spec
from ipclab.plan.validator import (  # noqa: F401 (the scenario's vocabulary, re-exported)
    MAX_PAYLOAD, PLACEMENTS, DEFAULT_PLACEMENT, PATTERNS, OUTLIER_RULES,
    PAYLOADS, MAX_SEQUENCE_LENGTH, MATRIX_AXES, VOID, BASELINE_KEYS, Validator)
from ipclab.records.fields import BURST_PHASES

DEFAULT_SCENARIO = "scenarios/quick.toml"  # what `ipclab run` and `hosts check` run without one

@dataclass
class RunSettings:
    iterations: int = 1000
    warmup: int = 200
    # Warm-up moves at most this many bytes per case (but always at least one round trip): 1000
    # warm-up round trips are right for 16 B and absurd for 128 MiB (256 GiB of copying).
    warmup_max_bytes: int = 1 << 30
    # In-process calls (none, direct, jni, ffm, ctypes: nanoseconds each) warm up at least this
    # many calls (0: as warmup), so that a JIT has compiled what is measured: HotSpot compiles a
    # method with C2 after about 5 000 calls or 15 000 calls and loop iterations together.
    warmup_inprocess: int = 0
    seed: int = 1
    case_timeout: float = 300.0   # seconds a whole case may take before it is failed
    ready_timeout: float = 30.0   # seconds a server may take to print READY
    io_timeout: float = 10.0      # seconds one receive may wait (matters for udp)
    # Every case runs in this many rounds, each a fresh pair of peers; round 1 of every case,
    # then round 2 of every case, …, in an order shuffled per round from the seed.
    rounds: int = 3
    # Precision on demand: after the rounds above (at least 3), more rounds for the cases whose
    # median interval is still wider than ± precision of the median (0.05: ±5%), widest first,
    # until every case meets it, the budget (seconds of the whole run) is spent, or MAX_ROUNDS.
    precision: float | None = None
    budget: float | None = None
    preflight: float = 1.0        # seconds of C floor ping-pong per placement before the run; 0: none
    # Pattern stream (PROTOCOL.md 11.1): messages per stream (each round a fresh stream), and the
    # windows it is cut into, one sample each.
    messages: int = 100000
    windows: int = 10
    # The link between client and server (plan/link.py): loopback, veth, veth:RATE; and whether to
    # count each call's bytes on the wire (wire.py). Both need root.
    link: str = "loopback"
    wire_bytes: bool = False
    # Each peer under perf stat: system calls, context switches, migrations, page faults and CPU
    # per call and side, from the measured pair and a calibration pair (execute/explain.py).
    explain: bool = False
    # Pattern burst (PROTOCOL.md 11.4, execute/burst.py): connections per burst, connector threads per
    # client process, client processes, the server's listen() backlog.
    connections: int = 1000
    connectors: int = 200
    processes: int = 1
    backlog: int = 512
    # Pattern load (PROTOCOL.md 11.5, execute/load.py): seconds of the measured schedule, and of
    # the warm-up at the same rate before it (its clients, rate and arrival are settings).
    duration: float = 5.0
    load_warmup: float = 1.0
    # --rate sweep: the first step's rate, and the p99 response time a step must keep (seconds;
    # None: 3 × the first step's p99).
    sweep_from: int = 1000
    slo: float | None = None


@dataclass
class StatSettings:
    outliers: str = "tukey"
    tukey_k: float = 1.5
    compare: str = "median"       # the statistic ratios are taken of
    baseline: dict = field(default_factory=dict)
    # Rounds left out of every statistic, from the first: a study that discarded its first runs
    # (class loading, caches) is reproduced by leaving them out too. Their samples stay saved.
    skip_rounds: int = 0
    # The percentiles the tables and cases.csv show (max always beside them), e.g. 99.99.
    percentiles: tuple = (50.0, 90.0, 99.0, 99.9)


@dataclass
class ReportSettings:
    # The human table (table.md and the terminal): "cases", one row per case, or the shape of a
    # published study (output/study.py), e.g. "stream-cpu".
    table: str = "cases"
    versus: str = "tcp"           # a study's ratios: each mechanism over this one, same pair
    # table = "pivot" (output/pivot.py): the axes of the rows, the axis of the columns, the
    # statistic in a cell, and the column value every cell is divided by ("× jni", "% of tcp").
    rows: list = field(default_factory=list)
    columns: str | None = None
    cell: str | list = "median"   # a list: one table per statistic
    ratio_to: dict | None = None  # {axis: value}; in the file also a plain column value
    ratio_as: str = "times"
    figures: list = field(default_factory=list)  # the studies' figures to add (report_spec.py)


@dataclass
class Scenario:
    name: str
    description: str
    source: str
    matrix: dict
    run: RunSettings
    statistics: StatSettings
    report: ReportSettings = field(default_factory=ReportSettings)
    hosts: dict = field(default_factory=dict)  # [hosts]: the server on another host (hosts.py)
    claims: list = field(default_factory=list)  # [[claim]]: the study's conclusions (claims.py)
    broker: str | None = None  # [hosts] broker: an existing broker's amqp:// URL (hosts.py)
    # [hosts] redis, redis_socket, nats: an existing Redis or NATS server per mechanism
    # (hosts.py, 4.10, 4.11)
    servers: dict = field(default_factory=dict)

    def named_server(self, mech):
        """The existing server a scenario names for `mech`'s rounds (hosts.py), or None: each
        round then starts its own (execute/endpoints.py)."""
        if mech.broker != "activemq":
            return self.servers.get(mech.name)
        return self.broker

    def as_dict(self):
        return {"name": self.name, "description": self.description, "source": self.source,
                "matrix": self.matrix, "run": vars(self.run), "statistics": vars(self.statistics),
                "report": vars(self.report), "hosts": self.hosts, "broker": self.broker,
                **({"servers": self.servers} if self.servers else {}),
                "claims": [c.as_dict() for c in self.claims]}


def load_scenario(path, catalog, overrides=None):
    """Reads `path` (or starts from defaults when None), applies overrides, validates."""
    raw, source = ({}, "<defaults>") if path is None else (_read(path), str(path))
    name = raw.get("name", Path(path).stem if path else "adhoc")
    return build_scenario(raw, source, catalog, overrides or {}, name)


def _read(path):
    p = Path(path)
    if not p.is_file():
        raise UserError(f"{path}: no such scenario file")
    try:
        with open(p, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: not valid TOML: {e}") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror}") from None


def build_scenario(raw, source, catalog, overrides, name):
    _reject_unknown_keys(raw, source)
    v = Validator(source, catalog)
    matrix_raw = raw.get("matrix", {})
    run_raw, stat_raw = raw.get("run", {}), raw.get("statistics", {})
    matrix_raw, overrides = _void_reply(matrix_raw, overrides)
    matrix = {axis: v.axis(axis, *_pick(matrix_raw, overrides, axis, f"matrix.{axis}"))
              for axis in MATRIX_AXES}
    sizes = _contract_sizes(matrix, matrix_raw, overrides)
    if sizes:
        matrix["request_size"], matrix["response_size"] = [sizes[0]], [sizes[1]]
    # "zip": request_size[i] goes with response_size[i] (symmetric tables); "product": all pairs.
    matrix["sizes"] = v.choice(*_pick(matrix_raw, overrides, "sizes", "matrix.sizes"),
                               SIZE_PAIRING, "product")
    if matrix["sizes"] == "zip" and len(matrix["request_size"]) != len(matrix["response_size"]):
        v.fail_at("matrix.sizes", "'zip' needs as many request sizes as response sizes")
    flagged = {axis for axis in MATRIX_AXES if overrides.get(axis) is not None}
    matrix["exclude"] = v.exclusions(matrix_raw.get("exclude"), matrix, flagged=flagged)
    matrix["design"] = v.design(matrix_raw.get("design"), matrix, flagged=flagged)
    run = RunSettings(**{
        key: v.number(key, *_pick(run_raw, overrides, key, f"run.{key}"), default)
        for key, default in vars(RunSettings()).items() if key not in LINK_KEYS})
    run.precision = v.percentage(*_pick(_with_rounds_asked(run_raw, overrides), overrides,
                                        "precision", "run.precision"))
    run.budget = v.duration(*_pick(run_raw, overrides, "budget", "run.budget"))
    _load_times(v, run, run_raw, overrides)
    run.link = v.link(*_pick(run_raw, overrides, "link", "run.link"))
    run.wire_bytes = v.flag(*_pick(run_raw, overrides, "wire_bytes", "run.wire_bytes"), False)
    run.explain = v.flag(*_pick(run_raw, overrides, "explain", "run.explain"), False)
    for pattern, key, top in ((p, key, top) for p in patterns.PATTERNS.values()
                              for key, top in p.run_limits.items()):  # what the peers accept
        if getattr(run, key) > top:
            v.fail_at(_pick(run_raw, overrides, key, f"run.{key}")[1],
                      f"{getattr(run, key)!r} is over the {pattern.name} limit of {top}")
    stat = StatSettings(
        outliers=v.choice(*_pick(stat_raw, overrides, "outliers", "statistics.outliers"),
                          OUTLIER_RULES, "tukey"),
        tukey_k=v.number("tukey_k", *_pick(stat_raw, overrides, "tukey_k", "statistics.tukey_k"), 1.5),
        compare=v.choice(*_pick(stat_raw, overrides, "compare", "statistics.compare"),
                         ("median", "mean"), "median"),
        baseline=v.baseline(stat_raw.get("baseline", {})),
        skip_rounds=v.number("skip_rounds", *_pick(stat_raw, overrides, "skip_rounds",
                                                    "statistics.skip_rounds"), 0),
        percentiles=v.percentiles(*_pick(stat_raw, overrides, "percentiles",
                                         "statistics.percentiles"), StatSettings.percentiles),
    )
    if stat.skip_rounds >= run.rounds:
        v.fail_at(_pick(stat_raw, overrides, "skip_rounds", "statistics.skip_rounds")[1],
                  f"{stat.skip_rounds} leaves none of the {run.rounds} rounds to analyse")
    report_raw = raw.get("report", {})
    report = ReportSettings(
        table=v.choice(report_raw.get("table"), "report.table", report_spec.TABLE_NAMES, "cases"),
        versus=v.selector_value("variant", report_raw["versus"], "report.versus")
        if "versus" in report_raw else "tcp", **v.pivot(report_raw),
        figures=v.names(report_raw.get("figures"), "report.figures", report_spec.STUDY_FIGURES))
    _many_clients(v, matrix, catalog, _pick(matrix_raw, overrides, "mechanism",
                                            "matrix.mechanism")[1])
    claims = claim_table.parse(raw.get("claim"), source, v.selector_value, BURST_PHASES)
    return Scenario(name=str(name), description=str(raw.get("description", "")), source=source,
                    matrix=matrix, run=run, statistics=stat, report=report,
                    hosts=hosts.parse_hosts(raw.get("hosts"), source), claims=claims,
                    broker=hosts.parse_broker(raw.get("hosts"), source),
                    servers={**hosts.parse_redis(raw.get("hosts"), source),
                             **hosts.parse_nats(raw.get("hosts"), source)})


def _load_times(v, run, run_raw, overrides):
    """Pattern load's times (PROTOCOL.md 11.5): the measured schedule, its warm-up (0 allowed)
    and a sweep's SLO (None: relative to the first step), as durations like "500ms"."""
    run.duration = v.duration(*_pick(run_raw, overrides, "duration", "run.duration"),
                              what="duration") or RunSettings.duration
    run.load_warmup = v.duration(*_pick(run_raw, overrides, "load_warmup", "run.load_warmup"),
                                 what="warm-up time", zero=True)
    if run.load_warmup is None:
        run.load_warmup = RunSettings.load_warmup
    run.slo = v.duration(*_pick(run_raw, overrides, "slo", "run.slo"), what="response-time SLO")


def _many_clients(v, matrix, catalog, where):
    """A run of patterns that all need a server of several clients (load) over a mechanism whose
    server has one is a mistake in the input, not a case (with another pattern beside it, those
    cases are only not applicable): every row's `mechanism_why_not` says why not."""
    rows = [patterns.of(p) for p in matrix["pattern"]]
    for name in matrix["mechanism"]:
        why = [row.mechanism_why_not(catalog.mechanism(name), catalog) for row in rows]
        if why and all(why):
            v.fail_at(where, why[0])


def _void_reply(matrix_raw, overrides):
    """`response_size = void` (a flag or the file's key, alone) is how a user asks for the void
    operations of PROTOCOL.md 10.1: the reply axis is "void" and the response carries 0 bytes."""
    def is_void(value):
        items = value.split(",") if isinstance(value, str) else value
        return isinstance(items, list) and [str(i).strip() for i in items] == [VOID]
    if is_void(overrides.get("response_size")):
        overrides = {**overrides, "response_size": "0", "reply": VOID}
    elif overrides.get("response_size") is None and is_void(matrix_raw.get("response_size")):
        matrix_raw = {**matrix_raw, "response_size": [0], "reply": [VOID]}
    return matrix_raw, overrides


def _with_rounds_asked(run_raw, overrides):
    """The [run] table, without its precision target when the command line asks for a number of
    rounds and no target: `--rounds 1` over a scenario with a target (quick.toml) means one
    round, not three and then more."""
    if overrides.get("rounds") is not None and overrides.get("precision") is None:
        return {k: v for k, v in run_raw.items() if k != "precision"}
    return run_raw


def _pick(section, overrides, key, file_key):
    """(value, where): the command-line value wins over the file's."""
    if overrides.get(key) is not None:
        return overrides[key], f"--{key.replace('_', '-')}"
    return section.get(key), file_key


def _contract_sizes(matrix, matrix_raw, overrides):
    """The (request, response) sizes of the pattern's row (burst: PROTOCOL.md 11.4's request and
    acknowledgement) when only that pattern runs and nobody chose sizes: the command line gave
    none and the file's sizes were written for its own patterns, not this one (e.g. `--pattern
    burst` over quick.toml, whose 16 B round trips are not the paper's 1000 B request and ack);
    else None."""
    chosen = any(overrides.get(k) is not None for k in ("request_size", "response_size"))
    if len(matrix["pattern"]) != 1 or chosen:
        return None
    name = matrix["pattern"][0]
    return None if name in (matrix_raw.get("pattern") or []) else patterns.of(name).default_sizes


SIZE_PAIRING = ("product", "zip")
LINK_KEYS = ("link", "wire_bytes", "explain", "precision", "budget", "duration",  # [run] keys
             "load_warmup", "slo")                     # that are not plain numbers

_KNOWN = {
    "name": None, "description": None,
    "matrix": set(MATRIX_AXES) | {"sizes", "exclude", "design"},
    "run": set(vars(RunSettings())),
    "statistics": set(vars(StatSettings())),
    "report": set(vars(ReportSettings())),
    "hosts": set(hosts.HOST_KEYS),
    "claim": None,   # an array of tables, checked by claims.parse
}


def _reject_unknown_keys(raw, source):
    for key, value in raw.items():
        if key not in _KNOWN:
            raise UserError(f"{source}: unknown key {key!r} (known: {', '.join(_KNOWN)})")
        allowed = _KNOWN[key]
        if allowed is None:
            continue
        if not isinstance(value, dict):
            raise UserError(f"{source}: {key} must be a table ([{key}]), not {value!r}")
        for sub in value:
            if sub not in allowed:
                raise UserError(f"{source}: unknown key '{key}.{sub}' "
                                f"(known: {', '.join(sorted(allowed))})")
