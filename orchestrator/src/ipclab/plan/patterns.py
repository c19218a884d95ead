"""The traffic patterns (PROTOCOL.md section 11) as one table, as each peer has its own: what the
orchestrator knows of a pattern is in its row here, and the stages read the row's traits and
call its methods, never the pattern's name. What one pattern alone does its own way is a method:
the others' answer on `Pattern`, its own in its row's class (`_Stream`, `_RR`, `_Load`); what is
a value of the table (a name, a column, a key, a fact of its records) stays a field. A case
(plan/matrix.py `Case`) carries its row; a name becomes a row only where a name is read: a
scenario's `pattern` axis (`of`), a saved record (`of_record`). Adding a pattern:
docs/extending.md, "Add a pattern"."""
import itertools
from dataclasses import dataclass, field

from ipclab.records.fields import STREAM_RESULT

# Every burst server model the contract names (11.4); which language has which comes from its
# peer's capabilities (server_models).
SERVER_MODELS = ("iterative", "thread", "virtual-thread", "process", "thread-pool",
                 "process-pool", "epoll", "epoll-reuseport", "io_uring", "nio", "asyncio")
BURST_RUN_LIMITS = {"connectors": 10000, "processes": 64, "backlog": 65535}  # the contract's ranges
# Pattern load (PROTOCOL.md 11.5): the settings that shape its schedule (plan/settings.py) and
# the [run] keys of its time, in seconds (the peers take milliseconds).
LOAD_SETTINGS = ("clients", "rate", "arrival")


# How a case's deadline grows with its work (execute/runner.py case_timeout): not at all, per
# measured item and warm-up item (a stream's messages, short's connections), or per connection of
# the burst plus one io timeout (a connect may wait that long for its SYN).
NO_ALLOWANCE, PER_ITEM, PER_CONNECTION, SCHEDULE = "none", "per item", "per connection", "schedule"
TIMEOUTS = (NO_ALLOWANCE, PER_ITEM, PER_CONNECTION, SCHEDULE)
# The report's figure groups (output/report/figures.py) a pattern's ok cases appear in.
TIME_FIGURES, WARMUP_FIGURE, STREAM_FIGURES, CONNECTION_FIGURE, LOAD_FIGURES = (
    "times", "warm-up", "stream rate and cpu", "connection rate", "latency under load")
REPORT_FIGURES = (TIME_FIGURES, WARMUP_FIGURE, STREAM_FIGURES, CONNECTION_FIGURE, LOAD_FIGURES)
RATE_COLUMNS = ("msgs_per_s", "conns_per_s", "achieved_per_s")
FRAME_HEADER = 24   # PROTOCOL.md section 2


