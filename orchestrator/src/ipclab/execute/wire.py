"""Bytes on the wire per call (`--wire-bytes`), counted by the kernel, never estimated.

The pair runs in private network namespaces (network.py), or on two hosts (the server's over
ssh, the client here or on its own host: the table then sits in that host's namespace, skips the
ssh connection to the server's host, and is deleted after the case); an nftables table in the
client's namespace counts every IPv4 packet to the server's address (output hook: requests) and from it
(input hook: responses), bytes as the IP layer sees them (L3: IP header and all), and separately
those with SYN, FIN or RST set (connection set-up and tear-down).

The peer contract has no signal at "measured iterations start/end" (PROTOCOL.md 5 and 7: READY,
then the client's result file at the end), so the counters cannot be read at those instants.
Instead a case is run twice in the same namespaces: the measured pair (set-up, W warm-up calls,
N measured calls, tear-down) and a calibration pair identical but for N = 1. Both totals hold the
same set-up, warm-up and tear-down, so

    per call = (total(N) − total(1)) / (N − 1)

is exactly what the measured calls added, as the kernel counted it. It is an average: where a
framework sends something on a timer (HTTP/2 pings, delayed ACKs that fire) a call's share can
be fractional. A stream counts per message the same way (messages N and 1)."""
import json
import subprocess
from dataclasses import replace

from ipclab.execute.network import LinkError
from ipclab.execute.places import Place
from ipclab.plan import patterns
from ipclab.records.fields import WIRE_FIELDS

COUNTERS = ("req", "resp", "req_conn", "resp_conn")


def ruleset(server_address, ssh_port=None):
    """The nftables table (counters named in COUNTERS) for traffic with `server_address`; with
    `ssh_port`, the ssh connection to the server's host (its peer's channel) is not counted."""
    skip_out = f"ip daddr {server_address} tcp dport {ssh_port} return\n    " if ssh_port else ""
    skip_in = f"ip saddr {server_address} tcp sport {ssh_port} return\n    " if ssh_port else ""
    return f"""table ip ipclab {{
  counter req {{ }}
  counter resp {{ }}
  counter req_conn {{ }}
  counter resp_conn {{ }}
  chain out {{
    type filter hook output priority 0;
    {skip_out}ip daddr {server_address} tcp flags & (syn | fin | rst) != 0 counter name req_conn
    ip daddr {server_address} counter name req
  }}
  chain in {{
    type filter hook input priority 0;
    {skip_in}ip saddr {server_address} tcp flags & (syn | fin | rst) != 0 counter name resp_conn
    ip saddr {server_address} counter name resp
  }}
}}
"""


class Counters:
    """The counters of one case's network (a no-op when the case is not counted): in the
    client's private namespace (removed with it), or on the client's host when the server is on
    another one (network.Network.counting_host: this host or the client's over ssh, the table
    deleted at `close`)."""

    def __init__(self, net):
        self.place = Place(netns=net.counting_netns) if net.counting_netns else net.counting_host
        self.shared = net.counting_netns is None  # a host's own tables: ours to delete
        if self.place is not None:
            if self.shared:
                _nft(self.place, ["delete", "table", "ip", "ipclab"], check=False)  # a leftover
            _nft(self.place, ["-f", "-"], ruleset(net.server.address, net.ssh_port))

    @property
    def active(self):
        return self.place is not None

    def close(self):
        if self.active and self.shared:
            _nft(self.place, ["delete", "table", "ip", "ipclab"], check=False)

    def read(self):
        """{counter: [packets, bytes]} now."""
        data = json.loads(_nft(self.place, ["-j", "list", "counters", "table", "ip", "ipclab"]))
        found = {item["counter"]["name"]: [item["counter"]["packets"], item["counter"]["bytes"]]
                 for item in data.get("nftables", []) if "counter" in item}
        return {name: found.get(name, [0, 0]) for name in COUNTERS}

    def around(self, run_pair):
        """Runs `run_pair()` (an Outcome) and attaches what the counters moved meanwhile."""
        if not self.active:
            return run_pair()
        before = self.read()
        outcome = run_pair()
        after = self.read()
        outcome.wire_total = {k: [a - b for a, b in zip(after[k], before[k])] for k in COUNTERS}
        return outcome


def calibration_run(run):
    """The run settings of the calibration pair: one measured call (a stream: one message)."""
    return replace(run, iterations=1, messages=1)


def units(case, run):
    """Measured calls (or a stream's messages) of the measured pair."""
    return case.pattern.measured_items(run)


def per_call(total, calibration, calls):
    """Per measured call: bytes and packets each way, all packets, SYN/FIN/RST bytes both ways;
    None when there is only one call (nothing to take the calibration from)."""
    if calls < 2:
        return None
    diff = {k: [(t - c) / (calls - 1) for t, c in zip(total[k], calibration[k])] for k in COUNTERS}
    return {"req_bytes": diff["req"][1], "resp_bytes": diff["resp"][1],
            "req_packets": diff["req"][0], "resp_packets": diff["resp"][0],
            "packets": diff["req"][0] + diff["resp"][0],
            "conn_bytes": diff["req_conn"][1] + diff["resp_conn"][1],
            "calls": calls, "total": total, "calibration": calibration}


def attach(outcome, calibration, case, run):
    """Puts the per-call figures on the measured outcome, or a note saying why there are none."""
    if calibration.status != "ok":
        outcome.notes.append(f"wire bytes not measured: the calibration pair (1 call) failed: "
                             f"{calibration.reason}")
        return
    outcome.wire = per_call(outcome.wire_total, calibration.wire_total, units(case, run))
    if outcome.wire is None:
        outcome.notes.append("wire bytes need at least 2 measured calls (iterations)")


def record_figures(record):
    """The record's wire columns: the median over its ok rounds (each round counted on its own),
    and the application payload beside them (sized payloads; a structured record's size is the
    framework's business)."""
    rounds = [e["wire"] for e in record.get("rounds") or [] if e.get("wire")]
    out = dict.fromkeys(WIRE_FIELDS)
    if not rounds:
        return out
    median = lambda key: _median([w[key] for w in rounds])  # noqa: E731
    out.update(wire_req_bytes=median("req_bytes"), wire_resp_bytes=median("resp_bytes"),
               wire_packets_per_call=median("packets"))
    if patterns.of_record(record).wire_conn_bytes:
        out["wire_conn_bytes"] = median("conn_bytes")
    if record.get("payload", "bytes") == "bytes":
        size = record.get("message_size")
        out["app_req_bytes"] = size if size is not None else record.get("request_size")
        out["app_resp_bytes"] = 0 if size is not None else record.get("response_size")
    return out


def add_round(record, outcome):
    """Keeps a finished round's wire figures in its round entry and refreshes the record's."""
    wire = getattr(outcome, "wire", None)
    if record.get("rounds"):
        record["rounds"][-1]["wire"] = wire
    record.update(record_figures(record))


def _median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def _nft(place, args, stdin=None, check=True):
    done = subprocess.run(place.plain_command(["nft", *args]), input=stdin, capture_output=True,
                          text=True)
    if done.returncode != 0 and check:
        raise LinkError(f"nft {' '.join(args)} in {place.describe()}: {done.stderr.strip()[:200]}")
    return done.stdout
