"""`ipclab bench rest` without a benchmark: its arguments, wrk's output, and wrk's request body
(a valid call payload, so the server answers wrk's requests like any call). No timing here."""
import json
import os
import re
import subprocess
import sys

import pytest

from ipclab.bench import http as bench_http
from ipclab.plan.catalog import repo_root

WRK_OUTPUT = """\
Running 2s test @ http://127.0.0.1:57289
  1 threads and 1 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    77.93us   45.12us   2.89ms   97.48%
    Req/Sec    13.72k     1.28k   15.57k    80.00%
  Latency Distribution
     50%   41.00us
     75%   81.00us
     90%   93.00us
     99%    1.88ms
  13772 requests in 2.00s, 1.94MB read
Requests/sec:   6856.48
Transfer/sec:    988.67KB
"""


def test_parse_wrk_reads_the_median_and_the_count():
    run = bench_http.parse_wrk(WRK_OUTPUT)
    assert run.median_ns == pytest.approx(41_000)
    assert run.requests == 13772
    assert (run.non_2xx, run.socket_errors) == (0, 0)


def test_parse_wrk_units_and_errors():
    text = WRK_OUTPUT.replace("     50%   41.00us", "     50%    1.25ms").replace(
        "Requests/sec", "  Non-2xx or 3xx responses: 7\n"
                        "  Socket errors: connect 0, read 2, write 1, timeout 3\nRequests/sec")
    run = bench_http.parse_wrk(text)
    assert run.median_ns == pytest.approx(1_250_000)
    assert (run.non_2xx, run.socket_errors) == (7, 6)
    assert bench_http.parse_wrk(WRK_OUTPUT.replace("41.00us", "2.00s")).median_ns == 2e9


@pytest.mark.parametrize("text", [
    "",
    "unable to connect to 127.0.0.1:1 Connection refused\n",
    WRK_OUTPUT.replace("     50%   41.00us\n", ""),  # run without --latency
    WRK_OUTPUT.replace("13772 requests in", "requests in"),
    WRK_OUTPUT.replace("41.00us", "41.00 parsecs"),
])
def test_parse_wrk_refuses_output_without_a_median(text):
    with pytest.raises(ValueError):
        bench_http.parse_wrk(text)


def test_payload_matches_the_protocol_vectors():
    vectors = json.loads((repo_root() / "protocol" / "vectors" / "vectors.json").read_text())
    streams = {"request": 1, "response": 2}
    checked = 0
    for v in vectors["payloads"]:
        if "hex" in v:
            got = bench_http.payload(v["seed"], streams[v["stream"]], v["sequence"], v["length"])
            assert got.hex() == v["hex"], v
            checked += 1
    assert checked >= 5


def test_wrk_script_posts_sequence_zeros_request():
    script = bench_http.wrk_script(seed=1)
    assert 'wrk.method = "POST"' in script
    assert f'wrk.path = "/call/0?wanted={bench_http.SIZE}"' in script
    assert 'wrk.headers["Content-Type"] = "application/octet-stream"' in script
    body = re.search(r'wrk\.body = "((?:\\\d{1,3})*)"', script).group(1)
    decoded = bytes(int(d) for d in body.split("\\")[1:])
    assert decoded == bench_http.payload(1, 1, 0, bench_http.SIZE)


def _bench_rest(*args, path=None):
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, "-m", "ipclab", "bench", "rest", *args],
                          capture_output=True, text=True, cwd=repo_root(), env=env, timeout=120)


@pytest.mark.parametrize("args,expected", [
    (["--rounds", "0"], "ipclab: error: --rounds: '0' is not a positive whole number"),
    (["--iterations", "many"], "ipclab: error: --iterations: 'many' is not a positive whole"),
    (["--seconds", "-1"], "ipclab: error: --seconds: '-1' is not a positive whole number"),
])
def test_bad_arguments_are_one_line_and_exit_2(args, expected):
    out = _bench_rest(*args)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [out.stderr.strip()]
    assert out.stderr.startswith(expected)


def test_missing_wrk_says_how_to_get_it(tmp_path):
    out = _bench_rest("--rounds", "1", path=str(tmp_path))  # an empty PATH: no wrk on it
    assert out.returncode == 2
    assert out.stderr.strip() == f"ipclab: error: {bench_http.WRK_HINT}"


def test_unknown_placement_is_exit_2():
    if bench_http.shutil.which("wrk") is None:
        pytest.skip("needs wrk: the wrk check comes first")
    out = _bench_rest("--placement", "sideways")
    assert out.returncode == 2
    assert out.stderr.startswith("ipclab: error: --placement: 'sideways' cannot be used here")
