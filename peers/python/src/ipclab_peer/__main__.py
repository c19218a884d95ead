"""ipclab Python peer: `python -m ipclab_peer capabilities|serve|drive ...`.

    cli.py           strict command line -> CapabilitiesConfig / ServeConfig / DriveConfig
                     (cli_configs.py), by the flag table (cli_flags.py) and patterns.py's rules
    mechanisms.py    the one table of mechanisms; patterns.py the one table of patterns
    capabilities.py  capabilities: what the two tables say, as one JSON line
    server.py        serve: READY, answer REQUESTs, shut down cleanly (shutdown.py)
    client.py        drive: the pattern's driver, validation, outputs (result.py)
    rr.py            pattern rr over section 2 frames (inproc.py, rpc/drive.py: the others)
    frame.py         24-byte header, the server's checks, preallocated frame templates
    payload.py       splitmix64 payload base, stamp, comparison
    reader.py        the server's buffered frame reader for streams
    burst/, load/    patterns burst and load (PROTOCOL.md 11.4, 11.5): server models, schedule
    transport/       endpoints, client connectors, server listeners, links
    rpc/             RPC middleware (PROTOCOL.md section 10)
"""
import sys

from . import cli
from .capabilities import capabilities
from .client import drive
from .errors import PeerError, UsageError, report, report_error
from .server import serve

RUN = {"capabilities": capabilities, "serve": serve, "drive": drive}


def main(argv=None):
    try:
        command, config = cli.parse(sys.argv[1:] if argv is None else argv)
    except UsageError as err:
        report_error(err)
        return err.code
    try:
        return RUN[command](config)
    except Exception as err:  # noqa: BLE001 - the contract wants one line and exit 1
        report("internal", f"{type(err).__name__}: {err}")
        return PeerError.code


if __name__ == "__main__":
    sys.exit(main())
