"""Byte sizes with binary units ("16", "1KiB", "128MiB") and human-readable durations."""
import re

from ipclab.common.errors import UserError

MAX_PAYLOAD = 134217728   # the contract's largest payload (PROTOCOL.md 2), 128 MiB
_UNITS = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
_SIZE = re.compile(r"^\s*(\d+)\s*([A-Za-z]*)\s*$")


def parse_size(text, where="size"):
    """Parses 16, "16", "1KiB", "128MiB"; raises UserError naming `where` otherwise."""
    if isinstance(text, bool):
        raise UserError(f"{where}: {text!r} is not a size (use e.g. 16, 1KiB, 128MiB)")
    if isinstance(text, int):
        if text < 0:
            raise UserError(f"{where}: {text!r} is not a size (must not be negative)")
        return text
    match = _SIZE.match(str(text))
    if not match or match.group(2) not in _UNITS:
        raise UserError(f"{where}: {str(text)!r} is not a size (use e.g. 16, 1KiB, 128MiB)")
    return int(match.group(1)) * _UNITS[match.group(2)]


def format_size(n):
    """The shortest exact spelling: 16 B, 1 KiB, 1536 B, 128 MiB."""
    for unit in ("GiB", "MiB", "KiB"):
        if n >= _UNITS[unit] and n % _UNITS[unit] == 0:
            return f"{n // _UNITS[unit]} {unit}"
    return f"{n} B"


def format_ns(ns):
    """A duration in the unit that keeps 3-4 significant digits."""
    if ns is None:
        return "-"
    for limit, unit, scale in ((1e3, "ns", 1), (1e6, "µs", 1e3), (1e9, "ms", 1e6)):
        if abs(ns) < limit:
            return f"{ns / scale:.3g} {unit}" if unit == "ns" else f"{ns / scale:.4g} {unit}"
    return f"{ns / 1e9:.4g} s"


_NS_SCALE = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}
_RATE_SCALE = {"G": 1e9, "M": 1e6, "k": 1e3}


def format_ns_interval(value, low, high):
    """"98.2 µs [97.1–99.0]": a duration with its interval, in the value's unit and decimals."""
    return _with_interval(format_ns, _NS_SCALE, value, low, high)


def format_ratio_interval(value, low, high):
    """"0.93 [0.88–0.97]"."""
    if value is None:
        return "-"
    if low is None or high is None:
        return f"{value:.2f}"
    return f"{value:.2f} [{low:.2f}–{high:.2f}]"


def format_rate(per_s):
    """A rate with 3-4 significant digits and a k/M suffix: 1.234 M, 56.7 k, 812."""
    if per_s is None:
        return "-"
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(per_s) >= limit:
            return f"{per_s / limit:.4g} {suffix}"
    return f"{per_s:.3g}"


def format_rate_interval(value, low, high):
    """"1.234 M [1.201–1.250]": a rate with its interval, in the value's scale and decimals."""
    return _with_interval(format_rate, _RATE_SCALE, value, low, high)


def _with_interval(format_value, scales, value, low, high):
    """The value as `format_value` writes it, then its interval in the same unit (the text's
    last word, looked up in `scales`; none: 1) and with as many decimals."""
    if value is None:
        return "-"
    text = format_value(value)
    if low is None or high is None:
        return text
    number, _, unit = text.partition(" ")
    scale = scales.get(unit, 1)
    decimals = len(number.split(".")[1]) if "." in number else 0
    return f"{text} [{low / scale:.{decimals}f}–{high / scale:.{decimals}f}]"
