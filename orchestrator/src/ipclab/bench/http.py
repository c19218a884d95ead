"""`ipclab bench rest`: the C++ REST client beside wrk, an established HTTP benchmarking client.

One C++ REST server serves both clients. wrk (one thread, one connection, --latency) posts a
16-byte call with a Lua script; the C++ client (`ipclab-peer drive --mechanism rest`) makes its
16-byte calls; the two alternate over several rounds on the same CPUs. Every wrk request is
`POST /call/0?wanted=16` with the request payload of sequence 0 (PROTOCOL.md section 3), so the
server validates it and answers it as it answers the C++ client's calls; after each wrk round
`POST /finish` must report no corrupted request and wrk no non-2xx answer or socket error, else
the round counts as failed. The ratio is the median over rounds of (C++ median / wrk median of
the same round), which cancels most drift between rounds. Prints numbers; asserts nothing."""
import http.client
import json
import re
import select
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.table import Table

from ipclab.bench.kernel import positive
from ipclab.analyse import reduce
from ipclab.common.errors import UserError
from ipclab.common.units import format_ns
from ipclab.plan import placement

SIZE = 16
TARGET = 1.00
GOLDEN, MASK = 0x9E3779B97F4A7C15, (1 << 64) - 1
WRK_HINT = "wrk is not installed: apt-get install -y wrk (scripts/setup-system installs it)"


def run_rest(catalog, console, iterations, seconds, rounds, where):
    iterations, rounds = positive(iterations, "--iterations"), positive(rounds, "--rounds")
    seconds = positive(seconds, "--seconds")
    wrk = shutil.which("wrk")
    if wrk is None:
        raise UserError(WRK_HINT)
    cpus = placement.resolve(where)
    if isinstance(cpus, str) or where not in ("same-core", "cross-core", "unpinned"):
        raise UserError(f"--placement: {where!r} cannot be used here ({cpus})")
    peer = _cpp_peer(catalog)
    medians = {"wrk": [], "cpp": []}
    notes = []
    with tempfile.TemporaryDirectory(prefix="ipclab-bench-rest-") as scratch, \
            _server(peer, cpus) as endpoint, console.status("measuring") as status:
        script = Path(scratch) / "call.lua"
        script.write_text(wrk_script(seed=1))
        for r in range(1, rounds + 1):
            status.update(f"round {r}/{rounds}: wrk")
            argv = placement.pin([wrk, "-t1", "-c1", f"-d{seconds}s", "--latency", "-s",
                                  str(script), f"http://{endpoint}"], cpus.client)
            medians["wrk"].append(_wrk_median(argv, endpoint, seconds, notes))
            status.update(f"round {r}/{rounds}: C++ client")
            medians["cpp"].append(_cpp_median(peer, endpoint, iterations, cpus, scratch, notes))
    console.print(_table(medians, iterations, seconds, rounds, where, cpus))
    for note in notes:
        console.print(f"[yellow]{note}[/]", markup=True, highlight=False)


def payload(seed, stream, sequence, n):
    """payload(seed, stream, sequence, n) of PROTOCOL.md section 3: splitmix64, then the stamp."""
    state, out = (seed ^ (stream * GOLDEN)) & MASK, bytearray()
    while len(out) < n:
        state = (state + GOLDEN) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out += (z ^ (z >> 31)).to_bytes(8, "little")
    out = out[:n]
    for j in range(min(8, n)):
        out[j] ^= (sequence >> (8 * j)) & 0xFF
    return bytes(out)


def wrk_script(seed):
    """wrk's Lua: a static POST (wrk adds Host and Content-Length) of sequence 0's request,
    which the server checks like any call, answered with SIZE bytes."""
    body = "".join(f"\\{b}" for b in payload(seed, 1, 0, SIZE))
    return (f'wrk.method = "POST"\n'
            f'wrk.path = "/call/0?wanted={SIZE}"\n'
            f'wrk.headers["Content-Type"] = "application/octet-stream"\n'
            f'wrk.body = "{body}"\n')


@dataclass
class WrkRun:
    median_ns: float
    requests: int
    non_2xx: int
    socket_errors: int


_UNIT_NS = {"us": 1e3, "ms": 1e6, "s": 1e9}


