"""Output: the Report of a run (model.py), the format-neutral page its sections make of it
(page.py, sections.py) and one renderer per format, each `render(page, options=None)`:
terminal.py, markdown.py, csv.py, json.py, html.py (publish.py and report/ write the files)."""
