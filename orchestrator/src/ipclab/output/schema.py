"""The published schema of a run's files (`ipclab schema`, docs/schema/): a JSON Schema of
run.json and the columns of cases.csv (name, unit, meaning), both made from the code's own
tables, so the shipped files cannot drift from what the code writes (tests/test_schema.py
checks the shipped files against these and every run.json the end-to-end tests write against
the schema).

Where the names come from: the document's, a record's and a round entry's own fields from
records/schema.py's tables (which tests check against what execute/rundir.py writes); a case's
inputs from plan/matrix.py's `Case`; the statistics from analyse/case_stats.py
(`STAT_FIELDS`, `ANALYSIS_FIELDS`, the asked percentiles' pattern); each measurement's fields
from the modules that compute them (analyse/throughput.py, burst.py, load.py, explained.py;
records/fields.py); cases.csv's columns from output/csv.py's `columns`."""
import dataclasses
import json

from ipclab.analyse import burst, explained, load, throughput
from ipclab.analyse.case_stats import ANALYSIS_FIELDS, RATIO_FIELDS, STAT_FIELDS
from ipclab.output import csv
from ipclab.plan import settings as setting_table
from ipclab.plan.matrix import Case
from ipclab.records import schema as record_schema
from ipclab.records.fields import EXPLAIN_FIELDS, WIRE_FIELDS

# The shipped files (`ipclab schema --write` rewrites them; test_schema.py compares them).
SHIPPED = {"run.json": "docs/schema/run.schema.json", "cases.csv": "docs/schema/cases.columns.json"}
SCHEMA_NAME = record_schema.SCHEMA

ANY = {}
NUMBER = {"type": ["number", "null"]}
TYPES = {"string": {"type": ["string", "null"]}, "integer": {"type": ["integer", "null"]},
         "number": NUMBER, "boolean": {"type": ["boolean", "null"]},
         "array": {"type": ["array", "null"]}, "object": {"type": ["object", "null"]},
         "any": ANY}
# A Case field's Python annotation as a JSON type (its record keeps the pattern by name).
ANNOTATIONS = {"int": "integer", "int | None": "integer", "str": "string", "str | None": "string",
               "patterns.Pattern": "string", "tuple": "object"}


def _typed(kind, description):
    return {**TYPES[kind], "description": description}


def summary_schema(what):
    """A `raw` or `trimmed` summary (analyse/stats.py's Summary): its fixed fields and any
    percentile asked for beyond them (`p99_99`)."""
    return {"type": ["object", "null"], "description": what,
            "properties": {f: _typed("integer" if f == "count" else "number",
                                     f"{f} (ns, but count)") for f in STAT_FIELDS},
            "patternProperties": {r"^p[0-9]+(_[0-9]+)?$": NUMBER},
            "additionalProperties": False}


def round_schema():
    own = {name: _typed(kind, text) for name, kind, text in record_schema.ROUND_FIELDS}
    return {"type": "object", "description": "one finished round of a case",
            "properties": own, "required": [n for n, _, _ in record_schema.ROUND_FIELDS
                                            if n in record_schema.ROUND_REQUIRED]}


def record_schema_of():
    """A case's record: its inputs (Case), its own fields, its analysis, each measurement's."""
    props = {f.name: _typed(ANNOTATIONS.get(str(f.type), "any"), f"the case's {f.name} (input)")
             for f in dataclasses.fields(Case)}
    props["id"] = _typed("string", "the case's id: index, mechanism, pair, shape, placement, "
                                   "pattern, settings")
    props.update({n: _typed(k, t) for n, k, t in record_schema.RECORD_FIELDS})
    props["rounds"] = {"type": "array", "items": round_schema(), "description": "its rounds"}
    analysis = {"raw": summary_schema("statistics of every sample of the ok rounds"),
                "trimmed": summary_schema("statistics inside the outlier fences")}
    for name in ANALYSIS_FIELDS:
        props.setdefault(name, analysis.get(name, _typed(record_schema.ANALYSIS_KINDS.get(
            name, "number"), f"analysis: {name} (analyse/case_stats.py)")))
    props.update({n: _typed("string" if n in ("verdict", "baseline_id") else "number",
                            f"{n}: to the baseline of the same round (analyse/case_stats.py)")
                  for n in RATIO_FIELDS})
    for fields, where in ((throughput.FIELDS, "analyse/throughput.py"),
                          (WIRE_FIELDS, "records/fields.py, docs/wire.md"),
                          (explained.FIELDS, "analyse/explained.py, docs/explain.md")):
        props.update({n: _typed("number", f"{n} ({where})") for n in fields})
    for fields, where in ((burst.FIELDS, "analyse/burst.py"), (load.FIELDS, "analyse/load.py"),
                          (EXPLAIN_FIELDS, "execute/explain.py, docs/explain.md")):
        props.update({n: _typed("any", f"{n} ({where})") for n in fields if n not in props})
    return {"type": "object", "properties": props,
            "required": [n for n, _, _ in record_schema.RECORD_FIELDS
                         if n in record_schema.RECORD_REQUIRED] + ["id", "index", "pattern"]}


