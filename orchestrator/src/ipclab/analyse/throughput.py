"""Rates and CPU cost of the stream and short patterns (PROTOCOL.md 11.1, 11.2). Small pure
functions, no I/O; the general statistics they build on are in stats.py.

Methods, stated once:
- A stream of N messages is cut into W windows of ⌊N/W⌋ messages, the last taking the rest
  (11.1 step 6); a window's sample is its nanoseconds. Dividing each window's time by its
  message count gives the time per message of that window, and the case's statistics (outlier
  fences, median, hierarchical bootstrap interval, rounds, ratios) are those of these per-message
  times: with equal windows this is the median window, scaled.
- messages/s = 10^9 / median time per message; its 95% interval is the median's interval
  transformed (10^9 / high, 10^9 / low: the map is monotonic). MiB/s = messages/s × message size
  / 2^20. The whole stream's rate (`stream_msgs_per_s`) is N × 10^9 / `stream_ns` (MARK_ACK to
  END_ACK, the drain included).
- CPU: each side's user and system time from MARK_ACK to END_ACK (getrusage of the process, as
  iperf3's cpu_util() takes it around the test), in seconds; a side's CPU share is (user + sys)
  / the stream's wall time; CPU µs per message is both sides' user + sys over N (netperf's
  "service demand" per message); context switches per message are both sides' voluntary and
  involuntary switches over N.
- With rounds (each a fresh stream), every per-stream figure is the median over the ok rounds;
  `lost` (udp) is the sum over them.
- short: connections/s = 10^9 / median connection time (open, request, response, close), its
  interval transformed as for messages/s.
"""
import statistics

import numpy as np

from ipclab.plan import patterns

MIB = 1 << 20

# The fields these figures add to a case's record (and to cases.csv), None where they do not apply.
STREAM_FIELDS = ("messages", "windows", "msgs_per_s", "msgs_per_s_ci_low", "msgs_per_s_ci_high",
                 "mib_per_s", "mib_per_s_ci_low", "mib_per_s_ci_high", "stream_s",
                 "stream_msgs_per_s", "client_user_s", "client_sys_s", "server_user_s",
                 "server_sys_s", "client_cpu_share", "server_cpu_share", "cpu_us_per_msg",
                 "csw_per_msg", "lost")
SHORT_FIELDS = ("conns_per_s", "conns_per_s_ci_low", "conns_per_s_ci_high", "time_wait")
FIELDS = STREAM_FIELDS + SHORT_FIELDS


