"""The human table's columns, shared by the Markdown and terminal renderers."""
from ipclab.matrix import describe_shape
from ipclab.units import format_ns, format_size


def headers(baseline_label, compare):
    ratio = f"× {baseline_label} ({compare})" if baseline_label else "× baseline"
    return ["#", "mechanism", "client→server", "request", "response", "placement", "median",
            "mean ± 95% CI", "std", "p99", "outliers", ratio, "status"]


def row(record):
    t = record.get("trimmed")
    if record.get("payload", "bytes") == "bytes":
        request, response = format_size(record["request_size"]), format_size(record["response_size"])
    else:  # a structured record goes out and comes back
        request, response = describe_shape(record), "echo"
    base = [str(record["index"]), record["mechanism"], f"{record['client']}→{record['server']}",
            request, response, record["placement"]]
    if not t:
        return base + ["-"] * 6 + [_status(record)]
    half = (t["ci95_high"] - t["mean"]) if t["ci95_high"] is not None else None
    mean = format_ns(t["mean"]) + (f" ± {format_ns(half)}" if half is not None else "")
    outliers = f"{record['outliers_removed']}/{record['raw']['count']}"
    ratio = f"{record['ratio']:.2f}" if record.get("ratio") is not None else "-"
    return base + [format_ns(t["median"]), mean, format_ns(t["std"]), format_ns(t["p99"]),
                   outliers, ratio, _status(record)]


def _status(record):
    if record["status"] == "ok":
        return "ok"
    return f"{record['status']}: {record['reason']}" if record.get("reason") else record["status"]
