"""The one table of the traffic patterns this peer drives (PROTOCOL.md section 11).

A pattern names, per mechanism family (mechanisms.py), the function that drives it:
`driver(config, mechanism, recorder)` connects through `mechanism.connect`, runs the traffic
and hands each validated sample to `recorder.add(index, nanoseconds)` (result.Recorder).
`samples(config)` says how many warm-up and measured samples it makes. A mechanism drives the
patterns its table entry lists (`Mechanism.patterns`) for which its family has a driver.
Adding a pattern is one entry here and its driver function(s). A broker's link
(transport/amqp.py) behaves as a datagram link, so rr and stream drive it unchanged.
An entry's `flags` are the command line's rules for it (cli.py names no pattern).
"""
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import inproc, rr, short, stream
from .load import frames as load_frames
from .load import rpc as load_rpc
from .load import schedule
from .mechanisms import (BROKER, DATAGRAMS, FRAMES, ICEORYX2, INPROC, NATS, NNG, REDIS, RPC,
                         ZMQ)
from .rpc import drive as rpc_drive


def _round_trips(config):
    return config.warmup, config.iterations


def _windows(config):
    return 0, config.windows


def _scheduled(config):
    """Load (PROTOCOL.md 11.5): at most one sample per measured request of the schedule."""
    return 0, schedule.of(config).measured


@dataclass(frozen=True)
class Flags:
    """What the command line (cli.py) asks of a pattern. `takes`: the drive flags only it (and
    any other pattern naming them) takes; `refuses`: the common drive flags it does not; given
    where it does not belong, a flag is a usage error. `no_reply`: (field, flag) of its switch
    without a response, given with another pattern a usage error of its own (PROTOCOL.md 10.1,
    11.2). `sizes`: the request and response sizes when not given. `serves`: `serve --pattern`
    takes its name (a server model's load server, 11.5.1). `shares_queue`: its clients share
    one request queue (11.5.5), so over sysv-mq its endpoint, and only its, names a reply key."""
    takes: tuple = ()
    refuses: tuple = ()
    no_reply: Optional[tuple] = None
    sizes: Optional[tuple] = None
    serves: bool = False
    shares_queue: bool = False


@dataclass(frozen=True)
class Pattern:
    name: str
    sample: str  # what one sample is
    drivers: dict  # family -> driver
    samples: Callable = _round_trips  # config -> (warm-up samples, measured samples)
    flags: Flags = field(default_factory=Flags)


# --pattern when not given (PROTOCOL.md 1).
DEFAULT = "rr"
# Round-trip flags that a stream does not take (11.1), and the ones load does not (11.5.2).
_NOT_STREAM = ("--request-size", "--response-size", "--payload", "--sequence-length",
               "--iterations", "--warmup-samples-file", "--void", "--rest-body",
               "--corba-payload", "--one-way", "--value-range", "--records")
# callString (--corba-payload) is not part of load (11.5.4).
_NOT_LOAD = ("--payload", "--sequence-length", "--iterations", "--warmup",
             "--warmup-samples-file", "--void", "--corba-payload", "--one-way", "--value-range",
             "--records")

PATTERNS = {pattern.name: pattern for pattern in (
    Pattern("rr", "one request-response round trip",
            {FRAMES: rr.run, DATAGRAMS: rr.run, INPROC: inproc.rr, RPC: rpc_drive.rr,
             BROKER: rr.run, ZMQ: rr.run, NNG: rr.run, REDIS: rr.run, NATS: rr.run,
             ICEORYX2: rr.run},
            flags=Flags(no_reply=("void", "--void"))),
    Pattern("stream", "the time of one window of a one-way stream",
            {FRAMES: stream.run, DATAGRAMS: stream.run, RPC: rpc_drive.stream,
             BROKER: stream.run, ZMQ: stream.run, NNG: stream.run, REDIS: stream.run,
             NATS: stream.run, ICEORYX2: stream.run}, _windows,
            Flags(takes=("--message-size", "--messages", "--windows"), refuses=_NOT_STREAM)),
    # RPC: the client opens a connection per call itself (rest: Connection: close).
    Pattern("short", "one whole connection: open, request, response, close",
            {FRAMES: short.run, RPC: rpc_drive.rr},
            flags=Flags(takes=("--source",), no_reply=("one_way", "--one-way"))),
    # Its sizes when not given: the contract names none; the orchestrator's default.
    Pattern("load", "one request's response time from its intended start",
            {FRAMES: load_frames.run, RPC: load_rpc.run}, _scheduled,
            Flags(takes=("--clients", "--rate", "--arrival", "--duration-ms", "--warmup-ms",
                         "--records-file"),
                  refuses=_NOT_LOAD, sizes=(16, 16), serves=True, shares_queue=True)),
)}
# The drive flags some pattern takes as its own: no other pattern takes them.
_OWN = frozenset(name for pattern in PATTERNS.values() for name in pattern.flags.takes)


def flags_of(name):
    """The command line's rules for pattern `name`; a name not in the table takes none of
    the patterns' own flags (drive reports it unsupported, exit 7)."""
    pattern = PATTERNS.get(name)
    return Flags() if pattern is None else pattern.flags


def belongs(flag, flags):
    """Whether drive flag `flag` (its name) belongs to the pattern whose rules are `flags`."""
    return flag not in flags.refuses and (flag in flags.takes or flag not in _OWN)


def driver_of(mechanism, name):
    """The driver of pattern `name` for `mechanism`, or None where it does not do it."""
    pattern = PATTERNS.get(name)
    if pattern is None or name not in mechanism.patterns or mechanism.connect is None:
        return None
    return pattern.drivers.get(mechanism.family)


def patterns_of(mechanism):
    """The names of the patterns a mechanism's client drives."""
    return [name for name in mechanism.patterns if driver_of(mechanism, name)]
