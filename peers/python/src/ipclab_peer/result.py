"""Client output files of PROTOCOL.md section 7: raw samples and the result JSON."""
import json
import os
import sys

from .runtime import LANGUAGE, clock_name, runtime

SCHEMA = "ipclab.peer-result/1"
PRIVATE_MODE = 0o600


def record(config, samples, error=None):
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
    }


def write_samples(path, samples, count):
    """Writes the first `count` entries of an array('q') as little-endian int64."""
    data = samples[:count]
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
