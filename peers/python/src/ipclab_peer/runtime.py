"""How this peer names itself in READY and in result files."""
import platform
import re
import time

LANGUAGE = "python"
# The version of protocol/PROTOCOL.md this peer follows (capabilities, READY, result files).
CONTRACT = 6


def runtime():
    return f"{platform.python_implementation()} {platform.python_version()}"


def clock_name():
    """The OS clock behind time.perf_counter_ns, e.g. CLOCK_MONOTONIC on Linux."""
    implementation = time.get_clock_info("perf_counter").implementation
    match = re.search(r"\((\w+)\)", implementation)
    return match.group(1) if match else implementation
