"""The page's sections about the run itself (report.html): whether it finished, first; the
scenario and the machine it ran on, last. Pure: a Report (output/model.py) in, Sections out."""
from ipclab.common.units import format_ns
from ipclab.output.page import PAGE_ONLY, Line, Section, Table
from ipclab.plan import patterns
from ipclab.plan.matrix import describe_exclusion


def status(report):
    """A line when the run was stopped or had not finished when the report was made."""
    document = report.document
    if document.get("interrupted"):
        text = "This run was stopped before it finished: only its finished rounds are shown."
    elif not document.get("complete"):
        text = "This run had not finished when this report was written."
    else:
        return []
    return [Section("status", lines=(Line(text, "warning"),), media=PAGE_ONLY, headline=True)]


def sections(report):
    """The scenario and the environment, each a table of (name, value) rows."""
    if not report.document.get("scenario"):
        return []
    return [Section("scenario", "scenario", tables=(Table((), tuple(scenario(report.document))),),
                    media=PAGE_ONLY),
            Section("environment", "environment",
                    tables=(Table((), tuple(environment(report.document))),), media=PAGE_ONLY)]


def scenario(document):
    """The scenario's parameters, those that only patterns it does not run read left out (a
    round-trip run lists no server models, backlog or connectors)."""
    scenario = document["scenario"]
    run = scenario.get("run", {})
    unused = _unused_keys(scenario.get("matrix", {}).get("pattern") or [patterns.DEFAULT.name])
    items = [("scenario", scenario["name"]), ("description", scenario.get("description", "")),
             ("source", scenario.get("source", ""))]
    matrix = scenario.get("matrix", {})
    items += [(k, ", ".join(map(str, v)) if isinstance(v, list) else str(v))
              for k, v in matrix.items() if k not in unused and k not in ("exclude", "design")]
    items += [("exclude", describe_exclusion(t)) for t in matrix.get("exclude") or []]
    items += [(f"design: {part}", describe_exclusion({a: [x] for a, x in table.items()}))
              for part, table in (matrix.get("design") or {}).items()]
    items += [(k, str(v)) for k, v in run.items() if k not in unused]
    items += [("statistics", ", ".join(f"{k} {v}" for k, v in
                                       scenario.get("statistics", {}).items()))]
    return items


def _unused_keys(present):
    """The matrix axes and [run] keys that only patterns not in `present` read."""
    def keys(p):
        return {*p.run_keys, *p.axes}
    used = set().union(*(keys(patterns.of(name)) for name in present))
    return set().union(*(keys(p) for p in patterns.PATTERNS.values())) - used


def environment(document):
    """The machine, each language's toolchain and the preflight probes (or why one was
    skipped)."""
    env = document.get("environment", {})
    items = [(k, _text(v)) for k, v in env.items() if k != "toolchains"]
    items += [(f"toolchain {k}", v) for k, v in (env.get("toolchains") or {}).items()]
    for probe in document.get("preflight") or []:
        if "skipped" in probe:   # the floor was not built, or the placement is not here
            items.append((f"preflight {probe['placement']}", f"skipped: {probe['skipped']}"))
            continue
        items.append((f"preflight {probe['placement']}",
                      f"{probe['mechanism']} {probe['size']} B C floor, CPU {probe['client_cpu']}→"
                      f"{probe['server_cpu']}: median {format_ns(probe['median_ns'])}, "
                      f"p99 {format_ns(probe['p99_ns'])}"))
    return items


def _text(v):
    if isinstance(v, list):
        return ", ".join(map(str, v))
    return "unknown" if v is None else str(v)
