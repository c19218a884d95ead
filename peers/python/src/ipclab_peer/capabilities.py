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
        "mechanisms": {name: entry(mechanism) for name, mechanism in MECHANISMS.items()},
    }


def entry(mechanism):
    described = {"roles": list(mechanism.roles), "patterns": patterns_of(mechanism),
                 "max_payload": mechanism.max_payload()}
    if mechanism.server_models:
        described["server_models"] = list(mechanism.server_models)
    if "load" in described["patterns"]:
        described["load_models"] = list(mechanism.load_models)
    if mechanism.codec:  # thrift-*: which of the library's codecs this peer uses
        described["codec"] = mechanism.codec
    if mechanism.library:  # zmq-*, nng-*, redis-*, nats: the library and its version (4.8-4.11)
        described["library"] = mechanism.library()
    return described


def capabilities(config=None):
    sys.stdout.write(json.dumps(answer()) + "\n")
    sys.stdout.flush()
    return 0
