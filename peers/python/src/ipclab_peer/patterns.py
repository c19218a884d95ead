"""The one table of the traffic patterns this peer drives (PROTOCOL.md section 11).

A pattern names, per mechanism family (mechanisms.py), the function that drives it:
`driver(config, mechanism, recorder)` connects through `mechanism.connect`, runs the traffic
and hands each validated sample to `recorder.add(index, nanoseconds)` (result.Recorder).
`samples(config)` says how many warm-up and measured samples it makes. A mechanism drives the
patterns its table entry lists (`Mechanism.patterns`) for which its family has a driver.
Adding a pattern is one entry here and its driver function(s). A broker's link
(transport/amqp.py) behaves as a datagram link, so rr and stream drive it unchanged.
"""
from dataclasses import dataclass
from typing import Callable

from . import inproc, rr, short, stream
from .load import frames as load_frames
from .load import rpc as load_rpc
from .load import schedule
from .mechanisms import BROKER, DATAGRAMS, FRAMES, INPROC, RPC
from .rpc import drive as rpc_drive


def _round_trips(config):
    return config.warmup, config.iterations


def _windows(config):
    return 0, config.windows


def _scheduled(config):
    """Load (PROTOCOL.md 11.5): at most one sample per measured request of the schedule."""
    return 0, schedule.of(config).measured


@dataclass(frozen=True)
class Pattern:
    name: str
    sample: str  # what one sample is
    drivers: dict  # family -> driver
    samples: Callable = _round_trips  # config -> (warm-up samples, measured samples)


PATTERNS = {pattern.name: pattern for pattern in (
    Pattern("rr", "one request-response round trip",
            {FRAMES: rr.run, DATAGRAMS: rr.run, INPROC: inproc.rr, RPC: rpc_drive.rr,
             BROKER: rr.run}),
    Pattern("stream", "the time of one window of a one-way stream",
            {FRAMES: stream.run, DATAGRAMS: stream.run, RPC: rpc_drive.stream,
             BROKER: stream.run}, _windows),
    # RPC: the client opens a connection per call itself (rest: Connection: close).
    Pattern("short", "one whole connection: open, request, response, close",
            {FRAMES: short.run, RPC: rpc_drive.rr}),
    Pattern("load", "one request's response time from its intended start",
            {FRAMES: load_frames.run, RPC: load_rpc.run}, _scheduled),
)}


def driver_of(mechanism, name):
    """The driver of pattern `name` for `mechanism`, or None where it does not do it."""
    pattern = PATTERNS.get(name)
    if pattern is None or name not in mechanism.patterns or mechanism.connect is None:
        return None
    return pattern.drivers.get(mechanism.family)


def patterns_of(mechanism):
    """The names of the patterns a mechanism's client drives."""
    return [name for name in mechanism.patterns if driver_of(mechanism, name)]
