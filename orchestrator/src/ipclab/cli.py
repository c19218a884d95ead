"""ipclab: the command line. Parse → build the scenario → run → report."""
import math
import sys
from pathlib import Path

import click

from ipclab import __version__
from ipclab.plan.capabilities import CONTRACT
from ipclab.execute import environment, explain, network, places, rounds, rundir
from ipclab.plan import claims, link, matrix
from ipclab.plan import settings as setting_table
from ipclab.output import report as ipclab_report
from ipclab.execute.probe import load_catalog
from ipclab.common.errors import UserError
from ipclab.output import model, sections
from ipclab.output import terminal
from ipclab.execute.runner import Runner
from ipclab.plan.scenario import DEFAULT_SCENARIO, StatSettings, load_scenario
from ipclab.plan.validator import Validator
from ipclab.execute.workspace import Workspace
from ipclab.analyse import saved
from ipclab.output import publish
from ipclab.output import json_stream as json_stream_lines
from ipclab.output.json_stream import JsonStream
from ipclab import claims_commands, hosts_commands, peers_commands, saved_commands
from ipclab.bench import commands as bench_commands
from ipclab.terminal_console import console, print_at, say




@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="ipclab",
                      message=f"%(prog)s %(version)s (peer contract {CONTRACT}, protocol/PROTOCOL.md)")
def cli():
    """Measure how programs talk to each other.

    C++, Java and Python peers, any client with any server, over kernel IPC (sockets, pipes,
    queues, shared memory, files), in-process calls (JNI, FFM, ctypes), RPC middleware (REST,
    gRPC, Thrift, Ice, CORBA, RMI, SOAP), messaging libraries (ZeroMQ, NNG, iceoryx2) and
    servers ipclab starts per round (ActiveMQ, Redis, NATS); patterns: round trips (rr), one-way
    streams with each side's CPU (stream), a connection per round trip (short), bursts of
    connects against server models (burst) and requests on a schedule (load). Every case runs in
    rounds of fresh peers; results are medians and ratios with intervals, written as a terminal
    table, table.md, cases.csv, run.json and report.html; `ipclab list` says what runs here.
    """


# The scenario's values a run may override, as (flag, help): each flag takes one comma-separated
# string, which plan/scenario.py validates as it validates the file's key.
RUN_FLAGS = (
    ("--mechanism", "comma-separated, e.g. tcp,uds (see `ipclab list`); a library's name stands "
                    "for its mechanisms: redis is redis-tcp,redis-uds"),
    ("--client", "client languages, e.g. cpp,java,python"),
    ("--server", "server languages, e.g. cpp,java,python"),
    ("--request-size", "sizes with units, e.g. 16,1KiB,128MiB"),
    ("--response-size", "sizes with units, e.g. 16,1KiB,128MiB; void: the RPC operations that "
                        "return nothing (reply = void)"),
    ("--sizes", "product (every request size with every response size, default) or zip "
                "(pairwise: 40,40000 with 40,40000 is 40/40 and 40000/40000)"),
    ("--payload", "bytes (sized, default) or structured records small,medium,large (RPC "
                  "mechanisms)"),
    ("--sequence-length", "elements per sequence field of structured payloads, e.g. 5,300"),
    ("--placement", "same-core, cross-core or unpinned (default cross-core)"),
    ("--pattern", "traffic patterns: rr (request-response), stream (one way), short (a "
                  "connection per round trip), burst (many connections at once, PROTOCOL.md "
                  "11.4), load (requests at a rate over many connections, 11.5), e.g. rr,stream"),
    ("--message-size", "stream: bytes per message, with units, e.g. 16,1KiB,1MiB"),
    ("--messages", "stream: messages per stream (each round a fresh stream)"),
    ("--windows", "stream: windows the stream is cut into, one sample each (default 10)"),
    ("--server-model", "burst, load: server models, e.g. iterative,thread,process,thread-pool,"
                       "process-pool,epoll (PROTOCOL.md 11.4)"),
    ("--connections", "burst: connections per burst (default 1000)"),
    ("--connectors", "burst: connector threads per client process (default 200)"),
    ("--processes", "burst: client processes (default 1)"),
    ("--backlog", "burst: the server's listen() backlog (default 512)"),
    ("--duration", "load: the measured schedule's time, e.g. 5s, 500ms (default 5s)"),
    ("--load-warmup", "load: the warm-up at the same rate before it (default 1s; 0: none)"),
    ("--slo", "load, --rate sweep: the p99 response time a rate must keep, e.g. 5ms (default: "
              "3 × the p99 at the first rate)"),
    ("--sweep-from", "load, --rate sweep: the first rate tried (default 1000)"),
    ("--iterations", "measured round trips (or connections) per case"),
    ("--warmup", "round trips (stream: messages) before measuring"),
    ("--seed", "payload seed (also orders the rounds and seeds the bootstrap)"),
    ("--rounds", "rounds per case, each a fresh pair of peers (default 3)"),
    ("--precision", "more rounds where a median's interval is wider than ± this, e.g. 5%; off: "
                    "none (a --rounds without it also turns the scenario's off)"),
    ("--budget", "time the run may take when --precision adds rounds, e.g. 90s, 10m"),
    ("--skip-rounds", "rounds left out of the statistics, from the first (a study that "
                      "discarded its first runs; default 0)"),
    ("--percentiles", "the percentile columns of the tables and cases.csv, e.g. "
                      "50,90,99,99.9,99.99 (the default 50,90,99,99.9; the median and the max "
                      "are always there)"),
    ("--preflight", "seconds of C floor ping-pong per placement first (0: none)"),
    ("--link", "between client and server: loopback (default), veth, veth:RATE (e.g. "
               "veth:100mbit); IP mechanisms only, needs root"),
    # The settings of plan/settings.py, each an axis like the others (PROTOCOL.md 1, 4.6).
    *((f"--{s.name.replace('_', '-')}", s.help) for s in setting_table.SETTINGS.values()),
)


