"""Strict command line of PROTOCOL.md section 1, driven by one table of flags per subcommand
(cli_flags.py) and the pattern table's rules for each pattern (patterns.py `Flags`).

argparse accepts abbreviations, `--flag=value` and repeated flags, all of which the contract
rejects, so the parser is written out: `--name value` pairs, each known flag at most once.
"""
from .cli_flags import BURST_SERVE_FLAGS, COMMANDS, RECORDS, REQUIRED, VALUE_RANGES
from .errors import UsageError
from .mechanisms import MECHANISMS, RPC
from .patterns import DEFAULT, PATTERNS, belongs, flags_of

DEFAULT_WINDOWS = 10


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
    pattern = values.get("pattern", DEFAULT)
    rules = flags_of(pattern)
    for flag in flags:
        if not belongs(flag.name, rules):
            if flag.field in values:
                raise ValueError(f"flag {flag.name} is not used with --pattern {pattern}")
            values[flag.field] = flag.absent
        elif flag.field not in values:
            if flag.default is REQUIRED:
                raise ValueError(f"missing required flag {flag.name}")
            values[flag.field] = flag.default
    return values


def _check_sizes(values):
    """Byte payloads need both sizes (a pattern with default sizes: load); structured payloads
    (PROTOCOL.md 10.2) have none."""
    defaults = flags_of(values["pattern"]).sizes
    for index, (flag, field) in enumerate((("--request-size", "request_size"),
                                           ("--response-size", "response_size"))):
        if defaults is not None and values[field] is None:
            values[field] = defaults[index]
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
    """A pattern's switch without a response (`no_reply`: --void rr's, --one-way short's) is
    its own; with it --response-size is absent or 0 (PROTOCOL.md 1, 10.1, 11.2)."""
    for pattern in PATTERNS.values():
        if pattern.flags.no_reply is None:
            continue
        field, flag = pattern.flags.no_reply
        if not values[field]:
            continue
        if PATTERNS.get(values["pattern"]) is not pattern:
            raise ValueError(f"{flag} is used only with --pattern {pattern.name}")
        if values["response_size"]:
            raise ValueError(f"--response-size must be 0 with {flag}")
        values["response_size"] = 0


def args_given(args):
    """The flag names of a well-formed `--name value` list."""
    return set(args[0::2])


# serve flags of pattern burst that a load server (PROTOCOL.md 11.5.1), a server model serving
# a pattern by name (`serve --pattern`, patterns.py `serves`), does not take.
LOAD_SERVE_REFUSES = ("--connections", "--phases-file", "--backlog")


def _check_burst_serve(given, values):
    """--server-model needs --connections and --phases-file (burst) or --pattern load; the
    other flags of the server models need --server-model."""
    if values["server_model"] is None:
        for flag in BURST_SERVE_FLAGS:
            if flag.name in given:
                raise ValueError(f"flag {flag.name} is used only with --server-model")
        return
    if flags_of(values["pattern"]).serves:
        for name in LOAD_SERVE_REFUSES:
            if name in given and not (name == "--backlog" and _refuses_backlog(values)):
                raise ValueError(f"flag {name} is not used with --pattern {values['pattern']}")
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
    """At most one window per message (a pattern taking --windows: stream)."""
    if not belongs("--windows", flags_of(values["pattern"])):
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
    if (reply is not None) != flags_of(values["pattern"]).shares_queue:
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
