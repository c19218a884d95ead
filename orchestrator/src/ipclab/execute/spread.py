"""A case's clients spread over hosts ([hosts] clients; `--release-at`, PROTOCOL.md 11.4.4 and
11.5.3): a burst's connections or a load's clients and rate split over one client per client
host, released at one agreed instant, their files merged into one client's.

The pattern's module (burst.py, load.py) says how a case is shared out (`shares`) and how the
hosts' files make one client's (`merge_hosts`); here is what is common. Before the clients
start, each host's clock offset to ours is measured NTP-style (hostcheck.clock_offset: the probe
with the smallest round trip); the release is agreed as one instant on our clock, LEAD ahead,
and each client is given it on its own clock (ours + its offset). Once all have ended their
result, records and samples are fetched; a host whose files are missing or whose result is not
ok makes the case's result an error naming the host.
"""
import json
import time
from dataclasses import dataclass

from ipclab.execute.hostcheck import CLOCK, clock_offset
from ipclab.execute.peers import PeerError

LEAD_NS = 1_000_000_000        # from the agreement to the release: every client started by then
LEAD_PER_HOST_NS = 250_000_000  # ... plus the start of one more client over ssh


class ClientGroup:
    """The clients of one case, one per host, watched and stopped as one client (the runner's
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


@dataclass
class HostFiles:
    """What one client host's client wrote, fetched, and where its clock stood."""
    name: str
    result: dict
    records: str
    samples: bytes
    offset_ns: int
    uncertainty_ns: int

    def row(self, **figures):
        """Its line among the result's `hosts` (analyse/hosts.py summarises them)."""
        return {"host": self.name, "release_late_ns": self.result.get("release_late_ns"),
                "clock_offset_ns": self.offset_ns, "clock_uncertainty_ns": self.uncertainty_ns,
                **figures}


def start(places, case, run, case_dir, start_one, part):
    """Measures each host's clock, agrees a release and starts a client per host with its share
    (`part.shares`); `start_one(place, case, run, member_dir, extra flags)` starts one Peer.
    PeerError when a host does not answer the clock probes."""
    offsets = []
    for place in places:
        offset, uncertainty = clock_offset(place.plain_command(CLOCK))
        if offset is None:
            raise PeerError(f"client host {place.name} did not answer the clock probes over ssh")
        offsets.append((offset, uncertainty))
    release = time.time_ns() + LEAD_NS + LEAD_PER_HOST_NS * len(places)
    members = []
    shares = part.shares(case, run, len(places))
    for i, (place, (share_case, share_run), (offset, uncertainty)) in enumerate(
            zip(places, shares, offsets)):
        member_dir = case_dir / f"host{i}"
        member_dir.mkdir(mode=0o700)
        peer = start_one(place, share_case, share_run, member_dir,
                         ["--release-at", str(release + offset)])
        members.append((place, peer, offset, uncertainty))
    return ClientGroup(members)


def merge(group, case_dir, part):
    """Fetches every host's result, records and samples, and has `part.merge_hosts` write the
    merged three in case_dir (where the runner reads one client's)."""
    hosts = []
    for i, (place, peer, offset, uncertainty) in enumerate(group.members):
        member_dir = case_dir / f"host{i}"
        try:
            result = json.loads(place.case_file(member_dir / "result.json"))
            if not isinstance(result, dict) or result.get("status") != "ok":
                detail = result.get("error") if isinstance(result, dict) else "not an object"
                kind = result.get("error_kind") if isinstance(result, dict) else None
                return _write_error(case_dir, f"client on {place.name}: {detail}", kind)
            records = place.case_file(member_dir / "records.csv").decode()
            samples = place.case_file(member_dir / "samples.i64")
        except (OSError, ValueError) as e:
            return _write_error(case_dir, f"client on {place.name}: no result ({e})")
        hosts.append(HostFiles(place.name, result, records, samples, offset, uncertainty))
    part.merge_hosts(hosts, case_dir)


def _write_error(case_dir, message, kind=None):
    (case_dir / "result.json").write_text(json.dumps(
        {"status": "error", "error_kind": kind or "io", "error": message}))


def places_of(client, net):
    """Where a case's clients ran: each host of a ClientGroup, else the network's client."""
    return [place for place, _, _, _ in client.members] if isinstance(client, ClientGroup) \
        else [net.client]


CLIENT_FILES = ("result.json", "samples.i64", "warmup.i64", "records.csv")


def fetch_back(place, case_dir):
    """The files a case's one client on another host (hosts.client) wrote, brought into case_dir
    where the runner reads them; one it did not write stays missing (its absence is judged
    there, as for a client here)."""
    for name in CLIENT_FILES:
        try:
            (case_dir / name).write_bytes(place.case_file(case_dir / name))
        except OSError:
            continue
