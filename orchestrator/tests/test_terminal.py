"""The terminal output: fits the width, one line per kind of warning, skipped cases counted."""
import io

import pytest
from rich.console import Console

from ipclab.output import model, sections, terminal
from test_renderers import records


def render(records, title, baseline_label, compare, notes=(), width=120, wide=False,
           verbose=False, studies=()):
    """What the terminal prints of a Report made of loose records."""
    report = model.of_records(records, title, baseline_label, compare, notes, studies)
    return terminal.render(sections.page(report), terminal.Options(width, wide, verbose))


def shown(width, wide=False, verbose=False, extra=()):
    rs = records() + list(extra)
    console = Console(file=io.StringIO(), width=width, force_terminal=False)
    for line, at in render(rs, "ipclab: t", "tcp", "median", ["a note"], width, wide, verbose):
        console.width = at or width
        console.print(line)
    return console.file.getvalue().splitlines()


def not_applicable(index, reason):
    return {**records()[0], "index": index, "status": "not-applicable", "reason": reason,
            "placement": "same-core", "warnings": []}


@pytest.mark.parametrize("width", [40, 60, 80, 100, 120])
def test_every_line_fits_the_width(width):
    assert max(len(line) for line in shown(width)) <= width


def test_columns_by_priority():
    narrow, full = "\n".join(shown(80)), "\n".join(shown(120))
    assert "median [95% CI]" in narrow and "p99" not in narrow
    assert "failed: round 2" in "\n".join(shown(100))  # a failed case: status outranks the ratio
    assert "× base [95% CI]" in full and "0.50 [" in full and "mean ± 95% CI" not in full
    wide = shown(100, wide=True)
    assert "mean ± 95% CI" in "\n".join(wide) and "end of stream" in "\n".join(wide)


def test_skipped_cases_are_one_line_and_warnings_one_line_per_kind():
    extra = [not_applicable(10 + i, "the Python peer has no jni drive role") for i in range(40)]
    extra += [{**not_applicable(60, "udp over 65507 B"), "status": "unavailable"}]
    lines = shown(100, extra=extra)
    assert sum("not applicable" in line for line in lines) == 1
    assert any(line.startswith("41 cases not applicable") or
               "40× the Python peer has no jni drive role" in line for line in lines)
    assert sum("unavailable" in line for line in lines) == 1
    assert not any(line.strip().startswith(("10 ", "11 ")) for line in lines)  # no rows for them
    kinds = [line for line in lines if line.startswith("warning:")]
    assert len(kinds) == len({line.split(" in ")[0] for line in kinds})
    assert "note: a note" in lines


def test_a_fact_with_nothing_to_do_is_a_note_not_a_warning():
    shifted = {**records()[0], "index": 70, "warnings": [
        {"kind": "shift", "text": "slowed from the first tenth to the last in round 1, 2"}]}
    lines = shown(200, extra=[shifted])
    assert any(line.startswith("note: a shift within rounds in 1 case (70)") for line in lines)
    assert not any(line.startswith("warning: a shift") for line in lines)


def test_verbose_prints_every_warning_of_every_case():
    rs = records()
    total = sum(len(r["warnings"]) for r in rs if r["status"] not in ("not-applicable",))
    lines = shown(100, verbose=True)
    assert sum(line.startswith("warning: case ") for line in lines) == total


def test_burst_cases_of_one_pattern_still_show_their_server_models():
    rs = [dict(r, pattern="burst", server_model=m, placement="cross-core")
          for r, m in zip([r for r in records() if r["status"] == "ok"][:2], ("thread", "epoll"))]
    console = Console(file=io.StringIO(), width=120, force_terminal=False)
    for line, at in render(rs, "ipclab: t", None, "median", [], 120):
        console.print(line)
    text = console.file.getvalue()
    assert "burst thread" in text and "burst epoll" in text
