"""CPU placement of the two peers of a case, applied with taskset so it holds from exec on
(a JVM's threads inherit the mask; setting it after start would miss threads already made)."""
import os
import shutil
from dataclasses import dataclass


@dataclass(frozen=True)
class Cpus:
    client: tuple | None  # None: not pinned
    server: tuple | None

    def as_dict(self):
        return {"client_cpus": list(self.client) if self.client else None,
                "server_cpus": list(self.server) if self.server else None}


def available_cpus():
    return sorted(os.sched_getaffinity(0))


def resolve(placement, cpus=None):
    """Cpus for `placement`, or a string saying why it cannot be had on this machine.

    same-core: both peers on the last allowed CPU (CPU 0 tends to take more interrupts);
    cross-core: client on the first, server on the last; unpinned: the scheduler decides."""
    cpus = available_cpus() if cpus is None else cpus
    if placement == "unpinned":
        return Cpus(None, None)
    if not shutil.which("taskset"):
        return "taskset (util-linux) is not installed, so peers cannot be pinned"
    if placement == "same-core":
        return Cpus((cpus[-1],), (cpus[-1],))
    if len(cpus) < 2:
        return "cross-core needs two CPUs and this process may use only one"
    return Cpus((cpus[0],), (cpus[-1],))


def pin(argv, cpus):
    """argv prefixed to run on `cpus` (no shell involved)."""
    if not cpus:
        return list(argv)
    return ["taskset", "--cpu-list", ",".join(map(str, cpus)), *argv]
