"""Runs one case: prepare the endpoint, start the server, wait for READY, start the client,
watch both, stop both, judge what happened. Statistics are not done here (see analyse/case_stats.py)."""
import json
import shutil
import time
from dataclasses import dataclass, field

import numpy as np

from ipclab.execute import endpoints
from ipclab.execute import explain
from ipclab.execute import ipcobjects
from ipclab.execute import network
from ipclab.execute import noise
from ipclab.execute import spread
from ipclab.plan import placement
from ipclab.plan import settings as setting_table
from ipclab.execute import wire
from ipclab.execute.budget import case_timeout, effective_warmup, expected_samples  # noqa: F401 (tests import them here)
from ipclab.execute.places import LOCAL, server_endpoint
from ipclab.execute.parts import part_of
from ipclab.execute.peers import UNSUPPORTED, Peer, PeerError, Unsupported, wait_any

SERVER_GRACE = 5.0  # seconds a server gets to exit after SIGTERM before SIGKILL
EXPLAIN_SETTLE = 5.0  # seconds a server under perf stat gets to end by its lifeline (explain.py)


@dataclass
class Outcome:
    case: object
    status: str                 # ok, failed, not-applicable, unavailable, interrupted
    reason: str | None = None
    samples: np.ndarray | None = None
    client: dict | None = None  # the client's result file (PROTOCOL.md section 7)
    server: dict | None = None  # the server's READY object
    cpus: dict = field(default_factory=dict)
    seconds: float = 0.0
    notes: list = field(default_factory=list)
    logs: dict = field(default_factory=dict)  # role -> stderr text, kept for failed cases
    round: int = 1
    warmup_samples: np.ndarray | None = None  # the warm-up round trips' times (PROTOCOL.md 7)
    noise: dict | None = None   # the machine's load while the round ran (noise.py)
    time_wait: int | None = None  # short over TCP: sockets in TIME_WAIT at the end
    part: dict | None = None    # a pattern's own figures and files (burst.py: counters, backlog,
    #                             per-connection files; load.py: per-request records)
    wire: dict | None = None        # --wire-bytes: per call figures (wire.py)
    wire_total: dict | None = None  # --wire-bytes: what the counters moved during the pair
    explain: dict | None = None     # --explain: per call, per side (explain.py)
    usage: dict | None = None       # role -> the kernel's resource usage of the peer (explain.usage)
    # client_library, server_library: the library each side's build carries the mechanism over
    # (its capabilities' `library`: this machine's build, also for a peer run on another host)
    libraries: dict = field(default_factory=dict)


