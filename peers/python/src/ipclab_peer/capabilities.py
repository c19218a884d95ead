"""`capabilities` (PROTOCOL.md section 1): what this peer implements, from the same tables
that drive it (mechanisms.py, patterns.py), so the answer cannot drift from what it does."""
import json
import sys

from .mechanisms import MECHANISMS
from .patterns import patterns_of
from .runtime import CONTRACT, LANGUAGE, runtime


def answer():
    return {
        "contract": CONTRACT,
        "language": LANGUAGE,
        "runtime": runtime(),
        "mechanisms": {
            name: {"roles": list(mechanism.roles), "patterns": patterns_of(mechanism),
                   "max_payload": mechanism.max_payload()}
            for name, mechanism in MECHANISMS.items()
        },
    }


def capabilities(config=None):
    sys.stdout.write(json.dumps(answer()) + "\n")
    sys.stdout.flush()
    return 0
