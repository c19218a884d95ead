"""`ipclab bench …`: the benchmarks that print numbers (speed targets are checked here, never by
timed assertions in tests), each a thin command over kernel.py, libraries.py, http.py, honesty.py,
load.py."""
import click

from ipclab.plan import patterns
from ipclab.execute.probe import load_catalog
from ipclab.terminal_console import console


@click.group()
def bench():
    """Benchmarks that print numbers (speed targets are checked here, never in tests)."""


@bench.command("kernel")
@click.option("--iterations", default="20000", help="round trips per measurement")
@click.option("--rounds", default="3", help="alternating rounds of floor and peers")
@click.option("--placement", default="same-core", help="same-core, cross-core or unpinned")
def bench_kernel(iterations, rounds, placement):
    """The C++ peer at 16 B beside a hand-written C ping-pong per kernel mechanism (≤ 1.05)."""
    from ipclab.bench.kernel import run_floor
    run_floor(load_catalog(), console, iterations, rounds, placement)


@bench.command("shm")
@click.option("--iterations", default="100000", help="round trips per measurement")
@click.option("--rounds", default="3", help="alternating rounds")
def bench_shm(iterations, rounds):
    """shm beside the cache-line floor and uds; jni, ffm, ctypes call overhead."""
    from ipclab.bench.kernel import run_shm
    run_shm(load_catalog(), console, iterations, rounds)


@bench.command("libraries")
@click.option("--iterations", default="20000", help="round trips per measurement")
@click.option("--rounds", default="3", help="alternating rounds of floor and peer")
@click.option("--placement", default="same-core", help="same-core, cross-core or unpinned")
def bench_libraries(iterations, rounds, placement):
    """The C++ peer over each messaging library at 16 B beside the library's own latency test
    (libzmq's local_lat/remote_lat as one C program): ≤ 1.05."""
    from ipclab.bench.libraries import run_libraries
    run_libraries(load_catalog(), console, iterations, rounds, placement)


@bench.command(patterns.STREAM.name)  # `ipclab bench stream`
@click.option("--messages", default="200000", help="messages per stream")
@click.option("--iterations", default="20000", help="short tcp connections per measurement")
@click.option("--size", default="1KiB", help="bytes per message (and per short request)")
@click.option("--rounds", default="3", help="alternating rounds of floor and peer")
@click.option("--placement", default="cross-core", help="same-core, cross-core or unpinned")
def bench_stream(messages, iterations, size, rounds, placement):
    """The C++ peer's 1 KiB stream and short tcp connections beside the C floor's (≥ 0.95)."""
    from ipclab.bench.kernel import run_stream
    run_stream(load_catalog(), console, messages, iterations, rounds, placement, size)


@bench.command("rest")
@click.option("--iterations", default="20000", help="C++ client calls per round")
@click.option("--seconds", default="2", help="wrk's run per round, in seconds")
@click.option("--rounds", default="5", help="alternating rounds of wrk and the C++ client")
@click.option("--placement", default="same-core", help="same-core, cross-core or unpinned")
def bench_rest(iterations, seconds, rounds, placement):
    """The C++ REST client at 16 B beside wrk on the same server and CPUs (≤ 1.00)."""
    from ipclab.bench.http import run_rest
    run_rest(load_catalog(check=False), console, iterations, seconds, rounds, placement)


@bench.command("honesty")
@click.argument("scenario", required=False, default="scenarios/quick.toml")
@click.option("--rounds", help="rounds per case in both runs")
@click.option("--precision", help="both runs with this precision target, e.g. 5%")
@click.option("--budget", help="each run's budget with --precision, e.g. 4m")
@click.option("--iterations", help="round trips per round in both runs")
@click.option("--keep", type=click.Path(file_okay=False), help="keep both runs in this directory "
              "(run1, run2) instead of a temporary one")
def bench_honesty(scenario, rounds, precision, budget, iterations, keep):
    """SCENARIO (default: the quick one) run twice: the share of each run's medians inside the
    other's intervals, compare's verdicts, and how wide the intervals are."""
    import sys
    from ipclab.bench.honesty import run_honesty
    flags = [x for flag, value in (("--rounds", rounds), ("--precision", precision),
                                   ("--budget", budget), ("--iterations", iterations))
             if value for x in (flag, value)]
    sys.exit(run_honesty(console, load_catalog(check=False).root / scenario, flags, keep))


@bench.command(patterns.LOAD.name)  # `ipclab bench load`
@click.option("--clients", default="8", help="connections per client")
@click.option("--seconds", default="1", help="measured seconds per step")
@click.option("--placement", default="cross-core", help="same-core, cross-core or unpinned")
def bench_load(clients, seconds, placement):
    """Per client language, the highest rate it keeps on schedule (its own lateness p99 ≤ 50 µs)
    against the C++ epoll server over tcp, and what gave out beyond it."""
    from ipclab.bench.kernel import positive
    from ipclab.bench.load import run_load_bench
    run_load_bench(load_catalog(), console, positive(clients, "--clients"),
                   float(positive(seconds, "--seconds")), placement)
