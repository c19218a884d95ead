"""The settings a case runs with beyond its mechanism, sizes and pattern, as one table (PROTOCOL.md
section 1, contract version 4): how a study ran a mechanism (a void reply, Nagle left on, JSON
bodies, a string payload, one-way connections, a file poll interval, the Java library's binding
and its serialized objects). Each is a matrix axis with a
default that is today's behaviour; a case records the value of every setting that applies to it,
and only a value other than the default reaches the peers' command lines, the case's id and its
label, so a run that leaves them alone is the run it was before.

A value other than the default on a case it does not apply to makes that case not applicable,
with the reason, like any other axis.

A peer's own setting (`own`: PROTOCOL.md 4.6, the Java peer's) is one that only the peers whose
peer.toml lists it under [settings] take, over the mechanisms listed there: its flags reach those
peers only, and it applies to a case when one side takes it (`own` "any") or both (`own` "both",
a protocol both sides must speak)."""
from dataclasses import dataclass
from typing import Callable

from ipclab.common.units import MAX_PAYLOAD, format_size
from ipclab.plan import patterns


def _rpc(mech):
    """RPC mechanisms are those that also carry the structured records (PROTOCOL.md 10)."""
    return "bytes" in mech.payloads and len(mech.payloads) > 1


ANY_SIDE, BOTH_SIDES = "any", "both"


@dataclass(frozen=True)
class Setting:
    name: str                   # the matrix axis, the [matrix] key, the cases.csv column
    default: object
    values: tuple | None        # the values a scenario may give; None: a whole number ≥ 1
    applies: Callable           # (value, mechanism, pattern row, payload) -> why not, or None
    roles: tuple = ()           # the peers ("serve", "drive") given `--NAME VALUE` (the name with
    #                             dashes) for a value other than the default, or:
    flags: Callable | None = None  # a value other than the default -> {role: [peer flags]}
    label: Callable = None      # a value other than the default -> the words in a case's label
    help: str = ""
    own: str | None = None      # a peer's own setting: ANY_SIDE or BOTH_SIDES must take it
    sizes: Callable | None = None  # (value, request size, response size) -> why not, or None
    most: int = 10**9           # a whole-number setting's largest value (the contract's)
    word: str | None = None     # a whole-number setting's one other value, alone (rate: sweep)
    id_word: Callable | None = None  # its words in a case's id, where the label's would not do
    #                             in a file name ("5,000/s")
    always: bool = False        # its value is named (label, id, flags) wherever it applies, the
    #                             default too: a load case's clients and rate are what it is

    def peer_flags(self, value):
        """{role: [flags]} for a value other than the default."""
        if self.flags:
            return self.flags(value)
        return _flag(f"--{self.name.replace('_', '-')}", *self.roles)(value)


def _pattern_takes(setting, value, pattern):
    """(whether the case's pattern (its row) takes this value of the setting, the patterns that
    do): the pattern table says which settings are some patterns' alone."""
    takers = patterns.taking(setting, value)
    return (not takers or pattern.takes(setting, value)), takers


def _reply(value, mech, pattern, payload):
    ok, (taker, *_) = _pattern_takes("reply", value, pattern)
    if value == "void" and not (_rpc(mech) and ok):
        return ("a void reply is an RPC operation's (rest, grpc, thrift-binary, thrift-compact, "
                f"ice, corba, rmi, soap) in {taker.sample} ({taker.name})")
    if value == "one-way" and (not ok or _rpc(mech)):
        return (f"one-way connections are a variant of the {taker.name} pattern over a framed "
                "mechanism (an RPC call always has a reply)")
    return None


def _only(mechanisms, what, payload_bytes=False):
    def why_not(value, mech, pattern, payload):
        if mech.name not in mechanisms:
            return f"{what} applies to {', '.join(mechanisms)} only"
        if payload_bytes and payload != "bytes":
            return f"{what} applies to sized payloads (bytes) only, not the record {payload}"
        return None
    return why_not


def _flag(flag, *roles):
    """A setting's peer flag: `flag VALUE` on the command line of each of `roles`."""
    return lambda v: {role: [flag, str(v)] for role in roles}


REPLY = Setting(
    "reply", "echo", ("echo", "void", "one-way"),
    applies=_reply,
    flags=lambda v: {"drive": ["--void"] if v == "void" else ["--one-way"]},
    label=lambda v: "" if v == "void" else v,   # void is in the shape: "16 B/void"
    help="echo (the reply carries the response), void (RPC: the framework's empty reply, as the "
         "middleware study's operations returned void), one-way (short: connect, write, close)")
