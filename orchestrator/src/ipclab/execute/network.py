"""The link between a case's client and server (`--link`, `[run] link`), made per case.

    loopback        today's behaviour: both peers in ipclab's own network namespace, 127.0.0.1
    veth            client and server each in a private network namespace, joined by a veth pair
                    (10.77.N.1 client, 10.77.N.2 server, /30), segmentation and receive offloads
                    off (ethtool -K: tso, gso, gro) so every packet the counters see is a real one
    veth:RATE       the same, each end's egress shaped by tbf at RATE (e.g. 100mbit, 1gbit)
    veth:RATE:DELAY the same plus netem's delay on each end (a round trip gains 2 × DELAY); where
                    the kernel has no netem this is an error before anything runs

With wire bytes on (wire.py) a loopback case runs in one private namespace instead, its server on
127.0.0.2 so the two directions of loopback traffic can be told apart by address.

Namespaces are named ipclab-<pid>-<n>-<role> and deleted when the case ends (deleting one takes
its veth end, qdiscs and nftables counters with it); a run sweeps those whose ipclab process is
gone. Commands are argv lists, never shell strings."""
import itertools
import os
import re
import shutil
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ipclab.execute import ipcobjects
from ipclab.common.errors import UserError
from ipclab.execute.places import LOCAL, Place
from ipclab.plan.link import LOOPBACK, needs_namespaces, parse

NETNS_DIR = Path("/run/netns")
PREFIX = "ipclab-"
# endpoint kinds whose peers talk IP (a broker: AMQP, RESP or NATS over TCP)
IP_ENDPOINTS = ("inet", "broker")
_NAME = re.compile(r"^ipclab-(\d+)-")
DEVICE = "ipclab0"        # each end's name inside its own namespace (no clash across cases)
TOOLS = {"ip": "iproute2", "tc": "iproute2", "ethtool": "ethtool", "nft": "nftables"}
_serial = itertools.count(1)


class LinkError(Exception):
    """Making or removing a case's namespaces, veth pair or qdiscs failed (the case fails)."""


def check_machine(run, where="--link", hosts=None):
    """Before anything runs: a run that needs namespaces must be root and have the tools; a delay
    needs netem. Each problem is one UserError saying what to do."""
    if hosts and parse(run.link, "run.link") != LOOPBACK:
        raise UserError(f"{where}: a link with the server on another host "
                        f"({hosts['server']}) is not supported: the link between hosts is real")
    if hosts and run.wire_bytes and hosts.get("clients"):
        raise UserError("--wire-bytes with hosts.clients is not supported: a case's bytes are "
                        "counted where its one client runs")
    if hosts and run.wire_bytes and hosts.get("client"):
        return  # counted on the client's host, as root there (a failure fails the case)
    if not needs_namespaces(run):
        return
    link = parse(run.link, "run.link")
    what = f"link {link.text}" + (" with wire bytes" if run.wire_bytes else "")
    if os.geteuid() != 0:
        raise UserError(f"{what} needs root: ipclab makes a network namespace per case (veth "
                        f"pairs, tc qdiscs, nftables counters need CAP_NET_ADMIN); run it as "
                        f"root (sudo ./ipclab run ...) or with --link loopback --no-wire-bytes")
    missing = sorted({pkg for tool, pkg in TOOLS.items() if not shutil.which(tool)})
    if missing:
        raise UserError(f"{what} needs the Debian package(s) {', '.join(missing)}: run "
                        f"scripts/setup-system (or apt-get install -y {' '.join(missing)})")
    if link.delay and not netem_available():
        raise UserError(f"{where}: {link.text!r} asks for a delay of {link.delay}, but this "
                        f"kernel ({os.uname().release}) has no netem qdisc (sch_netem), which "
                        f"ipclab delays with; use veth or veth:{link.rate} without a delay, or a "
                        f"kernel built with CONFIG_NET_SCH_NETEM")