def _run_flags(command):
    for flag, text in reversed(RUN_FLAGS):
        command = click.option(flag, help=text)(command)
    return command


@cli.command()
@click.argument("scenario", required=False)
@_run_flags
@click.option("--wire-bytes/--no-wire-bytes", default=None,
              help="count each call's bytes and packets on the wire (IP mechanisms, needs root)")
@click.option("--explain/--no-explain", default=None,
              help="count each call's system calls, context switches, migrations, page faults "
                   "and CPU, per side (perf stat; the counted runs are slower)")
@click.option("--out", type=click.Path(), help="results directory (default results/<time>-<name>)")
@click.option("--wide", is_flag=True, help="every column, whatever the width")
@click.option("--verbose", is_flag=True, help="every warning of every case")
@click.option("--html/--no-html", "html", default=True,
              help="write report.html at the end (default) or not")
@click.option("--json-stream", "json_stream", metavar="FILE",
              help="a JSON line per finished round as the run goes (docs/outputs.md); -: stdout, "
                   "and the terminal's output goes to stderr")
def run(scenario, out, wide, verbose, html, json_stream, **flags):
    """Run SCENARIO (default scenarios/quick.toml); flags override it."""
    if json_stream == "-":   # stdout is the stream's: everything a person reads goes to stderr
        console.file = sys.stderr
    rounds.install_interrupt_handlers()
    catalog = load_catalog()
    path = scenario or catalog.root / DEFAULT_SCENARIO
    plan = load_scenario(path, catalog, overrides=flags)
    cases = link.mark(matrix.expand(plan, catalog), plan.run, catalog, plan.hosts)
    plan.claims, claims_note = claims.check_planned(
        plan.claims, cases, plan.source, overridden=any(v is not None for v in flags.values()))
    network.check_machine(plan.run, hosts=plan.hosts)
    env = environment.collect(catalog.root)
    out_dir = Path(out) if out else rundir.default_out_dir(catalog.root, plan.name)
    with Workspace() as workspace, places.connect(plan.hosts, catalog.root, workspace.path) as remote, \
            explain.tracing(plan.run) as mounted:
        notes = environment.warnings(env) + _swept_notes(workspace.swept, network.sweep())
        notes += explain.notes(plan.run, mounted)
        notes += [claims_note] if claims_note else []
        if remote:  # the server's host: its environment in run.json, a revision mismatch noted
            env["hosts"], notes = remote.environment, notes + remote.notes
        stream = JsonStream(json_stream) if json_stream else None
        publisher = publish.Publisher(plan, after=stream and stream.rounds)  # after every round
        store = rundir.RunStore(out_dir, plan, env, cases, notes=notes,
                                 publish=publisher).create()
        if stream:
            stream.write(json_stream_lines.start_line(store.document, out_dir))
        interrupted = rounds.execute(cases, Runner(plan, catalog, workspace, remote), store,
                                      console)
    store.finish(interrupted)
    if stream:
        stream.write(json_stream_lines.end_line(store.document))
        stream.close()
    report = publisher.report   # the last one published: the finished run's
    _record_history(out_dir, report)
    _show(report, wide, verbose)
    _machine_move(out_dir)
    console.print(f"results: {out_dir}")
    if html:
        _write_html(out_dir, report)
    if interrupted:
        done = sum(len(r["rounds"]) for r in store.records)
        console.print(f"[yellow]stopped: {done} finished round(s) of "
                      f"{sum(1 for r in store.records if r['rounds'])} case(s) saved[/]")
        sys.exit(130)
    sys.exit(1 if any(r["status"] == "failed" for r in store.records) else 0)


@cli.command("list")
def list_cmd():
    """Mechanisms × languages × roles, and what works on this machine."""
    from ipclab.output.listing import capability_table
    console.print(capability_table(load_catalog()))


@cli.command("leaks")
@click.option("--tag", help="also the processes whose environment carries "
                            "IPCLAB_AUDIT_TAG=TAG (as a test session tags its own)")
