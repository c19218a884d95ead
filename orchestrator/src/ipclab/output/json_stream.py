"""--json-stream: one JSON object per line as the run goes, so a dashboard or a script can
follow a long run (as iperf3's --json-stream does). Every line says what it is (`type`):

    start   the run began: its scenario, its directory, the cases that will run
    round   a case's round finished and was analysed: the round's own figures and the case's
            figures over its rounds so far
    end     the run ended: complete or interrupted, the cases ok and failed

A line is written and flushed when its round has been published (output/publish.py), so it
never says more than run.json does at that moment. The peers write their windows (a stream's,
a load's) only when their round ends, so there is no line per window: a round's line carries
them (`pattern`: a stream's messages and windows, a load's rates and percentiles)."""
import json
import sys

from ipclab.analyse.case_stats import stat_fields
from ipclab.output.columns import chosen_percentiles
from ipclab.plan import patterns
from ipclab.plan.matrix import case_label

# The case's figures a round's line carries beside its summary, where the record has them.
CASE_FIGURES = ("median_ci_low", "median_ci_high", "stable", "msgs_per_s", "msgs_per_s_ci_low",
                "msgs_per_s_ci_high", "mib_per_s", "conns_per_s", "conns_per_s_ci_low",
                "conns_per_s_ci_high", "achieved_per_s", "ratio", "ratio_ci_low",
                "ratio_ci_high", "verdict")
# A round entry's own fields a line carries (its files and noise stay in run.json).
ROUND_FIELDS = ("status", "reason", "samples", "seconds", "median", "median_ci_low",
                "median_ci_high")


def start_line(document, out_dir):
    cases = [c for c in document["cases"] if not c.get("skip_status")]
    return {"type": "start", "schema": document["schema"],
            "scenario": document["scenario"]["name"], "out": str(out_dir),
            "cases": len(document["cases"]), "runnable": len(cases),
            "rounds": document["scenario"]["run"].get("rounds")}


def round_line(document, record, entry):
    """The line of `record`'s round `entry`, after the case was analysed with it."""
    summary = record.get("trimmed") or {}
    fields = stat_fields(chosen_percentiles(document))
    key = patterns.of_record(record).entry_key   # the round entry's pattern part, if any
    pattern = {key: entry[key]} if key and key in entry else {}
    return {"type": "round", "case": record["id"], "index": record["index"],
            "label": case_label(record), "pattern_name": record["pattern"],
            "round": entry["round"], "rounds_done": len(record["rounds"]),
            "rounds_planned": record.get("rounds_planned"),
            **{k: entry.get(k) for k in ROUND_FIELDS},
            "pattern": pattern,
            "case_status": record["status"],
            "summary_ns": {k: summary.get(k) for k in fields if k in summary},
            "figures": {k: record[k] for k in CASE_FIGURES if record.get(k) is not None}}


def end_line(document):
    statuses = [r["status"] for r in document["results"]]
    return {"type": "end", "complete": document.get("complete"),
            "interrupted": document.get("interrupted"),
            "ok": statuses.count("ok"), "failed": statuses.count("failed"),
            "not_run": sum(s in ("not-applicable", "unavailable") for s in statuses)}


class JsonStream:
    """The lines written to `target` (a path, or "-": stdout), each flushed as it is written."""

    def __init__(self, target):
        self.out = sys.stdout if target == "-" else open(target, "w")
        self.sent = set()   # (case id, round) already written: a round is published once more
        # when the run ends (store.finish), and must not be a second line

    def write(self, line):
        self.out.write(json.dumps(line, default=str) + "\n")
        self.out.flush()

    def rounds(self, document, changed):
        """The lines of `changed`'s rounds not yet written (Publisher's `after`)."""
        record = next((r for r in document["results"] if r["id"] == changed), None)
        for entry in (record or {}).get("rounds") or []:
            if (changed, entry["round"]) not in self.sent:
                self.sent.add((changed, entry["round"]))
                self.write(round_line(document, record, entry))

    def close(self):
        if self.out is not sys.stdout:
            self.out.close()