def window_messages(messages, windows):
    """The message count of each window: ⌊N/W⌋ each, the last takes the rest (W ≤ N, W ≥ 1)."""
    if windows < 1 or messages < windows:
        raise ValueError(f"{windows} windows cannot cut a stream of {messages} messages")
    counts = np.full(windows, messages // windows, dtype=np.int64)
    counts[-1] += messages - counts.sum()
    return counts


def per_message(window_ns, messages):
    """Each window's nanoseconds per message (float64), for a stream of `messages`."""
    x = np.asarray(window_ns, dtype=np.float64)
    return x / window_messages(messages, x.size)


def rate(per_item_ns, low_ns=None, high_ns=None):
    """(items/s, low, high) from a time per item and its interval (the bounds swap: a longer time
    is a lower rate). None where a figure is missing or not positive."""
    def inverse(ns):
        return 1e9 / ns if ns is not None and ns > 0 else None
    return inverse(per_item_ns), inverse(high_ns), inverse(low_ns)


def stream_round(entry, key):
    """One ok round's per-stream figures from its saved `stream` block (the client's result file:
    messages, message_size, stream_ns, lost, client_cpu, server_cpu), or None."""
    s = entry.get(key)
    if not s or not s.get("messages") or not s.get("stream_ns"):
        return None
    n, wall = s["messages"], s["stream_ns"]
    client, server = s.get("client_cpu") or {}, s.get("server_cpu") or {}

    def seconds(side, key):
        return side[key] / 1e9 if side.get(key) is not None else None

    def busy(side):
        return ((side["user_ns"] + side["sys_ns"]) if side.get("user_ns") is not None
                and side.get("sys_ns") is not None else None)

    def switches(side):
        return ((side["voluntary"] + side["involuntary"]) if side.get("voluntary") is not None
                and side.get("involuntary") is not None else None)

    both = [busy(client), busy(server)]
    csw = [switches(client), switches(server)]
    return {
        "stream_s": wall / 1e9, "stream_msgs_per_s": n * 1e9 / wall,
        "client_user_s": seconds(client, "user_ns"), "client_sys_s": seconds(client, "sys_ns"),
        "server_user_s": seconds(server, "user_ns"), "server_sys_s": seconds(server, "sys_ns"),
        "client_cpu_share": busy(client) / wall if busy(client) is not None else None,
        "server_cpu_share": busy(server) / wall if busy(server) is not None else None,
        "cpu_us_per_msg": sum(both) / 1e3 / n if None not in both else None,
        "csw_per_msg": sum(csw) / n if None not in csw else None,
        "lost": s.get("lost") or 0,
    }


def stream_figures(record):
    """The stream fields of a case record from its trimmed per-message statistics and its ok
    rounds (module note). Every field None when the record has no ok stream round."""
    out = dict.fromkeys(STREAM_FIELDS)
    key = patterns.of_record(record).entry_key
    entries = [e for e in record.get("rounds") or [] if e.get("status") == "ok" and e.get(key)]
    per_round = [f for f in (stream_round(e, key) for e in entries) if f]
    if entries:
        out["messages"] = entries[-1][key].get("messages")
        out["windows"] = entries[-1][key].get("windows")
    trimmed = record.get("trimmed")
    if trimmed:
        out["msgs_per_s"], out["msgs_per_s_ci_low"], out["msgs_per_s_ci_high"] = rate(
            trimmed["median"], record.get("median_ci_low"), record.get("median_ci_high"))
        size = record.get("message_size")
        if size is not None:
            for key in ("", "_ci_low", "_ci_high"):
                value = out[f"msgs_per_s{key}"]
                out[f"mib_per_s{key}"] = value * size / MIB if value is not None else None
    for key in ("stream_s", "stream_msgs_per_s", "client_user_s", "client_sys_s",
                "server_user_s", "server_sys_s", "client_cpu_share", "server_cpu_share",
                "cpu_us_per_msg", "csw_per_msg"):
        out[key] = _median([f[key] for f in per_round])
    if per_round:
        out["lost"] = sum(f["lost"] for f in per_round)
        if out["messages"] and out["stream_s"]:
            # messages / the median wall, not the median of the rates: with an even number of
            # rounds the two medians are means of different pairs and would not divide out
            out["stream_msgs_per_s"] = out["messages"] / out["stream_s"]
    return out


def short_figures(record):
    """The short fields of a case record: connections/s with its interval, and the TIME_WAIT
    sockets counted after its last ok round."""
    out = dict.fromkeys(SHORT_FIELDS)
    trimmed = record.get("trimmed")
    if trimmed:
        out["conns_per_s"], out["conns_per_s_ci_low"], out["conns_per_s_ci_high"] = rate(
            trimmed["median"], record.get("median_ci_low"), record.get("median_ci_high"))
    key = patterns.of_record(record).entry_key
    counted = [e[key] for e in record.get("rounds") or []
               if e.get("status") == "ok" and e.get(key) is not None]
    out["time_wait"] = counted[-1] if counted else None
    return out


def figures(record):
    """Every pattern field of a record: its own pattern's figures, None for the others."""
    out, pattern = dict.fromkeys(FIELDS), patterns.of_record(record)
    if pattern.per_window:
        out.update(stream_figures(record))
    elif pattern.median_rate:
        out.update(short_figures(record))
    return out


def _median(values):
    values = [v for v in values if v is not None]
    return float(statistics.median(values)) if values else None


def warnings(record):
    """A stream's or short's warnings: none beyond the time statistics' own."""
    return []
