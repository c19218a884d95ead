"""The execute part (parts.py's `Part`) of the patterns without a module of their own: an
exchange of requests and responses (rr, short) or a stream of messages, each by its row's
methods (plan/patterns.py). Their peers take no flags beyond the client's sizes, counts and
files, and a round keeps only what the client's result and the run say (a stream's figures,
short's TIME_WAIT)."""
from ipclab.execute import wire
from ipclab.execute.budget import effective_warmup, expected_samples

SERVER_ENDS_ITSELF = False  # the server serves until it is stopped


def server_flags(case, run, case_dir):
    return []


def drive_flags(case, run, case_dir):
    """The client's flags for the case's pattern (PROTOCOL.md section 1's usage lines): its
    row's for the sizes, counts and warm-up, then the files."""
    files = ["--io-timeout", f"{run.io_timeout:g}", "--samples-file", str(case_dir / "samples.i64"),
             "--result-file", str(case_dir / "result.json")]
    return ["--pattern", case.pattern.name,
            *case.pattern.client_flags(case, run, effective_warmup(case, run), case_dir), *files]


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
    sockets counted after it (None where not counted): the row's."""
    return outcome.case.pattern.round_entry(outcome, key)


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
