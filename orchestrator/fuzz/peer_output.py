"""Fuzz target (Atheris): what a peer prints and writes is input to the orchestrator. A server's
first line becomes its READY object or one PeerError; a client's result file becomes an accepted
result or a reason that fails the case (runner.result_problem) — never a traceback. The first
byte picks which; the corpus is fuzz/corpus/peer_output/."""
import json
import sys

import atheris

with atheris.instrument_imports():
    from ipclab.execute.peers import PeerError, parse_ready
    from ipclab.execute.runner import result_problem


def one_input(data):
    text = data[1:].decode("utf-8", errors="replace")
    if data[:1] == b"R":
        try:
            ready = parse_ready(text.split("\n", 1)[0])
        except PeerError:
            return
        assert isinstance(ready["endpoint"], str)
        return
    try:
        result = json.loads(text)
    except (ValueError, RecursionError):
        return  # the runner reads such a file as none: the case fails "(no result file)"
    if isinstance(result, dict):
        problem = result_problem(result)
        assert problem is None or isinstance(problem, str)


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
