"""`ipclab bench load`: which client can generate which rate. For each language whose client
drives load over tcp, the highest rate it keeps on schedule against the C++ epoll server (its own
lateness p99 at most 50 µs, 99% of the rate achieved), found as a rate sweep finds a knee
(execute/load.py: doubling from 1000 req/s, then bisection, each step a fresh pair of peers),
and what gave out at the first rate it could not keep. Prints numbers; asserts nothing."""
from rich.table import Table

from ipclab.common.units import format_ns, format_rate
from ipclab.execute import load
from ipclab.execute.runner import Runner
from ipclab.execute.workspace import Workspace
from ipclab.plan import matrix
from ipclab.plan import patterns
from ipclab.plan import settings as setting_table
from ipclab.plan.scenario import build_scenario

ON_SCHEDULE_NS = 50_000  # the client's own lateness p99 that still counts as on schedule
SERVER, MODEL, MECHANISM = "cpp", "epoll", "tcp"


def on_schedule(step, slo):
    """A step the client kept: its own lateness small, its rate kept (as a sweep judges it)."""
    late = step.get("client_late_p99")
    return late is not None and late <= ON_SCHEDULE_NS and load.rate_kept(step, slo)


def run_load_bench(catalog, console, clients, seconds, placement):
    drivers = [name for name, lang in catalog.languages.items()
               if patterns.LOAD.name in lang.patterns_of(MECHANISM)]
    results = {}
    with Workspace() as ws:
        for language in drivers:
            scenario, case = _case(catalog, language, clients, seconds, placement)
            if case.skip_status:
                results[language] = (None, case.skip_reason)
                continue
            runner = Runner(scenario, catalog, ws)
            console.print(f"[dim]{language}: sweeping…[/]")
            outcome = load.search(lambda step: runner.run(step), case, scenario.run, on_schedule)
            results[language] = (outcome, None)
    console.print(_table(results, clients, seconds, placement))


def _case(catalog, language, clients, seconds, placement):
    raw = {"matrix": {"mechanism": [MECHANISM], "client": [language], "server": [SERVER],
                      "pattern": [patterns.LOAD.name], "server_model": [MODEL],
                      "placement": [placement], "clients": [clients],
                      "rate": [setting_table.SWEEP]},
           "run": {"duration": seconds, "load_warmup": min(1.0, seconds / 3), "sweep_from": 1000}}
    scenario = build_scenario(raw, "<load benchmark>", catalog, {}, "load-bench")
    (case,) = matrix.expand(scenario, catalog)
    return scenario, case


def _table(results, clients, seconds, placement):
    table = Table(title=f"Load clients against the C++ {MODEL} server over {MECHANISM}: the highest "
                        f"rate each keeps on schedule (own lateness p99 ≤ "
                        f"{format_ns(ON_SCHEDULE_NS)}, ≥ 99% achieved), {clients} clients, "
                        f"{seconds:g} s per step, {placement}")
    for name in ("client", "on schedule up to", "its late p99", "its response p99",
                 "first rate missed", "what gave out there", "steps"):
        table.add_column(name, justify="left" if name in ("client", "what gave out there") else "right")
    for language, (outcome, why) in results.items():
        if outcome is None or outcome.status != "ok":
            table.add_row(language, "-", "-", "-", "-", why or (outcome and outcome.reason), "-")
            continue
        steps = outcome.part["steps"]
        kept = max((s for s in steps if s.get("passed")), key=lambda s: s["rate"], default=None)
        missed = min((s for s in steps if s.get("passed") is False), key=lambda s: s["rate"],
                     default=None)
        table.add_row(language, format_rate(kept["rate"]) if kept else "none",
                      _ns(kept, "client_late_p99"), _ns(kept, "response_p99"),
                      format_rate(missed["rate"]) if missed else "-", _gave_out(missed),
                      str(len(steps)))
    return table


def _ns(step, key):
    return format_ns(step[key]) if step and step.get(key) is not None else "-"


def _gave_out(step):
    """Which side limited the first rate the client missed."""
    if step is None:
        return "nothing up to the largest rate tried"
    late, achieved = step.get("client_late_p99"), step["achieved_per_s"]
    if late is not None and late > ON_SCHEDULE_NS:
        return (f"the client: its own lateness p99 {format_ns(late)} (achieved "
                f"{format_rate(achieved)}/s)")
    return (f"the server: achieved {format_rate(achieved)} of {format_rate(step['rate'])}/s, "
            f"response p99 {_ns(step, 'response_p99')}")
