"""The one table of the traffic patterns this peer drives (PROTOCOL.md section 11).

A pattern names, per mechanism family (mechanisms.py), the function that drives it:
`driver(config, mechanism, recorder)` connects through `mechanism.connect`, runs the traffic
and hands each validated sample to `recorder.add(sequence, nanoseconds)` (result.Recorder).
A family without an entry does not do the pattern (unsupported, exit 7). Adding a pattern is
one entry here and its driver function(s).
"""
from dataclasses import dataclass

from . import inproc, rr
from .mechanisms import DATAGRAMS, FRAMES, INPROC, RPC
from .rpc import drive as rpc_drive


@dataclass(frozen=True)
class Pattern:
    name: str
    sample: str  # what one sample is
    drivers: dict  # family -> driver


PATTERNS = {pattern.name: pattern for pattern in (
    Pattern("rr", "one request-response round trip",
            {FRAMES: rr.run, DATAGRAMS: rr.run, INPROC: inproc.rr, RPC: rpc_drive.rr}),
)}


def patterns_of(mechanism):
    """The names of the patterns a mechanism's client drives."""
    if mechanism.connect is None:
        return []
    return [name for name, pattern in PATTERNS.items() if mechanism.family in pattern.drivers]
