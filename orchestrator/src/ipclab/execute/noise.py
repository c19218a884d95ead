"""The load the machine carried while a round ran: runnable tasks, steal time and how much of the
peers' CPUs went to something else. Reading is two tiny functions; the arithmetic is pure.

Sources: /proc/stat (per-CPU time in USER_HZ ticks: user nice system idle iowait irq softirq
steal …, and procs_running, which counts ipclab itself) and getrusage(RUSAGE_CHILDREN), whose
growth over a round is the CPU time of the peers the round started and reaped (a JVM's threads
included), the way iperf3's cpu_util() takes deltas around the test itself."""
import os
import resource
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Snapshot:
    when: float           # monotonic seconds
    cpus: dict            # cpu number -> (busy ticks: user+nice+system, steal ticks)
    procs_running: int | None
    children_cpu: float   # seconds of user + system time of reaped children
    self_cpu: float = 0.0  # seconds of user + system time of ipclab itself


def parse_proc_stat(text):
    """(cpus, procs_running) from /proc/stat's text: cpu -> (user+nice+system, steal) ticks."""
    cpus, running = {}, None
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0].startswith("cpu") and fields[0] != "cpu":
            ticks = [int(v) for v in fields[1:]] + [0] * 8
            cpus[int(fields[0][3:])] = (ticks[0] + ticks[1] + ticks[2], ticks[7])
        elif fields[0] == "procs_running":
            running = int(fields[1])
    return cpus, running


def take():
    """A snapshot of now (I/O: /proc/stat and getrusage)."""
    try:
        with open("/proc/stat") as f:
            cpus, running = parse_proc_stat(f.read())
    except OSError:
        cpus, running = {}, None
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    me = resource.getrusage(resource.RUSAGE_SELF)
    return Snapshot(time.monotonic(), cpus, running, children.ru_utime + children.ru_stime,
                    me.ru_utime + me.ru_stime)


def ticks_per_second():
    try:
        return os.sysconf("SC_CLK_TCK")
    except (ValueError, OSError):
        return 100


def summarise(before, after, pinned, hz=100):
    """The round's noise record. `pinned`: the CPUs the peers were confined to (every CPU when
    unpinned). Foreign time is what the pinned CPUs spent busy beyond the peers' CPU time and
    ipclab's own (which may have run on them)."""
    wall = max(after.when - before.when, 1e-9)
    cpus = [c for c in pinned if c in before.cpus and c in after.cpus]
    busy = sum(after.cpus[c][0] - before.cpus[c][0] for c in cpus) / hz
    steal = sum(after.cpus[c][1] - before.cpus[c][1] for c in cpus) / hz
    peers = after.children_cpu - before.children_cpu
    own = after.self_cpu - before.self_cpu
    foreign = max(0.0, busy - peers - own)
    capacity = wall * max(len(cpus), 1)
    return {
        "wall_s": round(wall, 3), "cpus": cpus, "peers_cpu_s": round(peers, 3),
        "ipclab_cpu_s": round(own, 3),
        "cpus_busy_s": round(busy, 3), "foreign_cpu_s": round(foreign, 3),
        "foreign_fraction": round(foreign / capacity, 4) if cpus else None,
        "steal_s": round(steal, 3), "steal_fraction": round(steal / capacity, 4) if cpus else None,
        "procs_running": [before.procs_running, after.procs_running],
    }
