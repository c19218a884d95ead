"""Noise records and the preflight probe's mode finding, from injected data."""
import numpy as np

from ipclab.analyse import reduce
from ipclab.analyse.noise import concerns
from ipclab.execute import noise
from ipclab.execute import preflight

STAT = """cpu  100 0 50 1000 0 0 0 0 0 0
cpu0 60 0 30 500 0 0 0 5 0 0
cpu1 40 0 20 500 0 0 0 0 0 0
intr 12345
procs_running 3
procs_blocked 0
"""


def test_proc_stat_is_read_per_cpu():
    cpus, running = noise.parse_proc_stat(STAT)
    assert cpus == {0: (90, 5), 1: (60, 0)} and running == 3


def snap(when, busy0, busy1, steal1, children, running=2):
    return noise.Snapshot(when, {0: (busy0, 0), 1: (busy1, steal1)}, running, children)


def test_foreign_work_on_the_peers_cpu_is_what_the_peers_did_not_use():
    # Round of 2 s pinned to CPU 1: it was busy 1.5 s, the peers used 0.5 s, 0.2 s was stolen.
    record = noise.summarise(snap(10, 0, 0, 0, 1.0), snap(12, 500, 150, 20, 1.5), [1], hz=100)
    assert record["foreign_cpu_s"] == 1.0 and record["foreign_fraction"] == 0.5
    assert record["steal_fraction"] == 0.1 and record["cpus"] == [1]
    kinds = [kind for kind, _ in concerns(record)]
    assert kinds == ["busy-cpus", "steal"]


def test_a_quiet_round_has_no_concerns():
    record = noise.summarise(snap(10, 0, 0, 0, 1.0), snap(12, 0, 190, 0, 2.9), [1], hz=100)
    assert record["foreign_cpu_s"] == 0.0 and concerns(record) == []
    assert concerns(None) == []


def test_one_mode():
    g = np.random.default_rng(1)
    assert len(reduce.modes(100_000 * g.lognormal(0, 0.3, 20000))) == 1
    assert len(reduce.modes(np.full(1000, 5000))) == 1
    assert reduce.modes([]) == []


def test_two_modes_of_a_cross_cpu_wake_up():
    g = np.random.default_rng(1)
    fast = 100_000 * g.lognormal(0, 0.1, 6000)
    slow = 750_000 * g.lognormal(0, 0.1, 4000)
    (m1, s1), (m2, s2) = reduce.modes(g.permutation(np.concatenate([fast, slow])))
    assert abs(m1 - 100_000) < 5000 and abs(m2 - 750_000) < 40_000
    assert abs(s1 - 0.6) < 0.01 and abs(s1 + s2 - 1) < 1e-9


def probe(placement, median, found):
    return {"placement": placement, "client_cpu": 0, "server_cpu": 1, "median_ns": median,
            "modes": [{"median_ns": m, "share": s} for m, s in found]}


def test_one_note_for_slow_or_bimodal_cross_cpu_wake_ups():
    quick = probe("cross-core", 8000, [(8000, 1.0)])
    assert preflight.notes([quick, probe("same-core", 90_000, [(90_000, 1)])]) == []
    slow = probe("cross-core", 100_000, [(100_000, 1.0)])
    (note,) = preflight.notes([slow])
    assert "slow" in note and "100 µs" in note
    modal = probe("cross-core", 120_000, [(100_000, 0.6), (750_000, 0.4)])
    (note,) = preflight.notes([modal, slow])
    assert "two modes" in note and "750 µs" in note and "60%" in note


def test_ipclab_own_cpu_time_is_not_foreign():
    before = noise.Snapshot(10, {1: (0, 0)}, 2, 1.0, 0.2)
    after = noise.Snapshot(12, {1: (150, 0)}, 2, 1.5, 1.2)
    record = noise.summarise(before, after, [1], hz=100)
    assert record["ipclab_cpu_s"] == 1.0 and record["foreign_cpu_s"] == 0.0
