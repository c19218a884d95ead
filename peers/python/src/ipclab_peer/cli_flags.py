"""The flag table of the command line (PROTOCOL.md section 1): every flag of each subcommand,
how its value is parsed and its default. Which patterns a drive flag belongs to is the pattern
table's (patterns.py `Flags`); cli.py checks both."""
from dataclasses import dataclass
from typing import Any, Callable

from .cli_configs import CapabilitiesConfig, DriveConfig, ServeConfig
from .cli_values import fault, one_of, seconds, text, unsigned
from .frame import MAX_PAYLOAD
from .patterns import DEFAULT, PATTERNS

U64_MAX = 2**64 - 1
# Warm-up and iteration counts are int64 in the Java peer; both together must leave room for
# END's sequence number in a u64.
COUNT_MAX = 2**63 - 1
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
# iceoryx2 rr (4.12): every byte of a frame written into its sample, or its header alone.
SAMPLE_WRITES = ("full", "header")
# The patterns `serve --pattern` takes (a server model's load server, 11.5.1).
SERVED = tuple(name for name, pattern in PATTERNS.items() if pattern.flags.serves)
REQUIRED = object()


@dataclass(frozen=True)
class Flag:
    """A drive flag that does not belong to the given pattern (patterns.belongs) is a usage
    error when given, and its field is `absent`."""
    name: str
    field: str
    parse: Callable[[str], Any]
    default: Any = REQUIRED
    absent: Any = 0
    # A switch takes no value: given, its field is True (the contract's `--void`, `--one-way`).
    switch: bool = False


COMMON_FLAGS = (
    Flag("--mechanism", "mechanism", text),
    Flag("--endpoint", "endpoint", text),
    Flag("--seed", "seed", unsigned(U64_MAX), 1),
    Flag("--poll-interval-us", "poll_interval_us", unsigned(POLL_INTERVAL_MAX, minimum=1), 2000),
    # shm (hybrid): microseconds to spin before sleeping on the futex; 0 sleeps at once.
    Flag("--spin-us", "spin_us", unsigned(SPIN_MAX), 50),
    Flag("--nodelay", "nodelay", one_of("on", "off"), "on"),
    Flag("--delivery", "delivery", one_of(*DELIVERIES), None),
    Flag("--sample-write", "sample_write", one_of(*SAMPLE_WRITES), "full"),
)


# serve flags of the server models: given without --server-model, each is a usage error;
# --connections, --phases-file and --backlog (RR_SERVE_FLAGS) are not a load server's
# (cli.py, LOAD_SERVE_REFUSES).
BURST_SERVE_FLAGS = (
    Flag("--pattern", "pattern", one_of(*SERVED), None),
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
                     "[--delivery non-persistent|persistent] [--backlog N] [--read-size N] "
                     "[--sample-write full|header]; or "
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
                     "[--mock copy|new-array] [--sample-write full|header]; or "
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
                Flag("--request-size", "request_size", unsigned(MAX_PAYLOAD), None),
                Flag("--response-size", "response_size", unsigned(MAX_PAYLOAD), None),
                Flag("--payload", "payload", one_of(*PAYLOADS), "bytes", absent="bytes"),
                Flag("--sequence-length", "sequence_length", unsigned(SEQUENCE_LENGTH_MAX), 5),
                Flag("--iterations", "iterations", unsigned(COUNT_MAX, minimum=1)),
                Flag("--message-size", "message_size", unsigned(MAX_PAYLOAD, minimum=1)),
                Flag("--messages", "messages", unsigned(COUNT_MAX, minimum=1)),
                # Default: DEFAULT_WINDOWS, or one per message in a shorter stream.
                Flag("--windows", "windows", unsigned(COUNT_MAX, minimum=1), None),
                Flag("--samples-file", "samples_file", text),
                Flag("--result-file", "result_file", text),
                Flag("--pattern", "pattern", text, DEFAULT),
                Flag("--warmup", "warmup", unsigned(COUNT_MAX), 0),
                Flag("--warmup-samples-file", "warmup_samples_file", text, None, absent=None),
                Flag("--io-timeout", "io_timeout", seconds, 30.0),
                Flag("--native-library", "native_library", text, None),
                # rest only: the HTTP client library; this peer has one (httpx).
                Flag("--http-client", "http_client", text, None),
                Flag("--void", "void", None, False, absent=False, switch=True),
                Flag("--rest-body", "rest_body", one_of(*REST_BODIES), "octet", absent="octet"),
                Flag("--corba-payload", "corba_payload", one_of(*CORBA_PAYLOADS), "octets",
                     absent="octets"),
                Flag("--one-way", "one_way", None, False, absent=False, switch=True),
                Flag("--clients", "clients", unsigned(1024, minimum=1)),
                Flag("--rate", "rate", unsigned(10_000_000, minimum=1)),
                Flag("--arrival", "arrival", one_of("fixed", "poisson"), "fixed", absent=None),
                Flag("--duration-ms", "duration_ms", unsigned(3_600_000, minimum=1)),
                Flag("--warmup-ms", "warmup_ms", unsigned(3_600_000), 0),
                Flag("--records-file", "records_file", text, absent=None),
                Flag("--source", "source", one_of(*SOURCES), "rotate", absent="rotate"),
                # Structured payloads only: a non-default value with bytes is a usage error
                # (cli.py, _check_records).
                Flag("--value-range", "value_range", one_of(*VALUE_RANGES), "full",
                     absent="full"),
                Flag("--records", "records", one_of(*RECORDS), "one", absent="one"),
                Flag("--mock", "mock", one_of(*MOCKS), "copy"),
            ),
            DriveConfig),
)}
