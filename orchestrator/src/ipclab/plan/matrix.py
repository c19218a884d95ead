"""The matrix of cases: every combination of the scenario's axes, each either runnable or
marked with why it is not (a skip is a result too, never a silent drop)."""
import dataclasses
import itertools
from dataclasses import dataclass

from ipclab.plan import patterns
from ipclab.plan import settings as setting_table
from ipclab.plan import placement as placement_mod
from ipclab.common.units import format_size


@dataclass(frozen=True)
class Case:
    index: int
    mechanism: str
    client: str
    server: str
    request_size: int | None   # None for stream cases (their size is message_size)
    response_size: int | None
    placement: str
    pattern: patterns.Pattern  # its row (a name given here becomes its row)
    skip_status: str | None = None  # "not-applicable" or "unavailable"
    skip_reason: str | None = None
    payload: str = "bytes"
    sequence_length: int | None = None  # structured payloads only
    message_size: int | None = None     # stream cases only (PROTOCOL.md 11.1)
    server_model: str | None = None     # burst cases only (PROTOCOL.md 11.4)
    # (name, value) of every setting that applies to the case (plan/settings.py), defaults too
    settings: tuple = ()

    def __post_init__(self):
        if not isinstance(self.pattern, patterns.Pattern):  # a name: a test's, a saved record's
            object.__setattr__(self, "pattern", patterns.of(self.pattern))

    @property
    def shape(self):
        """What travels, for names: "16-1024" (request-response bytes), "m1024" (a stream's
        messages) or "small-5"."""
        if self.message_size is not None:
            return f"m{self.message_size}"
        if self.payload == "bytes":
            return f"{self.request_size}-{self.response_size}"
        return f"{self.payload}-{self.sequence_length}"

    @property
    def id(self):
        model = f"-{self.server_model}" if self.server_model else ""
        return (f"{self.index:04d}-{self.mechanism}-{self.client}-{self.server}-"
                f"{self.shape}-{self.placement}-{self.pattern.name}{model}"
                f"{setting_table.id_suffix(self.settings)}")

    @property
    def label(self):
        return case_label(self)

    def as_dict(self):
        """The case as run.json keeps it: its pattern by name."""
        return {"id": self.id, **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)},
                "pattern": self.pattern.name, "settings": dict(self.settings)}


def case_label(case, pattern=True, server_model=True, placement=True, also=()):
    """The name of a case (a Case or its record): "tcp stream cpp→java 1 KiB msg cross-core" (the
    pattern where it names itself, a burst's server model after it). Without pattern, model and
    placement it is the name the tables and the history give a case, "tcp cpp→cpp 16 B/16 B",
    then the values of `also` (e.g. pattern, placement) where they tell cases apart."""
    get = _getter(case)
    parts = [variant(case, pattern, server_model), f"{get('client')}→{get('server')}",
             describe_shape(case)]
    parts += [get("placement")] if placement else []
    return " ".join([*parts, *(str(get(k)) for k in also)])


def variant(case, pattern=True, server_model=True):
    """The mechanism as this case runs it: "tcp", "tcp short", "tcp burst epoll", "rest json body"
    (its pattern where it names itself, a burst's server model, the settings it changed)."""
    get = _getter(case)
    words = [get("mechanism")]
    if pattern and patterns.of_record(case).in_label:
        words.append(get("pattern"))
    if server_model and get("server_model"):
        words.append(get("server_model"))
    words.append(setting_table.label_words(get("settings")))  # "" for the defaults
    return " ".join(filter(None, words))


def axis_value(case, axis):
    """The value of `axis` for a Case or a case record: a matrix axis, a setting, "variant" or
    "pair" (client→server), as tables and claims name cases."""
    get = _getter(case)
    if axis == "variant":
        return variant(case)
    if axis == "pair":
        return f"{get('client')}→{get('server')}"
    if axis in setting_table.NAMES:
        return dict(get("settings") or {}).get(axis)
    return get(axis)


def short_label(case, also=()):
    """"tcp cpp→cpp 16 B/16 B" and the values of `also`: case_label without pattern, server
    model and placement (the name `ipclab compare` and the history give a case)."""
    return case_label(case, pattern=False, server_model=False, placement=False, also=also)


def _getter(record):
    """A reader of a case record's fields (a dict), or of a Case's (or a case's fields) as its
    record has them: the pattern by its name."""
    get = record.get if isinstance(record, dict) else lambda k: getattr(record, k, None)
    return lambda k: _as_written(get(k))


def _as_written(value):
    return value.name if isinstance(value, patterns.Pattern) else value


def describe_shape(record):
    """"16 B/1 KiB" for sized payloads, "small ×5" for structured ones (a record or a Case)."""
    get = _getter(record)
    if get("message_size") is not None:
        return f"{format_size(get('message_size'))} msg"
    reply = dict(get("settings") or {}).get("reply", "echo")
    if (get("payload") or "bytes") == "bytes":
        back = {"void": "void", "one-way": "none"}.get(reply) or format_size(get("response_size"))
        return f"{format_size(get('request_size'))}/{back}"
    return f"{get('payload')} ×{get('sequence_length')}" + (" void" if reply == "void" else "")