@dataclass(frozen=True)
class Pattern:
    name: str
    section: str                # of PROTOCOL.md
    sample: str                 # what one sample is
    server_models: bool = False  # a case per server model (matrix axis server_model)
    models_key: str = "server_models"  # the capabilities field that lists a server's models
    keeps_tail: bool = False    # no outlier trimming: its tail is the result (load's stalls)
    phases: bool = False        # the server times each connection's phases (PROTOCOL.md 11.4.3)
    spreads: bool = False       # its clients can be spread over hosts (hosts.clients, spread.py)
    execute: str = ""           # the execute/ module with its own peer flags and files (burst:
    #                             the server ends by itself, counters, phases; load: records)
    per_window: bool = False    # samples are stream windows, converted per message for statistics
    timeout: str = NO_ALLOWANCE  # case_timeout's allowance (above)
    counts_time_wait: bool = False  # TIME_WAIT sockets counted after it (inet mechanisms)
    default_sizes: tuple | None = None  # (request, response) when nobody chose sizes
    run_limits: dict = field(default_factory=dict)  # [run] keys only it reads -> the contract's top
    run_keys: tuple = ()        # the [run] keys only it reads
    axes: tuple = ()            # the matrix axes only it reads
    whole_times: bool = False   # samples are whole operations' times: median/p99 columns
    rate_column: str | None = None  # its rate figure's column
    median_rate: bool = False   # the rate is from the trimmed median (analyse/throughput.py) and
    #                             the stream-cpu study has a table of it (output/study.py)
    entry_key: str | None = None    # where a round entry of run.json keeps its own figures
    in_label: bool = True       # its name in case labels (the default pattern's is left out)
    note: str = ""              # what its times are, in the table's note
    note_rank: int = 0          # the note's order among the patterns'
    columns: tuple = ()         # the table's columns only it (and its kind) shows
    progress: str = ""          # a round's median in the progress line is "per <this>"
    wire_conn_bytes: bool = False  # a connection per call: the wire's SYN/FIN/RST bytes per call
    report_figures: tuple = ()  # the report's figure groups its cases appear in
    frame_bytes: int = 2 * FRAME_HEADER  # what a unit (round trip, message) carries beside its
    #                             payload: a stream message is bare (11.1, contract 4), so a
    #                             datagram holds the 24 bytes more that a frame's header takes
    settings: tuple = ()        # the settings (plan/settings.py) only it takes, each a name or
    #                             "name=value" where one value of a setting is its alone

    def __str__(self):
        return self.name  # a safety net: labels, ids and command lines write `.name`

    def __repr__(self):
        return f"<pattern {self.name}>"

    def __hash__(self):
        return hash(self.name)  # a row is known by its name (its run_limits, a dict, hash not)

    def takes(self, setting, value):
        """Whether this pattern takes `value` of `setting`, one that only some patterns take."""
        return setting in self.settings or f"{setting}={value}" in self.settings

    # What one pattern alone does is a method: the others' answer here, its own in its class.

    def shapes(self, matrix):
        """(request_size, response_size, payload, sequence_length, message_size) of its cases
        in order (plan/matrix.py): the size grid for bytes, the sequence lengths for each
        structured payload (sizes do not apply to those)."""
        if matrix.get("sizes") == "zip":
            sizes = list(zip(matrix["request_size"], matrix["response_size"]))
        else:
            sizes = list(itertools.product(matrix["request_size"], matrix["response_size"]))
        for payload in matrix["payload"]:
            if payload == "bytes":
                yield from ((req, resp, payload, None, None) for req, resp in sizes)
            else:
                yield from ((0, 0, payload, n, None) for n in matrix["sequence_length"])

    def payload_why_not(self, payload):
        """Why a case of it cannot carry `payload`, or None: sized payloads only."""
        if payload == "bytes":
            return None
        return (f"the {self.name} pattern carries sized payloads only, not the structured record "
                f"{payload}")

    def mechanism_why_not(self, mech, catalog, request_size=None):
        """Why it cannot run over `mech` (a catalog Mechanism) with `request_size` (None: not
        known yet), or None: any mechanism's server serves it."""
        return None

    def unit_bytes(self, case):
        """The payload bytes one measured unit of a case moves: a request and its response."""
        return case.request_size + case.response_size

    def payload_sizes(self, case):
        """The payload sizes a case copies (--explain's floors): its request's and response's."""
        return (case.request_size, case.response_size)

    def measured_items(self, run):
        """What its client counts in a round: its calls."""
        return run.iterations

    def samples_per_round(self, run):
        """The samples an ok client writes in a round: one per call."""
        return run.iterations

    def client_flags(self, case, run, warmup, case_dir):
        """The client's flags for its sizes, counts and warm-up (PROTOCOL.md section 1's usage
        lines) where its execute part is plain's (execute/plain.py)."""
        if case.payload == "bytes":
            what = ["--request-size", str(case.request_size),
                    "--response-size", str(case.response_size)]
        else:
            what = ["--payload", case.payload, "--sequence-length", str(case.sequence_length)]
        return [*what, "--warmup", str(warmup), "--iterations", str(run.iterations)]

    def round_entry(self, outcome, key):
        """A plain pattern's part of a round entry, under `key`: the TIME_WAIT sockets counted
        after it (short; None where not counted); nothing without a key (rr)."""
        return {key: outcome.time_wait} if key else {}

    def explains_time(self):
        """Whether --explain's model of a round trip (syscalls, copies, wake-ups) is of its
        samples: a plain exchange's, not those of a pattern with its own execute part."""
        return not self.execute

    def outliers(self, chosen):
        """The outlier rule its samples are trimmed by: the scenario's `chosen`, none where its
        tail is the result."""
        return "none" if self.keeps_tail else chosen


class _RR(Pattern):
    """Round trips (11): the structured records travel too, and the client keeps its warm-up's
    samples."""

    def payload_why_not(self, payload):
        return None

    def client_flags(self, case, run, warmup, case_dir):
        # Only with a warm-up: nothing to record without one.
        keep = ["--warmup-samples-file", str(case_dir / "warmup.i64")] if warmup else []
        return [*super().client_flags(case, run, warmup, case_dir), *keep]


