"""Server shutdown (PROTOCOL.md section 5): SIGTERM, SIGINT or end of stdin -> clean up, exit 0.

Signals are not handled with signal.signal(): Python runs such handlers only in the main
thread between bytecodes, and a blocked accept() or FIFO open() would delay them. Instead the
signals are blocked in every thread and one helper thread waits for them with sigwait(); a
second helper thread waits for end of stdin. Either removes the created files and calls
os._exit(0), which ends the process wherever the main thread is blocked.
"""
import contextlib
import os
import signal
import sys
import threading

from .errors import PeerError, report, report_error, silence, unsilenced_report

SHUTDOWN_SIGNALS = {signal.SIGTERM, signal.SIGINT}
STDIN = 0


class Cleanup:
    """Paths the server created and must remove when it exits, whichever thread ends it, or
    callables that remove other things (kernel IPC objects, leftover files).

    All exits of a server go through exit(): it takes the lock and never gives it back, so
    exactly one exit happens, after any creation in progress has been registered.
    """

    def __init__(self):
        # Re-entrant: startup holds it while the listener registers the files it creates.
        self._lock = threading.RLock()
        self._paths = []

    def held(self):
        """While held (during startup), a shutdown request waits: a failing startup then
        exits with its own error code, not 0."""
        return self._lock

    @contextlib.contextmanager
    def creating(self):
        """Create and register files (paths) or removal callables inside this block."""
        with self._lock:
            yield self._paths.append

    def exit(self, code):
        self._lock.acquire()
        # From here on a thread that fails because an object is being removed under it
        # (EIDRM) cannot report a misleading error: its report waits for os._exit.
        silence()
        while self._paths:
            item = self._paths.pop()
            try:
                if callable(item):
                    item()
                else:
                    os.unlink(item)
            except FileNotFoundError:
                pass
            except Exception as err:  # noqa: BLE001 - remove the rest all the same
                unsilenced_report("io", f"clean-up: {type(err).__name__}: {err}")
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


@contextlib.contextmanager
def exiting_on_error(cleanup):
    """A server's start-up: a failure is reported and ends the process with its code, after
    removing what was created."""
    try:
        yield
    except PeerError as err:
        report_error(err)
        cleanup.exit(err.code)
    except Exception as err:  # noqa: BLE001 - still remove what was created
        report("internal", f"{type(err).__name__}: {err}")
        cleanup.exit(PeerError.code)


def install(cleanup):
    """Call before any other thread exists: threads inherit the blocked signal mask."""
    signal.pthread_sigmask(signal.SIG_BLOCK, SHUTDOWN_SIGNALS)
    _start(_wait_for_signal, cleanup)
    if _stdin_is_open():
        _start(_wait_for_end_of_stdin, cleanup)


def _start(target, cleanup):
    threading.Thread(target=target, args=(cleanup,), daemon=True).start()


def _wait_for_signal(cleanup):
    signal.sigwait(SHUTDOWN_SIGNALS)
    cleanup.exit(0)


def _wait_for_end_of_stdin(cleanup):
    try:
        while os.read(STDIN, 65536):
            pass
    except OSError:
        return
    cleanup.exit(0)


def _stdin_is_open():
    try:
        os.fstat(STDIN)
    except OSError:
        return False
    return True
