"""Strict command line of PROTOCOL.md section 1, driven by one table of flags per subcommand.

argparse accepts abbreviations, `--flag=value` and repeated flags, all of which the contract
rejects, so the parser is written out: `--name value` pairs, each known flag at most once.
"""
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .cli_values import fault, one_of, seconds, text, unsigned
from .errors import UsageError
from .frame import MAX_PAYLOAD
from .mechanisms import MECHANISMS, RPC

U64_MAX = 2**64 - 1
# Warm-up and iteration counts are int64 in the Java peer; both together must leave room for
# END's sequence number in a u64.
COUNT_MAX = 2**63 - 1
# The patterns with their own drive flags (PROTOCOL.md 11.1, 11.5); every other name takes rr's.
STREAM = "stream"
LOAD = "load"
SHORT = "short"
# --pattern load's sizes when not given: the contract names none; the orchestrator's default.
LOAD_SIZES = 16, 16
DEFAULT_WINDOWS = 10
# --poll-interval-us: at least 1 us; at most a u32 (over an hour), a value over it is bad.
POLL_INTERVAL_MAX = 2**32 - 1
SPIN_MAX = 2**32 - 1
PAYLOADS = ("bytes", "small", "medium", "large")
REST_BODIES = ("octet", "json")
CORBA_PAYLOADS = ("octets", "string")
DELIVERIES = ("non-persistent", "persistent")
SEQUENCE_LENGTH_MAX = 1_000_000
# Contract 6's conditions (PROTOCOL.md 1): each default first, today's behaviour.
SOURCES = ("rotate", "one")
VALUE_RANGES = ("full", "non-negative")
RECORDS = ("one", "per-call")
MOCKS = ("copy", "new-array")
REQUIRED = object()


@dataclass(frozen=True)
class Flag:
    """`stream`: None for a flag of every pattern, True for one of pattern stream only,
    False for one that stream does not take; `load` the same for pattern load. Where a flag
    does not belong, giving it is a usage error and its field is `absent`."""
    name: str
    field: str
    parse: Callable[[str], Any]
    default: Any = REQUIRED
    stream: Optional[bool] = None
    absent: Any = 0
    # A switch takes no value: given, its field is True (the contract's `--void`, `--one-way`).
    switch: bool = False
    load: Optional[bool] = None
    # The only patterns the flag belongs to (None: as `stream` and `load` say).
    patterns: Optional[tuple] = None

    def belongs(self, pattern):
        return ((self.stream is None or self.stream == (pattern == STREAM))
                and (self.load is None or self.load == (pattern == LOAD))
                and (self.patterns is None or pattern in self.patterns))


@dataclass(frozen=True)
class CapabilitiesConfig:
    pass


@dataclass(frozen=True)
class _MechanismConfig:
    """What both roles are given (COMMON_FLAGS)."""
    mechanism: str
    endpoint: Any  # a typed endpoint (transport/endpoints.py); the text if not parsed
    seed: int
    poll_interval_us: int
    spin_us: int
    nodelay: str  # "on" or "off": TCP_NODELAY on the peer's sockets (tcp, rest, grpc)
    # activemq (PROTOCOL.md 4.7): "non-persistent" or "persistent"; None when not given (then
    # non-persistent; given for another mechanism, unsupported: variants.py).
    delivery: Any


@dataclass(frozen=True)
class ServeConfig(_MechanismConfig):
    fault: str
    # Pattern burst (PROTOCOL.md 11.4): a burst server when server_model is given; with
    # pattern "load", a load server (11.5.1).
    pattern: Any = None
    server_model: Any = None
    connections: Any = None
    phases_file: Any = None
    # The listen() backlog of tcp and uds: the rr server's (contract 6) and a burst server's.
    backlog: int = 512
    workers: int = 4
    # Pattern stream over a byte stream (contract 6): the most message bytes one receive asks
    # for; 0: the reader's own greedy reads.
    read_size: int = 0
    # The flags given (an RPC load server refuses --workers and --backlog: unsupported).
    given: frozenset = frozenset()


