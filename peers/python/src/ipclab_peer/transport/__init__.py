"""Transports of PROTOCOL.md section 4: endpoint syntax, client connectors, server listeners."""
from .connect import connect
from .endpoints import MECHANISMS
from .links import Datagram, EndOfStream
from .listeners import listen

__all__ = ["MECHANISMS", "Datagram", "EndOfStream", "connect", "listen"]
