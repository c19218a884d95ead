"""Capabilities as data: the mechanisms (protocol/mechanisms.toml) and one adapter per language
(peers/<dir>/peer.toml). Nothing here knows a language by name; adding one is adding a file."""
import os
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ipclab.common.errors import UserError
from ipclab.plan import patterns as pattern_table

ROLES = ("serve", "drive")
DEFAULT_PATTERNS = (pattern_table.DEFAULT.name,)


def repo_root():
    """The checkout this orchestrator belongs to (IPCLAB_ROOT overrides, for tests)."""
    if os.environ.get("IPCLAB_ROOT"):
        return Path(os.environ["IPCLAB_ROOT"]).resolve()
    for parent in Path(__file__).resolve().parents:
        if (parent / "protocol" / "PROTOCOL.md").is_file():
            return parent
    raise UserError("cannot find the ipclab checkout (no protocol/PROTOCOL.md above the package);"
                    " set IPCLAB_ROOT")


@dataclass(frozen=True)
class Mechanism:
    name: str
    description: str
    endpoint: str
    max_payload: int
    limit_reason: str = ""
    same_core: bool = True          # False: the peers must not share a CPU (spinning)
    same_core_reason: str = ""
    inprocess: str | None = None    # "native": the server is the native library; "self": none
    peer_limit: bool = False        # the real limit is the kernel's: each peer reports its own
    payloads: tuple = ("bytes",)    # RPC mechanisms also carry the structured records
    many_clients: bool = False      # a server serves several clients at once (load, 11.5)
    copies: int = 2                 # times a payload byte is copied per message (--explain's model)
    shared_max_request: int | None = None   # many clients share one queue: a request is one message
    shared_reason: str = ""
    broker: str = "activemq"        # endpoint broker, broker-socket: which server a round starts

    def server_rule(self, client, server, native_servers):
        """Why an in-process mechanism cannot have this client/server pair, or None.
        `native_servers`: the languages whose peer.toml names the native library."""
        if self.inprocess == "native" and server not in native_servers:
            return (f"{self.name} calls the native library in-process: its server is "
                    f"{' or '.join(native_servers) or 'the language that builds it'}")
        if self.inprocess == "self" and server != client:
            return f"{self.name} has no server: it is measured with server = client"
        return None

    def shared_not_applicable(self, request_size):
        """Why a request cannot go through a queue that many clients share (load over a message
        queue, PROTOCOL.md 11.5.5), or None."""
        if self.shared_max_request is not None and request_size > self.shared_max_request:
            return f"a {request_size} B request is over {self.shared_max_request} B: {self.shared_reason}"
        return None

    def not_applicable(self, request_size, response_size, payload="bytes"):
        """Why a payload cannot travel over this mechanism, or None if it can."""
        if payload not in self.payloads:
            return (f"{self.name} carries {', '.join(self.payloads)} payloads only; the structured "
                    f"records ({payload}) need an RPC mechanism")
        largest = max(request_size, response_size)
        if largest > self.max_payload:
            why = self.limit_reason or f"{self.name} carries at most {self.max_payload} payload bytes"
            return f"{largest} B is over the limit: {why}"
        return None


