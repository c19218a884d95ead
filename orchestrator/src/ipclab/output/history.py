"""The run history: every run recorded in an SQLite database (stdlib sqlite3) beside the run
directories it describes, `<results>/history.sqlite`, where <results> is the directory holding
the run's directory (results/ for a default run; for `--out /x/y/run`, /x/y). So a results
directory's history is always the runs in it, and a lost or corrupt database is rebuilt by
reading their run.json files again.

Tables (schema version in `schema_version`; history below):
    runs         one row per run directory: scenario, start and end, completeness, counts
    environment  run × key → value (JSON text): host, CPUs, kernel, toolchains, git revision
    cases        one row per case of a run: its parameters, label ("tcp cpp→cpp 16 B/16 B"),
                 status and reason
    statistics   case × name → value: median and its interval, mean, p99, rates, ratio, …

Schema history:
    1: first version.

Recording never stops a run: a database that cannot be opened or read is reported in one line
and rebuilt from the run directories (`ipclab history --rebuild` does it on request)."""
import json
import sqlite3
import statistics
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from rich import box
from rich.cells import cell_len
from rich.table import Table

from ipclab.plan import patterns
from ipclab.plan.matrix import short_label as label
from ipclab.common.errors import UserError
from ipclab.common.units import format_ns, format_ns_interval
from ipclab.analyse import saved

SCHEMA_VERSION = 1
FILE = "history.sqlite"


class _Outdated(Exception):
    """A database of another schema version (rebuilt like a corrupt one)."""

_TABLES = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY, dir TEXT UNIQUE NOT NULL, name TEXT NOT NULL, scenario TEXT,
    started TEXT, finished TEXT, complete INTEGER, interrupted INTEGER, run_schema TEXT,
    cases_ok INTEGER, cases_failed INTEGER, cases_skipped INTEGER, recorded TEXT);
CREATE TABLE environment (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL,
    value TEXT, PRIMARY KEY (run_id, key));
CREATE TABLE cases (
    id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id TEXT, case_index INTEGER, label TEXT, mechanism TEXT, pattern TEXT, client TEXT,
    server TEXT, request_size INTEGER, response_size INTEGER, message_size INTEGER,
    payload TEXT, sequence_length INTEGER, placement TEXT, status TEXT, reason TEXT);
CREATE TABLE statistics (
    case_row INTEGER NOT NULL REFERENCES cases(id) ON DELETE CASCADE, name TEXT NOT NULL,
    value REAL, PRIMARY KEY (case_row, name));
