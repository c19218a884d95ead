"""A study's conclusions as data: the scenario's `[[claim]]` tables, checked like every scenario
key, and the planned cases each claim is about. The verdicts are analyse/claims.py's.

A claim compares a statistic of the cases `a` selects with the same statistic of the cases `b`
selects (the ratio a/b against `value`, 1 unless given), or, without `b`, the statistic of `a`'s
cases against the number `value`. `where` narrows both sides. An `a` case is paired with every
`b` case that agrees with it on every axis neither selector names (same sizes, same pair...).

`condition` is the study's own way of running (its languages, placement, binding, Nagle...): the
claim's verdict is judged on the pairs whose cases meet it, and every other pair the run has is a
"beyond the study" row with a verdict of its own that never changes the study's. A setting in
`condition` is met by a case it does not apply to (a queue has no Nagle). `figures` are the
study's cells the claim is read from (plan/claim_figures.py), `no_figures` says why a claim has
none (the study says it in words, or in a chart whose numbers its text does not give). `over`:
"every" pair must hold (default), or "most" of them (the study says "usually", "almost every")."""
from dataclasses import asdict, dataclass, field

from ipclab.common.errors import UserError
from ipclab.plan import claim_figures
from ipclab.plan import settings as setting_table
from ipclab.plan.matrix import LEFT_OUT, axis_value

# "<" and ">" against the value; "≈" within ±tolerance (relative) of it ("~" is read as "≈");
# "between": an a case neither below nor above every b case it pairs with (second or third).
RELATIONS = ("<", ">", "≈", "between")
OVER = ("every", "most")
# What a claim may measure: the time statistics of the kept samples (intervals over the rounds;
# "total" is a round's sum, as a study that timed a whole loop reports it), their dispersion
# (standard deviation, and coefficient of variation sd/mean), the bytes a call puts on the wire
# (counted exactly, --wire-bytes), the rates with their intervals, and a burst server's phase
# means ("server:spawn").
TIME_STATISTICS = ("median", "mean", "total")
DISPERSION_STATISTICS = ("sd", "cv")
EXACT_STATISTICS = ("wire_req_bytes", "wire_resp_bytes")
RATE_STATISTICS = ("msgs_per_s", "conns_per_s", "mib_per_s")
PHASE_PREFIX = "server:"
KEYS = ("text", "source", "study_value", "a", "b", "where", "condition", "statistic", "relation",
        "value", "tolerance", "over", "figures", "no_figures")


@dataclass(frozen=True)
class Claim:
    text: str                   # the conclusion, as the study puts it
    a: dict                     # axis -> value or [values]
    relation: str
    b: dict | None = None       # None: a's statistic against `value`
    where: dict = field(default_factory=dict)
    statistic: str = "median"
    value: float = 1.0
    tolerance: float | None = None
    source: str = ""            # where the study states it (table, figure, section)
    study_value: str = ""       # the study's own figure, as it gives it
    condition: dict = field(default_factory=dict)  # the study's way of running: its verdict's
    over: str = "every"         # every pair must hold, or most of them
    figures: tuple = ()         # claim_figures.Figure rows: the study's cells
    no_figures: str = ""        # why there are none

    def as_dict(self):
        return asdict(self)

    @classmethod
    def of(cls, c):
        """A Claim from itself or its dict (run.json's; older runs lack the newer keys)."""
        if isinstance(c, cls):
            return c
        c = dict(c)
        c["figures"] = tuple(f if isinstance(f, claim_figures.Figure) else claim_figures.Figure(
            **{**f, "b": tuple(f["b"]) if isinstance(f.get("b"), list) else f.get("b")})
            for f in c.get("figures") or ())
        return cls(**c)


def parse(raw, source, check_axis, phases):
    """The Claims of a scenario's `claim` list. `check_axis(axis, value, where)` checks one value
    as the matrix checks that axis; `phases` are the burst phases a statistic may name."""
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        raise UserError(f"{source}: claim must be an array of tables ([[claim]])")
    return [_claim(c, f"claim[{i}]", source, check_axis, phases) for i, c in enumerate(raw)]


