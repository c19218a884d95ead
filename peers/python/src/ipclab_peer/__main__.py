"""ipclab Python peer: `python -m ipclab_peer serve ...` or `python -m ipclab_peer drive ...`.

    cli.py        strict command line -> ServeConfig / DriveConfig
    server.py     serve: READY, answer REQUESTs, shut down cleanly (shutdown.py)
    client.py     drive: timed round trips, validation, outputs (result.py)
    frame.py      24-byte header, the server's checks, preallocated frame templates
    payload.py    splitmix64 payload base, stamp, comparison
    reader.py     the server's buffered frame reader for streams
    transport/    endpoints, client connectors, server listeners, links
"""
import sys

from . import cli
from .client import drive
from .errors import PeerError, UsageError, report, report_error
from .server import serve


def main(argv=None):
    try:
        command, config = cli.parse(sys.argv[1:] if argv is None else argv)
    except UsageError as err:
        report_error(err)
        return err.code
    try:
        if command == "serve":
            return serve(config)
        return drive(config)
    except Exception as err:  # noqa: BLE001 - the contract wants one line and exit 1
        report("internal", f"{type(err).__name__}: {err}")
        return PeerError.code


if __name__ == "__main__":
    sys.exit(main())
