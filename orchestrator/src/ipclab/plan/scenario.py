"""Scenario files (TOML) and command-line overrides, validated into one Scenario.

Every error names where the bad value came from (the file and key, or the flag) and the value.
"""
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ipclab.common.errors import UserError
from ipclab.common.units import parse_size
from ipclab.plan import hosts, link, patterns, report_spec

MAX_PAYLOAD = 134217728
PLACEMENTS = ("same-core", "cross-core", "unpinned")
DEFAULT_PLACEMENT = "cross-core"
# PROTOCOL.md section 11: request–response, a one-way stream, a connection per round trip.
PATTERNS = patterns.NAMES
OUTLIER_RULES = ("tukey", "none")  # analyse/stats.py remove_outliers
# "bytes": the sized payloads of PROTOCOL.md section 3; the others are the structured records of
# section 10.2, which only RPC mechanisms carry.
PAYLOADS = ("bytes", "small", "medium", "large")
MAX_SEQUENCE_LENGTH = 1000000
MATRIX_AXES = ("mechanism", "client", "server", "request_size", "response_size", "payload",
               "sequence_length", "placement", "pattern", "message_size", "server_model")
BASELINE_KEYS = ("mechanism", "client", "server", "placement", "pattern")


@dataclass
class RunSettings:
    iterations: int = 1000
    warmup: int = 200
    # Warm-up moves at most this many bytes per case (but always at least one round trip): 1000
    # warm-up round trips are right for 16 B and absurd for 128 MiB (256 GiB of copying).
    warmup_max_bytes: int = 1 << 30
    seed: int = 1
    case_timeout: float = 300.0   # seconds a whole case may take before it is failed
    ready_timeout: float = 30.0   # seconds a server may take to print READY
    io_timeout: float = 10.0      # seconds one receive may wait (matters for udp)
    # Every case runs in this many rounds, each a fresh pair of peers; round 1 of every case,
    # then round 2 of every case, …, in an order shuffled per round from the seed.
    rounds: int = 3
    preflight: float = 1.0        # seconds of C floor ping-pong per placement before the run; 0: none
    # Pattern stream (PROTOCOL.md 11.1): messages per stream (each round a fresh stream), and the
    # windows it is cut into, one sample each.
    messages: int = 100000
    windows: int = 10
    # The link between client and server (plan/link.py): loopback, veth, veth:RATE; and whether to
    # count each call's bytes on the wire (wire.py). Both need root.
    link: str = "loopback"
    wire_bytes: bool = False
    # Pattern burst (PROTOCOL.md 11.4, execute/burst.py): connections per burst, connector threads per
    # client process, client processes, the server's listen() backlog.
    connections: int = 1000
    connectors: int = 200
    processes: int = 1
    backlog: int = 512


@dataclass
class StatSettings:
    outliers: str = "tukey"
    tukey_k: float = 1.5
    compare: str = "median"       # the statistic ratios are taken of
    baseline: dict = field(default_factory=dict)


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

    def as_dict(self):
        return {"name": self.name, "description": self.description, "source": self.source,
                "matrix": self.matrix, "run": vars(self.run), "statistics": vars(self.statistics),
                "report": vars(self.report), "hosts": self.hosts}


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
    v = _Validator(source, catalog)
    matrix_raw = raw.get("matrix", {})
    run_raw, stat_raw = raw.get("run", {}), raw.get("statistics", {})
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
    run = RunSettings(**{
        key: v.number(key, *_pick(run_raw, overrides, key, f"run.{key}"), default)
        for key, default in vars(RunSettings()).items() if key not in LINK_KEYS})
    run.link = v.link(*_pick(run_raw, overrides, "link", "run.link"))
    run.wire_bytes = v.flag(*_pick(run_raw, overrides, "wire_bytes", "run.wire_bytes"), False)
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
    )
    report_raw = raw.get("report", {})
    report = ReportSettings(
        table=v.choice(report_raw.get("table"), "report.table", report_spec.TABLE_NAMES, "cases"),
        versus=v.axis("mechanism", [report_raw["versus"]], "report.versus")[0]
        if "versus" in report_raw else "tcp", **v.pivot(report_raw))
    return Scenario(name=str(name), description=str(raw.get("description", "")), source=source,
                    matrix=matrix, run=run, statistics=stat, report=report,
                    hosts=hosts.parse_hosts(raw.get("hosts"), source))


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
LINK_KEYS = ("link", "wire_bytes")  # [run] keys that are not numbers