def netem_available():
    """Whether `tc qdisc add ... netem` works here: tried on the loopback of a throwaway
    namespace (the only reliable test: a module may be built in, absent or loadable)."""
    name = f"{PREFIX}{os.getpid()}-{next(_serial)}-probe"
    try:
        _run(["ip", "netns", "add", name])
        probe = subprocess.run(["tc", "-n", name, "qdisc", "add", "dev", "lo", "root", "netem",
                                "delay", "1ms"], capture_output=True)
        return probe.returncode == 0
    except LinkError:
        return False
    finally:
        _delete_netns(name)


@dataclass
class Network:
    """A case's two Places, and the namespace whose counters see the client's traffic."""
    client: Place = LOCAL
    server: Place = LOCAL
    counting_netns: str | None = None   # where wire.py installs its counters; None: not counted
    names: tuple = ()                   # namespaces to delete at the end
    clients: tuple = ()                 # client hosts a burst is spread over (spread.py), or none
    counting_host: Place | None = None  # wire bytes between hosts: where the client runs
    ssh_port: int | None = None         # ... and the server host's ssh port, not counted

    def describe(self):
        if not self.names:
            return "loopback"
        return f"client {self.client.describe()}, server {self.server.describe()}"


@contextmanager
def case_network(run, mech, remote=None):
    """The case's Network for `mech`, made before the server starts and removed after the case
    (also on Ctrl-C or a failure: the namespaces go in `finally`). With `remote` (places.Remote)
    the server runs on the other host and the client here or on hosts.client, or a burst's or a
    load's clients on the client hosts."""
    link = parse(run.link, "run.link")
    ip = mech.endpoint in IP_ENDPOINTS
    if remote is not None and mech.endpoint == "inet":
        counted = run.wire_bytes and not remote.client_places
        yield Network(client=remote.client_place, server=remote.server_place,
                      clients=remote.client_places,
                      counting_host=remote.client_place if counted else None,
                      ssh_port=remote.server_ssh_port if counted else None)
        return
    if not ip or (link == LOOPBACK and not run.wire_bytes):
        yield Network()
        return
    serial = next(_serial)
    base = f"{PREFIX}{os.getpid()}-{serial}"
    net = Network()
    try:
        # A broker's responder talks to the broker too: one loopback would count its traffic
        # with the client's. On a veth pair the broker and the responder share the server's
        # namespace and only the client's traffic crosses (and is counted in) the client's.
        if link == LOOPBACK and mech.endpoint != "broker":
            net = _private_loopback(base)
        else:
            net = _veth_pair(base, link, serial)
        yield net
    finally:
        for name in net.names or _names_of(base):
            _delete_netns(name)


def _private_loopback(base):
    name = f"{base}-lo"
    _make_netns(name)
    _offloads_off(name, "lo")
    # 127.0.0.1 talks to 127.0.0.2 (both on lo): the address tells the two directions apart.
    return Network(client=Place("127.0.0.1", name), server=Place("127.0.0.2", name),
                   counting_netns=name, names=(name,))


def _veth_pair(base, link, serial):
    client_ns, server_ns = f"{base}-c", f"{base}-s"
    net = Network(names=(client_ns, server_ns))
    subnet = f"10.77.{serial % 254 + 1}"
    for name in net.names:
        _make_netns(name)
    # Created straight inside the two namespaces: the names never meet in ours.
    _run(["ip", "link", "add", DEVICE, "netns", client_ns, "type", "veth",
          "peer", "name", DEVICE, "netns", server_ns])
    for name, host in ((client_ns, 1), (server_ns, 2)):
        _run(["ip", "-n", name, "addr", "add", f"{subnet}.{host}/30", "dev", DEVICE])
        _run(["ip", "-n", name, "link", "set", DEVICE, "up"])
        _offloads_off(name, DEVICE)
        _shape(name, link)
    net.client, net.server = Place(f"{subnet}.1", client_ns), Place(f"{subnet}.2", server_ns)
    net.counting_netns = client_ns
    return net


def _make_netns(name):
    _run(["ip", "netns", "add", name])
    _run(["ip", "-n", name, "link", "set", "lo", "up"])


def _offloads_off(netns, device):
    """Without this the kernel hands the counters 64 KiB super-packets (GSO/TSO) or merges
    received ones (GRO): bytes would still be right, packets not, and a merged packet has one
    set of headers where the wire had many."""
    _run(["ip", "netns", "exec", netns, "ethtool", "-K", device, "tso", "off", "gso", "off",
          "gro", "off"])


