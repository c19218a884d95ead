"""A claim's own figures: the study's cells it is read from (`figures = [{ a = …, b = …, unit =
…, cell = "…" }]`), as data beside the claim, so that `ipclab claims check` can judge the claim on
them (analyse/claim_check.py) and no claim can say what its study's numbers contradict.

A row is one comparison the study's table or text gives: `a` (and, for a claim comparing cases,
`b`: one number, or a list for "between") in the row's `unit`, with `cell` saying where it is
("Table 4.1, 16 B/1 KiB") and `at` the cell's place on the matrix's axes ({ request_size = 16,
response_size = 262144 }). A claim carries its table's rows, and `where` picks those it speaks
of: a row whose `at` lies outside the claim's `where` is not about it, so that narrowing or
widening a claim is checked against the cells it then covers. Units are the study's: times (ns, µs, ms, s, or % of a reference time), rates (/s) or bytes (B);
a time against a rate claim (or the other way round) is inverted, since a rate is per time."""
from dataclasses import dataclass, field

# "%": times a study gives as shares of one reference time ("63% of the socket's time"): the ratio
# of two is the ratio of the times, so a row in % needs its b (the reference's share, often 100).
TIME_UNITS = {"ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9, "%": 1.0}
RATE_UNITS = {"/s": 1.0}
BYTE_UNITS = {"B": 1.0}
UNITS = {**TIME_UNITS, **RATE_UNITS, **BYTE_UNITS, "": 1.0}   # "": a pure number (cv, a ratio)
KEYS = ("a", "b", "unit", "cell", "at")


@dataclass(frozen=True)
class Figure:
    a: float
    b: object = None        # None, a number, or a tuple of numbers ("between")
    unit: str = ""
    cell: str = ""
    at: dict = field(default_factory=dict)   # axis -> the cell's value on it

    def kind(self):
        return ("time" if self.unit in TIME_UNITS else "rate" if self.unit in RATE_UNITS
                else "bytes" if self.unit in BYTE_UNITS else "number")

    def scaled(self, x):
        """x in the claim's own units (ns for times, per second for rates)."""
        return x * UNITS[self.unit]


def parse(raw, fail, check_axis):
    """The Figures of a claim's `figures` list; `fail(key, message)` raises the one-line error,
    `check_axis(axis, value, where)` checks an `at` value as the matrix checks that axis."""
    if not isinstance(raw, list) or not all(isinstance(f, dict) for f in raw):
        fail("figures", "must be an array of tables like { a = 29714, b = 33996, unit = \"ms\", "
                        "cell = \"Java, the 5 runs' mean\" }")
    return tuple(_figure(f, i, fail, check_axis) for i, f in enumerate(raw))


def _figure(raw, i, fail, check_axis):
    where = f"figures[{i}]"
    for key in raw:
        if key not in KEYS:
            fail(f"{where}.{key}", f"unknown key (known: {', '.join(KEYS)})")
    if "a" not in raw:
        fail(f"{where}.a", "missing")
    unit = raw.get("unit", "")
    if unit not in UNITS:
        fail(f"{where}.unit", f"unknown value {unit!r} (known: "
                              f"{', '.join(u for u in UNITS if u)}, or none for a number)")
    b = raw.get("b")
    if unit == "%" and b is None:
        fail(f"{where}.b", "a time in % is a share of a reference: give the reference's share as b")
    numbers = [raw["a"], *(b if isinstance(b, list) else [] if b is None else [b])]
    for x in numbers:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or x <= 0:
            fail(f"{where}", f"{x!r}: a study's figure must be a positive number")
    if isinstance(b, list) and not b:
        fail(f"{where}.b", "an empty list")
    at = raw.get("at", {})
    if not isinstance(at, dict):
        fail(f"{where}.at", f"{at!r} must be a table of axes, like {{ request_size = 16 }}")
    at = {axis: check_axis(axis, v, f"{where}.at.{axis}") for axis, v in at.items()}
    return Figure(float(raw["a"]), tuple(map(float, b)) if isinstance(b, list)
                  else None if b is None else float(b), unit, str(raw.get("cell", "")), at)


def in_scope(figure, where):
    """The row is about a claim narrowed by `where`: each axis of its cell that `where` names
    has one of where's values."""
    return all(v in where[axis] for axis, v in figure.at.items() if axis in where)


def describe(figure):
    """"29 714 ms against 33 996 ms" as the study gives them."""
    def one(x):
        return f"{x:g}{(' ' + figure.unit) if figure.unit else ''}"
    if figure.b is None:
        return one(figure.a)
    others = figure.b if isinstance(figure.b, tuple) else (figure.b,)
    return f"{one(figure.a)} against {', '.join(one(x) for x in others)}"