class Runner:
    def __init__(self, scenario, catalog, workspace, remote=None):
        self.scenario, self.catalog, self.workspace = scenario, catalog, workspace
        self.remote = remote  # places.Remote: the server's host over ssh ([hosts]), else None
        self.live = []  # peers running now, for whoever wants to watch (tests, Ctrl-C)

    def run(self, case, round_index=1):
        """One round of `case`: a fresh server and client, with its own warm-up."""
        if case.skip_status:
            return Outcome(case, case.skip_status, case.skip_reason, round=round_index)
        part = part_of(case)
        if part.searches(case):
            # A rate sweep (load.py): steps of fresh pairs, each a case at one rate.
            return part.search(lambda step: self.run(step, round_index), case, self.scenario.run)
        started = time.monotonic()
        case_dir = self.workspace.case_dir(case)
        before = noise.take()
        try:
            outcome = self._run_linked(case, case_dir)
        finally:
            shutil.rmtree(case_dir, ignore_errors=True)
        after = noise.take()
        outcome.round = round_index
        outcome.seconds = time.monotonic() - started
        pinned = sorted(set(outcome.cpus.get("client_cpus") or ()) |
                        set(outcome.cpus.get("server_cpus") or ()))
        if not pinned or outcome.cpus.get("client_cpus") is None:
            pinned = placement.available_cpus()
        outcome.noise = noise.summarise(before, after, pinned, noise.ticks_per_second())
        outcome.libraries = self._libraries(case)
        return outcome

    def _libraries(self, case):
        """Which library (and version) each side ran the mechanism with, where it has one."""
        languages, mech = self.catalog.languages, case.mechanism
        sides = {"client": case.client, "server": None if self.catalog.mechanism(mech).inprocess
                 else case.server}
        return {f"{side}_library": languages[name].libraries.get(mech) if name else None
                for side, name in sides.items()}

    def _run_linked(self, case, case_dir):
        """The case inside its link's namespaces (network.py), counted when wire bytes are on: the
        measured pair, then a calibration pair with one call (wire.py says why)."""
        try:
            mech = self.catalog.mechanism(case.mechanism)
            with network.case_network(self.scenario.run, mech, self.remote) as net:
                counters = wire.Counters(net)
                try:
                    return self._counted(case, case_dir, mech, net, counters)
                finally:
                    counters.close()
        except network.LinkError as e:
            return Outcome(case, "failed", f"link {self.scenario.run.link}: {e}")

    def _counted(self, case, case_dir, mech, net, counters):
        run = self.scenario.run
        outcome = counters.around(lambda: self._run_in(case, case_dir, run, net))
        explaining = self._explains(case)
        if (counters.active or explaining) and outcome.status == "ok":
            one = explain.calibration_run(case, run)
            calibration = counters.around(lambda: self._pair(
                case, case_dir / "calibration", one, net, counted=False))
            if counters.active:
                wire.attach(outcome, calibration, case, run)
            if explaining:
                explain.count(case, case_dir, (outcome, calibration), (run, one),
                              lambda d, r: self._pair(case, case_dir / d, r, net), mech.copies)
        return outcome

    def _explains(self, case):
        """Whether this case is counted (--explain, where it applies: explain.py)."""
        return self.scenario.run.explain and explain.applies(case) and self.remote is None

    def _pair(self, case, case_dir, run, net, counted=True):
        """An extra pair in a directory of its own: counted (--explain) or not (a calibration)."""
        case_dir.mkdir(mode=0o700)
        return self._run_in(case, case_dir, run, net, counted)

    def _run_in(self, case, case_dir, run, net=network.Network(), counted=False):
        """One pair of peers for `case` with the run settings `run` (the scenario's, or the wire
        calibration's one call); `counted`: each peer under perf stat where perf can count."""
        cpus = placement.resolve(case.placement)
        mech = self.catalog.mechanism(case.mechanism)
        endpoint = endpoints.prepare(mech, case_dir, self.scenario.named_server(mech))
        if mech.endpoint == "inet":
            endpoint.server_arg = server_endpoint(net.server)  # where the link puts the server
        server = client = ready = None
        part = part_of(case)
        before = part.before(net.server)
        try:
            endpoint.open(net.server)
            if mech.inprocess:
                # No server process: the client calls a function (PROTOCOL.md 4.4).
                cpus = placement.Cpus(cpus.client, None)
                target = ["--endpoint", "inproc", *self._library_flags(case, mech)]
            else:
                server = self._start(case, "server", cpus.server, case_dir, endpoint.server_fds,
                                     ["--endpoint", endpoint.server_arg,
                                      *part.server_flags(case, run, case_dir)],
                                     net.server, counted)
                endpoint.release(endpoint.server_fds)
                ready = server.wait_ready(run.ready_timeout)
                target = ["--endpoint", endpoint.for_client(ready["endpoint"])]
            client = self._start_client(case, cpus, case_dir, endpoint, target, run, net, counted)
            server_died = self._watch(client, server, ready["endpoint"] if ready else "",
                                      case_timeout(case, run), run.io_timeout)
            if isinstance(client, spread.ClientGroup):
                spread.merge(client, case_dir, part)
            elif not net.client.own_files:  # hosts.client: its files come back over ssh
                spread.fetch_back(net.client, case_dir)
            if server:
                part.finish(server, case_dir)
            time_wait, time_wait_note = _time_wait(case, mech, ready, spread.places_of(client, net))
            self._stop(client, server)
            outcome = _judge(case, client, server, ready, server_died, case_dir, run)
            outcome.time_wait = time_wait
            if time_wait_note:
                outcome.notes.append(time_wait_note)
            outcome.part = part.collect(case_dir, before, run, time_wait, net.server)
            if part.SERVER_ENDS_ITSELF and server_died and server.returncode != 0 \
                    and outcome.status == "ok":
                outcome.status, outcome.reason = "failed", server_died
        except Unsupported as e:
            outcome = Outcome(case, "not-applicable", str(e))
        except PeerError as e:
            outcome = Outcome(case, "failed", str(e))
        finally:
            self._stop(client, server)
            endpoint.close()
        return _after(outcome, endpoint, ready, cpus, (client, server))

    def _start_client(self, case, cpus, case_dir, endpoint, target, run, net, counted):
        """The case's client here (or where the link puts it), or its clients spread over the
        client hosts (spread.py: unpinned, each writing its files there)."""
        part = part_of(case)
        if net.clients and case.pattern.spreads:
            def start_one(place, share_case, share_run, folder, extra):
                return self._start(share_case, "client", None, folder, (),
                                   [*target, *_drive_flags(share_case, share_run, folder), *extra],
                                   place)
            return spread.start(net.clients, case, run, case_dir, start_one, part)
        client = self._start(case, "client", cpus.client, case_dir, endpoint.client_fds,
                             [*target, *_drive_flags(case, run, case_dir)], net.client, counted)
        endpoint.release(endpoint.client_fds)
        return client

    def _start(self, case, role, cpus, case_dir, fds, flags, place=LOCAL, counted=False):
        lang = self.catalog.languages[case.client if role == "client" else case.server]
        verb = "drive" if role == "client" else "serve"
        argv = [*lang.argv(self.catalog.root), verb, "--mechanism", case.mechanism, *flags,
                *setting_table.peer_flags(case.settings, verb, lang, case.mechanism),
                "--seed", str(self.scenario.run.seed)]
        if counted and explain.unavailable() is None:
            argv = explain.wrap(argv, case_dir / f"{role}.perf")
        client = role == "client"
        peer = Peer(role, place.command(placement.pin(argv, cpus), client=client), case_dir, fds,
                    lifeline=client and place.client_lifeline).start()
        self.live.append(peer)
        return peer

    def _library_flags(self, case, mech):
        if mech.inprocess != "native":
            return []
        return ["--native-library", str(self.catalog.root / self.catalog.languages[case.server].library)]

    def _watch(self, client, server, server_endpoint, timeout, io_timeout):
        """Waits for the client; returns how the server ended if it died first, else None.

        A client whose server died gets io_timeout + 5 s to notice (udp cannot see a dead peer
        until its receive times out); removing the dead server's kernel objects wakes a client
        blocked on them. A case over case_timeout is ended."""
        deadline = time.monotonic() + timeout
        server_died = None
        while not client.exited():
            left = deadline - time.monotonic()
            if left <= 0:
                raise PeerError(f"timeout: the case took longer than {timeout:g} s "
                                f"(case_timeout, with its allowance for the case's messages); "
                                f"client and server were stopped")
            wait_any([client, server] if server_died is None and server else [client], left)
            if server and server_died is None and server.exited() and not client.exited():
                server_died = f"server {server.describe_exit()} during the case"
                ipcobjects.remove_named(server_endpoint)
                deadline = min(deadline, time.monotonic() + io_timeout + 5)
        if server and server_died is None and client.returncode != 0:
            # A client that failed because its server died may see the broken transport a
            # moment before the server's death is reported: give that report a second to come.
            if server.wait(1.0) and server.returncode != 0:
                server_died = f"server {server.describe_exit()} during the case"
        return server_died

    def _stop(self, client, server):
        settle = EXPLAIN_SETTLE if self.scenario.run.explain and explain.unavailable() is None \
            else 0.0
        for peer in (client, server):
            if peer is not None:
                peer.stop(SERVER_GRACE, settle)
                for one in getattr(peer, "peers", [peer]):  # a ClientGroup's, one per host
                    if one in self.live:
                        self.live.remove(one)


