"""--json-stream's lines (output/json_stream.py): self-describing, one per round once, flushed."""
import json

from ipclab.output.json_stream import JsonStream, end_line

DOCUMENT = {"schema": "ipclab.run/3", "scenario": {"name": "s", "run": {"rounds": 2},
                                                  "statistics": {"percentiles": [50, 99.99]}},
            "cases": [], "complete": True, "interrupted": False, "results": [{
                "id": "c1", "index": 1, "mechanism": "tcp", "client": "cpp", "server": "java",
                "request_size": 16, "response_size": 16, "placement": "cross-core",
                "pattern": "rr", "settings": {}, "status": "ok", "rounds_planned": 2,
                "trimmed": {"median": 1000.0, "p90": 1500.0, "p99_99": 3000.0, "max": 4000.0},
                "median_ci_low": 900.0, "median_ci_high": 1100.0,
                "rounds": [{"round": 1, "status": "ok", "samples": 5, "seconds": 0.1,
                            "median": 1000.0, "samples_file": "samples/c1.r1.i64"}]}]}


def test_a_round_is_one_line_once_flushed_as_written(tmp_path):
    path = tmp_path / "stream.jsonl"
    stream = JsonStream(str(path))
    stream.rounds(DOCUMENT, "c1")
    (line,) = [json.loads(t) for t in path.read_text().splitlines()]  # flushed before close
    stream.rounds(DOCUMENT, "c1")       # the run's last publish: no second line for the round
    stream.rounds(DOCUMENT, "no-such")
    stream.close()
    assert len(path.read_text().splitlines()) == 1
    assert line["type"] == "round" and line["case"] == "c1" and line["round"] == 1
    assert line["label"].startswith("tcp cpp→java")
    assert line["summary_ns"] == {"median": 1000.0, "p99_99": 3000.0, "max": 4000.0}
    assert line["figures"] == {"median_ci_low": 900.0, "median_ci_high": 1100.0}
    assert "samples_file" not in line


def test_the_end_line_counts_the_cases():
    assert end_line(DOCUMENT) == {"type": "end", "complete": True, "interrupted": False, "ok": 1,
                                  "failed": 0, "not_run": 0}
