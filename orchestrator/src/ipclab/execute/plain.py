"""The execute part (parts.py's `Part`) of the patterns without a module of their own: an
exchange of requests and responses (rr, short) or a stream of messages, each by its row's
traits. Their peers take no flags beyond the client's sizes, counts and files, and a round keeps
only what the client's result and the run say (a stream's figures, short's TIME_WAIT)."""
from ipclab.execute import wire
from ipclab.execute.budget import effective_warmup, expected_samples
from ipclab.plan import patterns
from ipclab.records.fields import STREAM_RESULT

SERVER_ENDS_ITSELF = False  # the server serves until it is stopped


def server_flags(case, run, case_dir):
    return []


def drive_flags(case, run, case_dir):
    """The client's flags for the case's pattern (PROTOCOL.md section 1's usage lines)."""
    pattern = patterns.of(case.pattern)
    files = ["--io-timeout", f"{run.io_timeout:g}", "--samples-file", str(case_dir / "samples.i64"),
             "--result-file", str(case_dir / "result.json")]
    if pattern.shape == patterns.MESSAGE:
        return ["--pattern", case.pattern, "--message-size", str(case.message_size),
                "--messages", str(run.messages),
                "--windows", str(expected_samples(case, run)),
                "--warmup", str(effective_warmup(case, run)), *files]
    if case.payload == "bytes":
        what = ["--request-size", str(case.request_size), "--response-size", str(case.response_size)]
    else:
        what = ["--payload", case.payload, "--sequence-length", str(case.sequence_length)]
    warmup = effective_warmup(case, run)
    # Only with a warm-up (nothing to record without one) and only where the client keeps it:
    # the stream pattern refuses the flag (PROTOCOL.md 11.1).
    keep_warmup = (["--warmup-samples-file", str(case_dir / "warmup.i64")]
                   if warmup and pattern.keeps_warmup else [])
    return ["--pattern", case.pattern, *what,
            "--warmup", str(warmup), "--iterations", str(run.iterations), *keep_warmup, *files]


def before(place):
    return None


def finish(server, case_dir):
    """The server serves until it is stopped: nothing to wait for."""


def collect(case_dir, before, run, time_wait, place):
    return None


def ok_samples(case, run, result):
    """Samples an ok client writes: its iterations (a stream: its windows)."""
    return expected_samples(case, run)


def units(case, run, result):
    """Measured calls (or a stream's messages) of the measured pair."""
    return wire.units(case, run)


def calibration_run(run):
    """One measured call (a stream: one message)."""
    return wire.calibration_run(run)


def round_entry(outcome, key):
    """A stream's figures from the client's result file (an ok round's); for short, the TIME_WAIT
    sockets counted after it (None where not counted)."""
    pattern = patterns.of(outcome.case.pattern)
    if pattern.per_window:
        ok = outcome.status == "ok" and outcome.client
        return {key: {k: outcome.client.get(k) for k in STREAM_RESULT}} if ok else {}
    return {key: outcome.time_wait} if key else {}


def save_files(run_dir, case, round_index, info):
    """Nothing of its own to keep: the samples are the run directory's."""


def searches(case):
    return False


def search(run_step, case, run, passes=None):
    raise NotImplementedError("a plain pattern's case is not run as steps")


def shares(case, run, hosts):
    raise NotImplementedError("a plain pattern's client is not spread over hosts")


def merge_hosts(hosts, case_dir):
    raise NotImplementedError("a plain pattern's client is not spread over hosts")
