"""`ipclab hosts check` (execute/hostcheck.py): what a host's row says, what to do about it, and
the clock offset's method. The ssh side is in test_ssh_hosts.py (two network namespaces)."""
from ipclab.execute import hostcheck
from ipclab.output.hosts import problem_lines


def row(**kw):
    values = {"host": "ssh://lab", "path": "/srv/ipclab", "revision": "a" * 40,
              "built": ["cpp", "java", "python"], "facts": {"somaxconn": "4096"}, **kw}
    return hostcheck.HostRow(**values)


def test_a_ready_host_has_nothing_to_do():
    ready = row()
    hostcheck._judge(ready, "a" * 40, backlog=512)
    assert ready.problems == []


def test_each_thing_missing_is_a_line_naming_the_host_and_what_to_do():
    behind = row(revision="b" * 40, built=["cpp"], missing=["java", "python"],
                 facts={"somaxconn": "128"})
    hostcheck._judge(behind, "a" * 40, backlog=512)
    lines = problem_lines([behind])
    assert lines == [
        "ssh://lab: its checkout is at bbbbbbbbbbbb, this one at aaaaaaaaaaaa: bring it to the "
        "same revision and build it",
        "ssh://lab: peers not built: java, python: run `make build` in /srv/ipclab",
        "ssh://lab: somaxconn 128 caps the backlog of 512 the scenario asks: "
        "sysctl -w net.core.somaxconn=512"]
    bare = row(revision=None)
    hostcheck._judge(bare, "a" * 40, backlog=None)
    assert bare.problems == ["no ipclab checkout at /srv/ipclab: clone it there and run "
                             "`make build`"]


def test_the_clock_offset_of_this_host_is_zero_within_its_uncertainty():
    offset, uncertainty = hostcheck.clock_offset(hostcheck.CLOCK)
    assert uncertainty is not None and 0 < uncertainty < 10**9
    assert abs(offset) <= uncertainty  # one clock: the answer was made between send and receive


def test_a_process_that_does_not_answer_with_a_clock_has_no_offset():
    assert hostcheck.clock_offset(["sh", "-c", "while read -r line; do echo noon; done"]) == (
        None, None)
    assert hostcheck.clock_offset(["true"]) == (None, None)