@dataclass
class Language:
    """One language's adapter, read from its peer.toml: how to start, build and test its peer and
    what the peer claims to do. Placeholders like {python} or {jdk} in commands are filled from
    [locate] (a command whose output is the value) or, for {python}, this interpreter."""
    name: str
    display: str
    command: list
    mechanisms: dict
    toml_path: Path | None = None
    artifact: str | None = None
    library: str | None = None      # the native library of in-process mechanisms, if any
    floor: bool = False             # `ipclab bench` holds this peer to the hand-written C floor
    requires: list = field(default_factory=list)   # "module:NAME": a Python module (the venv)
    locate: dict = field(default_factory=dict)     # name -> {command, missing, required}
    build: list = field(default_factory=list)      # commands, run in order from the checkout
    build_inputs: list = field(default_factory=list)  # globs: skip the build when none is newer
    build_env: dict = field(default_factory=dict)
    test: list = field(default_factory=list)
    clean: list = field(default_factory=list)     # what `make clean` removes (build outputs)
    fingerprint: list = field(default_factory=list)   # globs whose change means "rebuilt"
    version: list = field(default_factory=list)    # a command printing the runtime's version
    build_hint: str = ""
    unavailable: str | None = None  # why this language's peer cannot run here, if it cannot
    # mechanism -> (bytes, reason): where this language's implementation carries less than the
    # mechanism itself (a framework's own message limit, or a kernel limit the peer reported)
    max_payload: dict = field(default_factory=dict)
    # mechanism -> why this language's peer does not implement it (peer.toml [unsupported]):
    # said by `ipclab list` and in each case's not-applicable reason
    unsupported: dict = field(default_factory=dict)
    # mechanism -> the library its build needs (peer.toml `needs`): a peer built without it
    # leaves the mechanism out of its capabilities, which then costs that mechanism alone
    needs: dict = field(default_factory=dict)
    patterns: dict = field(default_factory=dict)   # mechanism -> patterns; default ["rr"]
    server_models: dict = field(default_factory=dict)  # mechanism -> burst server models (11.4)
    load_models: dict = field(default_factory=dict)    # mechanism -> load server models (11.5)
    # model -> why it may be missing: listed by the peer only where the machine allows it
    optional_server_models: dict = field(default_factory=dict)
    # patterns whose client takes --release-at (PROTOCOL.md 11.4.4, 11.5.3): it can be one of
    # several clients on several hosts released together (execute/spread.py)
    release_at: tuple = ()
    root: Path | None = None
    runtime: str | None = None      # what the built peer says it runs on (its capabilities)
    # setting -> mechanisms: the settings only this peer takes (peer.toml [settings]; PROTOCOL.md
    # 4.6), and where each means something
    own_settings: dict = field(default_factory=dict)
    # mechanism -> which of its library's codecs the built peer uses, where it says (its
    # capabilities' `codec`, PROTOCOL.md 1): the Python peer's Thrift protocols
    codecs: dict = field(default_factory=dict)
    # mechanism -> the library and version the built peer carries it over, where it says (its
    # capabilities' `library`, PROTOCOL.md 1): "libzmq 4.3.4"; each case records it (rundir.py)
    libraries: dict = field(default_factory=dict)
    # [locate] name -> what its command printed on this machine, where it found something
    # (execute/probe.py asks)
    located: dict = field(default_factory=dict)

    def supports(self, mechanism, role):
        return role in self.mechanisms.get(mechanism, ())

    def takes(self, setting, mechanism):
        """Whether this peer takes its own setting `setting` over `mechanism` (peer.toml [settings])."""
        return mechanism in self.own_settings.get(setting, ())

    def patterns_of(self, mechanism):
        return list(self.patterns.get(mechanism, DEFAULT_PATTERNS))

    def size_limit(self, mechanism, request_size, response_size):
        """Why this peer cannot carry these sizes over `mechanism`, or None."""
        if mechanism not in self.max_payload:
            return None
        limit, reason = self.max_payload[mechanism]
        largest = max(request_size, response_size)
        if largest > limit:
            return f"{largest} B is over the {self.display} peer's {mechanism} limit of {limit} B: {reason}"
        return None

    def placeholders(self):
        """{name} -> value for every [locate] entry that was found (`located`), {python} and
        {root} (the checkout, for a path inside an option such as -XX:SharedArchiveFile=)."""
        return {"python": sys.executable, "root": str(self.root), **self.located}

    def missing_tool(self):
        """Why this language's toolchain is not on the machine (its first required [locate]
        entry that found nothing, in peer.toml's words), else None."""
        values = self.placeholders()
        for name, spec in self.locate.items():
            if spec.get("required", True) and name not in values:
                return spec.get("missing", f"{name} not found (scripts: {' '.join(spec['command'])})")
        return None

    def fill(self, parts, values=None):
        """Placeholders filled; a part naming a file of the checkout made absolute."""
        values = self.placeholders() if values is None else values
        out = []
        for part in parts:
            for name, value in values.items():
                part = part.replace("{" + name + "}", value)
            out.append(str(self.root / part) if self.root and (self.root / part).exists() else part)
        return out

    def argv(self, root=None):
        """The command that starts this peer, with placeholders filled and paths made absolute."""
        return self.fill(self.command)

    def environment(self):
        """build_env with placeholders filled; a variable whose value was not found is left out
        (an optional [locate] entry, like the C++ build's JDK)."""
        values = self.placeholders()
        filled = {k: self.fill([v], values)[0] for k, v in self.build_env.items()}
        return {k: v for k, v in filled.items() if "{" not in v}


@dataclass
class Catalog:
    root: Path
    mechanisms: dict
    languages: dict

    def mechanism(self, name):
        return self.mechanisms[name]

    @property
    def native_servers(self):
        """Languages whose peer builds the native library of the in-process mechanisms."""
        return [lang.name for lang in self.languages.values() if lang.library]


def read_catalog(root=None):
    """Mechanisms and languages as their files say; what only the machine knows (the [locate]
    answers, whether each peer can run here, its capabilities) execute/probe.py adds."""
    root = Path(root) if root else repo_root()
    mechanisms = _load_mechanisms(root / "protocol" / "mechanisms.toml")
    languages = {}
    for path in root.glob("peers/*/peer.toml"):
        lang = _load_language(path, mechanisms, root)
        languages[lang.name] = lang
    return Catalog(root=root, mechanisms=mechanisms, languages=dict(sorted(languages.items())))


def load_mechanisms(root=None):
    """The mechanism table (protocol/mechanisms.toml) alone, without the languages."""
    return _load_mechanisms((root or repo_root()) / "protocol" / "mechanisms.toml")


def _read_toml(path):
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: not valid TOML: {e}") from None


def _load_mechanisms(path):
    out = {}
    for name, spec in _read_toml(path).items():
        if "payloads" in spec:
            spec = {**spec, "payloads": tuple(spec["payloads"])}
        out[name] = Mechanism(name=name, **spec)
    return out


def _load_language(path, mechanisms, root):
    data = _read_toml(path)
    for key in ("language", "command"):
        if key not in data:
            raise UserError(f"{path}: {key!r} is missing")
    roles, patterns, needs, models = {}, {}, {}, {"server_models": {}, "load_models": {}}
    for mech, spec in data.get("mechanisms", {}).items():
        if isinstance(spec, list):
            spec = {"roles": spec}
        if mech not in mechanisms or not isinstance(spec, dict) \
                or not set(spec.get("roles", ())) <= set(ROLES):
            raise UserError(f"{path}: [mechanisms] {mech} = {spec!r}: unknown mechanism or role")
        roles[mech] = list(spec["roles"])
        if "patterns" in spec:
            patterns[mech] = list(spec["patterns"])
        if "needs" in spec:
            if not isinstance(spec["needs"], str) or not spec["needs"]:
                raise UserError(f"{path}: [mechanisms] {mech} needs = {spec['needs']!r}: expected "
                                f"the library the build needs, in words")
            needs[mech] = spec["needs"]
        for key, found in models.items():
            if key in spec:
                found[mech] = list(spec[key])
    limits = {}
    for mech, spec in data.get("max_payload", {}).items():
        if mech not in mechanisms or not isinstance(spec, dict) \
                or not isinstance(spec.get("bytes"), int) or not isinstance(spec.get("reason"), str):
            raise UserError(f"{path}: [max_payload] {mech} = {spec!r}: expected a known mechanism "
                            f"= {{ bytes = N, reason = \"...\" }}")
        limits[mech] = (spec["bytes"], spec["reason"])
    unsupported = data.get("unsupported", {})
    for mech, why in unsupported.items():
        if mech not in mechanisms or mech in roles or not isinstance(why, str) or not why:
            raise UserError(f"{path}: [unsupported] {mech} = {why!r}: expected a known mechanism "
                            f"that [mechanisms] does not list = \"why not\"")
    for name, spec in data.get("locate", {}).items():
        if not isinstance(spec, dict) or not isinstance(spec.get("command"), list):
            raise UserError(f"{path}: [locate] {name} = {spec!r}: expected {{ command = [...] }}")
    own = data.get("settings", {})
    for name, mechs in own.items():
        if not isinstance(mechs, list) or not set(mechs) <= set(mechanisms):
            raise UserError(f"{path}: [settings] {name} = {mechs!r}: expected a list of known "
                            f"mechanisms")
    return Language(
        name=data["language"], display=data.get("display", data["language"]),
        command=list(data["command"]), mechanisms=roles, patterns=patterns, toml_path=path,
        server_models=models["server_models"], load_models=models["load_models"],
        optional_server_models=dict(data.get("optional_server_models", {})),
        artifact=data.get("artifact"), library=data.get("library"),
        floor=bool(data.get("floor", False)), requires=list(data.get("requires", [])), locate=dict(data.get("locate", {})),
        build=[list(c) for c in data.get("build", [])], build_inputs=list(data.get("build_inputs", [])),
        build_env=dict(data.get("build_env", {})), test=[list(c) for c in data.get("test", [])],
        clean=list(data.get("clean", [])),
        fingerprint=list(data.get("fingerprint", [])), version=list(data.get("version", [])),
        build_hint=data.get("build_hint", "make build"), max_payload=limits, root=root,
        unsupported=dict(unsupported), needs=needs,
        own_settings={name: list(mechs) for name, mechs in own.items()},
        release_at=tuple(data.get("release_at", ())),
    )
