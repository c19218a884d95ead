"""Capabilities as data: the mechanisms (protocol/mechanisms.toml) and one adapter per language
(peers/<dir>/peer.toml). Nothing here knows a language by name; adding one is adding a file."""
import glob
import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ipclab.errors import UserError

ROLES = ("serve", "drive")


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
    payloads: tuple = ("bytes",)    # RPC mechanisms also carry the structured records

    def server_rule(self, client, server):
        """Why an in-process mechanism cannot have this client/server pair, or None."""
        if self.inprocess == "native" and server != "cpp":
            return f"{self.name} calls the native library in-process: its server is cpp"
        if self.inprocess == "self" and server != client:
            return f"{self.name} has no server: it is measured with server = client"
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
    name: str
    display: str
    command: list
    mechanisms: dict
    artifact: str | None = None
    library: str | None = None      # the native library of in-process mechanisms, if any
    requires: list = field(default_factory=list)
    build_hint: str = ""
    unavailable: str | None = None  # why this language's peer cannot run here, if it cannot
    # mechanism -> (bytes, reason): where this language's implementation carries less than the
    # mechanism itself (a framework's own message limit)
    max_payload: dict = field(default_factory=dict)

    def supports(self, mechanism, role):
        return role in self.mechanisms.get(mechanism, ())

    def size_limit(self, mechanism, request_size, response_size):
        """Why this peer cannot carry these sizes over `mechanism`, or None."""
        if mechanism not in self.max_payload:
            return None
        limit, reason = self.max_payload[mechanism]
        largest = max(request_size, response_size)
        if largest > limit:
            return f"{largest} B is over the {self.display} peer's {mechanism} limit of {limit} B: {reason}"
        return None

    def argv(self, root):
        """The command that starts this peer, with placeholders filled and paths made absolute."""
        values = {"{python}": sys.executable, "{java}": str(Path(java_home() or "") / "bin" / "java")}
        out = []
        for part in self.command:
            part = values.get(part, part)
            out.append(str(root / part) if (root / part).exists() else part)
        return out


@dataclass
class Catalog:
    root: Path
    mechanisms: dict
    languages: dict

    def mechanism(self, name):
        return self.mechanisms[name]


def load_catalog(root=None):
    root = Path(root) if root else repo_root()
    mechanisms = _load_mechanisms(root / "protocol" / "mechanisms.toml")
    languages = {}
    for path in root.glob("peers/*/peer.toml"):
        lang = _load_language(path, mechanisms)
        lang.unavailable = _why_unavailable(lang, root)
        languages[lang.name] = lang
    languages = dict(sorted(languages.items()))
    return Catalog(root=root, mechanisms=mechanisms, languages=languages)


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


def _load_language(path, mechanisms):
    data = _read_toml(path)
    for mech, roles in data.get("mechanisms", {}).items():
        if mech not in mechanisms or not set(roles) <= set(ROLES):
            raise UserError(f"{path}: [mechanisms] {mech} = {roles!r}: unknown mechanism or role")
    limits = {}
    for mech, spec in data.get("max_payload", {}).items():
        if mech not in mechanisms or not isinstance(spec, dict) \
                or not isinstance(spec.get("bytes"), int) or not isinstance(spec.get("reason"), str):
            raise UserError(f"{path}: [max_payload] {mech} = {spec!r}: expected a known mechanism "
                            f"= {{ bytes = N, reason = \"...\" }}")
        limits[mech] = (spec["bytes"], spec["reason"])
    return Language(
        name=data["language"], display=data.get("display", data["language"]),
        command=list(data["command"]), mechanisms=dict(data.get("mechanisms", {})),
        artifact=data.get("artifact"), library=data.get("library"),
        requires=list(data.get("requires", [])),
        build_hint=data.get("build_hint", ""), max_payload=limits,
    )


def _why_unavailable(lang, root):
    if lang.artifact and not (root / lang.artifact).exists():
        return f"not built ({lang.artifact} missing): run {lang.build_hint}"
    for need in lang.requires:
        if need == "jdk25" and not java_home():
            return "no JDK 25 found: set IPCLAB_JAVA_HOME to a JDK 25 or newer"
        if need.startswith("module:") and importlib.util.find_spec(need[7:]) is None:
            return f"Python module {need[7:]} is not installed: run {lang.build_hint}"
    return None


def _java_major(home):
    release = Path(home) / "release"
    try:
        match = re.search(r'JAVA_VERSION="(\d+)', release.read_text())
    except OSError:
        return 0
    return int(match.group(1)) if match else 0


@cache
def java_home():
    """A JDK 25+ home: IPCLAB_JAVA_HOME, else JAVA_HOME if new enough, else one in /usr/lib/jvm."""
    candidates = [os.environ.get("IPCLAB_JAVA_HOME"), os.environ.get("JAVA_HOME")]
    candidates += sorted(glob.glob("/usr/lib/jvm/*"), reverse=True)
    for home in filter(None, candidates):
        if _java_major(home) >= 25 and (Path(home) / "bin" / "java").exists():
            return home
    return None


def tool_version(argv):
    """First line a tool prints about its version, or None (used for the run's environment)."""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else None