NODELAY = Setting(
    "nodelay", "on", ("on", "off"),
    applies=_only(("tcp", "rest", "grpc"), "nodelay"),
    roles=("serve", "drive"),
    label=lambda v: f"nodelay {v}",
    help="TCP_NODELAY on (default) or off (Nagle's algorithm on): tcp, rest, grpc")
REST_BODY = Setting(
    "rest_body", "octet", ("octet", "json"),
    applies=_only(("rest",), "rest_body", payload_bytes=True),
    roles=("drive",),
    label=lambda v: f"{v} body",
    help="rest: octet-stream bodies (default) or {\"data\": base64} JSON, as the thesis sent them")
CORBA_PAYLOAD = Setting(
    "corba_payload", "octets", ("octets", "string"),
    applies=_only(("corba",), "corba_payload", payload_bytes=True),
    roles=("drive",),
    label=lambda v: f"as {v}",
    help="corba: the payload as sequence<octet> (default) or string, as the thesis's IDL had it")
DELIVERY = Setting(
    "delivery", "non-persistent", ("non-persistent", "persistent"),
    applies=_only(("activemq",), "delivery"),
    roles=("serve", "drive"),
    label=lambda v: v,
    help="activemq: messages sent non-persistent (default) or persistent (the broker's store on "
         "disk before it settles each send), recorded per case",
    always=True)
POLL_INTERVAL = Setting(
    "poll_interval_us", 2000, None,
    applies=_only(("file-poll",), "poll_interval_us"),
    roles=("serve", "drive"),
    label=lambda v: f"poll {v} µs",
    help="file-poll: microseconds between checks for a file (default 2000, the thesis's 2 ms)")

JAVA_BINDING = Setting(
    "java_binding", "ffm", ("ffm", "jni", "jni-copy"),
    applies=lambda v, mech, pattern, payload: None,   # where: the peers' [settings]
    roles=("serve", "drive"),
    label=lambda v: {"jni-copy": "JNI copying"}.get(v, v.upper()),
    help="the Java IPC library's binding to C: ffm (java.lang.foreign, default), jni, as the "
         "published library was, or jni-copy (each message's byte[] copied per call, as the "
         "blog's JNI library did: sysv-mq, posix-mq) (Java peer: sysv-mq, posix-mq, sysv-shm, "
         "fifo)",
    own=ANY_SIDE)
SERIALIZATION = Setting(
    "serialization", "frames", ("frames", "java", "java-long"),
    applies=lambda v, mech, pattern, payload: (
        None if _pattern_takes("serialization", v, pattern)[0] and payload == "bytes"
        else "Java serialization carries sized round trips (rr, bytes) only"),
    flags=lambda v: {"drive": ["--payload", "long" if v == "java-long" else "object"]},
    label=lambda v: "java Long" if v == "java-long" else "java objects",
    help="frames (the contract's, default), java (a Long and a byte[] through "
         "ObjectOutputStream each way, the Java IPC library's benchmark) or java-long (the Long "
         "alone: its figure 1's minimal data, at 8 B each way) (Java client and server: tcp, "
         "fifo, sysv-mq, sysv-shm)",
    own=BOTH_SIDES,
    sizes=lambda v, req, resp: _serialized_sizes(v, req, resp))


def _serialized_sizes(value, request_size, response_size):
    if value == "java-long":
        return None if request_size == response_size == 8 else (
            f"the Long alone is 8 B each way, not {request_size}/{response_size} B "
            f"(PROTOCOL.md 4.6)")
    return None if request_size == response_size else (
        f"the Java server answers an object with an array of the request's size, so the "
        f"response size is {request_size}, not {response_size} (PROTOCOL.md 4.6)")



# The blog's conditions (001, issue 37): its servers read 1 KiB a call and listened with a
# backlog of 50, its client connected from one address.
def _pattern_over(mechanisms, what):
    """A setting of the patterns whose rows take it, over `mechanisms`."""
    def why_not(value, mech, pattern, payload):
        ok, takers = _pattern_takes(what, value, pattern)
        if not ok or mech.name not in mechanisms:
            names = " or ".join(p.name for p in takers)
            return f"{what} applies to the {names} pattern over {', '.join(mechanisms)} only"
        return None
    return why_not


