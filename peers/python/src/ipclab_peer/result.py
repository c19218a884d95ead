"""Client outputs of PROTOCOL.md section 7: the samples as they are recorded, the samples
files and the result JSON."""
import json
import os
import sys
from array import array

from .runtime import CONTRACT, LANGUAGE, clock_name, runtime

SCHEMA = "ipclab.peer-result/1"
PRIVATE_MODE = 0o600


class Recorder:
    """The times of the round trips that passed validation, in sequence order: the warm-up
    ones (kept only when a warm-up samples file is wanted), then the measured ones. Drivers
    call add(sequence, nanoseconds) after validating round trip `sequence`; sequences come
    in order from 0, so what was added so far is always a prefix."""

    def __init__(self, warmup=0, iterations=0, keep_warmup=False):
        # Result fields a pattern adds (PROTOCOL.md 11.1 item 8), set by its driver.
        self.fields = {}
        # _times[i] is the time of sequence _first + i; the first _kept are warm-up ones.
        self._kept = warmup if keep_warmup else 0
        self._first = warmup - self._kept
        self._times = array("q", [0]) * (self._kept + iterations)
        self._validated = 0

    def add(self, sequence, elapsed):
        if sequence >= self._first:
            self._times[sequence - self._first] = elapsed
        self._validated = sequence + 1

    def warmup_samples(self):
        return self._times[:min(self._validated, self._kept)]

    def samples(self):
        return self._times[self._kept:max(self._kept, self._validated - self._first)]


def record(config, samples, warmup_samples, error=None, fields=None):
    return {
        "schema": SCHEMA,
        "status": "ok" if error is None else "error",
        "error_kind": None if error is None else error.kind,
        "error": None if error is None else str(error),
        "language": LANGUAGE,
        "runtime": runtime(),
        "mechanism": config.mechanism,
        "pattern": config.pattern,
        "request_size": config.request_size,
        "response_size": config.response_size,
        "warmup": config.warmup,
        "iterations": config.iterations,
        "payload": config.payload,
        "sequence_length": None if config.payload == "bytes" else config.sequence_length,
        "samples": samples,
        "clock": clock_name(),
        "pid": os.getpid(),
        "contract": CONTRACT,
        "warmup_samples": warmup_samples,
        **(fields or {}),
    }


def write_samples(path, data):
    """Writes an array('q') (which it may change) as little-endian int64."""
    if sys.byteorder != "little":
        data.byteswap()
    with _create_private(path) as out:
        out.write(data)


def write_result(path, result):
    """Written under a temporary name and renamed, so a reader never sees half a file."""
    temporary = f"{path}.tmp-{os.getpid()}"
    try:
        with _create_private(temporary) as out:
            out.write(json.dumps(result, indent=1).encode() + b"\n")
        os.replace(temporary, path)
    except BaseException:
        _remove_quietly(temporary)
        raise


def _create_private(path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_MODE)
    return os.fdopen(fd, "wb")


def _remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass
