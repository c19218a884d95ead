"""Exporters: pure functions from records (and the run document) to text. No I/O here."""
from ipclab.export.csv import to_csv
from ipclab.export.json import to_json
from ipclab.export.markdown import to_markdown
from ipclab.export.study import tables as study_tables
from ipclab.export.study import to_markdown as study_to_markdown

__all__ = ["to_csv", "to_json", "to_markdown", "study_tables", "study_to_markdown"]