READ_SIZE = Setting(
    "read_size", 0, None,
    applies=_pattern_over(("tcp", "uds", "pipe", "fifo"), "read_size"),
    roles=("serve",),
    label=lambda v: f"reads {format_size(v)}",
    id_word=lambda v: f"read{v}",
    help="stream over tcp, uds, pipe, fifo: the server asks for at most this many bytes a read "
         "(e.g. 1KiB, as the blog's servers read); default 0: the peer's own greedy reads",
    most=MAX_PAYLOAD)
LISTEN_BACKLOG = Setting(
    "listen_backlog", 512, None,
    applies=_pattern_over(("tcp", "uds"), "listen_backlog"),
    flags=_flag("--backlog", "serve"),
    label=lambda v: f"backlog {v}",
    help="short over tcp, uds: the server's listen() backlog (default 512; the blog's was 50)",
    most=65535)
SOURCE = Setting(
    "source", "rotate", ("rotate", "one"),
    applies=_pattern_over(("tcp",), "source"),
    roles=("drive",),
    label=lambda v: "one source",
    help="short over tcp: rotate (default: each connection from the next of 65,280 loopback "
         "addresses, so ports never run out) or one (every connection from 127.0.0.1, as the "
         "blog's client)")


# The middleware report's records (003): it drew random data per trial from one seed and never
# said its ranges; protobuf's and Thrift compact's varints make a negative int32 10 bytes.
def _records_only(what):
    def why_not(value, mech, pattern, payload):
        return None if payload != "bytes" else f"{what} applies to the structured records only"
    return why_not


VALUE_RANGE = Setting(
    "value_range", "full", ("full", "non-negative"),
    applies=_records_only("value_range"),
    roles=("drive",),
    label=lambda v: "ints ≥ 0",
    id_word=lambda v: "nonneg",
    help="structured records: full (default: signed 32-bit ints over their whole range) or "
         "non-negative (0 … 2^31−1)")
RECORDS = Setting(
    "records", "one", ("one", "per-call"),
    applies=_records_only("records"),
    roles=("drive",),
    label=lambda v: "a record per call",
    id_word=lambda v: "per-call",
    help="structured records: one (default: one record per case) or per-call (a fresh record "
         "before each call from the seed's stream, as the middleware study drew them)")

# The thesis's in-process baselines (000): its JNI copied both arrays, its Mock made a new one.
MOCK = Setting(
    "mock", "copy", ("copy", "new-array"),
    applies=_only(("none",), "mock"),
    roles=("drive",),
    label=lambda v: "new-array mock",
    help="none: copy (default: the response copied from a cached base and stamped) or "
         "new-array (the thesis's Mock: a new array of the response size and a length check)")
JNI_ARRAYS = Setting(
    "jni_arrays", "critical", ("critical", "copy"),
    applies=_only(("jni",), "jni_arrays"),
    roles=("drive",),
    label=lambda v: "JNI copies",
    id_word=lambda v: "jni-copies",
    help="jni: critical (default: the request's stamp read, the response filled once in place) "
         "or copy (the thesis's JNI: both arrays copied in full, the response set back)")


# iceoryx2's own benchmark (4.12): it loans samples and sends them without writing them.
SAMPLE_WRITE = Setting(
    "sample_write", "full", ("full", "header"),
    applies=_pattern_over(("iceoryx2", "iceoryx2-spin"), "sample_write"),
    roles=("serve", "drive"),
    label=lambda v: "header written",
    id_word=lambda v: "header-only",
    help="rr over iceoryx2: full (default: every byte of each frame written into the loaned "
         "sample and checked) or header (only the 24-byte header, as iceoryx2's own benchmark "
         "sends samples it never writes) (C++ and Python peers, both sides)",
    own=BOTH_SIDES)


def _load_only(what):
    """A setting of load's schedule: the pattern whose row takes it."""
    def why_not(value, mech, pattern, payload):
        ok, takers = _pattern_takes(what, value, pattern)
        return None if ok else f"{what} is a setting of the {' or '.join(p.name for p in takers)} pattern"
    return why_not


SWEEP = "sweep"  # the rate a load case searches for (execute/load.py search)


# Pattern load (PROTOCOL.md 11.5): how many connections, how many requests a second in all, and
# how they are spaced; each case at one value of each (a grid of rates is a row per rate).
CLIENTS = Setting(
    "clients", 8, None,
    applies=_load_only("clients"),
    roles=("drive",),
    label=lambda v: f"×{v}",
    id_word=lambda v: f"c{v}",
    help="load: persistent connections (default 8), e.g. 1,8,64",
    most=1024, always=True)