def expand(scenario, catalog, cpus=None):
    """Cases in a stable order: the scenario's axes nested left to right, except that each
    pattern brings its own shapes (a stream's message sizes, the others' request × response
    sizes), nested inside the pattern."""
    cases = []
    m = scenario.matrix
    # burst: one case per server model (PROTOCOL.md 11.4), innermost of the pattern's shapes.
    shaped = [(pattern, shape, model) for pattern in map(patterns.of, m["pattern"])
              for shape in pattern.shapes(m)
              for model in (m["server_model"] if pattern.server_models else [None])]
    somewhere = _settings_used(m, catalog, shaped)
    combos = ((mech, client, _server(catalog.mechanism(mech), client, server), shaped_one, where,
               chosen)
              for mech, client, server, shaped_one, where in itertools.product(
                  m["mechanism"], m["client"], m["server"], shaped, m["placement"])
              if _first_server(catalog.mechanism(mech), server, m["server"])
              for chosen in _settings(m, catalog.mechanism(mech), shaped_one, somewhere,
                                      _sides(catalog, catalog.mechanism(mech), client, server)))
    for index, (mech, client, server, (pattern, shape, model), where, chosen) in enumerate(
            combos, start=1):
        req, resp, payload, length, message_size = shape
        fields = dict(mechanism=mech, client=client, server=server, request_size=req,
                      response_size=resp, payload=payload, sequence_length=length,
                      placement=where, pattern=pattern, message_size=message_size,
                      server_model=model, settings=chosen)
        status, reason = (_left_out(fields, m.get("exclude")) or _off_design(fields, m.get("design"))
                          or _why_not(fields, catalog, cpus))
        cases.append(Case(index=index, skip_status=status, skip_reason=reason, **fields))
    return cases


LEFT_OUT = "left out by the scenario"   # a case's reason when its scenario does not run it


def _left_out(fields, exclusions):
    """("not-applicable", why) for a case the scenario's [matrix] exclude names (all of one
    table's axes match), else None: listed with its reason, as a study's table shows a cell it
    did not measure, and never run."""
    for table in exclusions or []:
        if all(axis_value(fields, axis) in values for axis, values in table.items()):
            return ("not-applicable",
                    f"{LEFT_OUT} ([matrix] exclude: {describe_exclusion(table)})")
    return None


def _off_design(fields, design):
    """("not-applicable", why) for a case that changes two or more of the axes of [matrix]
    design's study condition (those that apply to it) and is not ipclab's usual way on all of
    them: a study is run as it was, each one condition changed at a time (what `ipclab why`
    turns), and the usual way beside it, not every combination of its conditions."""
    if not design:
        return None
    applying = {axis: axis_value(fields, axis) for axis in design["study"]}
    applying = {axis: value for axis, value in applying.items() if value is not None}
    changed = [axis for axis, value in applying.items() if value != design["study"][axis]]
    usual = design.get("usual")
    if len(changed) <= 1 or (usual and all(usual[a] == v for a, v in applying.items())):
        return None
    return ("not-applicable",
            f"{LEFT_OUT} ([matrix] design: the study's condition, one change at a "
            f"time{', and the usual way' if usual else ''}; this case changes {', '.join(changed)})")


def describe_exclusion(table):
    """"mechanism corba, rest; request_size 128 MiB": one table of [matrix] exclude."""
    return "; ".join(f"{axis} " + ", ".join(
        format_size(x) if axis.endswith("_size") else str(x) for x in values)
        for axis, values in table.items())


def _server(mech, client, server):
    """The case's server: a mechanism without a server process of its own (`none`, the mock:
    the client makes the response itself) is the client's alone, whatever servers the scenario
    lists for the other mechanisms (so the thesis's Java → C++ table can hold its mock)."""
    return client if mech.inprocess == "self" else server


def _first_server(mech, server, servers):
    """One case per client for a mechanism without a server, not one per listed server."""
    return mech.inprocess != "self" or server == servers[0]


def _sides(catalog, mech, client, server):
    """The case's peers, client first (one for an in-process mechanism: no server process)."""
    langs = catalog.languages
    return (langs[client],) if mech.inprocess else (langs[client], langs[_server(mech, client, server)])


def _settings_used(m, catalog, shaped):
    """The settings that apply to at least one (mechanism, pattern, payload, peers) of the matrix."""
    return {name for mech in m["mechanism"] for pattern, shape, _ in shaped
            for client in m["client"] for server in m["server"]
            for name in setting_table.applicable(
                catalog.mechanism(mech), pattern, shape[2],
                _sides(catalog, catalog.mechanism(mech), client, server))}


