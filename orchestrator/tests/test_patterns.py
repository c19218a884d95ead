"""The traffic patterns are one table (plan/patterns.py): no other module of the orchestrator
names a pattern by a string, and every row of the table is consistent."""
import ast
from dataclasses import fields
from pathlib import Path

from ipclab.execute.parts import PARTS
from ipclab.plan import patterns
from ipclab.plan.scenario import MATRIX_AXES, RunSettings

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ipclab"
# A matrix whose every pattern has cases, and a run whose windows and iterations differ.
MATRIX = {"request_size": [16], "response_size": [32], "payload": ["bytes", "small"],
          "sequence_length": [5], "message_size": [1024]}
RUN = RunSettings(iterations=1000, messages=100, windows=10)
TABLE = Path("plan") / "patterns.py"
PYTHON_PEER_TABLE = PACKAGE.parents[2] / "peers" / "python" / "src" / "ipclab_peer" / "patterns.py"
# Strings that equal a pattern's name but are not one: module -> how many, and why.
NOT_PATTERNS = {Path("execute") / "network.py": 1}  # tc's tbf parameter `burst`


def _docstrings(tree):
    """The ids of the string constants that are docstrings (module, class, function)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def pattern_strings(path, names=patterns.NAMES):
    """(line, text) of every string constant in the module at `path` equal to a pattern name;
    docstrings excluded, the literal parts of f-strings included (they are Constants too)."""
    tree = ast.parse(path.read_text(), str(path))
    skip = _docstrings(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value in names and id(node) not in skip]


def named_patterns(package=PACKAGE, allowed=None):
    """{module path: [(line, name), ...]} of the modules outside the pattern table that name a
    pattern by a string (beyond the counts `allowed` lets through)."""
    allowed = NOT_PATTERNS if allowed is None else allowed
    bad = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if relative == TABLE:
            continue
        found = pattern_strings(path)
        if len(found) > allowed.get(relative, 0):
            bad[str(relative)] = found
    return bad


def test_no_module_outside_the_table_names_a_pattern():
    assert named_patterns() == {}


# The modules that are a pattern's own (its execute/ and analyse/ parts, its figures, named after
# it, and its benchmark): they may name their rows. Everywhere else a stage reads the row it was handed, or the table's DEFAULT.
OWN_MODULES = {Path("bench/kernel.py"): {"SHORT", "STREAM"},  # ipclab bench stream: both rates
               Path("bench/commands.py"): {"STREAM", "LOAD"}}  # its commands bench stream, load
ROWS = {name for name, value in vars(patterns).items() if isinstance(value, patterns.Pattern)
        and name != "DEFAULT"}


def row_references(path, rows=frozenset(ROWS)):
    """The rows of the table a module names: `patterns.STREAM`, `from … import STREAM`."""
    tree = ast.parse(path.read_text(), str(path))
    found = {node.attr for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr in rows
             and isinstance(node.value, ast.Name) and "pattern" in node.value.id}
    found |= {a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
              and (node.module or "").endswith("patterns") for a in node.names if a.name in rows}
    return found


def test_no_module_outside_the_table_names_a_row():
    bad = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        extra = row_references(path) - OWN_MODULES.get(relative, set())
        own = relative.stem.split("_")[0] in patterns.NAMES  # load.py, load_figures.py
        if relative != TABLE and not own and extra:
            bad[str(relative)] = sorted(extra)
    assert bad == {}


def test_the_check_catches_a_planted_name(tmp_path):
    (tmp_path / "plan").mkdir()
    (tmp_path / "plan" / "patterns.py").write_text('RR = "rr"\n')  # the table may
    (tmp_path / "fine.py").write_text('"""A module about the stream pattern."""\n'
                                      'def f(p):\n    """Not for "stream"."""\n    return p.per_window\n')
    (tmp_path / "planted.py").write_text('def f(p):\n    if p == "stream":\n        return 1\n')
    (tmp_path / "label.py").write_text('def f(p):\n    return f"{p}" + f"short"\n')
    bad = named_patterns(tmp_path, allowed={})
    assert bad == {"planted.py": [(2, "stream")], "label.py": [(2, "short")]}


def test_every_row_is_consistent():
    kinds = {"timeout": patterns.TIMEOUTS, "rate_column": (None, *patterns.RATE_COLUMNS)}
    run_keys = set(vars(RunSettings()))
    for name, p in patterns.PATTERNS.items():
        shapes = list(p.shapes(MATRIX))
        by_message = all(shape[4] is not None for shape in shapes)  # else by request and response
        assert shapes and (by_message or all(shape[4] is None for shape in shapes)), name
        assert p.name == name and p.sample and p.section.startswith("11")
        for trait, allowed in kinds.items():
            assert getattr(p, trait) in allowed, (name, trait)
        assert set(p.report_figures) <= set(patterns.REPORT_FIGURES), name
        assert set(p.run_keys) <= run_keys and set(p.run_limits) <= set(p.run_keys), name
        assert set(p.axes) <= set(MATRIX_AXES), name
        assert p.default_sizes is None or (not by_message and len(p.default_sizes) == 2), name
        assert not p.per_window or (by_message and p.entry_key), name
        assert p.per_window == (p.samples_per_round(RUN) != RUN.iterations), name
        assert not p.server_models or (p.entry_key and "server_model" in p.axes), name
        assert (p.timeout == patterns.PER_CONNECTION) == p.phases, name
        assert not p.phases or p.server_models, name
        assert not p.execute or p.execute in PARTS, name
        assert p.payload_why_not("small") or not by_message, name  # records are exchanged
        assert bool(p.note) == bool(p.note_rank), name
        assert not p.rate_column or p.rate_column in p.columns, name
        assert p.in_label == (p is not patterns.DEFAULT), name
    ranks = [p.note_rank for p in patterns.PATTERNS.values() if p.note_rank]
    assert len(ranks) == len(set(ranks))
    assert patterns.NAMES == tuple(patterns.PATTERNS) and patterns.DEFAULT.name in patterns.NAMES
    assert {f.name for f in fields(patterns.Pattern)} >= {"per_window", "entry_key", "server_models"}


def test_the_python_peers_patterns_are_ours():
    tree = ast.parse(PYTHON_PEER_TABLE.read_text())
    # Pattern("name", ...) calls of the peer's table, read from its source (the peer's package
    # need not be importable from the orchestrator's environment)
    names = {call.args[0].value for call in ast.walk(tree)
             if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Pattern"
             and call.args and isinstance(call.args[0], ast.Constant)}
    assert names and names <= set(patterns.NAMES)


def test_the_row_check_catches_a_planted_row(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("from ipclab.plan import patterns\nfrom ipclab.plan.patterns import LOAD\n"
                       "KEY = patterns.STREAM.entry_key\nDEFAULT = patterns.DEFAULT\n")
    assert row_references(planted) == {"LOAD", "STREAM"}


def _imports_of(tree):
    """The names a module imports from a patterns module (`from ipclab.plan.patterns import of`)."""
    return {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and (node.module or "").endswith("patterns") for a in node.names}


def _is_of(func, imported):
    """`patterns.of`, `pattern_table.of`, or `of` imported from the table."""
    if isinstance(func, ast.Attribute):
        return func.attr == "of" and isinstance(func.value, ast.Name) and "pattern" in func.value.id
    return isinstance(func, ast.Name) and func.id == "of" and "of" in imported


def looked_up_rows(path):
    """(line, call) of every call of the table's `of` on what a row or a record already is: a
    case's `.pattern` is its row (`patterns.of(case.pattern)`, `outcome.case.pattern`; only a
    Case turning a name it was given into its row, `self.pattern`, asks), and a record's pattern
    is read by `of_record(record)`, not `of(record.get("pattern"))` or `of(record["pattern"])`."""
    tree = ast.parse(path.read_text(), str(path))
    imported = _imports_of(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_of(node.func, imported) and node.args):
            continue
        arg = node.args[0]
        of_a_case = isinstance(arg, ast.Attribute) and arg.attr == "pattern" and not (
            isinstance(arg.value, ast.Name) and arg.value.id == "self")
        getter = isinstance(arg, ast.Call) and arg.args and "get" in (
            getattr(arg.func, "attr", None), getattr(arg.func, "id", None))  # record.get, get
        key = arg.args[0] if getter else arg.slice if isinstance(arg, ast.Subscript) else None
        of_a_record = isinstance(key, ast.Constant) and key.value == "pattern"
        if of_a_case or of_a_record:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_a_case_carries_its_row_and_no_module_looks_it_up_again():
    bad = {str(path.relative_to(PACKAGE)): looked_up_rows(path)
           for path in sorted(PACKAGE.rglob("*.py")) if path.relative_to(PACKAGE) != TABLE}
    assert {module: calls for module, calls in bad.items() if calls} == {}


def test_the_lookup_check_catches_a_planted_lookup(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "from ipclab.plan import patterns\nfrom ipclab.plan import patterns as pattern_table\n"
        "from ipclab.plan.patterns import of\n"
        "def f(case, outcome, record, name):\n"
        "    a = patterns.of(case.pattern).spreads\n"
        "    b = pattern_table.of(outcome.case.pattern)\n"
        "    c = patterns.of(record.get(\"pattern\"))\n"
        "    d = of(case.pattern), patterns.of(record[\"pattern\"])\n"
        "    return patterns.of(name), patterns.of_record(record), case.pattern.spreads\n"
        "class Case:\n"
        "    def __post_init__(self):\n"
        "        self.row = patterns.of(self.pattern)\n")
    assert sorted(line for line, _ in looked_up_rows(planted)) == [5, 6, 7, 8, 8]
