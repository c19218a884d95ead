import pytest

from ipclab.common.errors import UserError
from ipclab.common.units import format_ns, format_size, parse_size


@pytest.mark.parametrize("text,expected", [
    (16, 16), ("16", 16), ("1KiB", 1024), ("128MiB", 134217728), ("64 KiB", 65536), ("0", 0),
    ("2GiB", 2 << 30), ("7B", 7),
])
def test_parse_size_accepts_units(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["12XB", "1kb", "-1", "", "1.5KiB", "KiB", True, -3])
def test_parse_size_rejects_with_the_value_named(text):
    with pytest.raises(UserError) as err:
        parse_size(text, "--request-size")
    assert "--request-size" in str(err.value)


def test_format_size_is_exact():
    assert [format_size(n) for n in (16, 1024, 1536, 134217728)] == \
        ["16 B", "1 KiB", "1536 B", "128 MiB"]


def test_format_ns_picks_a_readable_unit():
    assert format_ns(512) == "512 ns"
    assert format_ns(45_250) == "45.25 µs"
    assert format_ns(3_100_000) == "3.1 ms"
    assert format_ns(2.5e9) == "2.5 s"
    assert format_ns(None) == "-"
