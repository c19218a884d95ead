"""`ipclab hosts check`: every host a scenario uses (this one, the server's and the clients' over
OpenSSH, as a run reaches them) described in one row, and what to do where something is missing.

A row: reachable in batch mode, kernel, CPUs, checkout revision, which languages' peers are
built there, the clock's offset to this host with its uncertainty, somaxconn and the ephemeral
port range. Problems are lines naming the host; the command exits 1 when there is one.

Clock offset, NTP-style: over one ssh channel a remote shell answers each line it reads with
its clock (`date +%s%N`); of PROBES exchanges the one with the smallest round trip gives
offset = remote − (sent + received) / 2, uncertain by half that round trip."""
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from ipclab.common.errors import UserError
from ipclab.execute.ssh import Master, common_options
from ipclab.plan.hosts import every_host

PROBES = 8
FACTS = {"kernel": ["uname", "-rm"], "cpus": ["nproc"],
         "somaxconn": ["cat", "/proc/sys/net/core/somaxconn"],
         "ports": ["cat", "/proc/sys/net/ipv4/ip_local_port_range"]}


@dataclass
class HostRow:
    host: str
    path: str
    reachable: bool = True
    facts: dict = field(default_factory=dict)   # FACTS' names → text, None where unreadable
    revision: str | None = None
    built: list = field(default_factory=list)    # languages whose peer is built there
    missing: list = field(default_factory=list)  # ... and whose is not
    offset_ns: int | None = None                 # its clock minus ours
    uncertainty_ns: int | None = None
    problems: list = field(default_factory=list)  # what to do, one line each


def check(hosts, catalog, private_dir, backlog=None):
    """The rows of this host, of the scenario's server host and of its client hosts ([hosts],
    plan/hosts.py)."""
    here = _describe(HostRow("local", str(catalog.root), offset_ns=0, uncertainty_ns=0),
                     _local_run, catalog)
    rows = [here]
    if hosts:
        common = common_options(hosts)
        for i, (host, role) in enumerate(every_host(hosts)):
            master = Master(host, common, Path(private_dir) / f"ssh-check-{i}.log", role)
            rows.append(_remote_row(master, hosts, catalog))
    for row in rows:
        _judge(row, here.revision, backlog)
    return rows


def _local_run(argv):
    return subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)


def _remote_row(master, hosts, catalog):
    row = HostRow(master.name, master.host["path"])
    try:
        master.start(hosts["source"])
        _describe(row, master.run, catalog)
        row.offset_ns, row.uncertainty_ns = clock_offset(master.command(CLOCK))
    except UserError as e:
        row.reachable = False
        row.problems.append(str(e).split(f"{master.role}: ", 1)[-1])
    finally:
        master.end()
    return row


def _describe(row, run, catalog):
    """Fills the row's facts with `run(argv)` (here, or over the host's ssh master)."""
    for name, argv in FACTS.items():
        done = run(argv)
        row.facts[name] = " ".join(done.stdout.split()) if done.returncode == 0 else None
    done = run(["git", "-C", row.path, "rev-parse", "HEAD"])
    row.revision = done.stdout.strip() if done.returncode == 0 else None
    for name, lang in sorted(catalog.languages.items()):
        there = not lang.artifact or run(["test", "-e", f"{row.path}/{lang.artifact}"]).returncode == 0
        (row.built if there else row.missing).append(name)
    return row


def _judge(row, local_revision, backlog):
    """What to do about the row, one line each (nothing: the host is ready)."""
    if not row.reachable:
        return
    if row.revision is None:
        row.problems.append(f"no ipclab checkout at {row.path}: clone it there and run "
                            f"`make build`")
        return
    if row.revision != local_revision:
        row.problems.append(f"its checkout is at {row.revision[:12]}, this one at "
                            f"{(local_revision or 'unknown')[:12]}: bring it to the same "
                            f"revision and build it")
    if row.missing:
        row.problems.append(f"peers not built: {', '.join(row.missing)}: run `make build` in "
                            f"{row.path}")
    cap = row.facts.get("somaxconn")
    if backlog and cap and cap.isdigit() and int(cap) < backlog:
        row.problems.append(f"somaxconn {cap} caps the backlog of {backlog} the scenario "
                            f"asks: sysctl -w net.core.somaxconn={backlog}")


# A shell that answers each line with its clock in ns: the probes' other end.
CLOCK = ["sh", "-c", "while read -r line; do date +%s%N; done"]


def clock_offset(argv, probes=PROBES):
    """(offset ns, uncertainty ns) of the clock of the process `argv` starts (its answers to
    lines on stdin, see CLOCK) against ours; (None, None) when it does not answer."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
    try:
        exchanges = [_probe(proc) for _ in range(probes + 1)]
    except (OSError, ValueError):
        return None, None
    finally:
        try:
            proc.stdin.close()   # flushes: the pipe is broken when the process has gone
        except OSError:
            pass
        proc.kill()
        proc.wait()
    round_trip, offset = min(exchanges[1:])  # the first one also started the shell
    return offset, round_trip // 2


def _probe(proc):
    """One exchange: (round trip, offset) in ns; ValueError when the answer is not a clock."""
    sent = time.time_ns()
    proc.stdin.write("\n")
    proc.stdin.flush()
    answer = proc.stdout.readline()
    received = time.time_ns()
    return received - sent, int(answer) - (sent + received) // 2
