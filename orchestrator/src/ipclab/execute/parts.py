"""A pattern's execute part: what the runner, the run directory and --explain ask of a case's
pattern, one interface (`Part`) every pattern answers. A pattern with peer flags and files of
its own names its module in its row's `execute` (plan/patterns.py: burst.py, load.py); the
others share plain.py's part, shaped by their row's methods (an exchange or a stream of
messages). The stages call the part they are handed and never ask which pattern it is."""
from typing import Callable, Protocol

from ipclab.execute import burst, load, plain


class Part(Protocol):
    SERVER_ENDS_ITSELF: bool  # the server exits by itself when done: its death fails the case

    def server_flags(self, case, run, case_dir) -> list:
        """The server's flags beyond the endpoint's."""

    def drive_flags(self, case, run, case_dir) -> list:
        """The client's flags: its pattern, sizes, counts, warm-up and files."""

    def before(self, place):
        """What to keep from before the server starts (a burst's kernel counters)."""

    def finish(self, server, case_dir) -> None:
        """After the client, before the peers are stopped (a burst server ends by itself)."""

    def collect(self, case_dir, before, run, time_wait, place) -> dict | None:
        """The round's own figures and file texts (Outcome.part), or None."""

    def ok_samples(self, case, run, result) -> int:
        """The samples an ok client writes."""

    def units(self, case, run, result) -> int:
        """What the pair measured (--explain's per-unit figures): calls, connections, requests."""

    def calibration_run(self, run):
        """The run settings of --explain's and the wire's calibration pair."""

    def round_entry(self, outcome, key) -> dict:
        """What run.json keeps of a round under the row's entry_key."""

    def save_files(self, run_dir, case, round_index, info) -> None:
        """Writes the round's own files (Outcome.part) into the run directory."""

    def searches(self, case) -> bool:
        """Whether the case runs as steps (load's rate sweep), by `search`."""

    def search(self, run_step: Callable, case, run, passes=None):
        """The outcome of a case run as steps of fresh pairs."""

    def shares(self, case, run, hosts) -> list:
        """Each client host's share of a case spread over hosts (execute/spread.py)."""

    def merge_hosts(self, hosts, case_dir) -> None:
        """The hosts' files made one client's."""


PARTS: dict[str, Part] = {module.__name__.rpartition(".")[2]: module for module in (burst, load)}


def part_of(case) -> Part:
    """The execute part of the case's pattern (a Case)."""
    return PARTS.get(case.pattern.execute, plain)