def tbf_parameters(rate_bps):
    """(burst, limit) in bytes for tbf at `rate_bps`: burst is 1 ms at the rate but at least two
    full Ethernet frames (tbf drops a packet bigger than its burst); limit, the queue, is 100 ms
    at the rate but at least 64 KiB, so TCP is slowed by the rate, not by drops."""
    per_ms = rate_bps // 8000
    return max(per_ms, 2 * 1514), max(100 * per_ms, 65536)


def _shape(netns, link):
    if link.delay:
        # netem both delays and (with rate) shapes; checked available before the run.
        argv = ["tc", "-n", netns, "qdisc", "add", "dev", DEVICE, "root", "netem",
                "delay", link.delay]
        if link.rate:
            argv += ["rate", link.rate]
        _run(argv)
    elif link.rate:
        burst, limit = tbf_parameters(link.rate_bps)
        _run(["tc", "-n", netns, "qdisc", "add", "dev", DEVICE, "root", "tbf", "rate", link.rate,
              "burst", str(burst), "limit", str(limit)])


def _names_of(base):
    return [p.name for p in NETNS_DIR.glob(f"{base}-*")] if NETNS_DIR.is_dir() else []


def _delete_netns(name):
    if (NETNS_DIR / name).exists():
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


def sweep():
    """Deletes namespaces named by ipclab runs whose process is gone; returns how many."""
    if os.geteuid() != 0:
        return 0
    names = orphans()
    for name in names:
        _delete_netns(name)
    return len(names)


def orphans():
    """The names of the namespaces of ipclab runs whose process is gone."""
    if not NETNS_DIR.is_dir():
        return []
    return sorted(entry.name for entry in NETNS_DIR.iterdir()
                  if (match := _NAME.match(entry.name))
                  and not ipcobjects.pid_alive(int(match.group(1))))


def _run(argv):
    try:
        done = subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:
        raise LinkError(f"{argv[0]}: {e.strerror}") from None
    if done.returncode != 0:
        detail = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        raise LinkError(f"`{' '.join(argv)}` failed: {detail[0]}")
    return done.stdout


# --- TIME_WAIT ----------------------------------------------------------------------------------

TIME_WAIT = "06"  # the kernel's TCP_TIME_WAIT in /proc/net/tcp's `st` column


TW_BUCKETS = "/proc/sys/net/ipv4/tcp_max_tw_buckets"


def time_wait_table_full(tables, read_text):
    """A note when the kernel's TIME_WAIT table is full, else None; `tables` are the texts of
    /proc/net/tcp and tcp6 already read for the case's count. Past net.ipv4.tcp_max_tw_buckets
    the kernel closes sockets without TIME_WAIT (a burst of short connections after another can
    fill it here: 131072), so a case's time_wait is then a lower bound and its connections
    skipped part of what TIME_WAIT costs."""
    try:
        limit = int(read_text(TW_BUCKETS))
    except (OSError, ValueError):
        return None
    total = sum(line.split()[3:4] == [TIME_WAIT] for t in tables for line in t.splitlines()[1:])
    if total < limit:
        return None
    return (f"the kernel's TIME_WAIT table was full ({total} sockets, net.ipv4.tcp_max_tw_buckets "
            f"= {limit}): it closed sockets without TIME_WAIT, so time_wait is a lower bound; "
            f"wait 60 s after a run of short connections, or raise the limit")


def count_time_wait(table_text, server_port):
    """How many sockets of a /proc/net/tcp (or tcp6) table are in TIME_WAIT on a connection to
    or from `server_port`: the side that closes first keeps TIME_WAIT (PROTOCOL.md 11.2's tcp
    client does; an HTTP server answering `Connection: close` may), so both ends are counted."""
    count = 0
    for line in table_text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 4 or fields[3] != TIME_WAIT:
            continue
        try:
            ports = {int(end.rsplit(":", 1)[1], 16) for end in fields[1:3]}
        except (ValueError, IndexError):
            continue
        count += server_port in ports
    return count
