"""The report of a run, built once from its saved data: its sections (sections.py) make the page
every renderer lays out (terminal.py, markdown.py, csv.py, json.py, html.py; publish.py and
report/ write the files), and the figures (report/) and the history database (history.py) read
it too.

`build` takes the run's document whose records are analysed (analyse/case_stats.py), the
statistics settings and, where the ratios are drawn again, the samples each case kept inside its
fences. What the run found is decided here (the title, the baseline, the claims' verdicts, the
study tables, the phases, the notes and warnings); the sections lay it out. Nothing here reads a
file: the figures' samples are read by report/data.py from the run's samples/ directory."""
from collections import Counter
from dataclasses import dataclass, field

from ipclab.analyse import case_stats
from ipclab.analyse import explained as explained_model
from ipclab.analyse import claims as claim_verdicts
from ipclab.analyse import why as claim_why
from ipclab.analyse.stats import ADVICE, FACTS
from ipclab.output import study
from ipclab.output.columns import ratio_caption
from ipclab.plan import patterns as pattern_table
from ipclab.plan.scenario import StatSettings

SKIPPED = ("not-applicable", "unavailable")


@dataclass(frozen=True)
class WarningGroup:
    """One kind of warning and the cases that have it (the terminal's one line per kind)."""
    kind: str
    what: str
    todo: str
    cases: list     # case numbers, ascending
    fact: bool = False  # a fact with nothing to do (stats.FACTS): a note, not a warning


@dataclass
class Report:
    title: str
    scenario: str = ""
    records: list = field(default_factory=list)    # every case (the document's results)
    baseline_label: str = None                     # "tcp/cpp/cpp" or None: no ratio column
    compare: str = "median"                        # the statistic ratios are taken of
    ratio_caption: str = None
    studies: list = field(default_factory=list)    # study.Study tables of the scenario's [report]
    claims: list = field(default_factory=list)     # analyse/claims.py Verdicts of its [[claim]]s
    why: list = field(default_factory=list)        # analyse/why.py Whys of those not holding
    phases: list = field(default_factory=list)     # {"case_id", side, phase, ...} rows
    notes: list = field(default_factory=list)      # the run's notes (environment, sweeps, hosts)
    table_notes: list = field(default_factory=list)  # table.md's: method, notes, case warnings
    warnings: list = field(default_factory=list)   # WarningGroup per kind, in ADVICE order
    case_warnings: list = field(default_factory=list)  # "case N: text", every warning
    skipped: list = field(default_factory=list)    # one line per status of cases not run
    lost: list = field(default_factory=list)       # one line per udp stream that lost datagrams
    environment: dict = field(default_factory=dict)
    document: dict = field(default_factory=dict)   # run.json as it is written
    settings: StatSettings = field(default_factory=StatSettings)

    @property
    def shown(self):
        """The cases that ran (ok or failed)."""
        return [r for r in self.records if r["status"] not in SKIPPED]


def build(document, settings=None, kept=None, ratio_cache=None, explain=True):
    """The Report of `document`. With `kept` (id -> round -> kept samples) the ratios to the
    baseline are drawn (again: `ratio_cache` keeps intervals already drawn); without, the records'
    ratios are taken as they are. `settings` default to the document's own. `explain`: judge
    each claim that does not hold again under other conditions (analyse/why.py), several
    judgements a claim: a live run asks for it once, when it ends."""
    scenario = document["scenario"]
    if settings is None:
        settings = StatSettings(**scenario.get("statistics") or {})
    records, seed = document["results"], scenario.get("run", {}).get("seed", 1)
    explained_model.add_model(records, document.get("floors"))
    verdicts, whys = [], []
    if kept is not None:
        case_stats.add_ratios(records, settings, kept, seed, ratio_cache)
        verdicts = claim_verdicts.judge(scenario.get("claims") or [], records, kept, seed,
                                        ratio_cache)
        whys = [claim_why.explain(c, records, kept, seed, ratio_cache)
                for c, v in zip(scenario.get("claims") or [], verdicts)
                if v.verdict != claim_verdicts.HOLDS] if explain else []
        if verdicts:
            document["claims"] = [v.as_dict() for v in verdicts]
            document["why"] = [w.as_dict() for w in whys]
    return of_records(records, f"ipclab: {scenario['name']}",
                      case_stats.baseline_label(settings), settings.compare,
                      notes=document.get("notes", []), studies=studies_of(document),
                      scenario=scenario["name"], table_notes=table_notes(document, settings),
                      environment=document.get("environment") or {}, document=document,
                      settings=settings, claims=verdicts, why=whys)


