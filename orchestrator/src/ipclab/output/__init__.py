"""Output: the Report of a run (model.py) and one renderer per format; the exporters here are pure
functions from the Report or its records to text (publish.py writes the files)."""
from ipclab.output.csv import to_csv
from ipclab.output.json import to_json
from ipclab.output.markdown import to_markdown
from ipclab.output.study import tables as study_tables
from ipclab.output.study import to_markdown as study_to_markdown

__all__ = ["to_csv", "to_json", "to_markdown", "study_tables", "study_to_markdown"]
