"""What the command line (cli.py) hands to each subcommand: plain, frozen data, already
checked (PROTOCOL.md section 1)."""
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CapabilitiesConfig:
    pass


@dataclass(frozen=True)
class _MechanismConfig:
    """What both roles are given (COMMON_FLAGS)."""
    mechanism: str
    endpoint: Any  # a typed endpoint (transport/endpoints.py); the text if not parsed
    seed: int
    poll_interval_us: int
    spin_us: int
    nodelay: str  # "on" or "off": TCP_NODELAY on the peer's sockets (tcp, rest, grpc)
    # activemq (PROTOCOL.md 4.7): "non-persistent" or "persistent"; None when not given (then
    # non-persistent; given for another mechanism, unsupported: variants.py).
    delivery: Any


@dataclass(frozen=True)
class ServeConfig(_MechanismConfig):
    fault: str
    # Pattern burst (PROTOCOL.md 11.4): a burst server when server_model is given; with
    # pattern "load", a load server (11.5.1).
    pattern: Any = None
    server_model: Any = None
    connections: Any = None
    phases_file: Any = None
    # The listen() backlog of tcp and uds: the rr server's (contract 6) and a burst server's.
    backlog: int = 512
    workers: int = 4
    # Pattern stream over a byte stream (contract 6): the most message bytes one receive asks
    # for; 0: the reader's own greedy reads.
    read_size: int = 0
    # The flags given (an RPC load server refuses --workers and --backlog: unsupported).
    given: frozenset = frozenset()
    # iceoryx2's rr (PROTOCOL.md 4.12): "full" or "header" (a RESPONSE's header alone written,
    # a REQUEST's payload not read).
    sample_write: str = "full"


@dataclass(frozen=True)
class DriveConfig(_MechanismConfig):
    request_size: int
    response_size: int
    iterations: int
    samples_file: str
    result_file: str
    pattern: str
    warmup: int
    warmup_samples_file: Any
    io_timeout: float
    native_library: Any
    http_client: Any
    payload: str
    sequence_length: int
    message_size: int
    messages: int
    windows: int
    # Contract version 3's variants (PROTOCOL.md 1): --void, --rest-body, --corba-payload,
    # --one-way.
    void: bool
    rest_body: str
    corba_payload: str
    one_way: bool
    # Pattern load (PROTOCOL.md 11.5).
    clients: int
    rate: int
    arrival: str
    duration_ms: int
    warmup_ms: int
    records_file: Any
    # Contract 6 (PROTOCOL.md 1): short over tcp: "rotate" (11.2's source addresses) or "one"
    # (the kernel's choice); structured payloads: the ints' range and a record per case or per
    # call; mechanism none: "copy" (4.4) or "new-array" (the thesis's Mock).
    source: str = "rotate"
    value_range: str = "full"
    records: str = "one"
    mock: str = "copy"
    # iceoryx2's rr (PROTOCOL.md 4.12): "full" or "header" (a REQUEST's header alone written,
    # a RESPONSE's header and size alone checked).
    sample_write: str = "full"