def of_records(records, title, baseline_label, compare, notes=(), studies=(), **more):
    """A Report of `records` with every section derived from them (`build` for a run's
    document; tests and partial tables call it with loose records)."""
    shown = [r for r in records if r["status"] not in SKIPPED]
    return Report(
        title=title, records=records, baseline_label=baseline_label, compare=compare,
        ratio_caption=ratio_caption(baseline_label, compare), studies=list(studies),
        phases=phase_rows(records), notes=list(notes), warnings=warning_groups(shown),
        case_warnings=case_warnings(shown), skipped=skipped_lines(records),
        lost=lost_lines(shown), **more)


def studies_of(document):
    """The study tables the scenario's `[report] table` asks for (none for "cases")."""
    report = document["scenario"].get("report") or {}
    return study.tables(report.get("table", "cases"), document["results"],
                        report.get("versus", "tcp"), report)


def phase_rows(records):
    """phases.csv's rows as numbers: one per burst case, side and phase."""
    return [{"case_id": r["id"], **row} for r in records
            if isinstance(r.get("phases"), list) for row in r["phases"]]


def table_notes(document, settings):
    present = {pattern_table.of_record(r).name for r in document["results"]}
    what = sorted((p for p in pattern_table.PATTERNS.values() if p.note and p.name in present),
                  key=lambda p: p.note_rank)
    notes = [f"Times are {', '.join(p.note for p in what)}; "
             f"statistics after outlier removal "
             f"({settings.outliers}{f', k = {settings.tukey_k:g}' if settings.outliers == 'tukey' else ''}); "
             f"raw figures are in cases.csv."]
    skipped = getattr(settings, "skip_rounds", 0)
    if skipped:
        notes.append(f"The first {skipped} round{'s' if skipped > 1 else ''} of every case "
                     f"{'are' if skipped > 1 else 'is'} left out of its statistics "
                     f"(statistics.skip_rounds); the raw files keep them.")
    notes += document.get("notes", [])
    for record in document["results"]:
        for warning in record.get("warnings") or []:
            notes.append(f"case {record['index']}: {warning['text']}")
    return notes


def warning_groups(records):
    """The cases of each kind of warning, the kinds stats.ADVICE knows first."""
    cases = {}
    for record in records:
        for w in record.get("warnings") or []:
            kind = w.get("kind") if isinstance(w, dict) else "other"
            cases.setdefault(kind, []).append(record["index"])
    groups = []
    for kind in [*ADVICE, *sorted(set(cases) - set(ADVICE))]:
        if kind in cases:
            what, todo = ADVICE.get(kind, (kind, "see the warnings column of cases.csv"))
            groups.append(WarningGroup(kind, what, todo, sorted(set(cases[kind])),
                                       kind in FACTS))
    return groups


def case_warnings(records):
    return [f"case {r['index']}: {w['text'] if isinstance(w, dict) else w}"
            for r in records for w in r.get("warnings") or []]


def skipped_lines(records):
    """One line per status of the cases that were not run, their reasons counted."""
    lines = []
    for status in SKIPPED:
        reasons = Counter(r.get("reason") or "?" for r in records if r["status"] == status)
        if not reasons:
            continue
        count = sum(reasons.values())
        parts = "; ".join(f"{n}× {why}" if n > 1 else why for why, n in reasons.most_common())
        lines.append(f"{count} case{'s' if count != 1 else ''} {status.replace('-', ' ')} "
                     f"(listed in cases.csv): {parts}")
    return lines


def lost_lines(records):
    """Datagrams a udp stream lost are reported, never hidden (PROTOCOL.md 11.1 step 5)."""
    return [f"note: case {r['index']} ({r['mechanism']} {r['client']}→{r['server']}) "
            f"lost {r['lost']} of {r['messages'] * _ok_rounds(r)} messages "
            f"over its rounds; its rate counts what was sent"
            for r in records if r.get("lost") and r.get("messages")]


def _ok_rounds(record):
    return max(sum(1 for e in record.get("rounds") or [] if e.get("status") == "ok"), 1)