def parse_wrk(text):
    """The median, request count and errors in wrk --latency's output; ValueError if the output
    lacks the latency distribution's 50% line or the request count."""
    median = re.search(r"^\s*50(?:\.0+)?%\s+([0-9.]+)(us|ms|s)\s*$", text, re.M)
    requests = re.search(r"^\s*(\d+) requests in ", text, re.M)
    if median is None or requests is None:
        raise ValueError("wrk printed no 50% latency line or no request count")
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", text)
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)",
                        text)
    return WrkRun(median_ns=float(median.group(1)) * _UNIT_NS[median.group(2)],
                  requests=int(requests.group(1)),
                  non_2xx=int(non_2xx.group(1)) if non_2xx else 0,
                  socket_errors=sum(map(int, sockets.groups())) if sockets else 0)


def _cpp_peer(catalog):
    lang = catalog.languages.get("cpp")
    if lang is None or lang.unavailable:
        raise UserError(f"the C++ peer cannot run: {lang.unavailable if lang else 'no peers/native'}")
    return lang.argv()


@contextmanager
def _server(peer, cpus):
    """The C++ REST server, pinned; yields its HOST:PORT and stops it on the way out (errors and
    Ctrl-C included)."""
    argv = placement.pin([*peer, "serve", "--mechanism", "rest", "--endpoint", "127.0.0.1:0"],
                         cpus.server)
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        line = proc.stdout.readline() if ready else ""
        if not line.startswith("READY "):
            raise UserError(f"the C++ REST server did not start ({' '.join(argv)}): "
                            f"{line.strip() or 'no READY within 30 s'}")
        yield json.loads(line[6:])["endpoint"]
    finally:
        try:
            proc.stdin.close()  # end of input stops the server (PROTOCOL.md section 5)
        except OSError:
            pass  # it has gone already
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wrk_median(argv, endpoint, seconds, notes):
    """wrk's median of one round, or None (with a note) if the round was not all good answers."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60)
    try:
        run = parse_wrk(done.stdout)
    except ValueError as e:
        notes.append(f"wrk round failed (exit {done.returncode}): {e}: {done.stderr.strip()}")
        return None
    corrupted = _finish(endpoint)
    if run.non_2xx or run.socket_errors or corrupted:
        notes.append(f"wrk round not counted: {run.non_2xx} non-2xx answers, "
                     f"{run.socket_errors} socket errors, {corrupted} corrupted requests")
        return None
    return run.median_ns


def _finish(endpoint):
    """POST /finish: the corrupted requests the server counted since the previous finish."""
    host, port = endpoint.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("POST", "/finish", body=b"",
                     headers={"Content-Type": "application/octet-stream"})
        return json.loads(conn.getresponse().read())["corrupted"]
    finally:
        conn.close()


def _cpp_median(peer, endpoint, iterations, cpus, scratch, notes):
    samples, result = Path(scratch) / "samples.i64", Path(scratch) / "result.json"
    argv = placement.pin([*peer, "drive", "--mechanism", "rest", "--endpoint", endpoint,
                          "--request-size", str(SIZE), "--response-size", str(SIZE),
                          "--iterations", str(iterations),
                          "--warmup", str(max(1000, iterations // 10)),
                          "--samples-file", str(samples), "--result-file", str(result)],
                         cpus.client)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        notes.append(f"C++ client round failed (exit {done.returncode}): {done.stderr.strip()}")
        return None
    data = np.fromfile(samples, dtype="<i8")
    return reduce.median(data)


def _mid(values):
    return reduce.median([v for v in values if v is not None])


def _table(medians, iterations, seconds, rounds, where, cpus):
    table = Table(title=f"REST call, {SIZE} B each way, one connection: C++ client "
                        f"({iterations} calls) beside wrk ({seconds} s), {rounds} rounds, "
                        f"{where} {cpus.as_dict()}")
    for name in ("round", "wrk median", "C++ client median", "C++ / wrk"):
        table.add_column(name, justify="left" if name == "round" else "right")
    ratios = []
    for r, (w, c) in enumerate(zip(medians["wrk"], medians["cpp"]), start=1):
        ratio = c / w if c and w else None
        ratios.append(ratio)
        table.add_row(str(r), format_ns(w), format_ns(c), f"{ratio:.3f}" if ratio else "-")
    ratio = _mid(ratios)
    table.add_section()
    table.add_row("median", format_ns(_mid(medians["wrk"])), format_ns(_mid(medians["cpp"])),
                  f"{ratio:.3f}" if ratio else "-")
    verdict = "not measured" if ratio is None else ("yes" if ratio <= TARGET else "[red]no[/]")
    table.caption = (f"target: C++ client / wrk ≤ {TARGET:.2f}: {verdict} "
                     f"(wrk reports whole microseconds)")
    return table
