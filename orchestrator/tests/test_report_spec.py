"""The names a scenario's [report] may use (plan/report_spec.py) are exactly those the renderers
implement (output/study.py SHAPES, output/pivot.py CELLS and axes): a name in one and not the
other would be accepted and then fail, or be implemented and refused."""
from ipclab.output import pivot, study
from ipclab.plan import report_spec


def test_every_table_shape_has_a_renderer():
    assert set(report_spec.TABLE_NAMES) == {"cases", "pivot", *study.SHAPES}


def test_every_pivot_cell_has_a_statistic():
    assert set(report_spec.PIVOT_CELLS) == set(pivot.CELLS)


def test_every_pivot_axis_has_a_value():
    record = {"mechanism": "tcp", "client": "cpp", "server": "java", "pattern": "rr",
              "request_size": 16, "response_size": 16, "message_size": None, "payload": "bytes",
              "sequence_length": None, "placement": "same-core"}
    for axis in report_spec.PIVOT_AXES:
        pivot.axis_value(record, axis)  # a KeyError would name an axis it cannot read
    assert pivot.axis_value(record, "pair") == "cpp→java"
