"""`ipclab schema`, `compare` and `history`: commands over saved runs (run directories and the
history database beside them), thin over output/schema.py, analyse/compare.py and
output/history.py; cli.py adds them."""
import sys
from pathlib import Path

import click

from ipclab.common.errors import UserError
from ipclab.execute.probe import load_catalog
from ipclab.output import report as ipclab_report
from ipclab.output import schema, terminal
from ipclab.plan.catalog import repo_root
from ipclab.terminal_console import console, print_at, say


@click.command("schema")
@click.option("--csv", "part", flag_value="cases.csv", help="cases.csv's columns (name, unit, "
              "meaning) instead of run.json's schema")
@click.option("--write", is_flag=True, help="rewrite docs/schema/ from the code's tables")
@click.argument("runs", nargs=-1, type=click.Path())
def schema_cmd(part, write, runs):
    """Print run.json's JSON Schema (or cases.csv's columns); with RUNS, check each run
    directory's run.json against it."""
    root = repo_root()
    if write:
        for name, path in schema.SHIPPED.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(schema.text(name))
            console.print(f"wrote {path}")
        return
    if runs:
        sys.exit(_check_runs(runs))
    click.echo(schema.text(part or "run.json"), nl=False)


def _check_runs(runs):
    """0 when every run's run.json is valid, else 1, a line per problem."""
    problems = schema.check_runs([Path(r) for r in runs])
    for line in problems:
        click.echo(line, err=True)
    if not problems:
        console.print(f"{len(runs)} run.json valid against {schema.SCHEMA_NAME}")
    return 1 if problems else 0


@click.command("compare")
@click.argument("run_a", type=click.Path())
@click.argument("run_b", type=click.Path())
@click.option("--markdown", "markdown_file", type=click.Path(), help="also write the table here")
@click.option("--html", "html_file", type=click.Path(),
              help="write the page here (default RUN_B/compare.html)")
@click.option("--fail-above", help="exit 1 when a case is significantly slower in B by more "
                                   "than this, e.g. 5%")
def compare_cmd(run_a, run_b, markdown_file, html_file, fail_above):
    """Compare RUN_B against RUN_A case by case: ratio of medians, interval, p, verdict."""
    from ipclab.analyse import compare
    from ipclab.output import compare as compared, html, markdown
    threshold = compare.parse_threshold(fail_above) if fail_above is not None else None
    found = compare.compare(compare.load_run(run_a), compare.load_run(run_b))
    page = compared.page(found)
    for line in terminal.render(page, terminal.Options(console.width)):
        print_at(*line)
    if markdown_file:
        Path(markdown_file).write_text(markdown.render(page))
    try:   # the comparison is printed: a page that cannot be written is one line
        path = ipclab_report.write_page(html_file or Path(run_b) / "compare.html",
                                        html.render(page))
        console.print(f"report: {path}", markup=False, highlight=False)
    except UserError as e:
        console.print(f"page not written: {e}", style="yellow", markup=False, highlight=False)
    if threshold is not None and found.slower_than(threshold):
        console.print(f"[red]{len(found.slower_than(threshold))} case(s) significantly slower "
                      f"by more than {100 * threshold:g}%[/]")
        sys.exit(1)


@click.command("history")
@click.option("--scenario", help="only runs of this scenario (its name)")
@click.option("--mechanism", help="only runs with a case of this mechanism")
@click.option("--since", help="only runs started on or after this date, e.g. 2026-11-23")
@click.option("--case", "case_label", help="one case's median over time, named as the table "
                                           "names it, e.g. \"tcp cpp→cpp 16 B/16 B\"")
@click.option("--rebuild", is_flag=True, help="rebuild the database from the run directories")
@click.option("--results", "results_dir", type=click.Path(file_okay=False),
              help="the directory of runs and its history.sqlite (default results/)")
def history_cmd(scenario, mechanism, since, case_label, rebuild, results_dir):
    """The runs recorded in results/history.sqlite, or one case over time."""
    from ipclab.output import history
    db = Path(results_dir or load_catalog(check=False).root / "results") / history.FILE
    if rebuild:
        console.print(f"history: {db} rebuilt from {history.rebuild(db, say)} run directories")
    if case_label:
        rows = history.case_history(db, case_label, say)
        if not rows:
            hint = history.labels_like(db, case_label.split()[0], say)
            raise UserError(f"--case: no case {case_label!r} in {db}"
                            + (f" (e.g. {'; '.join(hint[:3])})" if hint else ""))
        console.print(history.case_table(case_label, rows))
    elif not rebuild or scenario or mechanism or since:
        console.print(history.runs_table(history.list_runs(db, scenario, mechanism, since, say),
                                         console.width))
