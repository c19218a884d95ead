"""Exporters: pure functions from records (and the run document) to text. No I/O here."""
from ipclab.export.csv import to_csv
from ipclab.export.json import to_json
from ipclab.export.markdown import to_markdown

__all__ = ["to_csv", "to_json", "to_markdown"]
