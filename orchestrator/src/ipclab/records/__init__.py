"""Records: what a run's records are, belonging to no stage. run.json's schema and its history
(schema.py), the names of the fields each measurement adds to a record (fields.py), and the
small readers every stage may apply to a record (precision.py). The executor writes records,
the analysis and the output read them; none of them owns their shape."""