@dataclass(frozen=True)
class DriveConfig(_MechanismConfig):
    request_size: int
    response_size: int
    iterations: int
    samples_file: str
    result_file: str
    pattern: str
    warmup: int
    warmup_samples_file: Any
    io_timeout: float
    native_library: Any
    http_client: Any
    payload: str
    sequence_length: int
    message_size: int
    messages: int
    windows: int
    # Contract version 3's variants (PROTOCOL.md 1): --void, --rest-body, --corba-payload,
    # --one-way.
    void: bool
    rest_body: str
    corba_payload: str
    one_way: bool
    # Pattern load (PROTOCOL.md 11.5).
    clients: int
    rate: int
    arrival: str
    duration_ms: int
    warmup_ms: int
    records_file: Any
    # Contract 6 (PROTOCOL.md 1): short over tcp: "rotate" (11.2's source addresses) or "one"
    # (the kernel's choice); structured payloads: the ints' range and a record per case or per
    # call; mechanism none: "copy" (4.4) or "new-array" (the thesis's Mock).
    source: str = "rotate"
    value_range: str = "full"
    records: str = "one"
    mock: str = "copy"


COMMON_FLAGS = (
    Flag("--mechanism", "mechanism", text),
    Flag("--endpoint", "endpoint", text),
    Flag("--seed", "seed", unsigned(U64_MAX), 1),
    Flag("--poll-interval-us", "poll_interval_us", unsigned(POLL_INTERVAL_MAX, minimum=1), 2000),
    # shm (hybrid): microseconds to spin before sleeping on the futex; 0 sleeps at once.
    Flag("--spin-us", "spin_us", unsigned(SPIN_MAX), 50),
    Flag("--nodelay", "nodelay", one_of("on", "off"), "on"),
    Flag("--delivery", "delivery", one_of(*DELIVERIES), None),
)


# serve flags of the server models: given without --server-model, each is a usage error;
# --connections, --phases-file and --backlog (RR_SERVE_FLAGS) are not a load server's
# (LOAD_SERVE_REFUSES).
BURST_SERVE_FLAGS = (
    Flag("--pattern", "pattern", one_of(LOAD), None),
    Flag("--server-model", "server_model", text, None),
    Flag("--connections", "connections", unsigned(COUNT_MAX, minimum=1), None),
    Flag("--phases-file", "phases_file", text, None),
    Flag("--workers", "workers", unsigned(1024, minimum=1), 4),
)
# serve flags of the rr server too (contract 6): the listen() backlog (tcp, uds; a burst
# server's since 11.4) and the stream's read size (tcp, uds, pipe, fifo); where they mean
# nothing, unsupported (variants.py).
RR_SERVE_FLAGS = (
    Flag("--backlog", "backlog", unsigned(65535, minimum=1), 512),
    Flag("--read-size", "read_size", unsigned(MAX_PAYLOAD), 0),
)


@dataclass(frozen=True)
class Command:
    name: str
    synopsis: str
    flags: tuple
    config: type