def _claim(raw, where, source, check_axis, phases):
    def fail(key, message):
        raise UserError(f"{source}: {where}.{key}: {message}")
    for key in raw:
        if key not in KEYS:
            fail(key, f"unknown key (known: {', '.join(KEYS)})")
    for key in ("text", "a", "relation"):
        if key not in raw:
            fail(key, "missing")
    relation = {"~": "≈"}.get(raw["relation"], raw["relation"])
    if relation not in RELATIONS:
        fail("relation", f"unknown value {raw['relation']!r} (known: {', '.join(RELATIONS)})")
    if relation == "between" and "b" not in raw:
        fail("relation", "\"between\" places a among b's cases: b is missing")
    over = raw.get("over", "every")
    if over not in OVER:
        fail("over", f"unknown value {over!r} (known: {', '.join(OVER)})")
    statistic = raw.get("statistic", "median")
    known = (*TIME_STATISTICS, *DISPERSION_STATISTICS, *EXACT_STATISTICS, *RATE_STATISTICS,
             *(PHASE_PREFIX + p for p in phases))
    if statistic not in known:
        fail("statistic", f"unknown value {statistic!r} (known: {', '.join(known)})")
    value = raw.get("value", 1.0 if "b" in raw else None)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        fail("value", f"{value!r} must be a positive number" +
             ("" if "b" in raw else " (a claim without b compares a with it)"))
    tolerance = raw.get("tolerance")
    if relation == "≈" and (isinstance(tolerance, bool) or not isinstance(tolerance, (int, float))
                            or not 0 < tolerance < 1):
        fail("tolerance", f"{tolerance!r}: a claim of \"≈\" needs a relative tolerance, "
                          f"0 < tolerance < 1 (0.2 for ±20%)")
    if relation != "≈" and tolerance is not None:
        fail("tolerance", "applies only to relation \"≈\"")
    figures = claim_figures.parse(raw["figures"], fail, check_axis) if "figures" in raw else ()
    if figures and raw.get("no_figures"):
        fail("no_figures", "a claim with figures needs no reason for having none")
    for figure_row, f in enumerate(figures):
        _check_figure(f, relation, "b" in raw, statistic,
                      lambda m, i=figure_row: fail(f"figures[{i}]", m))
    for key in ("text", "source", "study_value", "no_figures"):
        if key in raw and not isinstance(raw[key], (str, int, float)):
            fail(key, f"{raw[key]!r} must be text")
    selectors = {key: _selector(raw[key], f"{where}.{key}", source, check_axis)
                 for key in ("a", "b", "where", "condition") if key in raw}
    return Claim(text=str(raw["text"]), relation=relation, statistic=statistic,
                 value=float(value), tolerance=tolerance, source=str(raw.get("source", "")),
                 study_value=str(raw.get("study_value", "")), a=selectors["a"],
                 b=selectors.get("b"), where=selectors.get("where", {}),
                 condition=selectors.get("condition", {}), over=over, figures=figures,
                 no_figures=str(raw.get("no_figures", "")))


def _check_figure(figure, relation, comparison, statistic, fail):
    if comparison and figure.b is None:
        fail("the claim compares a with b: a figure row needs b too")
    if not comparison and figure.b is not None:
        fail("the claim compares a with its value: a figure row has a only")
    if isinstance(figure.b, tuple) != (relation == "between"):
        fail("b is a list of the other cases' figures for \"between\" only, one number otherwise")
    timed = (*TIME_STATISTICS, *RATE_STATISTICS, "sd")  # a rate is per time: either measures
    allowed = {"time": timed, "rate": timed, "bytes": EXACT_STATISTICS, "number": ("cv",)}
    if not statistic.startswith(PHASE_PREFIX) and statistic not in allowed[figure.kind()]:
        fail(f"unit {figure.unit or '(none)'!r} does not measure the claim's {statistic}")


def _selector(raw, where, source, check_axis):
    if not isinstance(raw, dict) or not raw:
        raise UserError(f"{source}: {where}: {raw!r} must be a table of axes, like "
                        f"{{ mechanism = \"fifo\" }}")
    out = {}
    for axis, value in raw.items():
        values = value if isinstance(value, list) else [value]
        out[axis] = [check_axis(axis, v, f"{where}.{axis}") for v in values]
    return out


def selects(case, selector):
    return all(axis_value(case, axis) in values for axis, values in selector.items())


def meets(case, condition):
    """`case` runs as `condition` says: `selects`, except that a setting the case does not
    have (it does not apply to its mechanism) is met whatever its value."""
    return all(axis_value(case, axis) in values
               or (axis in setting_table.NAMES and axis_value(case, axis) is None)
               for axis, values in condition.items())


def sides(claim, cases):
    """(a's cases, b's cases) of `claim` among `cases` (b's: [] for a claim against a number)."""
    a = [c for c in cases if selects(c, claim.where) and selects(c, claim.a)]
    b = [c for c in cases if selects(c, claim.where) and selects(c, claim.b)] if claim.b else []
    return a, b


def check_planned(claims, cases, source, overridden):
    """The claims whose cases, run as the study ran them (`condition`), are in the plan. A claim
    naming a case the scenario's own matrix does not hold is an error; one the command line's
    flags took out is set aside (the second value, one note)."""
    kept, aside = [], []
    # A case the scenario leaves out ([matrix] exclude, design) is no case of the plan: a claim
    # about such cases alone is the flags' doing (set aside) or the scenario's error.
    planned = [c for c in cases if not (c.skip_reason or "").startswith(LEFT_OUT)]
    for i, claim in enumerate(claims):
        a, b = sides(claim, [c for c in planned if meets(c, claim.condition)])
        missing = "a" if not a else "b" if claim.b and not b else None
        if missing is None:
            kept.append(claim)
        elif overridden:
            aside.append(claim)
        else:
            raise UserError(f"{source}: claim[{i}].{missing}: no case of the matrix is "
                            f"{describe({**claim.where, **getattr(claim, missing)})}")
    note = (f"{len(aside)} claim(s) of the scenario set aside: the flags took their cases out "
            f"of this run" if aside else None)
    return kept, note


def describe(selector):
    """"mechanism fifo/tcp, request_size 40": a selector in words."""
    return ", ".join(f"{axis} {'/'.join(map(str, values))}" for axis, values in selector.items())
