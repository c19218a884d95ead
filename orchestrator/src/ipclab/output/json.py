"""run.json: the page's document, the whole run, versioned (see ipclab.records.schema for the
history). Pure: a page in, text out."""
import json


def render(page, options=None):
    return json.dumps(page.document, indent=1, ensure_ascii=False) + "\n"