CREATE INDEX cases_by_label ON cases(label);
"""
PARAMETERS = ("mechanism", "pattern", "client", "server", "request_size", "response_size",
              "message_size", "payload", "sequence_length", "placement")
# A record's figures kept per case: from `trimmed` (the statistics after outlier removal) and
# the record itself (intervals, rates, the ratio to the scenario's baseline).
TRIMMED = ("count", "mean", "std", "median", "p90", "p99", "max", "min")
RECORD = ("median_ci_low", "median_ci_high", "round_spread", "msgs_per_s", "msgs_per_s_ci_low",
          "msgs_per_s_ci_high", "mib_per_s", "conns_per_s", "cpu_us_per_msg", "ratio",
          "ratio_ci_low", "ratio_ci_high")


def path_for(run_dir):
    """The database a run is recorded in: beside its directory."""
    return Path(run_dir).resolve().parent / FILE


# --- writing ----------------------------------------------------------------------------------

def record_run(run_dir, report, say=print):
    """Records one run, its Report (output/model.py) or its document (idempotent: a run recorded
    again replaces its rows). Never raises for a broken database: it says so in one line,
    rebuilds it from the run directories beside it, then records the run."""
    document = getattr(report, "document", report)
    db = path_for(run_dir)
    if not db.exists():
        try:
            count = rebuild(db, say)   # the run's own run.json is among them
            say(f"history: {db} was missing; built from {count} run director"
                f"{'y' if count == 1 else 'ies'}")
            return db
        except (OSError, sqlite3.DatabaseError) as e:
            say(f"history: cannot create {db} ({e}); this run is not in the history")
            return None
    try:
        with _open(db) as conn:
            _insert(conn, Path(run_dir).resolve(), document)
        return db
    except (sqlite3.DatabaseError, _Outdated) as e:
        say(f"history: {db} is unusable ({e}); rebuilding it from the run directories in "
            f"{db.parent}")
    except OSError as e:
        say(f"history: cannot write {db} ({e.strerror}); this run is not in the history")
        return None
    try:
        rebuild(db, say)   # the run's own run.json is among them
    except (OSError, sqlite3.DatabaseError) as e:
        say(f"history: rebuilding {db} failed ({e}); this run is not in the history")
        return None
    return db


@contextmanager
def _open(db):
    """A connection to `db` with the current schema (created if the file is new): commits when
    the block ends without an exception, and always closes."""
    conn = _connect(db)
    try:
        yield conn
        conn.commit()
    finally:
        conn.close()


def _connect(db):
    db = Path(db)
    new = not db.exists() or db.stat().st_size == 0
    conn = sqlite3.connect(db, timeout=30)  # another run may be recording at the same moment
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        if new:
            db.chmod(0o600)
            conn.executescript(_TABLES)
            conn.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            conn.commit()
        version = conn.execute("SELECT version FROM schema_version").fetchone()
        if not version or version[0] != SCHEMA_VERSION:
            raise _Outdated(f"schema version {version and version[0]}, not {SCHEMA_VERSION}")
        return conn
    except BaseException:
        conn.close()
        raise


def _insert(conn, run_dir, document):
    conn.execute("DELETE FROM runs WHERE dir = ?", (str(run_dir),))
    env = document.get("environment") or {}
    statuses = [r["status"] for r in document["results"]]
    run_id = conn.execute(
        "INSERT INTO runs (dir, name, scenario, started, finished, complete, interrupted, "
        "run_schema, cases_ok, cases_failed, cases_skipped, recorded) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (str(run_dir), run_dir.name, document["scenario"].get("name"), env.get("started"),
         env.get("finished"), int(bool(document.get("complete"))),
         int(bool(document.get("interrupted"))), document.get("schema"),
         statuses.count("ok"), statuses.count("failed"),
         sum(s in ("not-applicable", "unavailable") for s in statuses),
         datetime.now(timezone.utc).isoformat(timespec="seconds"))).lastrowid
    conn.executemany("INSERT INTO environment VALUES (?, ?, ?)",
                     [(run_id, k, json.dumps(v, ensure_ascii=False)) for k, v in env.items()])
    for record in document["results"]:
        row = conn.execute(
            f"INSERT INTO cases (run_id, case_id, case_index, label, {', '.join(PARAMETERS)}, "
            f"status, reason) VALUES ({', '.join('?' * (len(PARAMETERS) + 6))})",
            (run_id, record.get("id"), record.get("index"), label(record),
             *(record.get(k) for k in PARAMETERS), record["status"],
             record.get("reason"))).lastrowid
        conn.executemany("INSERT INTO statistics VALUES (?, ?, ?)",
                         [(row, name, value) for name, value in _figures(record)])


def _figures(record):
    trimmed = record.get("trimmed") or {}
    found = [(k, trimmed.get(k)) for k in TRIMMED] + [(k, record.get(k)) for k in RECORD]
    return [(k, float(v)) for k, v in found if isinstance(v, (int, float))
            and not isinstance(v, bool)]


def rebuild(db, say=print):
    """Writes `db` afresh from every run directory (a run.json) beside it; returns the count."""
    db = Path(db)
    if not db.parent.is_dir():
        raise UserError(f"{db.parent}: no such results directory")
    fresh = db.with_name(db.name + ".new")
    fresh.unlink(missing_ok=True)
    count = 0
    with _open(fresh) as conn:
        for run_dir in _run_dirs(db.parent):
            try:
                document = saved.load(run_dir)
            except UserError as e:
                say(f"history: skipped {run_dir.name}: {e}")
                continue
            _insert(conn, run_dir.resolve(), document)
            count += 1
    fresh.replace(db)
    return count


def _run_dirs(parent):
    return sorted(p for p in Path(parent).iterdir() if (p / "run.json").is_file())


# --- reading ----------------------------------------------------------------------------------

@contextmanager
def _reading(db, say):
    """A connection for queries (rows as sqlite3.Row), closed after the block; a missing or
    empty database is built, a corrupt one rebuilt, first."""
    conn = _read(db, say)
    try:
        conn.row_factory = sqlite3.Row
        yield conn
    finally:
        conn.close()


def _read(db, say):
    db = Path(db)
    if not db.parent.is_dir():
        raise UserError(f"{db.parent}: no such results directory")
    try:
        conn = _connect(db)
    except (sqlite3.DatabaseError, _Outdated) as e:
        say(f"history: {db} is unusable ({e}); rebuilding it from the run directories")
    else:
        if conn.execute("SELECT count(*) FROM runs").fetchone()[0] or not _run_dirs(db.parent):
            return conn
        conn.close()   # empty beside run directories (new, or lost): fill it
    count = rebuild(db, say)
    say(f"history: rebuilt from {count} run director{'y' if count == 1 else 'ies'}")
    return _connect(db)


def list_runs(db, scenario=None, mechanism=None, since=None, say=print):
    """Runs, newest first, as dicts; filtered by scenario name, a mechanism among the cases,
    and a start on or after `since` (an ISO date)."""
    where, args = [], []
    if scenario:
        where.append("scenario = ?")
        args.append(scenario)
    if mechanism:
        where.append("id IN (SELECT run_id FROM cases WHERE mechanism = ?)")
        args.append(mechanism)
    if since:
        where.append("started >= ?")
        args.append(_date(since))
    with _reading(db, say) as conn:
        rows = conn.execute(
            "SELECT runs.*, (SELECT group_concat(DISTINCT mechanism) FROM cases "
            "WHERE run_id = runs.id AND status = 'ok') AS mechanisms FROM runs"
            + (f" WHERE {' AND '.join(where)}" if where else "")
            + " ORDER BY started DESC, dir DESC", args).fetchall()
        return [dict(r) for r in rows]


MIN_COMMON = 8  # cases two runs must share before their medians' ratio says the machine moved


def machine_move(run_dir, say=print):
    """(ratio, cases, previous run's directory name): the median over common ok cases of this
    run's median over the same case's in the latest earlier complete run of its scenario on the
    same host (by hostname) in its history; None without one, or with fewer than MIN_COMMON
    cases in common. A move of the whole machine between runs, which no run's intervals hold."""
    db = path_for(run_dir)
    if not db.exists():
        return None
    with _reading(db, say) as conn:
        this = conn.execute("SELECT id, scenario, started FROM runs WHERE dir = ?",
                            (str(Path(run_dir).resolve()),)).fetchone()
        if this is None:
            return None
        before = conn.execute(
            "SELECT runs.id, runs.name FROM runs JOIN environment AS e ON e.run_id = runs.id "
            "AND e.key = 'hostname' WHERE runs.id != ? AND scenario IS ? AND complete = 1 "
            "AND (ifnull(started, ''), runs.id) < (ifnull(?, ''), ?) AND e.value = (SELECT "
            "value FROM environment WHERE run_id = ? AND key = 'hostname') "
            "ORDER BY started DESC, runs.id DESC LIMIT 1",
            (this["id"], this["scenario"], this["started"], this["id"], this["id"])).fetchone()
        if before is None:
            return None
        now, then = _medians(conn, this["id"]), _medians(conn, before["id"])
    ratios = [now[k] / then[k] for k in now.keys() & then.keys() if then[k] > 0]
    if len(ratios) < MIN_COMMON:
        return None
    return float(statistics.median(ratios)), len(ratios), before["name"]


def _medians(conn, run_id):
    """Case parameters -> median, for a run's ok cases."""
    rows = conn.execute(
        f"SELECT {', '.join(PARAMETERS)}, s.value AS median FROM cases JOIN statistics AS s "
        f"ON s.case_row = cases.id AND s.name = 'median' WHERE run_id = ? AND status = 'ok'",
        (run_id,)).fetchall()
    return {tuple(r[k] for k in PARAMETERS): r["median"] for r in rows}


def case_history(db, case_label, say=print):
    """One case's figures over time (oldest first): run, start, placement, status, median and
    its interval, mean, p99."""
    with _reading(db, say) as conn:
        rows = conn.execute(
            "SELECT runs.name AS run, runs.scenario, runs.started, cases.placement, "
            "cases.pattern, cases.status, cases.reason, cases.id AS row FROM cases "
            "JOIN runs ON runs.id = cases.run_id WHERE cases.label = ? "
            "ORDER BY runs.started, runs.dir", (case_label,)).fetchall()
        out = []
        for r in rows:
            figures = dict(conn.execute("SELECT name, value FROM statistics WHERE case_row = ?",
                                        (r["row"],)).fetchall())
            out.append({**{k: r[k] for k in r.keys() if k != "row"}, **figures})
        return out


def labels_like(db, text, say=print):
    """Case labels containing `text` (a hint when a label matches nothing)."""
    with _reading(db, say) as conn:
        return [r[0] for r in conn.execute(
            "SELECT DISTINCT label FROM cases WHERE label LIKE ? ORDER BY label LIMIT 10",
            (f"%{text}%",))]


def _date(text):
    """An ISO date or date-time, as the runs' start times are written (a date: its day)."""
    try:
        parsed = datetime.fromisoformat(text).isoformat()
        return parsed[:10] if len(text) <= 10 else parsed
    except ValueError:
        raise UserError(f"--since: {text!r} is not a date (e.g. 2026-11-23)") from None


# --- output -----------------------------------------------------------------------------------

def runs_table(runs, width=120):
    """A rich table of `list_runs` rows (pure); the mechanisms are cut to fit `width`."""
    table = Table(title=f"ipclab history · {len(runs)} run{'s' if len(runs) != 1 else ''}",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    rows = []
    for r in runs:
        state = "complete" if r["complete"] else "interrupted" if r["interrupted"] else "unfinished"
        rows.append([(r["started"] or "-")[:16].replace("T", " "), r["name"], r["scenario"] or "-",
                     str(r["cases_ok"]), str(r["cases_failed"]), str(r["cases_skipped"]),
                     (r["mechanisms"] or "-").replace(",", ", "), state])
    headers = ("started", "run", "scenario", "ok", "failed", "skipped", "mechanisms", "state")
    need = [max([len(h), *(cell_len(row[i]) for row in rows)]) for i, h in enumerate(headers)]
    room = max(width - (sum(need) - need[6]) - 3 * (len(headers) - 1) - 2, 12)
    for i, header in enumerate(headers):
        table.add_column(header, justify="right" if i in (3, 4, 5) else "left", no_wrap=True,
                         overflow="ellipsis", max_width=room if i == 6 else None)
    for r, row in zip(runs, rows):
        table.add_row(*row, style=None if r["complete"] else "yellow")
    return table


def case_table(case_label, rows):
    """A rich table of `case_history` rows (pure): the median and its interval over time. The
    label names no pattern, so a pattern other than rr is shown beside the placement."""
    table = Table(title=f"ipclab history · {case_label}", box=box.SIMPLE_HEAD, pad_edge=False)
    for header, right in (("started", False), ("run", False), ("placement", False),
                          ("median [95% CI]", True), ("mean", True), ("p99", True),
                          ("status", False)):
        table.add_column(header, justify="right" if right else "left", no_wrap=True,
                         overflow="ellipsis")
    for r in rows:
        ok = r["status"] == "ok"
        where = r["placement"] + patterns.label_suffix(r.get("pattern"))
        table.add_row((r["started"] or "-")[:19].replace("T", " "), r["run"], where,
                      format_ns_interval(r.get("median"), r.get("median_ci_low"),
                                         r.get("median_ci_high")) if ok else "-",
                      format_ns(r.get("mean")) if ok else "-",
                      format_ns(r.get("p99")) if ok else "-",
                      r["status"] + (f": {r['reason']}" if r.get("reason") else ""),
                      style=None if ok else "red")
    return table
