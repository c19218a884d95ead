"""`ipclab hosts …`: the hosts a scenario uses ([hosts]), each a thin command over
execute/hostcheck.py (what each has) and execute/hostsync.py (this commit brought there)."""
import os
import sys
import tempfile

import click

from ipclab.plan import patterns
from ipclab.execute.probe import load_catalog
from ipclab.plan.scenario import DEFAULT_SCENARIO, load_scenario
from ipclab.terminal_console import console


@click.group()
def hosts():
    """The hosts a scenario uses ([hosts]): what each has, and what to do where it lacks."""


@hosts.command("check")
@click.argument("scenario", required=False)
def hosts_check(scenario):
    """SCENARIO's hosts (default scenarios/quick.toml: this one alone), a row each: reachable in
    batch mode, kernel, CPUs, revision, peers built, clock offset, somaxconn, ports. Exit 1 when
    one lacks something, with a line naming it and what to do."""
    from ipclab.execute import hostcheck
    from ipclab.output.hosts import host_table, problem_lines
    catalog = load_catalog()
    plan = load_scenario(scenario or catalog.root / DEFAULT_SCENARIO, catalog)
    backlog = plan.run.backlog if any("backlog" in patterns.of(p).run_keys
                                      for p in plan.matrix.get("pattern", [])) else None
    # Not a Workspace: that is a run's, and takes the machine's run lock; this measures nothing.
    with tempfile.TemporaryDirectory(prefix=f"ipclab-{os.getpid()}-hosts-") as private:
        rows = hostcheck.check(plan.hosts, catalog, private, backlog)
    console.print(host_table(rows))
    problems = problem_lines(rows)
    for line in problems:
        console.print(line, markup=False, highlight=False)
    sys.exit(1 if problems else 0)


@hosts.command("sync")
@click.argument("scenario")
@click.option("--no-build", is_flag=True, help="bring the commit, do not run make build there")
def hosts_sync(scenario, no_build):
    """Bring this checkout's commit to SCENARIO's other hosts (its [hosts] path on each, cloned
    where there is none) over ssh and run `make build` there, a line per step. Exit 1 when a
    host could not be brought, with a line naming it and why."""
    from ipclab.execute import hostsync
    catalog = load_catalog()
    plan = load_scenario(scenario, catalog)
    if not plan.hosts:
        console.print(f"{scenario}: no other hosts ([hosts] server is local): nothing to sync",
                      markup=False, highlight=False)
        return
    with tempfile.TemporaryDirectory(prefix=f"ipclab-{os.getpid()}-sync-") as private:
        problems = hostsync.sync(plan.hosts, catalog.root, private, not no_build,
                                 lambda line: console.print(line, markup=False, highlight=False))
    sys.exit(1 if problems else 0)
