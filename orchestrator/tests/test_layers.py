"""The stages import one way (docs/architecture.md): the command line wires them together; output
and analyse read records, and execute writes them, so neither reads execute's code; every stage
plans with plan/ and shares records/ and common/. A module may import its own stage and the stages
its row of MAY_IMPORT names, nothing else; no two modules import each other, directly or round a
loop. The check reads the source (ast), so it also catches an import inside a function."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ipclab"
# The command line (cli, bench, __main__) is the app: it wires the stages together.
LAYERS = ("app", "output", "analyse", "execute", "plan", "records", "common")
MAY_IMPORT = {
    "app": set(LAYERS),
    "output": {"analyse", "plan", "records", "common"},
    "analyse": {"plan", "records", "common"},
    # execute decides some things while it runs (a rate sweep's step, the progress line, the
    # preflight note) by a statistic: it asks analyse/reduce.py and computes none itself.
    "execute": {"analyse", "plan", "records", "common"},
    "plan": {"records", "common"},
    "records": {"common"},
    "common": set(),
}


def layer_of(module):
    """"ipclab.execute.runner" -> "execute"; the package's own top-level modules are the app."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "app"


def imports_of(path, module):
    """The ipclab modules that the file at `path` (module `module`) imports, as dotted names."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("ipclab")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("ipclab"):
            # `from ipclab.plan import matrix` imports the module ipclab.plan.matrix (and the
            # package ipclab.plan); `from ipclab import __version__` only the package's face
            found |= {f"{node.module}.{a.name}" for a in node.names}
            found |= {node.module} if node.module != "ipclab" else set()
    return found


def modules(package=PACKAGE):
    """Dotted name -> path of every module under `package`."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def upward_imports(package=PACKAGE):
    """(importer, imported) for every import of a stage the importer's may not import."""
    found = modules(package)
    bad = []
    for name, path in found.items():
        for target in imports_of(path, name):
            source, stage = layer_of(name), layer_of(target)
            if target in found and stage != source and stage not in MAY_IMPORT[source]:
                bad.append((name, target))
    return sorted(bad)


def cycles(package=PACKAGE):
    """Loops of modules importing each other (packages' __init__ re-exports excluded)."""
    found = modules(package)
    graph = {n: {t for t in imports_of(p, n) if t in found and not found[t].name == "__init__.py"}
             for n, p in found.items() if p.name != "__init__.py"}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_stage_imports_a_stage_it_may_not():
    assert upward_imports() == []


def test_analyse_and_output_never_import_execute():
    """They read what execute saved, through records/: the rule the table above states."""
    assert "execute" not in MAY_IMPORT["analyse"] | MAY_IMPORT["output"]
    assert not [pair for pair in upward_imports() if layer_of(pair[1]) == "execute"]


def test_no_import_cycles():
    assert cycles() == []


def test_an_upward_import_is_caught(tmp_path):
    """The check itself: a plan module that imports an output module fails it, so does an analyse
    module that imports execute; so does a loop."""
    package = tmp_path / "ipclab"
    for stage in ("plan", "output", "analyse", "execute"):
        (package / stage).mkdir(parents=True)
        (package / stage / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "output" / "table.py").write_text("from ipclab.plan import matrix\n")
    (package / "plan" / "matrix.py").write_text(
        "def f():\n    from ipclab.output.table import render\n")
    (package / "execute" / "rounds.py").write_text("SCHEMA = 3\n")
    (package / "analyse" / "saved.py").write_text("from ipclab.execute.rounds import SCHEMA\n")
    assert upward_imports(package) == [("ipclab.analyse.saved", "ipclab.execute.rounds"),
                                       ("ipclab.plan.matrix", "ipclab.output.table")]
    assert cycles(package) == [["ipclab.output.table", "ipclab.plan.matrix"]]


@pytest.mark.parametrize("module, layer", [("ipclab.cli", "app"), ("ipclab.plan.matrix", "plan"),
                                           ("ipclab.output.report.html", "output"),
                                           ("ipclab.records.schema", "records")])
def test_layer_of(module, layer):
    assert layer_of(module) == layer


def test_plan_starts_no_process():
    """plan/ is pure: what it needs from the machine or a peer, execute/probe.py asks."""
    spawning = {"subprocess", "multiprocessing", "pty"}
    found = [(name, target) for name, path in modules().items() if layer_of(name) == "plan"
             for target in _stdlib_imports(path) if target in spawning]
    assert found == []


def _stdlib_imports(path):
    tree = ast.parse(path.read_text(), str(path))
    return {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} \
        | {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}


# The numpy and statistics-module calls that compute a statistic; execute/ and bench/ call
# analyse/ for them (analyse/reduce.py), so every figure printed comes from one place.
STATISTICS = {"median", "percentile", "quantile", "mean", "average", "std", "var", "nanmedian",
              "nanpercentile", "nanmean", "stdev", "variance", "fmean", "quantiles"}


def statistic_calls(path):
    """(line, name) of each np.<statistic>(…) or statistics.<statistic>(…) call in a file."""
    tree = ast.parse(path.read_text(), str(path))
    return [(n.lineno, n.func.attr) for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id in ("np", "numpy", "statistics")
            and n.func.attr in STATISTICS]


def test_statistics_are_computed_only_in_analyse():
    found = [(name, *call) for name, path in modules().items()
             if layer_of(name) == "execute" or name.startswith("ipclab.bench")
             for call in statistic_calls(path)]
    assert found == []


def test_a_statistic_outside_analyse_is_caught(tmp_path):
    planted = tmp_path / "rounds.py"
    planted.write_text("import numpy as np\n\ndef f(x):\n    return float(np.median(x))\n")
    assert statistic_calls(planted) == [(4, "median")]
