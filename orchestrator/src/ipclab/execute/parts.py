"""The execute/ modules of the patterns that bring their own peer flags and files, by the name
in their row's `execute` (plan/patterns.py). Each has the same functions: server_flags and
drive_flags (the peers' flags), before (what to keep from before the server starts), finish
(after the client), collect (the round's own figures and files), ok_samples (samples an ok
client writes), units (what a pair measured: connections, requests) and calibration_run (the
settings of --explain's calibration pair: one connection, a millisecond's load), round_entry (what run.json keeps), save_files (the files kept in the run
directory), searches and search (a case run as steps: load's rate sweep), shares and
merge_hosts (a case spread over client hosts, execute/spread.py: each host's share, the hosts'
files made one client's), and SERVER_ENDS_ITSELF."""
from ipclab.execute import burst, load
from ipclab.plan import patterns

PARTS = {module.__name__.rpartition(".")[2]: module for module in (burst, load)}


def part_of(case):
    """The case's pattern's own module (a Case), or None."""
    return PARTS.get(patterns.of(case.pattern).execute)
