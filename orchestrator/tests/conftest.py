import fcntl
import json
import os
import statistics
import tempfile
import time
import uuid
from types import SimpleNamespace

import pytest

from ipclab.execute import explain, leaks
from ipclab.execute.probe import load_catalog

# Every process this session starts (ipclab runs, their peers, their ssh) inherits this tag, so
# the leak audit at its end can tell its own leftovers from another suite's live processes.
os.environ[leaks.TAG_VARIABLE] = uuid.uuid4().hex


# Each end-to-end test's seconds (setup, call and teardown), as `make test-durations` last
# measured them: what the shards are dealt by.
DURATIONS_FILE = os.path.join(os.path.dirname(__file__), "durations.json")
_measured = {}  # this session's, kept when IPCLAB_STORE_DURATIONS is set


def measured_seconds():
    """{test id: seconds} of durations.json; none beside a copy of this file elsewhere (the
    leak audit's own test runs it in a session of its own)."""
    try:
        with open(DURATIONS_FILE) as f:
            return json.load(f)["seconds"]
    except FileNotFoundError:
        return {}


@pytest.fixture(scope="session")
def catalog():
    return load_catalog(check=False)  # the real peers are checked in test_capabilities.py


@pytest.hookimpl(trylast=True)  # after -m has kept the tier's tests: deal only those
def pytest_collection_modifyitems(config, items):
    """IPCLAB_TEST_SHARD=K/N keeps the K-th of N shards: `make test` runs the shards side by side,
    each in an IPC namespace of its own (scripts/isolated). Tests are dealt one by one, not file
    by file, each to the shard with the least work so far, by the seconds each took when last
    measured (durations.json), so the slow parametrised end-to-end tests spread evenly."""
    shard = os.environ.get("IPCLAB_TEST_SHARD")
    if not shard:
        return
    try:
        k, n = (int(part) for part in shard.split("/"))
        assert 1 <= k <= n
    except (ValueError, AssertionError):
        raise pytest.UsageError(f"IPCLAB_TEST_SHARD: expected K/N with 1 <= K <= N, got {shard!r}")
    shards = deal(items, n)
    config.hook.pytest_deselected(items=[t for t, s in zip(items, shards) if s != k - 1])
    items[:] = [t for t, s in zip(items, shards) if s == k - 1]


def deal(items, n, seconds=None):
    """The shard (0 … n-1) of each item: the one with the least work dealt so far, the heavy
    items first so that the light ones even out what they leave; the same in every shard. An
    item weighs its seconds in `seconds` (durations.json's); one not measured yet the median
    measured test, or W of them when marked `weight(W)`. Tests that take a module-scoped fixture
    of their own module (test_html_report.py's run, the stock clients' generated stubs) are
    dealt together: a shard that had one of them would make it again."""
    seconds = measured_seconds() if seconds is None else seconds
    typical = statistics.median(seconds.values()) if seconds else 1.0

    def weight(item):
        if getattr(item, "nodeid", None) in seconds:
            return seconds[item.nodeid]
        marker = item.get_closest_marker("weight")
        return typical * (marker.args[0] if marker else 1)
    groups = {}
    for i, item in enumerate(items):
        groups.setdefault(_shared_fixture(item) or i, []).append(i)
    load, shard_of = [0] * n, {}
    for group in sorted(groups.values(), key=lambda g: -sum(weight(items[i]) for i in g)):
        shard = min(range(n), key=lambda s: (load[s], s))
        for i in group:
            shard_of[i] = shard
            load[shard] += weight(items[i])
    return [shard_of[i] for i in range(len(items))]


def pytest_runtest_logreport(report):
    if os.environ.get("IPCLAB_STORE_DURATIONS"):
        _measured[report.nodeid] = _measured.get(report.nodeid, 0.0) + report.duration


def _store_durations():
    """This session's tests' seconds into durations.json, beside the other shards' (each shard
    is a session of its own: the file is locked while it is read and written)."""
    with open(DURATIONS_FILE, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        data = json.loads(f.read() or '{"seconds": {}}')
        data["seconds"].update({k: round(max(v, 0.05), 2) for k, v in _measured.items()})
        data["seconds"] = dict(sorted(data["seconds"].items()))
        f.seek(0)
        f.truncate()
        json.dump(data, f, indent=1)
        f.write("\n")


def _shared_fixture(item):
    """(module, fixture names) of the module-scoped fixtures the test asks for by name, or None."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    names = tuple(sorted(name for name in info.argnames
                         if any(d.scope == "module" for d in info.name2fixturedefs.get(name, ()))))
    return (item.module.__name__, names) if names else None


def pytest_sessionfinish(session, exitstatus):
    """The leak audit (execute/leaks.py): whatever this session's runs left behind fails it,
    listed: processes, IPC objects, scratch directories, namespaces, FIFOs and sockets under
    its temporary directories. A process may take a moment to go after its run's last test."""
    if session.config.option.collectonly:
        return
    if _measured:
        _store_durations()
    watched = [session.config._tmp_path_factory.getbasetemp()]
    for _ in range(50):  # a browser's helpers, a JVM: up to 5 s to go
        left = leaks.find(os.environ[leaks.TAG_VARIABLE], tempfile.gettempdir(), watched)
        if not any(line.startswith("process ") for line in left):
            break
        time.sleep(0.1)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if left:
        reporter.write_line(f"leak audit: {len(left)} thing(s) left behind:", red=True)
        for line in left:
            reporter.write_line(f"  {line}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    invalid = schema_audit(watched[0])
    if invalid:
        reporter.write_line(f"schema audit: {len(invalid)} run.json not valid against "
                            f"docs/schema/run.schema.json:", red=True)
        for line in invalid:
            reporter.write_line(f"  {line}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def schema_audit(base):
    """Every run.json a run of this session wrote checked against the shipped schema
    (output/schema.py): a line per file that is not valid. A run's directory has its samples/
    (execute/rundir.py); a test that renders a made-up report into a folder has none. A run
    in an older format (OLD_SCHEMAS: what `ipclab report` upgrades) is a test's input, not
    this code's output."""
    import jsonschema
    from ipclab.plan.catalog import repo_root
    from ipclab.records.schema import OLD_SCHEMAS
    shipped = json.loads((repo_root() / "docs" / "schema" / "run.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(shipped)
    out = []
    for path in sorted(base.rglob("run.json")):
        if not (path.parent / "samples").is_dir():
            continue
        found = json.loads(path.read_text())
        if isinstance(found, dict) and found.get("schema") in OLD_SCHEMAS:
            continue
        errors = list(validator.iter_errors(found))
        out += [f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
                for e in errors[:3]]
    return out


@pytest.fixture
def counting():
    """perf's counts for the test: tracefs mounted as `ipclab run --explain` mounts it (as root,
    and unmounted after), else the test is skipped saying why nothing could be counted."""
    with explain.tracing(SimpleNamespace(explain=True)):
        why = explain.unavailable()
        if why:
            pytest.skip(why)
        yield