def _settings(m, mech, shaped_one, somewhere, sides):
    """Each combination of the settings' values for one case, innermost of the matrix, as
    (name, value) tuples of the settings that apply to it. A setting that does not apply to this
    case is left out of it when it applies to another case of the matrix or the scenario lists
    its default: `--nodelay on,off` over tcp and uds makes two tcp cases and one uds case, and
    `rest_body = ["json"]` beside jni leaves jni alone. A setting that applies to no case of the
    matrix, or a reply other than the echo, stays, and the cases it cannot apply to are not
    applicable with the reason (a value asked for is never dropped in silence)."""
    pattern, shape, _ = shaped_one
    payload = shape[2]
    usable = setting_table.applicable(mech, pattern, payload, sides)
    axes = []
    for name, setting in setting_table.SETTINGS.items():
        values = m.get(name) or [setting.default]
        # A mechanism's option (nodelay, a body, a payload form, a poll) leaves the others
        # alone; the reply is what a case exchanges, so a case that cannot have it is said.
        optional = name in somewhere and setting is not setting_table.REPLY
        if name not in usable and (setting.default in values or optional):
            continue
        axes.append([(name, v) for v in values])
    return [tuple(combo) for combo in itertools.product(*axes)]


def _too_big(f, mech, langs):
    """Why the case's sizes cannot travel, or None. Limits are of a frame's payload (a datagram
    less its 24-byte header); a bare stream message (11.1) also has those 24 bytes."""
    if f["message_size"] is None:
        sizes = (f["request_size"], f["response_size"])
    else:
        bare = max(0, f["message_size"] - patterns.FRAME_HEADER)
        sizes = (bare, bare)
    why = mech.not_applicable(*sizes, f["payload"]) or next(
        filter(None, (lang.size_limit(mech.name, *sizes) for lang in langs)), None)
    if why and f["message_size"] is not None:
        return (f"a {f['message_size']} B stream message takes what a frame's {sizes[0]} B payload "
                f"and its 24-byte header take, and {why}")
    return why


def _model_why_not(f, mech, server):
    """Why the case's server model cannot run (not applicable, or unavailable on this machine),
    or None."""
    pattern = f["pattern"]
    models = getattr(server, pattern.models_key).get(mech.name, [])
    optional = server.optional_server_models.get(f["server_model"])
    if f["server_model"] not in models and optional:
        return "unavailable", (f"the {server.display} peer's {f['server_model']} "
                               f"server model is not on this machine: {optional}")
    if f["server_model"] not in models:
        return "not-applicable", (f"the {server.display} peer has no {pattern.name} server "
                                  f"model {f['server_model']} over {mech.name} (its models: "
                                  f"{', '.join(models) or 'none'})")
    return None


def _why_not(f, catalog, cpus):
    """What the case itself cannot be (not-applicable) comes before what this machine lacks."""
    mech = catalog.mechanism(f["mechanism"])
    roles = (("drive", catalog.languages[f["client"]]), ("serve", catalog.languages[f["server"]]))
    if mech.inprocess:
        rule = mech.server_rule(f["client"], f["server"], catalog.native_servers)
        if rule:
            return "not-applicable", rule
        roles = roles[:1]  # no server process to ask for a role
    pattern = f["pattern"]
    why = pattern.mechanism_why_not(mech, catalog, f["request_size"])  # load: many clients
    if why:
        return "not-applicable", why
    if f["placement"] == "same-core" and not mech.same_core:
        return "not-applicable", f"{mech.name} at same-core: {mech.same_core_reason}"
    for role, lang in roles:
        if not lang.supports(mech.name, role):
            why = lang.unsupported.get(mech.name)
            return "not-applicable", (f"the {lang.display} peer has no {mech.name} {role} role"
                                      + (f": {why}" if why else ""))
    client = roles[0][1]
    if pattern.name not in client.patterns_of(mech.name):
        return "not-applicable", (f"the {client.display} peer drives {mech.name} with "
                                  f"{', '.join(client.patterns_of(mech.name))} only, not "
                                  f"{pattern.name}")
    why = f["server_model"] and _model_why_not(f, mech, roles[1][1])
    if why:
        return why
    for name, value in f["settings"]:
        why = setting_table.why_not(name, value, mech, pattern, f["payload"],
                                    [lang for _, lang in roles])
        if why:
            return "not-applicable", f"{name} = {value}: {why}"
        if name == setting_table.REPLY.name and value != "echo" and f["response_size"]:
            return "not-applicable", (f"reply = {value} carries no response, so its response "
                                      f"size is 0, not {f['response_size']} (--response-size "
                                      f"void, or 0)")
    why = f["request_size"] is not None and setting_table.sizes_why_not(
        f["settings"], f["request_size"], f["response_size"])
    if why:
        return "not-applicable", why
    why = pattern.payload_why_not(f["payload"])  # rr carries the structured records
    if why:
        return "not-applicable", why
    too_big = _too_big(f, mech, [lang for _, lang in roles])
    if too_big:
        return "not-applicable", too_big
    where = placement_mod.resolve(f["placement"], cpus)
    if isinstance(where, str):
        return "not-applicable", where
    for _, lang in roles:
        if lang.unavailable:
            return "unavailable", f"{lang.display} peer: {lang.unavailable}"
    if mech.inprocess == "native":
        native = catalog.languages[f["server"]]
        if not native.library or not (catalog.root / native.library).exists():
            return "unavailable", f"the native library ({native.library}) is not built: run make build"
    return None, None
