"""run.json: the whole run, versioned (see ipclab.execute.rundir.SCHEMA for the history)."""
import json


def to_json(document):
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
