"""Whether a round's noise record (execute/noise.py measures it) says the machine was busy: other
work on the peers' CPUs, or the hypervisor's steal time, beyond rules of thumb stated here so a
user can judge them."""

BUSY_FRACTION = 0.10   # of the round's wall time on the peers' CPUs, used by something else
STEAL_FRACTION = 0.05  # of the round's wall time on the peers' CPUs, taken by the hypervisor
MIN_FOREIGN_S = 0.05   # below this the ticks of /proc/stat cannot tell


def concerns(noise):
    """[(kind, detail)] for a round's noise record: other work on the peers' CPUs, steal time."""
    out = []
    if not noise:
        return out
    share = noise.get("foreign_fraction")
    if share is not None and share > BUSY_FRACTION and noise["foreign_cpu_s"] >= MIN_FOREIGN_S:
        out.append(("busy-cpus", f"something else used {100 * share:.0f}% of CPU "
                                 f"{','.join(map(str, noise['cpus']))}"))
    steal = noise.get("steal_fraction")
    if steal is not None and steal > STEAL_FRACTION:
        out.append(("steal", f"the hypervisor stole {100 * steal:.0f}% of CPU "
                             f"{','.join(map(str, noise['cpus']))}"))
    return out
