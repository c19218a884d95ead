"""Error kinds of PROTOCOL.md section 8: every failure the peer reports is one of these."""
import sys

PREFIX = "ipclab-peer"


class PeerError(Exception):
    """A failure with a contract kind and exit code; the message is the human-readable reason."""

    kind = "internal"
    code = 1


class UsageError(PeerError):
    kind = "usage"
    code = 2


class PayloadMismatch(PeerError):
    kind = "payload-mismatch"
    code = 3


class ProtocolError(PeerError):
    kind = "protocol"
    code = 4


class IoError(PeerError):
    kind = "io"
    code = 5


class ReceiveTimeout(PeerError):
    kind = "timeout"
    code = 6


class Unsupported(PeerError):
    kind = "unsupported"
    code = 7


def one_line(text):
    """The contract promises one line per diagnostic, whatever an OS message contains."""
    return " ".join(str(text).split())


def report(kind, message):
    sys.stderr.write(f"{PREFIX}: {kind}: {one_line(message)}\n")
    sys.stderr.flush()


def report_error(err):
    report(err.kind, err)


def describe_os_error(err):
    """strerror plus the path, without Python's '[Errno N]' noise."""
    text = err.strerror or str(err)
    if err.filename is not None:
        text = f"{err.filename}: {text}"
    return text