def _drive_flags(case, run, case_dir):
    """The client's flags for the case's pattern (PROTOCOL.md section 1's usage lines)."""
    return part_of(case).drive_flags(case, run, case_dir)


def _time_wait(case, mech, ready, places=(LOCAL,)):
    """For short and burst over a TCP mechanism: (the sockets in TIME_WAIT on connections to this
    server's port (/proc/net/tcp and tcp6, state 06, either end) where the clients ran, counted
    when they have finished; a note when a kernel's TIME_WAIT table was full, else None); else
    (None, None)."""
    if not case.pattern.counts_time_wait or mech.endpoint != "inet" or not ready:
        return None, None
    port = str(ready.get("endpoint", "")).rsplit(":", 1)[-1]
    if not port.isdigit():
        return None, None
    count, notes = 0, []
    for place in places:
        tables = []
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                tables.append(place.read_text(table))
            except OSError:
                continue
        count += sum(network.count_time_wait(t, int(port)) for t in tables)
        notes.append(network.time_wait_table_full(tables, place.read_text))
    return count, next((note for note in notes if note), None)


def _judge(case, client, server, ready, server_died, case_dir, run):
    result = _read_json(case_dir / "result.json")
    notes = []
    if server and server_died is None and server.returncode not in (0, None):
        notes.append(f"server did not shut down cleanly: it {server.describe_exit()}")
    if (case_dir / "client.stdout").exists() and (case_dir / "client.stdout").stat().st_size:
        notes.append("client wrote to stdout, which the peer contract forbids")
    if client.returncode == 0 and result and result.get("status") == "ok":
        if problem := result_problem(result):
            return Outcome(case, "failed", f"client's result file breaks the contract "
                           f"(PROTOCOL.md 7): {problem}", server=ready, notes=notes)
        samples = _read_samples(case_dir / "samples.i64")
        # a sample per round trip, stream window, connection (11.4) or request (11.5) that went well
        iterations = part_of(case).ok_samples(case, run, result)
        if samples.size != iterations:
            return Outcome(case, "failed", f"client reported ok but wrote {samples.size} samples, "
                           f"expected {iterations}", client=result, server=ready, notes=notes)
        warmup = _read_samples(case_dir / "warmup.i64") if (case_dir / "warmup.i64").exists() else None
        return Outcome(case, "ok", None, samples, result, ready, notes=notes, warmup_samples=warmup)
    if client.returncode == UNSUPPORTED and not server_died:  # a setting it cannot honour
        reason = (result or {}).get("error") or client.stderr_tail(1) or "exit 7"
        return Outcome(case, "not-applicable", f"the client peer does not support this: {reason}",
                       client=result, server=ready, notes=notes)
    return Outcome(case, "failed", _failure_reason(client, result, server_died),
                   client=result, server=ready, notes=notes)


