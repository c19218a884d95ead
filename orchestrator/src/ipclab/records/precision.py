"""How precise a case's analysed record is: its median interval's width against its target. The
rounds ask it to choose more rounds, the analysis to warn, the output to print it."""


def relative_width(record):
    """The half-width of a case's median interval relative to its median (0.05: ±5%), None
    without one."""
    median = (record.get("trimmed") or {}).get("median")
    low, high = record.get("median_ci_low"), record.get("median_ci_high")
    if not median or low is None or high is None:
        return None
    return (high - low) / 2 / median


def precision_of(record):
    """(relative width, whether it met the record's precision target): (None, None) without a
    target or an interval."""
    width, target = relative_width(record), record.get("precision_target")
    if not target or width is None or record.get("status") != "ok":
        return None, None
    return width, width <= target
