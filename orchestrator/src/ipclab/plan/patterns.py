"""The traffic patterns (PROTOCOL.md section 11) as one table, as each peer has its own: what the
orchestrator knows of a pattern is in its row here, and the stages read the row's traits, never
the pattern's name. Adding a pattern: docs/extending.md, "Add a pattern"."""
from dataclasses import dataclass

# What a case of the pattern is shaped by: a request and a response size (and the structured
# payloads), or one message size.
EXCHANGE, MESSAGE = "exchange", "message"

# Every burst server model the contract names (11.4); which language has which comes from its
# peer's capabilities (server_models).
SERVER_MODELS = ("iterative", "thread", "virtual-thread", "process", "thread-pool",
                 "process-pool", "epoll", "epoll-reuseport", "io_uring", "nio", "asyncio")
BURST_RUN_LIMITS = {"connectors": 10000, "processes": 64, "backlog": 65535}  # the contract's ranges


@dataclass(frozen=True)
class Pattern:
    name: str
    section: str                # of PROTOCOL.md
    sample: str                 # what one sample is
    shape: str = EXCHANGE
    records: bool = False       # carries the structured records (--payload), not just sizes
    server_models: bool = False  # a case per server model (matrix axis server_model)


RR = Pattern("rr", "11", "round trips")
STREAM = Pattern("stream", "11.1", "a stream window's time per message", shape=MESSAGE)
SHORT = Pattern("short", "11.2", "whole connections")
BURST = Pattern("burst", "11.4", "connections", server_models=True)

PATTERNS = {p.name: p for p in (RR, STREAM, SHORT, BURST)}
NAMES = tuple(PATTERNS)
DEFAULT = RR


def of(name):
    """The pattern named `name`; a saved record from before patterns existed is rr."""
    return PATTERNS[name or DEFAULT.name]
