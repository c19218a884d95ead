"""The published schema (output/schema.py, docs/schema/): the shipped files are what the code's
tables make, the schema is valid JSON Schema, its tables name what the run directory writes, a
run's run.json passes and a broken one does not. (Every run.json a test session's runs write is
checked against the shipped schema at its end: conftest.py's schema audit.)"""
import dataclasses
import json
import subprocess
import sys

import jsonschema
import pytest

from ipclab.output import schema
from ipclab.plan.catalog import repo_root
from ipclab.plan.matrix import Case
from ipclab.records import schema as tables
from test_rounds import fake, setup  # noqa: F401 (fake: a fixture)


@pytest.mark.parametrize("part", sorted(schema.SHIPPED))
def test_the_shipped_files_are_the_generated_ones(part):
    shipped = repo_root() / schema.SHIPPED[part]
    assert shipped.read_text() == schema.text(part), \
        f"{schema.SHIPPED[part]} is stale: run `./ipclab schema --write`"


def test_the_schema_is_json_schema_and_names_the_format():
    jsonschema.Draft202012Validator.check_schema(schema.run_schema())
    assert schema.run_schema()["properties"]["schema"] == {
        "const": tables.SCHEMA, "description": "this format's name and version (records/schema.py)"}


def test_every_csv_column_has_a_meaning_and_the_times_their_unit():
    columns = {c["name"]: c for c in schema.csv_columns()}
    assert all(c["meaning"] for c in columns.values())
    assert columns["p99_ns"]["unit"] == "ns" and columns["raw_p99_ns"]["unit"] == "ns"
    assert columns["msgs_per_s"]["unit"] == "1/s" and columns["response_p99"]["unit"] == "ns"
    assert columns["nodelay"]["meaning"].startswith("setting nodelay: TCP_NODELAY")


def test_the_tables_name_what_a_run_writes_and_a_run_json_passes(fake, tmp_path):
    _, store, _, _ = setup(fake, tmp_path)
    document = json.loads((tmp_path / "run" / "run.json").read_text())
    assert set(tables.DOCUMENT_REQUIRED) <= set(document)
    assert set(document) <= {n for n, _, _ in tables.DOCUMENT_FIELDS}
    own = {n for n, _, _ in tables.RECORD_FIELDS} | {f.name for f in dataclasses.fields(Case)}
    fresh = {k for r in store.records for k in r} - set(schema.record_schema_of()["properties"])
    assert not fresh, f"record fields the schema does not name: {fresh}"
    assert {"status", "rounds_planned", "hlog_file"} <= own
    entries = {k for r in store.records for e in r["rounds"] for k in e}
    assert entries <= {n for n, _, _ in tables.ROUND_FIELDS}, entries
    jsonschema.validate(document, schema.run_schema(), cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize("break_it,where", [
    (lambda d: d.update(schema="ipclab.run/9"), "schema"),
    (lambda d: d.pop("results"), "results"),
    (lambda d: d["results"][0].update(status=3), "status"),
    (lambda d: d["results"][0]["trimmed"].update(median="fast"), "median"),
    (lambda d: d["results"][0]["rounds"][0].update(samples=1.5), "samples"),
    (lambda d: d.update(colour="red"), "colour"),
])
def test_a_broken_run_json_is_refused_where_it_breaks(fake, tmp_path, break_it, where):
    setup(fake, tmp_path)
    document = json.loads((tmp_path / "run" / "run.json").read_text())
    break_it(document)
    path = tmp_path / "broken.json"   # not a run directory's: the session's audit passes it by
    path.write_text(json.dumps(document))
    problems = schema.check_runs([path])
    assert problems and any(where in p for p in problems), problems


def test_ipclab_schema_prints_the_shipped_schema_and_checks_runs(fake, tmp_path):
    def ipclab(*args):
        return subprocess.run([sys.executable, "-m", "ipclab", "schema", *args],
                              capture_output=True, text=True, cwd=repo_root(), timeout=120)
    printed = ipclab()
    assert printed.returncode == 0
    assert json.loads(printed.stdout) == json.loads(
        (repo_root() / schema.SHIPPED["run.json"]).read_text())
    assert json.loads(ipclab("--csv").stdout)[0]["name"] == "id"
    setup(fake, tmp_path)
    assert ipclab(str(tmp_path / "run")).returncode == 0
    (tmp_path / "bad.json").write_text("{}")
    refused = ipclab(str(tmp_path / "bad.json"))
    assert refused.returncode == 1 and "'schema' is a required property" in refused.stderr
