"""Every file of a run written from its Report (output/model.py): run.json, cases.csv, phases.csv
and table.md. A live run publishes after every round (execute/rundir.py calls `Publisher`),
`ipclab report` once.

Why every file is rewritten after each round rather than only the changed case's rows: the costly
part of a report is the analysis (bootstrap intervals, a second or more per case), and that is done
only for the case whose round was added (`Publisher.kept`; its HdrHistogram log is rewritten then
too) and for ratios whose samples changed (`Publisher.ratios`, case_stats.add_ratios's cache). The rest, building the Report and formatting
every case's row of four files, takes milliseconds for hundreds of cases, against a round's second
or more; rewriting whole files keeps every file consistent with the others at every moment."""
import os

from ipclab.analyse import case_stats, pooled, saved, stats
from ipclab.output import csv, hlogs, json, markdown, model, sections

# The files of a run, each rendered from the Report's page (None: the run has no such file).
FILES = (("run.json", json.render),
         ("cases.csv", csv.render),
         ("phases.csv", csv.render_phases),
         ("table.md", markdown.render))


class Publisher:
    """The live run's `publish`: analyses the case whose round was added, then writes every file."""

    def __init__(self, scenario, after=None):
        self.scenario = scenario
        self.after = after  # (document, changed id) once its files are written: --json-stream
        self.kept = {}      # id -> round -> sorted samples inside the fences (case_stats.analyse)
        self.ratios = {}    # intervals already drawn (case_stats.add_ratios)
        self.report = None  # the last Report published

    def __call__(self, store, changed=None):
        document = store.document
        document.setdefault("statistics_method", stats.__doc__.strip())
        document.setdefault("statistics_parameters", saved.statistics_parameters())
        settings, seed = self.scenario.statistics, self.scenario.run.seed
        for record in document["results"]:
            if record["id"] == changed or "trimmed" not in record:
                self.kept[record["id"]] = case_stats.analyse(
                    record, store.samples.get(record["id"], {}), settings, seed)
                _write_hlog(store.dir, record, store.samples.get(record["id"], {}), settings)
        # Every case's interval leans on the others' rounds (pooled.py): redone for all.
        document["round_variance_prior"] = pooled.moderate(document["results"], settings)
        ended = bool(document.get("complete") or document.get("interrupted"))  # store.finish
        self.report = model.build(document, settings, self.kept, self.ratios, explain=ended)
        write_outputs(store.dir, self.report)
        if self.after and changed is not None:
            self.after(document, changed)


def _write_hlog(out_dir, record, rounds, settings):
    """The case's HdrHistogram log (hlogs.py), rewritten with each round it gains; its name
    goes into the record."""
    text = hlogs.log_text(record, rounds, settings)
    if text is not None:
        _atomic_write(out_dir / hlogs.name_of(record), text)
        record["hlog_file"] = hlogs.name_of(record)


def write_outputs(out_dir, report):
    """Rewrites run.json, cases.csv, phases.csv (burst cases only) and table.md of `report`."""
    page = sections.page(report)
    for name, render in FILES:
        text = render(page)
        if text is not None:
            _atomic_write(out_dir / name, text)


def _atomic_write(path, text):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