def leaks_cmd(tag):
    """What ipclab's runs left behind (exit 1 if anything): IPC objects, scratch directories,
    namespaces of runs that are gone. Not during a run (its fresh queue looks left over)."""
    import tempfile
    from ipclab.execute import leaks, workspace
    with workspace.run_lock():
        found = leaks.find(tag, tempfile.gettempdir())
    for line in found:
        console.print(line, markup=False, highlight=False)
    if found:
        sys.exit(1)
    console.print("nothing left behind")


@cli.command()
@click.argument("run_dir", type=click.Path())
@click.option("--outliers", type=click.Choice(["tukey", "none"]), help="outlier rule")
@click.option("--tukey-k", type=float, help="Tukey fence factor")
@click.option("--compare", type=click.Choice(["median", "mean"]), help="statistic for ratios")
@click.option("--percentiles", help="the percentile columns, e.g. 50,99,99.99")
@click.option("--wide", is_flag=True, help="every column, whatever the width")
@click.option("--verbose", is_flag=True, help="every warning of every case")
@click.option("--html", "html", is_flag=True, help="write RUN/report.html (self-contained, offline)")
@click.option("--figures", "figures_dir", type=click.Path(file_okay=False),
              help="write every figure as PNG and SVG into this directory")
@click.option("--claims", "claims_file", type=click.Path(),
              help="judge the claims of this scenario file (edited since the run) instead of "
                   "the run's own; run.json and table.md then hold these")
def report(run_dir, outliers, tukey_k, compare, percentiles, wide, verbose, html, figures_dir,
           claims_file):
    """Re-render the tables and files of a saved run from its raw samples."""
    if percentiles is not None:   # checked as `run` checks it, the same message
        percentiles = Validator("--percentiles", None).percentiles(
            percentiles, "--percentiles", StatSettings.percentiles)
    document = claims_commands.with_claims(saved.load(run_dir), claims_file)
    stored = document["scenario"]["statistics"]
    settings = StatSettings(**{**stored, **{k: v for k, v in
                                           {"outliers": outliers, "tukey_k": tukey_k,
                                            "compare": compare, "percentiles": percentiles}.items()
                                           if v is not None}})
    document["scenario"]["statistics"] = vars(settings)
    report = model.build(document, settings, saved.reanalyse(run_dir, document, settings))
    publish.write_outputs(Path(run_dir), report)
    _show(report, wide, verbose)
    if html:
        console.print(f"report: {ipclab_report.write_html(run_dir, report)}")
    if figures_dir:
        written = ipclab_report.write_figures(run_dir, report, figures_dir)
        console.print(f"figures: {len(written)} files in {figures_dir}")


def _record_history(out_dir, report):
    """Every run goes into the history.sqlite beside its directory (ipclab/history.py); that
    never fails the run: a broken database is reported in one line and rebuilt."""
    from ipclab.output import history
    history.record_run(out_dir, report, say=say)


def _machine_move(out_dir):
    """A note when every case moved alike since the previous run of the scenario on this host
    (history.machine_move): the machine changed speed, as `ipclab compare` would note."""
    from ipclab.analyse.compare import SHARED_MOVE
    from ipclab.output import history
    found = history.machine_move(out_dir, say=say)
    if found and abs(math.log(found[0])) > math.log(1 + SHARED_MOVE):
        ratio, cases, previous = found
        console.print(f"note: this run's medians are {ratio:.2f}× those of {previous}, the "
                      f"previous run of this scenario here (median over {cases} cases): the "
                      f"machine itself changed speed between the runs, which no run's intervals "
                      f"hold; compare cases within one run (the ratios to the baseline), or rerun "
                      f"both when the machine is quiet", style="dim", markup=False,
                      highlight=False)


def _swept_notes(objects, namespaces):
    """What the start of the run removed of earlier runs that crashed or were killed."""
    return [f"removed {n} {what} left by an earlier ipclab run that crashed or was killed"
            for n, what in ((objects, "IPC object(s) with the ipclab tag"),
                            (namespaces, "network namespace(s)")) if n]


def _write_html(out_dir, report):
    """report.html at the end of a run. The run's results are saved already: whatever stops the
    page (a full disk, a figure that cannot draw this run) is one line, and neither the run's
    exit code nor its table depends on it (`ipclab report RUN --html` tries again)."""
    try:
        console.print(f"report: {ipclab_report.write_html(out_dir, report)}")
    except Exception as e:  # noqa: BLE001 (see above)
        console.print(f"[yellow]report.html not written: {type(e).__name__}: {e}[/]")


def _show(report, wide=False, verbose=False):
    for line in terminal.render(sections.page(report),
                                terminal.Options(console.width, wide, verbose)):
        print_at(*line)


cli.add_command(saved_commands.schema_cmd)
cli.add_command(saved_commands.compare_cmd)
cli.add_command(saved_commands.history_cmd)
cli.add_command(peers_commands.peers)
cli.add_command(bench_commands.bench)
cli.add_command(hosts_commands.hosts)
cli.add_command(claims_commands.claims)
cli.add_command(claims_commands.why)


def main():
    try:
        cli.main(standalone_mode=False, prog_name="ipclab")
    except UserError as e:
        click.echo(f"ipclab: error: {e}", err=True)
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