# The result file's fields the orchestrator reads (PROTOCOL.md 7, 11.1, 11.4): counts, strings
# and a stream's CPU figures; a field of another type fails the case instead of an analysis.
RESULT_COUNTS = ("samples", "warmup", "warmup_samples", "messages", "message_size", "windows",
                 "stream_ns", "lost", "connections_ok", "connections_failed")
RESULT_STRINGS = ("runtime", "language", "error", "error_kind")
CPU_FIELDS = ("user_ns", "sys_ns", "voluntary", "involuntary")


def result_problem(result):
    """Why an ok result file breaks the contract in a field ipclab reads, or None."""
    def count(v):
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0
    for key in RESULT_COUNTS:
        if result.get(key) is not None and not count(result[key]):
            return f"{key} is {str(result[key])[:40]!r}, not a count"
    for key in RESULT_STRINGS:
        if result.get(key) is not None and not isinstance(result[key], str):
            return f"{key} is not a string"
    for side in ("client_cpu", "server_cpu"):
        figures = result.get(side)
        if figures is not None and not (isinstance(figures, dict)
                                        and all(count(figures.get(f)) for f in CPU_FIELDS)):
            return f"{side} is not four counts ({', '.join(CPU_FIELDS)})"
    return None


def _failure_reason(client, result, server_died):
    parts = [server_died] if server_died else []
    if result and result.get("status") == "error":
        parts.append(f"client: {result.get('error_kind')}: {result.get('error')}")
    else:
        tail = client.stderr_tail(3)
        parts.append(f"client {client.describe_exit()}" + (f": {tail}" if tail else "")
                     + ("" if result else " (no result file)"))
    return "; ".join(parts)


def _read_json(path):
    try:
        with open(path) as f:
            data = json.load(f)
        return data if isinstance(data, dict) else None
    except (OSError, ValueError, RecursionError):  # a file nested too deep for the parser
        return None


def _read_samples(path):
    try:
        return np.fromfile(path, dtype="<i8")
    except (OSError, ValueError):
        return np.empty(0, dtype="<i8")


def _after(outcome, endpoint, ready, cpus, peers):
    """What a pair leaves its outcome once it has stopped: a dead broker's part in a failure, the
    server's IPC objects removed, the CPUs, each peer's resource usage and, on failure, its
    stderr."""
    if endpoint.broker_died and outcome.status == "failed":
        outcome.reason = f"{endpoint.broker_died}: {outcome.reason}"
    left = ipcobjects.remove_named(ready["endpoint"]) if ready else 0
    if left and outcome.status == "ok":
        outcome.notes.append(f"the server left {left} IPC object(s) behind; removed")
    outcome.cpus = cpus.as_dict()
    outcome.usage = {p.role: explain.usage(p.rusage) for p in peers if p and p.rusage}
    if outcome.status == "failed":
        outcome.logs = {p.role: p.stderr_path.read_text(errors="replace")
                        for p in peers if p and p.stderr_path.exists()}
    return outcome