_KNOWN = {
    "name": None, "description": None,
    "matrix": set(MATRIX_AXES) | {"sizes"},
    "run": set(vars(RunSettings())),
    "statistics": set(vars(StatSettings())),
    "report": set(vars(ReportSettings())),
    "hosts": set(hosts.HOST_KEYS),
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


class _Validator:
    def __init__(self, source, catalog):
        self.source, self.catalog = source, catalog

    def fail_at(self, where, message):
        self._fail(where, message)

    def _fail(self, where, message):
        prefix = where if where.startswith("--") else f"{self.source}: {where}"
        raise UserError(f"{prefix}: {message}")

    def axis(self, axis, value, where):
        if value is None:
            return self._default_axis(axis)
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            self._fail(where, f"{value!r} must be a non-empty list")
        if axis.endswith("_size"):
            return [self._size(item, where) for item in items]
        if axis == "sequence_length":
            return list(dict.fromkeys(self._count(item, where) for item in items))
        allowed = self._allowed(axis)
        for item in items:
            if not isinstance(item, str) or item.strip() not in allowed:
                self._fail(where, f"unknown {axis} {item!r} (known: {', '.join(allowed)})")
        return list(dict.fromkeys(item.strip() for item in items))

    def _allowed(self, axis):
        if axis == "mechanism":
            return list(self.catalog.mechanisms)
        if axis in ("client", "server"):
            return list(self.catalog.languages)
        if axis == "payload":
            return list(PAYLOADS)
        if axis == "server_model":
            return list(patterns.SERVER_MODELS)
        return list(PLACEMENTS if axis == "placement" else PATTERNS)

    def _default_axis(self, axis):
        defaults = {"request_size": [16], "response_size": [16], "placement": [DEFAULT_PLACEMENT],
                    "pattern": [patterns.DEFAULT.name], "payload": ["bytes"], "sequence_length": [5],
                    "message_size": [1024]}
        return defaults.get(axis, self._allowed(axis))

    def _size(self, item, where):
        try:
            size = parse_size(item.strip() if isinstance(item, str) else item, where)
        except UserError as e:
            self._fail(where, str(e).split(": ", 1)[1])
        if size > MAX_PAYLOAD:
            self._fail(where, f"{item!r} is over the peer contract's maximum of 128MiB")
        return size

    def _count(self, item, where):
        text = item.strip() if isinstance(item, str) else item
        if isinstance(text, str) and text.isdigit():
            text = int(text)
        if not isinstance(text, int) or isinstance(text, bool) or not 0 <= text <= MAX_SEQUENCE_LENGTH:
            self._fail(where, f"{item!r} is not a sequence length (a whole number, 0 to "
                              f"{MAX_SEQUENCE_LENGTH})")
        return text

    def number(self, key, value, where, default):
        if value is None:
            return default
        given = value
        if key.endswith("_bytes") and isinstance(value, str):
            value = parse_size(value, where)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if isinstance(value, str):
            try:
                value = type(default)(value)
                ok = True
            except ValueError:
                ok = False
        minimum = 1 if key in ("iterations", "rounds", "messages", "windows", "connections",
                               "connectors", "processes", "backlog") else 0
        if not ok or value < minimum or (key.endswith("timeout") and value <= 0) \
                or (key == "tukey_k" and value <= 0) or (key == "seed" and value >= 2**64):
            self._fail(where, f"{given!r} is not a valid {key}")
        if isinstance(default, int) and value != int(value):
            self._fail(where, f"{given!r} is not a whole number")
        return type(default)(value)

    def link(self, value, where):
        try:
            return link.parse(value, where).text
        except UserError as e:
            self._fail(where, str(e).split(": ", 1)[1])

    def flag(self, value, where, default):
        if value is None:
            return default
        if not isinstance(value, bool):
            self._fail(where, f"{value!r} must be true or false")
        return value

    def choice(self, value, where, allowed, default):
        if value is None:
            return default
        if value not in allowed:
            self._fail(where, f"unknown value {value!r} (known: {', '.join(allowed)})")
        return value

    def pivot(self, raw):
        """[report] rows, columns, cell, ratio_to, ratio_as: only with table = "pivot", which
        needs rows and columns (distinct axes of plan/report_spec.py)."""
        keys = ("rows", "columns", "cell", "ratio_to", "ratio_as")
        given = [k for k in keys if k in raw]
        if raw.get("table") != "pivot":
            if given:
                self._fail(f"report.{given[0]}", f"{raw[given[0]]!r} applies only with "
                                                 f"table = \"pivot\"")
            return {}
        for key in ("rows", "columns"):
            if key not in raw:
                self._fail(f"report.{key}", "missing: table = \"pivot\" needs rows and columns")
        rows = raw["rows"] if isinstance(raw["rows"], list) else [raw["rows"]]
        if not rows or not all(isinstance(a, str) and a in report_spec.PIVOT_AXES for a in rows) \
                or len(set(rows)) != len(rows):
            self._fail("report.rows", f"{raw['rows']!r} must be distinct axes among "
                                      f"{', '.join(report_spec.PIVOT_AXES)}")
        columns = self.choice(raw["columns"], "report.columns", report_spec.PIVOT_AXES, None)
        if columns in rows:
            self._fail("report.columns", f"{columns!r} is also in report.rows")
        settings = {"rows": rows, "columns": columns,
                    "cell": self._cells(raw.get("cell")),
                    "ratio_as": self.choice(raw.get("ratio_as"), "report.ratio_as",
                                            report_spec.RATIO_FORMATS, "times"),
                    "ratio_to": None}
        if "ratio_to" in raw:
            settings["ratio_to"] = self._ratio_to(raw["ratio_to"], rows, columns)
        return settings

    def _cells(self, value):
        """One statistic of plan/report_spec.py PIVOT_CELLS, or a non-empty list of them."""
        if isinstance(value, list):
            if not value:
                self._fail("report.cell", "[] must name at least one statistic")
            return [self.choice(v, "report.cell", report_spec.PIVOT_CELLS, None) for v in value]
        return self.choice(value, "report.cell", report_spec.PIVOT_CELLS, "median")

    def _ratio_to(self, value, rows, columns):
        """{axis: value}: a plain value is one of the columns; { axis = value } names a row
        axis (or the column axis) itself."""
        if not isinstance(value, dict):
            return {columns: self._axis_value(columns, value)}
        if len(value) != 1 or next(iter(value)) not in (*rows, columns):
            self._fail("report.ratio_to", f"{value!r} must be one value of the columns "
                                          f"({columns}) or {{ axis = value }} with an axis of "
                                          f"rows or columns")
        axis, item = next(iter(value.items()))
        return {axis: self._axis_value(axis, item)}

    def _axis_value(self, axis, value):
        """One value of a pivot axis, checked as the matrix checks that axis."""
        where = "report.ratio_to"
        if axis == "pair":
            parts = str(value).replace("->", "→").split("→")
            if len(parts) != 2:
                self._fail(where, f"{value!r} is not a pair like \"java→cpp\"")
            return "→".join(self.axis("client", [p], where)[0] for p in parts)
        if isinstance(value, list):
            self._fail(where, f"{value!r} must be one value of {axis}")
        return self.axis(axis, [value], where)[0]

    def baseline(self, value):
        where = "statistics.baseline"
        if not isinstance(value, dict):
            self._fail(where, f"{value!r} must be a table like {{ mechanism = \"tcp\" }}")
        for key, item in value.items():
            if key not in BASELINE_KEYS:
                self._fail(where, f"unknown key {key!r} (known: {', '.join(BASELINE_KEYS)})")
            self.axis(key, [item], f"{where}.{key}")
        return dict(value)