COMMANDS = {command.name: command for command in (
    Command("capabilities", "capabilities", (), CapabilitiesConfig),
    Command("serve", "serve --mechanism M --endpoint E [--seed S] [--fault F] "
                     "[--poll-interval-us N] [--spin-us N] [--nodelay on|off] "
                     "[--delivery non-persistent|persistent] [--backlog N] [--read-size N]; or "
                     "serve --mechanism M --endpoint E --server-model NAME --connections N "
                     "--phases-file PATH [--backlog N] [--workers N] [--seed S]; or "
                     "serve --pattern load --mechanism M "
                     "--endpoint E --server-model NAME [--workers N] [--fault F] [--seed S] "
                     "[--nodelay on|off]",
            COMMON_FLAGS + (Flag("--fault", "fault", fault, "none"),) + BURST_SERVE_FLAGS
            + RR_SERVE_FLAGS,
            ServeConfig),
    Command("drive", "drive --mechanism M --endpoint E [--request-size N --response-size N] "
                     "[--payload bytes|small|medium|large] [--sequence-length N] --iterations N "
                     "--samples-file PATH --result-file PATH [--pattern rr|short] [--warmup N] "
                     "[--warmup-samples-file PATH] [--seed S] [--io-timeout SECONDS] [--poll-interval-us N] "
                     "[--spin-us N] [--http-client NAME] [--native-library PATH] [--void] "
                     "[--nodelay on|off] [--rest-body octet|json] "
                     "[--corba-payload octets|string] [--one-way] "
                     "[--delivery non-persistent|persistent] [--source rotate|one] "
                     "[--value-range full|non-negative] [--records one|per-call] "
                     "[--mock copy|new-array]; or "
                     "drive --pattern stream --mechanism M --endpoint E --message-size N "
                     "--messages N --samples-file PATH --result-file PATH [--windows N] "
                     "[--warmup N] [--seed S] [--io-timeout SECONDS] [--poll-interval-us N] "
                     "[--spin-us N] [--delivery non-persistent|persistent]; or "
                     "drive --pattern load --mechanism M --endpoint E --clients C --rate R "
                     "--duration-ms D --samples-file PATH --records-file PATH "
                     "--result-file PATH [--arrival fixed|poisson] "
                     "[--warmup-ms W] [--request-size N] [--response-size N] "
                     "[--io-timeout SECONDS] [--seed S] [--nodelay on|off]",
            COMMON_FLAGS + (
                # Required for bytes payloads, absent or 0 for structured ones (checked later).
                Flag("--request-size", "request_size", unsigned(MAX_PAYLOAD), None, False),
                Flag("--response-size", "response_size", unsigned(MAX_PAYLOAD), None, False),
                Flag("--payload", "payload", one_of(*PAYLOADS), "bytes", False, "bytes",
                     load=False),
                Flag("--sequence-length", "sequence_length", unsigned(SEQUENCE_LENGTH_MAX), 5,
                     False, load=False),
                Flag("--iterations", "iterations", unsigned(COUNT_MAX, minimum=1), stream=False,
                     load=False),
                Flag("--message-size", "message_size", unsigned(MAX_PAYLOAD, minimum=1),
                     stream=True),
                Flag("--messages", "messages", unsigned(COUNT_MAX, minimum=1), stream=True),
                # Default: DEFAULT_WINDOWS, or one per message in a shorter stream.
                Flag("--windows", "windows", unsigned(COUNT_MAX, minimum=1), None, True),
                Flag("--samples-file", "samples_file", text),
                Flag("--result-file", "result_file", text),
                Flag("--pattern", "pattern", text, "rr"),
                Flag("--warmup", "warmup", unsigned(COUNT_MAX), 0, load=False),
                Flag("--warmup-samples-file", "warmup_samples_file", text, None, False, None,
                     load=False),
                Flag("--io-timeout", "io_timeout", seconds, 30.0),
                Flag("--native-library", "native_library", text, None),
                # rest only: the HTTP client library; this peer has one (httpx).
                Flag("--http-client", "http_client", text, None),
                Flag("--void", "void", None, False, False, False, switch=True, load=False),
                Flag("--rest-body", "rest_body", one_of(*REST_BODIES), "octet", False,
                     "octet"),
                # callString is not part of load (PROTOCOL.md 11.5.4).
                Flag("--corba-payload", "corba_payload", one_of(*CORBA_PAYLOADS), "octets",
                     False, "octets", load=False),
                Flag("--one-way", "one_way", None, False, False, False, switch=True, load=False),
                Flag("--clients", "clients", unsigned(1024, minimum=1), load=True),
                Flag("--rate", "rate", unsigned(10_000_000, minimum=1), load=True),
                Flag("--arrival", "arrival", one_of("fixed", "poisson"), "fixed", load=True,
                     absent=None),
                Flag("--duration-ms", "duration_ms", unsigned(3_600_000, minimum=1), load=True),
                Flag("--warmup-ms", "warmup_ms", unsigned(3_600_000), 0, load=True),
                Flag("--records-file", "records_file", text, load=True, absent=None),
                Flag("--source", "source", one_of(*SOURCES), "rotate", absent="rotate",
                     patterns=(SHORT,)),
                # Structured payloads only: a non-default value with bytes is a usage error
                # (_check_records).
                Flag("--value-range", "value_range", one_of(*VALUE_RANGES), "full", False,
                     "full", load=False),
                Flag("--records", "records", one_of(*RECORDS), "one", False, "one",
                     load=False),
                Flag("--mock", "mock", one_of(*MOCKS), "copy"),
            ),
            DriveConfig),
)}


