"""Small hand-made runs for the tests of the report's figures and pages
(test_report_figures*.py): a record of a case, the run of records, a study's run that names its
figures, and one run with a case of every kind of figure."""
import numpy as np

from ipclab.output import model
from ipclab.output.report.data import RunData, binned_medians, quantile_grid


def record(index, mechanism="tcp", client="cpp", server="cpp", request=16, response=16,
           pattern="rr", status="ok", median=50_000.0, **extra):
    r = {"id": f"{index:04d}-{mechanism}-{client}-{server}-{request}-{response}-{pattern}",
         "index": index, "mechanism": mechanism, "client": client, "server": server,
         "request_size": request, "response_size": response, "message_size": None,
         "payload": "bytes", "sequence_length": None, "placement": "cross-core",
         "pattern": pattern, "status": status, "reason": None if status == "ok" else "it broke",
         "client_cpus": [0], "server_cpus": [1], "rounds_planned": 2, "rounds": [],
         "trimmed": {"median": median, "p99": 2 * median, "mean": median, "std": 1.0},
         "median_ci_low": 0.9 * median, "median_ci_high": 1.2 * median, "warnings": []}
    if pattern == "stream":
        r.update(request_size=None, response_size=None, message_size=request)
    r.update(extra)
    return r


def run(records, **kw):
    document = {"scenario": {"name": "hand-made", "matrix": {}, "run": {}, "statistics": {}},
                "environment": {"hostname": "h"}, "notes": ["a note"], "results": records,
                "complete": True}
    return RunData(model.build(document), **kw)


def keys(charts):
    return [c.key for c in charts]


def every_figure_run():
    rr = [record(1), record(2, request=1024), record(3, client="python", status="failed")]
    stream = record(4, pattern="stream", request=1024, messages=100, msgs_per_s=1e5,
                    client_user_s=0.1, client_sys_s=0.1, server_user_s=0.1, server_sys_s=0.1,
                    wire_req_bytes=1100.0, wire_resp_bytes=0.0, wire_packets_per_call=1.0)
    grid = {1: quantile_grid(np.arange(1000, 2000)), 2: quantile_grid(np.arange(1100, 2100))}
    warm = {1: binned_medians(np.linspace(5000, 1000, 100))}
    return run(rr + [stream, *load_records()], quantiles={rr[0]["id"]: grid, stream["id"]: grid},
               warmup={rr[0]["id"]: warm})


def load_records():
    """Two rates of one way of serving, and one of another (pattern load, PROTOCOL.md 11.5)."""
    def one(index, rate, model, p99):
        spectrum = {"p50": 50_000, "p90": 80_000, "p99": p99, "p99_9": 2 * p99, "max": 3 * p99}
        return record(index, pattern="load", server_model=model, achieved_per_s=0.99 * rate,
                      target_per_s=rate, settings={"clients": 8, "rate": rate},
                      **{f"response_{k}": v for k, v in spectrum.items()},
                      **{f"service_{k}": v // 2 for k, v in spectrum.items()})
    return [one(10, 1000, "epoll", 100_000), one(11, 5000, "epoll", 400_000),
            one(12, 1000, "thread", 150_000)]


def study_run(records, names, compare="median"):
    document = {"scenario": {"name": "study", "matrix": {}, "run": {},
                             "statistics": {"compare": compare}, "report": {"figures": names}},
                "environment": {"hostname": "h"}, "notes": [], "results": records,
                "complete": True}
    return RunData(model.build(document))