RATE = Setting(
    "rate", 1000, None,
    applies=_load_only("rate"),
    flags=lambda v: {} if v == SWEEP else {"drive": ["--rate", str(v)]},
    label=lambda v: "rate sweep" if v == SWEEP else f"{v:,}/s",
    id_word=lambda v: f"r{v}",
    help="load: requests per second over all connections (default 1000), e.g. 1000,5000,20000; "
         "sweep: find the highest rate within the SLO (--slo), step by step",
    most=10**7, always=True, word="sweep")
ARRIVAL = Setting(
    "arrival", "fixed", ("fixed", "poisson"),
    applies=_load_only("arrival"),
    roles=("drive",),
    label=lambda v: v,
    help="load: fixed (evenly spaced requests, default) or poisson (seeded exponential gaps)")

SETTINGS = {s.name: s for s in (REPLY, NODELAY, REST_BODY, CORBA_PAYLOAD, DELIVERY,
                                POLL_INTERVAL, JAVA_BINDING, SERIALIZATION, READ_SIZE,
                                LISTEN_BACKLOG, SOURCE, VALUE_RANGE, RECORDS, MOCK, JNI_ARRAYS,
                                SAMPLE_WRITE, CLIENTS, RATE, ARRIVAL)}
NAMES = tuple(SETTINGS)


def why_not(name, value, mech, pattern, payload, sides=()):
    """Why `value` of setting `name` cannot be run on this case, or None (the default always can).
    `sides`: the case's peers (Language), client first; a peer's own setting needs them."""
    setting = SETTINGS[name]
    if value == setting.default:
        return None
    return _sides_why_not(setting, mech, sides) or setting.applies(value, mech, pattern, payload)


def sizes_why_not(case_settings, request_size, response_size):
    """Why a case's sizes cannot go with its non-default settings, or None."""
    for name, value in chosen(case_settings):
        rule = SETTINGS[name].sizes
        why = rule and rule(value, request_size, response_size)
        if why:
            return f"{name} = {value}: {why}"
    return None


def _sides_why_not(setting, mech, sides):
    if not setting.own:
        return None
    taking = [lang.takes(setting.name, mech.name) for lang in sides]
    if (all if setting.own == BOTH_SIDES else any)(taking) and taking:
        return None
    having = sorted({lang.display for lang in sides if lang.own_settings.get(setting.name)})
    who = " and ".join(having) or "no"
    need = "both the client and the server" if setting.own == BOTH_SIDES else "a side"
    return (f"{setting.name} is a setting of the peer it names; {need} must take it over "
            f"{mech.name} ({who} peer here)")


def applicable(mech, pattern, payload, sides=()):
    """The names of the settings that mean something for this case (its record keeps them)."""
    return [s.name for s in SETTINGS.values()
            if any(why_not(s.name, v, mech, pattern, payload, sides) is None for v in _others(s))]


def _others(setting):
    """The values of a setting other than its default (a number: any one stands for all)."""
    return [v for v in setting.values if v != setting.default] if setting.values else [1]


def chosen(case_settings):
    """The (name, value) pairs of a case's settings that differ from their defaults, and those
    always named."""
    return [(n, v) for n, v in dict(case_settings or {}).items()
            if v != SETTINGS[n].default or SETTINGS[n].always]


def peer_flags(case_settings, role, lang=None, mechanism=None):
    """The flags `role` ("serve" or "drive") gets for a case's non-default settings; a peer's own
    setting reaches only a peer (`lang`) that takes it over `mechanism`."""
    out = []
    for name, value in chosen(case_settings):
        setting = SETTINGS[name]
        if setting.own and not (lang and lang.takes(name, mechanism)):
            continue
        out += setting.peer_flags(value).get(role, [])
    return out


def label_words(case_settings):
    """"one-way nodelay off": a case's non-default settings, for its label (empty for defaults)."""
    return " ".join(filter(None, (SETTINGS[n].label(v) for n, v in chosen(case_settings))))


def id_suffix(case_settings):
    """"-void-nodelay-off": the same, for a case's id (empty for defaults)."""
    def word(setting, value):
        return setting.id_word(value) if setting.id_word else setting.label(value) or value
    return "".join(f"-{str(word(SETTINGS[n], v)).replace(' ', '-').replace('µ', 'u')}"
                   for n, v in chosen(case_settings))
