"""A burst's clients spread over hosts ([hosts] clients, PROTOCOL.md 11.4.4 `--release-at`).

The burst's N connections are split evenly over one C++ burst client per client host (each with
the scenario's connectors and processes: as the socket-server study ran 200 threads on each of
five hosts). Before the clients start, each host's clock offset to ours is measured NTP-style
(hostcheck.clock_offset: the probe with the smallest round trip); the release is agreed as one
instant on our clock, LEAD ahead, and each client is given it on its own clock (ours + its
offset). Once all have ended their files are fetched and merged into the one client's files
the runner reads: result.json (sums, the slowest host's end, a row per host), samples.i64 and
records.csv with two columns added: `host` and `start_ns`, the connection's start in ns since
the agreed release on our time line (uncertain by the host's offset uncertainty).
"""
import csv
import io
import json
import time
from dataclasses import replace

import numpy as np

from ipclab.execute.hostcheck import CLOCK, clock_offset
from ipclab.execute.peers import PeerError

LEAD_NS = 1_000_000_000        # from the agreement to the release: every client started by then
LEAD_PER_HOST_NS = 250_000_000  # ... plus the start of one more client over ssh


def split(total, parts):
    """`total` connections over `parts` hosts, as even as can be (the first get one more)."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


class ClientGroup:
    """The clients of one burst, one per host, watched and stopped as one client (the runner's
    Peer interface: exited, returncode, pidfd, wait, stop, describe_exit, stderr_tail)."""
    role = "client"
    rusage = None

    def __init__(self, members):
        self.members = members  # [(place, Peer, offset ns, uncertainty ns)]

    @property
    def peers(self):
        return [peer for _, peer, _, _ in self.members]

    def exited(self):
        return all(peer.exited() for peer in self.peers)

    @property
    def returncode(self):
        codes = [peer.returncode for peer in self.peers]
        if None in codes:
            return None
        return next((code for code in codes if code != 0), 0)

    @property
    def pidfd(self):
        live = [peer for peer in self.peers if not peer.exited()]
        return live[0].pidfd if live else None

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        for peer in self.peers:
            peer.wait(max(deadline - time.monotonic(), 0))
        return self.exited()

    def stop(self, grace=5.0, settle=0.0):
        for peer in self.peers:
            peer.stop(grace, settle)

    def _failing(self):
        return next(((place, peer) for place, peer, _, _ in self.members
                     if peer.returncode not in (0, None)), None)

    def describe_exit(self):
        place, peer = self._failing() or (self.members[0][0], self.members[0][1])
        return f"on {place.name} {peer.describe_exit()}"

    def stderr_tail(self, lines=5):
        place, peer = self._failing() or (self.members[0][0], self.members[0][1])
        tail = peer.stderr_tail(lines)
        return f"{place.name}: {tail}" if tail else ""

    @property
    def stderr_path(self):
        return (self._failing() or (None, self.members[0][1]))[1].stderr_path


def start(places, run, case_dir, start_one):
    """Measures each host's clock, agrees a release and starts a client per host with its share;
    `start_one(place, run, member_dir, extra flags)` starts one Peer. PeerError when a host does
    not answer the clock probes."""
    offsets = []
    for place in places:
        offset, uncertainty = clock_offset(place.plain_command(CLOCK))
        if offset is None:
            raise PeerError(f"client host {place.name} did not answer the clock probes over ssh")
        offsets.append((offset, uncertainty))
    release = time.time_ns() + LEAD_NS + LEAD_PER_HOST_NS * len(places)
    members = []
    shares = split(run.connections, len(places))
    for i, (place, share, (offset, uncertainty)) in enumerate(zip(places, shares, offsets)):
        share_run = replace(run, connections=share, connectors=min(run.connectors, share))
        member_dir = case_dir / f"host{i}"
        member_dir.mkdir(mode=0o700)
        peer = start_one(place, share_run, member_dir, ["--release-at", str(release + offset)])
        members.append((place, peer, offset, uncertainty))
    return ClientGroup(members)


def merge(group, case_dir):
    """Fetches every host's result, samples and records and writes the merged three in
    case_dir (where the runner reads one client's); a host whose files are missing or broken
    makes the merged result an error naming the host."""
    hosts, rows = [], []
    for i, (place, peer, offset, uncertainty) in enumerate(group.members):
        member_dir = case_dir / f"host{i}"
        try:
            result = json.loads(place.case_file(member_dir / "result.json"))
            records = place.case_file(member_dir / "records.csv").decode()
        except (OSError, ValueError) as e:
            return _write_error(case_dir, f"client on {place.name}: no result ({e})")
        if not isinstance(result, dict) or result.get("status") != "ok":
            detail = result.get("error") if isinstance(result, dict) else "not an object"
            return _write_error(case_dir, f"client on {place.name}: {detail}",
                                result.get("error_kind") if isinstance(result, dict) else None)
        mine = _on_our_line(records, result, place.name)
        rows += mine
        hosts.append(_host_row(place.name, result, mine, offset, uncertainty))
    rows.sort(key=lambda r: int(r["start_ns"]))
    _write_merged(case_dir, group.members, hosts, rows)


def _on_our_line(text, result, name):
    """One host's records with `host` and `start_ns` (since the agreed release, our clock)."""
    release, late = int(result.get("release_ns", 0)), int(result.get("release_late_ns", 0))
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        row["host"] = name
        row["start_ns"] = str(int(row["connect_start_ns"]) - release + late)
    return rows


def _host_row(name, result, rows, offset, uncertainty):
    """A host's line in the merged result: its counts, its release, its arrivals' spread."""
    starts = [int(r["start_ns"]) for r in rows] or [0]
    return {"host": name, "connections": result.get("connections"),
            "connections_ok": result.get("connections_ok"),
            "connections_failed": result.get("connections_failed"),
            "burst_ns": result.get("burst_ns"), "conns_per_s": result.get("conns_per_s"),
            "release_late_ns": result.get("release_late_ns"),
            "clock_offset_ns": offset, "clock_uncertainty_ns": uncertainty,
            "first_start_ns": min(starts), "start_spread_ns": max(starts) - min(starts)}


def _write_merged(case_dir, members, hosts, rows):
    first = json.loads(members[0][0].case_file(case_dir / "host0" / "result.json"))
    ok = sum(h["connections_ok"] or 0 for h in hosts)
    errors = {}
    for row in rows:
        if row["error"]:
            errors[row["error"]] = errors.get(row["error"], 0) + 1
    # the agreed release to the last end on our line: a host released late adds its lateness
    burst_ns = max((h["burst_ns"] or 0) + (h["release_late_ns"] or 0) for h in hosts)
    merged = {**first, "connections": len(rows), "connections_ok": ok,
              "connections_failed": len(rows) - ok, "errors": errors,
              "slow_connects": sum(int(r["slow_connect"] or 0) for r in rows),
              "burst_ns": burst_ns, "conns_per_s": ok * 1e9 / burst_ns if burst_ns else 0.0,
              "samples": ok, "iterations": len(rows), "hosts": hosts}
    for key in ("release_ns", "release_late_ns"):
        merged.pop(key, None)  # one host's clock: meaningless for the merged burst
    _write_records(case_dir, rows)
    (case_dir / "result.json").write_text(json.dumps(merged))


def _write_records(case_dir, rows):
    """records.csv, renumbered in the order of the starts, and the samples of those that went
    well (the contract's order: by conn_index)."""
    for index, row in enumerate(rows):
        row["conn_index"] = str(index)
    with open(case_dir / "records.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[*rows[0].keys()] if rows else ["conn_index"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    samples = [int(r["total_ns"]) for r in rows if not r["error"]]
    np.asarray(samples, dtype="<i8").tofile(case_dir / "samples.i64")


def _write_error(case_dir, message, kind=None):
    (case_dir / "result.json").write_text(json.dumps(
        {"status": "error", "error_kind": kind or "io", "error": message}))
