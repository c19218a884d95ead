"""The client hosts of bursts spread over hosts ([hosts] clients, execute/spread.py): a row per
case and host, for every reader. Pure functions of the case records (analyse/burst.py's
`client_hosts`)."""
from ipclab.common.units import format_ns
from ipclab.output.page import Section, Table

HEADERS = ("#", "host", "ok", "failed", "rate", "median", "first start", "start spread",
           "late release", "clock offset")
RIGHT = tuple(i != 1 for i in range(len(HEADERS)))
CAPTION = ("each host's connections (burst) or requests (load) over the ok rounds; rate: its "
           "conns/s or achieved requests/s (median over rounds); median: of its connections' or "
           "requests' times, every round pooled; first start: a burst's first "
           "connection's start after the agreed release, start spread: its first to its last "
           "start (medians, on this machine's clock with the host's offset applied); late "
           "release: the most its release came after the agreed instant; clock offset: its "
           "clock minus this one's, ± half the probe's round trip")


def rows(records):
    """[[cell, ...]] for every burst case that spread its clients over hosts."""
    out = []
    for number, record in enumerate(records, 1):
        for host in record.get("client_hosts") or []:
            rate = host.get("rate_per_s")
            out.append([str(record.get("index", number)), host["host"], str(host["ok"]),
                        str(host["failed"]), f"{rate:,.0f}/s" if rate else "-",
                        format_ns(host.get("median_ns")),
                        format_ns(host.get("first_start_ns")),
                        format_ns(host.get("start_spread_ns")),
                        format_ns(host.get("release_late_ns")), _offset(host)])
    return out


def _offset(host):
    if host.get("clock_offset_ns") is None:
        return "-"
    sign = "-" if host["clock_offset_ns"] < 0 else "+"
    return (f"{sign}{format_ns(abs(host['clock_offset_ns']))} "
            f"± {format_ns(host.get('clock_uncertainty_ns'))}")


def sections(report):
    """The table of client hosts; none when no case spread its clients over hosts."""
    table = rows(report.shown)
    if not table:
        return []
    return [Section("client-hosts", "client hosts", lead=(CAPTION + ".",),
                    tables=(Table(HEADERS, tuple(tuple(r) for r in table), RIGHT, wrap=True),))]
