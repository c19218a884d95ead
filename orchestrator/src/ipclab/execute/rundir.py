"""The results directory of a run, saved after every round of every case, so nothing finished is
ever lost.

    run.json          the scenario, the resolved cases, the environment, the preflight probe, the
                      order of every round, every case's record with its rounds
    cases.csv         one row per case (output/csv.py)
    table.md          the human table (output/markdown.py)
    samples/<id>.r<k>.i64         raw round trips of round k of each case: little-endian int64 ns
    samples/<id>.r<k>.warmup.i64  the warm-up round trips of that round (flagged as warm-up)
    samples/<id>.hlog             the case's times as an HdrHistogram log, a round per interval
                                  (output/hlogs.py, written as the round is published)
    logs/<id>.r<k>.<role>.stderr  the peers' stderr of a failed round
    phases.csv        burst: one row per case, side and phase (output/csv.py)
    burst/<id>.r<k>.phases.csv    burst: the server's phases of every connection of round k
    burst/<id>.r<k>.records.csv   burst: the client's record of every connection (PROTOCOL.md 11.4)
"""
from datetime import datetime, timezone
from pathlib import Path

from ipclab.common.errors import UserError
from ipclab.execute import explain, wire
from ipclab.execute.parts import part_of
from ipclab.records.schema import SCHEMA



def default_out_dir(root, scenario_name):
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(root) / "results" / f"{stamp}-{scenario_name}"


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class RunStore:
    """The run's document and its directory. Each finished round is written at once (its raw
    samples, its peers' logs, a burst's per-connection files) and handed to `publish`, which the
    command line supplies (output/publish.py): it analyses the case and rewrites every output, so
    this stage never imports the stages above it."""

    def __init__(self, out_dir, scenario, environment, cases, notes=(), publish=None):
        self.dir = Path(out_dir)
        self.scenario = scenario
        self.rounds_planned = scenario.run.rounds
        self.publish = publish or (lambda store, changed: None)
        self.document = {
            "schema": SCHEMA, "complete": False, "interrupted": False,
            "scenario": scenario.as_dict(),
            "environment": environment, "notes": list(notes), "preflight": None,
            "cases": [c.as_dict() for c in cases],
            "rounds": [],
            "results": [new_record(c) for c in cases if c.skip_status],
        }
        self._by_id = {r["id"]: r for r in self.document["results"]}
        self.samples = {}  # id -> round -> raw samples of the ok rounds (kept for the analysis)

    def create(self):
        if self.dir.exists() and any(self.dir.iterdir()):
            raise UserError(f"--out {self.dir}: the directory exists and is not empty")
        (self.dir / "samples").mkdir(parents=True, exist_ok=True)
        self.save()
        return self

    def set_preflight(self, probes, notes):
        self.document["preflight"] = probes
        self.document["notes"] += notes
        self.save()

    def set_floors(self, floors):
        """--explain's floors (floors.py), which the model of each case prices its counts with."""
        self.document["floors"] = floors
        self.save()

    def note(self, text):
        """A note of the whole run (run.json, table.md, the terminal), written at once."""
        self.document["notes"].append(text)
        self.save()

    def start_round(self, index, order):
        self.document["rounds"].append({"round": index, "order": [c.index for c in order],
                                        "started": _now(), "finished": None})
        self.save()

    def finish_round(self, index):
        self.document["rounds"][index - 1]["finished"] = _now()
        self.save()

    def add(self, outcome, position=None):
        """Saves one finished round of a case; the case is analysed again as it is published."""
        case, r = outcome.case, outcome.round
        record = self._by_id.get(case.id)
        if record is None:
            record = self._by_id[case.id] = new_record(case, self.rounds_planned)
            self.document["results"].append(record)
            self.document["results"].sort(key=lambda rec: rec["index"])
        samples_file = self._write(f"samples/{case.id}.r{r}.i64", outcome.samples)
        warmup_file = self._write(f"samples/{case.id}.r{r}.warmup.i64", outcome.warmup_samples)
        if outcome.part:  # the per-connection or per-request files, for plots (burst.py, load.py)
            part_of(case).save_files(self.dir, case, r, outcome.part)
        for role, text in outcome.logs.items():
            (self.dir / "logs").mkdir(exist_ok=True)
            (self.dir / "logs" / f"{case.id}.r{r}.{role}.stderr").write_text(text)
        add_round(record, outcome, samples_file, warmup_file, position)
        if self.scenario.run.wire_bytes:
            wire.add_round(record, outcome)
        if self.scenario.run.explain:
            explain.add_round(record, outcome)
        if outcome.status == "ok" and outcome.samples is not None:
            self.samples.setdefault(case.id, {})[r] = outcome.samples
        self.save(changed=case.id)
        return record

    def _write(self, name, samples):
        if samples is None or not samples.size:
            return None
        samples.astype("<i8").tofile(self.dir / name)
        return name

    def finish(self, interrupted=False):
        self.document["complete"] = not interrupted
        self.document["interrupted"] = interrupted
        self.document["environment"]["finished"] = _now()
        self.save()

    @property
    def records(self):
        return self.document["results"]

    def save(self, changed=None):
        """Every output rewritten from the document; `changed`: the case whose round was added."""
        self.publish(self, changed)


