"""Error kinds of PROTOCOL.md section 8: every failure the peer reports is one of these."""
import sys
import threading

PREFIX = "ipclab-peer"


class PeerError(Exception):
    """A failure with a contract kind and exit code; the message is the human-readable reason.
    A subclass names its kind and code in its class line, or keeps its base's."""

    kind = "internal"
    code = 1

    def __init_subclass__(cls, kind=None, code=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if kind is not None:
            cls.kind, cls.code = kind, code


class UsageError(PeerError, kind="usage", code=2): pass  # noqa: E701
class PayloadMismatch(PeerError, kind="payload-mismatch", code=3): pass  # noqa: E701
class ProtocolError(PeerError, kind="protocol", code=4): pass  # noqa: E701
class IoError(PeerError, kind="io", code=5): pass  # noqa: E701
class ReceiveTimeout(PeerError, kind="timeout", code=6): pass  # noqa: E701
class Unsupported(PeerError, kind="unsupported", code=7): pass  # noqa: E701


def one_line(text):
    """The contract promises one line per diagnostic, whatever an OS message contains."""
    return " ".join(str(text).split())


_REPORTING = threading.Lock()


def report(kind, message):
    with _REPORTING:
        unsilenced_report(kind, message)


def unsilenced_report(kind, message):
    sys.stderr.write(f"{PREFIX}: {kind}: {one_line(message)}\n")
    sys.stderr.flush()


def silence():
    """A server about to exit: every later report() blocks until the process is gone."""
    _REPORTING.acquire()


def report_error(err):
    report(err.kind, err)


def describe_os_error(err):
    """strerror plus the path, without Python's '[Errno N]' noise."""
    text = err.strerror or str(err)
    if err.filename is not None:
        text = f"{err.filename}: {text}"
    return text
