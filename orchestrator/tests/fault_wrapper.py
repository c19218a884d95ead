"""Test-only launcher: runs a real peer, adding `--fault flip-response-byte` when it serves.
Usage: fault_wrapper.py REAL-PEER-COMMAND... -- serve|drive FLAGS..."""
import os
import sys

split = sys.argv.index("--")
real, rest = sys.argv[1:split], sys.argv[split + 1:]
if rest and rest[0] == "serve":
    rest = rest + ["--fault", "flip-response-byte"]
os.execv(real[0], real + rest)
