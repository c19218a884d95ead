"""The CPU figures of a stream (PROTOCOL.md 11.1 step 7): this process's own user and system
time and context switches (getrusage(RUSAGE_SELF): all threads), taken at the phase boundaries
and reported as differences, never from process start."""
import resource
from collections import namedtuple

Figures = namedtuple("Figures", "user_ns sys_ns voluntary involuntary")


def now():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # ru_utime / ru_stime are floats of seconds with microsecond resolution.
    return Figures(round(usage.ru_utime * 1e6) * 1000, round(usage.ru_stime * 1e6) * 1000,
                   usage.ru_nvcsw, usage.ru_nivcsw)


def since(start):
    """The figures from `start` (a Figures from now()) to now."""
    return Figures._make(max(0, end - begin) for end, begin in zip(now(), start))


def as_json(figures):
    return None if figures is None else figures._asdict()
