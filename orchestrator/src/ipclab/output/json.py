"""run.json: the whole run, versioned (see ipclab.records.schema for the history)."""
import json


def to_json(document):
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