def run_schema():
    """The JSON Schema (draft 2020-12) of run.json as this code writes it."""
    props = {n: _typed(k, t) for n, k, t in record_schema.DOCUMENT_FIELDS}
    props["schema"] = {"const": record_schema.SCHEMA, "description": "this format's name and "
                                                                     "version (records/schema.py)"}
    props["results"] = {"type": "array", "items": record_schema_of(),
                        "description": "every case's record, by index"}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://ipclab.dev/schema/{record_schema.SCHEMA}",
            "title": f"ipclab run.json ({record_schema.SCHEMA})", "type": "object",
            "properties": props, "required": list(record_schema.DOCUMENT_REQUIRED),
            "additionalProperties": False}


def csv_columns():
    """Every column cases.csv can have (a run shows those that apply), in its order, each as
    {name, unit, meaning}."""
    every = csv.columns(wire=True, burst=True, settings=list(setting_table.NAMES),
                        precision=True, load=True, explain=True)
    return [{"name": n, "unit": _unit(n), "meaning": _meaning(n)} for n in every]


def _unit(name):
    if name.endswith("_ns") or name in STAT_FIELDS and name != "count":
        return "ns"
    if name in load.FIELDS and name.startswith(load.TIMES):   # response_p99, lateness_max
        return "ns"
    return csv.UNITS.get(name, "")


def _meaning(name):
    own = csv.MEANINGS.get(name)
    if own:
        return own
    if name in setting_table.NAMES:
        return f"setting {name}: {setting_table.SETTINGS[name].help}"
    raw = name.startswith("raw_")
    stat = name.removeprefix("raw_").removesuffix("_ns")
    if stat in STAT_FIELDS or stat == "median" or stat.startswith("p"):
        of = "every sample" if raw else "the samples inside the outlier fences"
        return f"{stat.replace('_', '.')} of the case's times ({of}; a stream's: per message)"
    for fields, where in ((throughput.FIELDS, "a stream's or short's figure (analyse/throughput.py)"),
                          (burst.FIELDS, "a burst's figure (analyse/burst.py)"),
                          (load.FIELDS, "a load's figure (analyse/load.py, docs/load.md)"),
                          (WIRE_FIELDS, "bytes on the wire per call (docs/wire.md)"),
                          (EXPLAIN_FIELDS, "--explain per call and side (docs/explain.md)"),
                          (explained.FIELDS, "--explain's model (docs/explain.md)")):
        if name in fields:
            return f"{name.replace('_', ' ')}: {where}"
    return name.replace("_", " ")


def document():
    """What `ipclab schema` prints and docs/schema/ ships: the run.json schema with cases.csv's
    columns beside it."""
    return {"run.json": run_schema(), "cases.csv": csv_columns()}


def text(part=None):
    """The shipped text: all, or one part ("run.json", "cases.csv"), as stable JSON."""
    value = document() if part is None else document()[part]
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def check_runs(paths):
    """A line per problem of each run directory's (or file's) run.json against run_schema():
    unreadable, or where and why it is not valid (jsonschema, a test dependency)."""
    try:
        import jsonschema
    except ImportError:
        return ["ipclab schema: checking needs the jsonschema package (orchestrator's test extras, "
                "requirements.lock)"]
    validator = jsonschema.Draft202012Validator(run_schema())
    out = []
    for path in paths:
        file = path / "run.json" if path.is_dir() else path
        try:
            found = json.loads(file.read_text())
        except (OSError, ValueError) as e:
            out.append(f"{file}: cannot read: {e}")
            continue
        out += [f"{file}: {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:200]}"
                for e in validator.iter_errors(found)]
    return out
