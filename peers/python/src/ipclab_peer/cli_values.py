"""The values of the command line's flags (PROTOCOL.md section 1): each parser takes the
text and returns the value, or raises ValueError saying what is wrong (cli.py makes that a
usage error)."""
import math
import re

# The faults this peer's plain server injects (PROTOCOL.md 6, 11.1).
FAULTS = ("none", "flip-response-byte", "drop-stream-message", "flip-stream-byte")
# The load servers' faults (11.5.1): `stall`, `capacity:N` (N >= 1 requests/s); C++ only.
LOAD_FAULTS = ("stall",)
_CAPACITY = re.compile(r"capacity:[0-9]+")
_UNSIGNED = re.compile(r"[0-9]+")
_SECONDS = re.compile(r"[0-9]+(\.[0-9]+)?")


def text(value):
    if not value:
        raise ValueError("an empty value")
    return value


def unsigned(maximum, minimum=0):
    def parse(value):
        if not _UNSIGNED.fullmatch(value):
            raise ValueError("an unsigned decimal integer is required")
        number = int(value)
        if not minimum <= number <= maximum:
            raise ValueError(f"must be between {minimum} and {maximum}")
        return number
    return parse


def seconds(value):
    if not _SECONDS.fullmatch(value):
        raise ValueError("a positive decimal number of seconds is required")
    number = float(value)
    if not 0 < number < math.inf:
        raise ValueError("must be positive and finite")
    return number


def fault(value):
    """A fault name of PROTOCOL.md 1; whether this server injects it is decided later
    (a fault it does not implement is unsupported, not a usage error)."""
    if value in FAULTS + LOAD_FAULTS or (_CAPACITY.fullmatch(value) and int(value[9:]) >= 1):
        return value
    raise ValueError(f"must be one of {', '.join(FAULTS + LOAD_FAULTS)} or capacity:N "
                     "(N >= 1)")


def one_of(*choices):
    def parse(value):
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return value
    return parse