def parse(argv):
    """argv without the program name -> (command name, config); raises UsageError."""
    if not argv or argv[0] not in COMMANDS:
        given = repr(argv[0]) if argv else "nothing"
        raise UsageError(f"expected a subcommand ({', '.join(COMMANDS)}), got {given}")
    command = COMMANDS[argv[0]]
    try:
        values = _flag_values(command, argv[1:])
        if command.name != "capabilities":
            _check_mechanism(command, values)
        if command.name == "drive":
            _check_variants(values)
            _check_sizes(values)
            _check_records(values)
            _check_windows(values)
        if command.name == "serve":
            values["given"] = frozenset(args_given(argv[1:]))
            _check_burst_serve(values["given"], values)
    except ValueError as err:
        raise UsageError(f"{err}; usage: ipclab-peer {command.synopsis}") from None
    return command.name, command.config(**values)


def _flag_values(command, args):
    flags = {flag.name: flag for flag in command.flags}
    values = {}
    index = 0
    while index < len(args):
        name = args[index]
        flag = flags.get(name)
        if flag is None:
            if name.split("=", 1)[0] in flags:
                raise ValueError(f"{name!r}: write the flag and its value as two arguments")
            raise ValueError(f"unknown flag {name!r} for {command.name}")
        if flag.field in values:
            raise ValueError(f"flag {name} given more than once")
        if flag.switch:
            values[flag.field] = True
            index += 1
            continue
        if index + 1 >= len(args) or args[index + 1].startswith("--"):
            raise ValueError(f"flag {name} needs a value")
        try:
            values[flag.field] = flag.parse(args[index + 1])
        except ValueError as err:
            raise ValueError(f"bad value {args[index + 1]!r} for {name}: {err}") from None
        index += 2
    return _with_defaults(command.flags, values)


def _with_defaults(flags, values):
    pattern = values.get("pattern", "rr")
    for flag in flags:
        if not flag.belongs(pattern):
            if flag.field in values:
                raise ValueError(f"flag {flag.name} is not used with --pattern {pattern}")
            values[flag.field] = flag.absent
        elif flag.field not in values:
            if flag.default is REQUIRED:
                raise ValueError(f"missing required flag {flag.name}")
            values[flag.field] = flag.default
    return values


def _check_sizes(values):
    """Byte payloads need both sizes (load: defaults); structured payloads (PROTOCOL.md 10.2)
    have none."""
    for (flag, field), default in zip((("--request-size", "request_size"),
                                       ("--response-size", "response_size")), LOAD_SIZES):
        if values["pattern"] == LOAD and values[field] is None:
            values[field] = default
        elif values["payload"] == "bytes":
            if values[field] is None:
                raise ValueError(f"missing required flag {flag}")
        elif values[field]:
            raise ValueError(f"{flag} must be absent or 0 with --payload {values['payload']}")
        else:
            values[field] = 0


def _check_records(values):
    """--value-range and --records shape the structured records (PROTOCOL.md 10.2): a
    non-default value with bytes payloads is a usage error."""
    if values["payload"] != "bytes":
        return
    for field, flag, default in (("value_range", "--value-range", VALUE_RANGES[0]),
                                 ("records", "--records", RECORDS[0])):
        if values[field] != default:
            raise ValueError(f"{flag} {values[field]} is for structured payloads "
                             "(--payload small|medium|large), not bytes")


def _check_variants(values):
    """--void is for pattern rr, --one-way for pattern short; neither has a response, so
    --response-size is absent or 0 with them (PROTOCOL.md 1, 10.1, 11.2)."""
    for field, flag, pattern in (("void", "--void", "rr"), ("one_way", "--one-way", "short")):
        if not values[field]:
            continue
        if values["pattern"] != pattern:
            raise ValueError(f"{flag} is used only with --pattern {pattern}")
        if values["response_size"]:
            raise ValueError(f"--response-size must be 0 with {flag}")
        values["response_size"] = 0


def args_given(args):
    """The flag names of a well-formed `--name value` list."""
    return set(args[0::2])


# serve flags of pattern burst that a load server (PROTOCOL.md 11.5.1) does not take.
LOAD_SERVE_REFUSES = ("--connections", "--phases-file", "--backlog")


def _check_burst_serve(given, values):
    """--server-model needs --connections and --phases-file (burst) or --pattern load; the
    other flags of the server models need --server-model."""
    if values["server_model"] is None:
        for flag in BURST_SERVE_FLAGS:
            if flag.name in given:
                raise ValueError(f"flag {flag.name} is used only with --server-model")
        return
    if values["pattern"] == LOAD:
        for name in LOAD_SERVE_REFUSES:
            if name in given and not (name == "--backlog" and _refuses_backlog(values)):
                raise ValueError(f"flag {name} is not used with --pattern load")
        return
    for name, field in (("--connections", "connections"), ("--phases-file", "phases_file")):
        if values[field] is None:
            raise ValueError(f"missing required flag {name} (with --server-model)")


def _refuses_backlog(values):
    """An RPC mechanism's load server and a message queue's take --backlog, to refuse it as
    unsupported (exit 7, PROTOCOL.md 11.5.4, 11.5.5) rather than as a usage error."""
    mechanism = MECHANISMS.get(values["mechanism"])
    return mechanism is not None and (mechanism.family == RPC
                                      or mechanism.shared_queue is not None)


def _check_windows(values):
    """At most one window per message (stream)."""
    if values["pattern"] != STREAM:
        return
    if values["windows"] is None:
        values["windows"] = min(DEFAULT_WINDOWS, values["messages"])
    elif values["windows"] > values["messages"]:
        raise ValueError(f"--windows {values['windows']} is more than --messages "
                         f"{values['messages']}")


def _check_reply_key(mechanism, values):
    """sysv-mq: a load server names its request and reply queues (`sysv:K,R`, PROTOCOL.md
    11.5.5), the other servers one queue; an endpoint of the other kind would wait forever."""
    reply = getattr(values["endpoint"], "reply", False)
    if mechanism.shared_queue is None or reply is False:
        return
    if (reply is not None) != (values["pattern"] == LOAD):
        raise ValueError(f"bad value for --endpoint: {values['endpoint']} is "
                         f"{'not ' if reply is None else ''}a load server's endpoint "
                         "(sysv:0xKEY,0xREPLYKEY); --pattern load takes only that")


def _check_mechanism(command, values):
    """Parses the endpoint into its typed value and checks the flags the mechanism needs.
    Only a known mechanism can be checked; an unknown one, or one without this role, is
    reported later as unsupported (exit 7), not as a usage error."""
    mechanism = MECHANISMS.get(values["mechanism"])
    parse_endpoint = mechanism and getattr(mechanism.endpoint, command.name)
    if not parse_endpoint:
        return
    try:
        values["endpoint"] = parse_endpoint(values["endpoint"])
    except ValueError as err:
        raise ValueError(f"bad value for --endpoint: {err}") from None
    if command.name == "drive":
        _check_reply_key(mechanism, values)
        flags = {flag.field: flag.name for flag in command.flags}
        for field in mechanism.requires:
            if values[field] is None:
                raise ValueError(f"missing required flag {flags[field]} (for {mechanism.name})")
