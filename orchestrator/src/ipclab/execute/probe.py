"""What the plan needs from this machine and its built peers, asked here so plan/ stays pure: the
[locate] commands' answers (a JDK's path), whether each peer can run here, the tools' versions,
and each built peer's `capabilities` answer (PROTOCOL.md section 1), asked once per build and
cached under .build/, keyed by the build's fingerprint, then checked by plan/capabilities.py."""
import importlib.util
import json
import subprocess
from functools import cache
from pathlib import Path

from ipclab.common.errors import UserError
from ipclab.plan import capabilities
from ipclab.plan.capabilities import CONTRACT
from ipclab.plan.catalog import read_catalog

ANSWER_TIMEOUT = 60    # seconds; a JVM answering on a loaded machine takes a few


def load_catalog(root=None, check=True):
    """Mechanisms and languages, each language's [locate] answers and whether its peer can run
    here; with `check`, every peer that can is asked for its capabilities (cached per build) and
    must agree with its peer.toml (plan/capabilities.py)."""
    catalog = read_catalog(root)
    for lang in catalog.languages.values():
        locate_all(lang)
        lang.unavailable = why_unavailable(lang, catalog.root)
    if check:
        check_all(catalog)
    return catalog


def locate_all(lang):
    """The language with `located` filled: each [locate] entry's answer that found something."""
    found = {name: locate(tuple(spec["command"]), str(lang.root))
             for name, spec in lang.locate.items()}
    lang.located = {name: value for name, value in found.items() if value}
    return lang


def why_unavailable(lang, root):
    """Why the language's peer cannot run here (not built, its toolchain or a module missing)."""
    if lang.artifact and not (Path(root) / lang.artifact).exists():
        return f"not built ({lang.artifact} missing): run {lang.build_hint}"
    missing = lang.missing_tool()
    if missing:
        return missing
    for need in lang.requires:
        if need.startswith("module:") and importlib.util.find_spec(need[7:]) is None:
            return f"Python module {need[7:]} is not installed: run {lang.build_hint}"
    return None


@cache
def locate(command, root):
    """What a [locate] command prints (a path, a version), or None when it fails."""
    argv = [str(Path(root) / command[0]) if (Path(root) / command[0]).exists() else command[0],
            *command[1:]]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20, cwd=root)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = out.stdout.strip()
    return text if out.returncode == 0 and text else None


def tool_version(argv):
    """First line a tool prints about its version, or None (used for the run's environment)."""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else None


def check_all(catalog):
    """Checks every peer that can run here; fills each language's kernel-reported limits and
    `runtime`. Raises UserError on the first disagreement."""
    for lang in catalog.languages.values():
        if lang.unavailable is None:
            answer = answer_of(lang, catalog.root)
            capabilities.compare(lang, answer, catalog.mechanisms)
            capabilities.apply(lang, answer, catalog.mechanisms)


def answer_of(lang, root):
    """The peer's capabilities answer, from the cache when the build has not changed."""
    key = fingerprint(lang, root)
    saved_at = Path(root) / ".build" / "capabilities" / f"{lang.name}.json"
    try:
        saved = json.loads(saved_at.read_text())
        if saved.get("fingerprint") == key:
            return saved["answer"]
    except (OSError, ValueError, KeyError, AttributeError):
        pass
    answer = ask(lang)
    try:
        saved_at.parent.mkdir(parents=True, exist_ok=True)
        tmp = saved_at.with_suffix(".tmp")
        tmp.write_text(json.dumps({"fingerprint": key, "answer": answer}))
        tmp.replace(saved_at)
    except OSError:
        pass  # a read-only checkout asks every time; still correct
    return answer


def fingerprint(lang, root):
    """What changes when the peer is rebuilt: size and mtime of the artifact (or of the files
    peer.toml's `fingerprint` globs name), and the command itself."""
    root = Path(root)
    paths = [root / lang.artifact] if lang.artifact else []
    for pattern in lang.fingerprint:
        paths += sorted(root.glob(pattern))
    stamps = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            continue
        stamps.append(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}")
    return {"command": lang.argv(), "files": stamps}


def ask(lang):
    where = lang.toml_path or lang.name
    argv = [*lang.argv(), "capabilities"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=ANSWER_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise UserError(f"{where}: the {lang.display} peer did not answer `capabilities` within "
                        f"{ANSWER_TIMEOUT} s") from None
    except OSError as e:
        raise UserError(f"{where}: cannot start the {lang.display} peer: {e}") from None
    if done.returncode != 0:
        tail = " | ".join(done.stderr.strip().splitlines()[-2:]) or "no stderr"
        # Exit 2 is a usage error: a peer of contract 1 does not know the subcommand.
        why = (f"it predates contract {CONTRACT}; rebuild it ({lang.build_hint})"
               if done.returncode == 2 else "the peer is broken; see its message")
        raise UserError(f"{where}: the {lang.display} peer answered `capabilities` with exit "
                        f"{done.returncode} ({tail}): {why}")
    try:
        answer = json.loads(done.stdout.strip().splitlines()[0])
        if not isinstance(answer, dict) or not isinstance(answer.get("mechanisms"), dict):
            raise ValueError("no mechanisms object")
    except (ValueError, IndexError) as e:
        raise UserError(f"{where}: the {lang.display} peer's `capabilities` answer is not the "
                        f"contract's JSON ({e}): {done.stdout[:200]!r}") from None
    return answer