def new_record(case, rounds_planned=1):
    """The saved form of one case before any round ran: its inputs, and its status if it cannot
    run at all (not applicable, unavailable). analyse/case_stats.py adds the statistics."""
    return {
        **case.as_dict(), "status": case.skip_status or "pending", "reason": case.skip_reason,
        "client_cpus": None, "server_cpus": None, "seconds": 0.0, "notes": [],
        "warmup": None, "client_runtime": None, "server_runtime": None,
        "client_library": None, "server_library": None,
        "rounds_planned": rounds_planned if not case.skip_status else 0, "rounds": [],
    }


def add_round(record, outcome, samples_file=None, warmup_file=None, position=None):
    """Adds one finished round (an Outcome) to `record`; a failed round fails the case."""
    client = outcome.client or {}
    warmup = outcome.warmup_samples
    record["rounds"].append({
        "round": outcome.round, "position": position, "status": outcome.status,
        "reason": outcome.reason, "seconds": round(outcome.seconds, 3),
        "samples": int(outcome.samples.size) if outcome.samples is not None else 0,
        "samples_file": samples_file,
        "warmup_samples": int(warmup.size) if warmup is not None else None,
        "warmup_samples_file": warmup_file, "noise": outcome.noise,
        "notes": list(outcome.notes),
        **_pattern_figures(outcome),
    })
    record.update(outcome.cpus)
    record.update(outcome.libraries)
    record["seconds"] = round(record["seconds"] + outcome.seconds, 3)
    for note in outcome.notes:
        text = f"round {outcome.round}: {note}"
        if text not in record["notes"]:
            record["notes"].append(text)
    if client:
        record["warmup"] = client.get("warmup")
        record["client_runtime"] = client.get("runtime")
    if outcome.server:
        record["server_runtime"] = outcome.server.get("runtime")
        if isinstance(outcome.server.get("broker"), str):  # a Redis or NATS responder's server (4.10, 4.11)
            record["broker"] = outcome.server["broker"][:100]
    if outcome.status != "ok":
        record["status"] = outcome.status
        record["reason"] = (f"round {outcome.round}: {outcome.reason}"
                            if record["rounds_planned"] > 1 else outcome.reason)
    elif record["status"] == "pending":
        record["status"] = "ok"
    return record


def _pattern_figures(outcome):
    """A round entry's pattern-specific part, under its row's entry_key (its execute part's)."""
    key = outcome.case.pattern.entry_key
    return part_of(outcome.case).round_entry(outcome, key)
