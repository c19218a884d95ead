"""Test-only launcher: runs a real peer, adding `--fault FAULT` when it serves.
Usage: fault_wrapper.py FAULT REAL-PEER-COMMAND... -- serve|drive FLAGS...
FAULT: flip-response-byte (PROTOCOL.md 6), drop-stream-message, flip-stream-byte (11.1)."""
import os
import sys

split = sys.argv.index("--")
fault, real, rest = sys.argv[1], sys.argv[2:split], sys.argv[split + 1:]
if rest and rest[0] == "serve":
    rest = rest + ["--fault", fault]
os.execv(real[0], real + rest)
