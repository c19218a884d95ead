"""The link a run asks for between client and server (`--link`, `[run] link`), as a plan: its
spelling parsed and checked, and which cases can cross it. execute/network.py makes it, per case.

    loopback        both peers in ipclab's own network namespace, 127.0.0.1
    veth            client and server each in a private network namespace, joined by a veth pair
    veth:RATE       the same, each end's egress shaped by tbf at RATE (e.g. 100mbit, 1gbit)
    veth:RATE:DELAY the same plus netem's delay on each end (where the kernel has netem)
"""
import re
from dataclasses import dataclass, replace

from ipclab.common.errors import UserError

KINDS = ("loopback", "veth")
_RATE = re.compile(r"^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit|tbit)$", re.IGNORECASE)
_DELAY = re.compile(r"^(\d+(?:\.\d+)?)(us|ms|s)$", re.IGNORECASE)
_RATE_SCALE = {"bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9, "tbit": 10**12}


@dataclass(frozen=True)
class Link:
    kind: str = "loopback"
    rate: str | None = None       # tc's spelling, e.g. "100mbit"
    rate_bps: int | None = None   # the same in bits per second
    delay: str | None = None      # e.g. "5ms"

    @property
    def text(self):
        return ":".join(p for p in (self.kind, self.rate, self.delay) if p)


LOOPBACK = Link()


def parse(value, where):
    """A Link from "loopback", "veth", "veth:RATE" or "veth:RATE:DELAY"; a bad value is one
    UserError naming `where` and the value."""
    if value is None:
        return LOOPBACK
    text = str(value).strip().lower()
    kind, *rest = text.split(":")
    if kind not in KINDS or (kind == "loopback" and rest) or len(rest) > 2:
        raise UserError(f"{where}: unknown link {value!r} (known: loopback, veth, veth:RATE such "
                        f"as veth:100mbit, veth:RATE:DELAY)")
    rate = rest[0] if rest else None
    match = _RATE.match(rate) if rate else None
    if rate and not match:
        raise UserError(f"{where}: {rate!r} in {value!r} is not a rate (like 100mbit or 1gbit)")
    delay = rest[1] if len(rest) > 1 else None
    if delay and not _DELAY.match(delay):
        raise UserError(f"{where}: {delay!r} in {value!r} is not a delay (like 5ms or 200us)")
    bps = int(float(match.group(1)) * _RATE_SCALE[match.group(2).lower()]) if match else None
    if bps is not None and bps < 8000:
        raise UserError(f"{where}: {rate!r} in {value!r} is below 8kbit (1 KB/s)")
    return Link(kind, rate, bps, delay)


WARMUP_SECONDS = 2  # of a shaped link's time: the most a case's warm-up may take of it


def warmup_bytes(run):
    """The most a warm-up may move over the run's link: 2 s at a shaped link's rate (1000 warm-up
    calls of 1 MiB would take 90 s at 100mbit); unbounded otherwise."""
    rate = parse(run.link, "run.link").rate_bps
    return rate // 8 * WARMUP_SECONDS if rate else 1 << 62


def needs_namespaces(run):
    return parse(run.link, "run.link") != LOOPBACK or bool(run.wire_bytes)


def why_not(mech, run, hosts=None):
    """Why `mech` cannot run over the run's link or between hosts (only IP mechanisms cross
    one), else None."""
    link = parse(run.link, "run.link")
    if mech.endpoint == "inet" or (link == LOOPBACK and not hosts):
        return None
    if mech.endpoint == "broker" and not hosts:
        return None  # the broker starts beside the responder, in the server's namespace
    if hosts:
        return (f"{mech.name} does not use IP, so its server cannot run on another host "
                f"({hosts['server']})")
    return (f"{mech.name} does not use IP, so it cannot run over link {link.text} (only tcp, "
            f"udp, the RPC mechanisms and the broker do)")


def mark(cases, run, catalog, hosts=None):
    """The cases with those that cannot cross the run's link (or hosts) marked not applicable."""
    out = []
    for case in cases:
        reason = None if case.skip_status else why_not(catalog.mechanism(case.mechanism), run,
                                                         hosts)
        spreads = case.pattern.spreads
        if not reason and not case.skip_status and (hosts or {}).get("clients") \
                and (spreads or not hosts.get("client")):
            reason = why_not_spread(case, catalog, len(hosts["clients"]))
        out.append(replace(case, skip_status="not-applicable", skip_reason=reason)
                   if reason else case)
    return out


def why_not_spread(case, catalog, hosts):
    """Why `case` cannot spread its clients over `hosts` client hosts ([hosts] clients), or
    None: only a burst or a load can, with a client that takes --release-at, and a load needs a
    client and a request per second for each host."""
    if not case.pattern.spreads:
        return (f"{case.pattern.name} with hosts.clients: only a burst or a load spreads its clients "
                f"over hosts; the one client of the other patterns runs on hosts.client, none "
                f"is named (or here, from a scenario without hosts.clients)")
    lang = catalog.languages[case.client]
    if case.pattern.name not in lang.release_at:
        return (f"the {lang.display} {case.pattern.name} client cannot be released at an agreed "
                f"instant (--release-at), so it cannot run on several hosts at once")
    settings = dict(case.settings)
    for name in ("clients", "rate"):
        value = settings.get(name)
        if isinstance(value, int) and value < hosts:
            return (f"{name} {value} cannot be shared out over {hosts} client hosts "
                    f"(at least one each)")
    return None
