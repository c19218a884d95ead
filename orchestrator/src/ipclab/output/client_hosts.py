"""The client hosts of bursts spread over hosts ([hosts] clients, execute/spread.py): a row per
case and host, for the terminal and table.md. Pure functions of the case records
(analyse/burst.py's `client_hosts`)."""
from ipclab.common.units import format_ns

HEADERS = ("#", "host", "ok", "failed", "rate", "median", "first start", "start spread",
           "late release", "clock offset")
RIGHT = (0, 2, 3, 4, 5, 6, 7, 8, 9)
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


def markdown_of(table):
    if not table:
        return ""
    lines = ["## client hosts", "", CAPTION + ".", "", "| " + " | ".join(HEADERS) + " |",
             "|" + "|".join("---:" if i in RIGHT else "---" for i in range(len(HEADERS))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in table]) + "\n"


def terminal_of(table_rows):
    from rich import box
    from rich.table import Table
    if not table_rows:
        return []
    table = Table(title="client hosts", box=box.SIMPLE_HEAD, pad_edge=False, caption=CAPTION,
                  caption_justify="left")
    for i, header in enumerate(HEADERS):
        table.add_column(header, justify="right" if i in RIGHT else "left")
    for row in table_rows:
        table.add_row(*row)
    return [table]