class _Stream(Pattern):
    """A one-way stream (11.1): its cases are sized by one message, its client counts messages
    and writes each window's time, and a round keeps the client's stream figures. The client
    refuses --warmup-samples-file."""

    def shapes(self, matrix):
        yield from ((None, None, "bytes", None, size) for size in matrix["message_size"])

    def unit_bytes(self, case):
        return case.message_size

    def payload_sizes(self, case):
        return (case.message_size,)

    def measured_items(self, run):
        return run.messages

    def samples_per_round(self, run):
        return min(run.windows, run.messages)  # at most one window per message

    def client_flags(self, case, run, warmup, case_dir):
        return ["--message-size", str(case.message_size), "--messages", str(run.messages),
                "--windows", str(self.samples_per_round(run)), "--warmup", str(warmup)]

    def round_entry(self, outcome, key):
        ok = outcome.status == "ok" and outcome.client
        return {key: {k: outcome.client.get(k) for k in STREAM_RESULT}} if ok else {}

    def explains_time(self):
        return False


class _Load(Pattern):
    """Requests on a schedule (11.5): its server serves several clients at once."""

    def mechanism_why_not(self, mech, catalog, request_size=None):
        if not mech.many_clients:  # mechanisms.toml
            able = [m.name for m in catalog.mechanisms.values() if m.many_clients]
            return (f"{mech.name} serves one client at a time, and {self.name} needs a server "
                    f"that serves several at once ({', '.join(able)})")
        return (request_size is not None and mech.shared_not_applicable(request_size)) or None


RR = _RR("rr", "11", "round trips", whole_times=True, in_label=False, note="round trips",
         note_rank=1, settings=("reply=void", "serialization", "sample_write"),
         report_figures=(TIME_FIGURES, WARMUP_FIGURE))
STREAM = _Stream("stream", "11.1", "a stream window's time per message", per_window=True,
                 timeout=PER_ITEM, run_keys=("messages", "windows"), axes=("message_size",),
                 rate_column="msgs_per_s", median_rate=True, entry_key="stream",
                 note="a stream window's time per message (stream)", note_rank=3,
                 columns=("msgs_per_s", "mib_per_s", "cpu_us_per_msg", "lost"),
                 report_figures=(STREAM_FIGURES,), frame_bytes=0, settings=("read_size",))
SHORT = Pattern("short", "11.2", "whole connections", timeout=PER_ITEM, counts_time_wait=True,
                whole_times=True, rate_column="conns_per_s", median_rate=True, entry_key="time_wait",
                note="whole connections (short)", note_rank=2, columns=("conns_per_s", "time_wait"),
                progress="connection", wire_conn_bytes=True,
                settings=("reply=one-way", "listen_backlog", "source"),
                report_figures=(TIME_FIGURES, CONNECTION_FIGURE))
BURST = Pattern("burst", "11.4", "connections", server_models=True, timeout=PER_CONNECTION,
                counts_time_wait=True, default_sizes=(1000, 8),
                run_limits=BURST_RUN_LIMITS, run_keys=("connections", *BURST_RUN_LIMITS),
                axes=("server_model",), whole_times=True, rate_column="conns_per_s",
                entry_key="burst", columns=("conns_per_s",), phases=True, spreads=True,
                execute="burst")
LOAD = _Load("load", "11.5", "requests' response times from their intended start",
             server_models=True, models_key="load_models", execute="load", spreads=True,
             keeps_tail=True,
             timeout=SCHEDULE, default_sizes=(16, 16),
             run_keys=("duration", "load_warmup", "sweep_from", "slo"),
             run_limits={"sweep_from": 10**7},
             axes=("server_model", *LOAD_SETTINGS), whole_times=True,
             rate_column="achieved_per_s", entry_key="load",
             note="response times from each request's intended start (load)", note_rank=4,
             columns=("achieved_per_s", "knee_per_s", "service_p99", "late_p99"),
             settings=LOAD_SETTINGS,
             report_figures=(LOAD_FIGURES,))

PATTERNS = {p.name: p for p in (RR, STREAM, SHORT, BURST, LOAD)}
NAMES = tuple(PATTERNS)
DEFAULT = RR


def of(name):
    """The pattern named `name` (a row is itself); a saved record from before patterns existed
    is rr."""
    if isinstance(name, Pattern):
        return name
    return PATTERNS[name or DEFAULT.name]


def of_record(record):
    """The pattern of a case record of run.json (a dict) or a Case."""
    get = record.get if isinstance(record, dict) else lambda k: getattr(record, k, None)
    return of(get("pattern"))


def label_suffix(name):
    """" stream" after a case's mechanism in labels (`name`: a name or a row); nothing for the
    default pattern."""
    pattern = of(name)
    return f" {pattern.name}" if pattern.in_label else ""


def taking(setting, value):
    """The patterns that take `value` of `setting`, where only some do (their rows' settings);
    empty where every pattern does."""
    return tuple(p for p in PATTERNS.values() if p.takes(setting, value))


def named(test):
    """The names of the patterns whose row passes `test`, in table order."""
    return frozenset(p.name for p in PATTERNS.values() if test(p))
