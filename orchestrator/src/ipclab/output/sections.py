"""The sections of a run's page, in reading order: each a function from the Report (model.py) to
its Sections (page.py, none when the run has nothing for it), which every renderer lays out.
A new section is a module with such a function and its line here; no renderer changes."""
from ipclab.output import (cases, claims, client_hosts, explained, phases, run_info, study,
                           wire)
from ipclab.output.page import Page

SECTIONS = (
    run_info.status,        # the page's first line when the run did not finish
    claims.sections,        # a study's verdicts, then what decides those that do not hold
    study.sections,         # the tables in the study's shape ([report] table)
    cases.sections,         # every case, the warnings by kind, the terminal's table and lines
    wire.sections,          # --wire-bytes
    explained.sections,     # --explain
    client_hosts.sections,  # [hosts] clients
    phases.sections,        # burst phases, on the page (phases.csv has the numbers)
    run_info.sections,      # the scenario and the machine, last on the page
    claims.summary,         # the terminal's last line: how the study's conclusions fared
)


def page(report):
    """The page of a Report: its title, every section's, its records and document."""
    return Page(report.title, tuple(s for make in SECTIONS for s in make(report)),
                records=report.records, document=report.document)
