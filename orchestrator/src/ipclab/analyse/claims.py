"""Verdicts on a study's claims (plan/claims.py) from the run's intervals. Pure: records and kept
samples in, one Verdict per claim out. The rule is RULE below, written into every report that
shows verdicts. A pair is judged in analyse/claim_pairs.py; here pairs become the study's verdict
(the pairs that meet the claim's condition) and the rows beyond the study (every other pair the
run has, grouped by how it differs from the study's condition)."""
import math
from dataclasses import asdict, dataclass, field

from ipclab.analyse import claim_pairs
from ipclab.analyse.claim_pairs import CANNOT_TELL, FAILS, HOLDS, VERDICTS  # noqa: F401
from ipclab.plan import claims as claim_table
from ipclab.plan.matrix import axis_value

RULE = (
    "A comparison claim is judged on each pair of cases it names (an a case and the b case that "
    "agrees with it on every other axis, a setting where it applies to both): the ratio a/b of "
    "the statistic with its 95% interval. "
    "Times (median, mean, total) and their dispersion (sd, cv): the paired hierarchical "
    "bootstrap of the rounds both cases share, as for the ratio to a baseline; rates and burst "
    "phases: the ratio of the two intervals' far ends (independent, so wider); bytes on the wire: "
    "counted exactly, the interval is the figure. Against a number: the case's own interval. "
    "\"<\" holds when the whole interval lies below the value, fails when it lies wholly above, "
    "and cannot tell otherwise; \">\" the other way round. \"≈ v ± t\" holds when the interval "
    "overlaps the band v·(1 ± t) and the figure lies in it, fails when interval and band are "
    "apart, and cannot tell otherwise. \"between\": an a case holds when some b case lies wholly "
    "below it and some wholly above, fails when all lie on one side. A claim over several pairs "
    "fails when one pair fails, holds when every pair holds, and cannot tell otherwise (\"most\": "
    "holds when more than half hold, fails when half or more fail); one whose cases did not all "
    "run cannot tell. The verdict is the study's: only the pairs run as the study ran them (the "
    "claim's condition) decide it; every other pair of the run is a row beyond the study, judged "
    "by the same rule, which never changes the study's verdict. A pair with a case not "
    "applicable here (a server without that model, a combination the scenario excludes) is left "
    "out: the claim is not about it. Measured: the pair furthest from the claim.")
# A case's status when its peers cannot run it or the scenario excludes it (plan/matrix.py).
NOT_APPLICABLE = "not-applicable"
PairVerdict = claim_pairs.PairVerdict
_RANK = {FAILS: 0, CANNOT_TELL: 1, HOLDS: 2}
MANY_WAYS = "two or more conditions changed at once"


@dataclass
class Row:
    """The claim judged on some of the run's pairs: the study's (condition "") or one way
    beyond it ("pair cpp→cpp", "nodelay on")."""
    condition: str
    verdict: str
    pairs: list = field(default_factory=list)
    relation: str = ""           # the claim's, so that "furthest" has a direction
    value: float | None = None

    @property
    def measured(self):
        """Of the pairs with the worst verdict, the one nearest to failing (or furthest past
        it): the largest ratio for "<", the smallest for ">", the furthest from the value for
        "≈"; for "between", the first."""
        judged = [p for p in self.pairs if p.figure is not None]
        if not judged:
            return None
        worst = min(_RANK[p.verdict] for p in judged)
        return max((p for p in judged if _RANK[p.verdict] == worst), key=self._distance)

    def _distance(self, pair):
        if self.relation == "<":
            return pair.figure
        if self.relation == ">":
            return -pair.figure
        if self.relation == "≈" and self.value and pair.figure > 0:
            return abs(math.log(pair.figure / self.value))
        return 0   # max() keeps the first of equals


@dataclass
class Verdict:
    text: str
    source: str
    study_value: str
    statistic: str
    relation: str
    value: float
    tolerance: float | None
    comparison: bool             # a ratio a/b (True) or a's statistic against a number
    verdict: str
    pairs: list = field(default_factory=list)
    advice: str = ""             # what would settle a "cannot tell"
    condition: str = ""          # the study's condition in words ("" when it names none)
    beyond: list = field(default_factory=list)   # Rows beyond the study
    over: str = "every"

    @property
    def measured(self):
        """The figure and interval of the pair furthest from the claim (the one that decides)."""
        return Row("", self.verdict, self.pairs, self.relation, self.value).measured

    def as_dict(self):
        out = asdict(self)
        out["pairs"] = [asdict(p) for p in self.pairs]
        return out


def judge(claims, records, kept, seed=1, cache=None):
    """One Verdict per claim. `claims`: plan/claims.py Claims or their dicts (run.json's);
    `kept`: case id -> round -> kept samples; `cache` keeps ratios already drawn (a run
    publishes after every round)."""
    cache = {} if cache is None else cache
    return [judge_one(claim_table.Claim.of(c), records, kept, seed, cache) for c in claims]


