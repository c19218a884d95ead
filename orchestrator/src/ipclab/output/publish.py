"""Every file of a run written from its document: run.json, cases.csv, phases.csv and table.md.
A live run publishes after every round (execute/rundir.py calls `Publisher`), `ipclab report`
once. The bootstrap intervals of a case are drawn again only when the case has a new round; the
rest (formatting every case's row) takes milliseconds, against a round's second or more."""
import os

from ipclab import output as export
from ipclab.analyse import case_stats, saved, stats
from ipclab.output import phases as export_phases
from ipclab.output import wire as wire_view


class Publisher:
    """The live run's `publish`: analyses the case whose round was added, then writes every file."""

    def __init__(self, scenario):
        self.scenario = scenario
        self.kept = {}      # id -> round -> sorted samples inside the fences (case_stats.analyse)
        self._ratios = {}   # intervals already drawn (case_stats.add_ratios)

    def __call__(self, store, changed=None):
        document = store.document
        document.setdefault("statistics_method", stats.__doc__.strip())
        document.setdefault("statistics_parameters", saved.statistics_parameters())
        settings, seed = self.scenario.statistics, self.scenario.run.seed
        for record in document["results"]:
            if record["id"] == changed or "trimmed" not in record:
                self.kept[record["id"]] = case_stats.analyse(
                    record, store.samples.get(record["id"], {}), settings, seed)
        write_outputs(store.dir, document, settings, self.kept, self._ratios)


def write_outputs(out_dir, document, settings, kept, ratio_cache=None):
    """Rewrites run.json, cases.csv and table.md from the document (ratios recomputed)."""
    records = case_stats.add_ratios(document["results"], settings, kept,
                                  document["scenario"]["run"].get("seed", 1), ratio_cache)
    label = case_stats.baseline_label(settings)
    title = f"ipclab: {document['scenario']['name']}"
    _atomic_write(out_dir / "run.json", export.to_json(document))
    _atomic_write(out_dir / "cases.csv", export.to_csv(records))
    if export_phases.has_phases(records):
        _atomic_write(out_dir / "phases.csv", export_phases.to_csv(records))
    table = export.to_markdown(records, title, label, settings.compare,
                               notes=_table_notes(document, settings))
    studies = studies_of(document)
    if studies:  # the study's shape first, every case below it
        table = export.study_to_markdown(studies, title) + "\n" + table.replace(
            f"# {title}", "## every case", 1)
    wire_section = wire_view.to_markdown(records)  # --wire-bytes: bytes per call
    _atomic_write(out_dir / "table.md", table + ("\n" + wire_section if wire_section else ""))


def studies_of(document):
    """The study tables the scenario's `[report] table` asks for (none for "cases")."""
    report = document["scenario"].get("report") or {}
    return export.study_tables(report.get("table", "cases"), document["results"],
                               report.get("versus", "tcp"), report)


def _table_notes(document, settings):
    patterns = {r.get("pattern", "rr") for r in document["results"]}
    what = {"rr": "round trips", "short": "whole connections (short)",
            "stream": "a stream window's time per message (stream)"}
    notes = [f"Times are {', '.join(what[p] for p in ('rr', 'short', 'stream') if p in patterns)}; "
             f"statistics after outlier removal "
             f"({settings.outliers}{f', k = {settings.tukey_k:g}' if settings.outliers == 'tukey' else ''}); "
             f"raw figures are in cases.csv."]
    notes += document.get("notes", [])
    for record in document["results"]:
        for warning in record.get("warnings") or []:
            notes.append(f"case {record['index']}: {warning['text']}")
    return notes


def _atomic_write(path, text):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