def summary_line(verdicts):
    """"replication: 14 of 19 claims hold, 3 fail, 2 cannot tell"."""
    counts = {v: sum(1 for x in verdicts if x.verdict == v) for v in VERDICTS}
    beyond = [row for v in verdicts for row in v.beyond]
    differ = sum(1 for v in verdicts for row in v.beyond if row.verdict != v.verdict)
    return (f"replication: {counts[HOLDS]} of {len(verdicts)} claim"
            f"{'s' if len(verdicts) != 1 else ''} hold, {counts[FAILS]} fail, "
            f"{counts[CANNOT_TELL]} cannot tell" +
            (f" (beyond the study: {len(beyond)} row{'s' if len(beyond) != 1 else ''}, "
             f"{differ} with another verdict)" if beyond else ""))


def judge_one(claim, records, kept, seed=1, cache=None):
    cache = {} if cache is None else cache
    judged, left_out = _pairs(claim, records, kept, seed, cache)
    study = [p for meets, _, p in judged if meets]
    groups = {}   # one row per single way the pairs depart from the study, one for the rest
    for meets, differs, p in judged:
        if not meets:
            key = differs if ", " not in differs else MANY_WAYS
            groups.setdefault(key, []).append(p)
    base = dict(text=claim.text, source=claim.source, study_value=claim.study_value,
                statistic=claim.statistic, relation=claim.relation, value=claim.value,
                tolerance=claim.tolerance, comparison=claim.b is not None, pairs=study,
                condition=claim_table.describe(claim.condition), over=claim.over,
                beyond=[Row(k, combine(claim, v), v, claim.relation, claim.value)
                        for k, v in sorted(groups.items(), key=lambda kv: (kv[0] == MANY_WAYS, kv[0]))])
    if not study:
        return Verdict(**base, verdict=CANNOT_TELL, advice=_no_pairs(claim, judged, left_out))
    verdict = combine(claim, study)
    return Verdict(**base, verdict=verdict, advice=_advice(verdict, study, records))


def _pairs(claim, records, kept, seed, cache):
    """[(meets the study's condition, how it differs if not, PairVerdict)], and how many pairs
    were left out as not applicable."""
    a_cases, b_cases = claim_table.sides(claim, records)
    out, left_out = [], 0
    for a in a_cases:
        found = []
        for b in [None] if claim.b is None else [b for b in b_cases
                                                   if claim_pairs.paired(claim, a, b)]:
            if any(r is not None and r["status"] == NOT_APPLICABLE for r in (a, b)):
                left_out += 1
                continue
            cases = (a,) if b is None else (a, b)
            pair = (claim_pairs.against_number(claim, a, kept, seed, cache) if b is None
                    else claim_pairs.against_case(claim, a, b, kept, seed, cache))
            found.append((_differs(claim.condition, cases), pair))
        if claim.relation == "between":   # one verdict per a case and each way it ran
            for differs in dict.fromkeys(d for d, _ in found):
                mine = [p for d, p in found if d == differs]
                out.append((differs == "", differs,
                            claim_pairs.between(claim, claim_pairs.label(a), mine)))
        else:
            out += [(differs == "", differs, pair) for differs, pair in found]
    return out, left_out


def _differs(condition, cases):
    """"" when every case meets the condition, else how they depart from it: "pair cpp→cpp"."""
    words = []
    for axis, values in condition.items():
        if not all(claim_table.meets(c, {axis: values}) for c in cases):
            seen = dict.fromkeys(str(axis_value(c, axis)) for c in cases
                                 if not claim_table.meets(c, {axis: values}))
            words.append(f"{axis} {'/'.join(seen)}")
    return ", ".join(words)


def combine(claim, pairs):
    """A claim's verdict over `pairs`: every one must hold (or most, `over`)."""
    if not pairs:
        return CANNOT_TELL
    if claim.over == "most":
        holding = sum(1 for p in pairs if p.verdict == HOLDS)
        failing = sum(1 for p in pairs if p.verdict == FAILS)
        return (HOLDS if 2 * holding > len(pairs) else FAILS if 2 * failing >= len(pairs)
                else CANNOT_TELL)
    return (FAILS if any(p.verdict == FAILS for p in pairs)
            else HOLDS if all(p.verdict == HOLDS for p in pairs) else CANNOT_TELL)


def _no_pairs(claim, judged, left_out):
    if judged:
        return (f"no pair of its cases runs as the study did "
                f"({claim_table.describe(claim.condition)}): see the rows beyond the study")
    if left_out:
        return f"no pair of its cases applies to these peers ({left_out} not applicable)"
    return "no pair of its cases is in this run"


def _advice(verdict, pairs, records):
    if verdict != CANNOT_TELL:
        return ""
    if any(p.figure is None for p in pairs):
        return "; ".join(dict.fromkeys(p.why for p in pairs if p.figure is None))
    rounds = min((sum(1 for e in r.get("rounds") or [] if e.get("status") == "ok")
                  for r in records if r["status"] == "ok"), default=0)
    if rounds < 5:
        return (f"the intervals straddle the claim: run more rounds (--rounds 5 or more; "
                f"{rounds} here)")
    return "the intervals straddle the claim: the difference is within the noise; more " \
        "iterations or larger sizes would narrow them"
