"""Verdicts on a study's claims (plan/claims.py) from the run's intervals. Pure: records and kept
samples in, one Verdict per claim out. The rule is RULE below, written into every report that
shows verdicts."""
import functools
from dataclasses import asdict, dataclass, field

import numpy as np

from ipclab.analyse import stats
from ipclab.analyse.case_stats import case_seed
from ipclab.plan import claims as claim_table
from ipclab.plan.catalog import load_mechanisms
from ipclab.plan.matrix import case_label

RULE = (
    "A comparison claim is judged on each pair of cases it names (an a case and the b case that "
    "agrees with it on every other axis, a setting where it applies to both): the ratio a/b of "
    "the statistic with its 95% interval. "
    "Times (median, mean): the paired hierarchical bootstrap of the rounds both cases share, as "
    "for the ratio to a baseline; rates and burst phases: the ratio of the two intervals' far "
    "ends (independent, so wider); bytes on the wire: counted exactly, the interval is the "
    "figure. Against a number: the case's own interval (for the mean a hierarchical bootstrap "
    "over the rounds too). \"<\" holds when the whole interval lies below the value, fails when "
    "it lies wholly above, and cannot tell otherwise; \">\" the other way round. \"≈ v ± t\" "
    "holds when the interval overlaps the band v·(1 ± t) and the figure lies in it, fails when "
    "interval and band are apart, and cannot tell otherwise. A claim over several pairs fails "
    "when one pair fails, holds when every pair holds, and cannot tell otherwise; one whose "
    "cases did not all run cannot tell. A pair with a case not applicable here (a server without "
    "that model, a combination the scenario excludes) is left out: the claim is not about it. "
    "Measured: the pair furthest from the claim.")
# A case's status when its peers cannot run it or the scenario excludes it (plan/matrix.py).
NOT_APPLICABLE = "not-applicable"
HOLDS, FAILS, CANNOT_TELL = "holds", "fails", "cannot tell"
VERDICTS = (HOLDS, FAILS, CANNOT_TELL)
# Axes two cases of a pair may differ in only when a selector names them; "variant" stands for
# the mechanism, its pattern, server model and settings.
PAIR_AXES = ("mechanism", "client", "server", "request_size", "response_size", "message_size",
             "payload", "sequence_length", "placement", "pattern", "server_model", "settings")
_VARIANT_AXES = ("mechanism", "pattern", "server_model", "settings")


@dataclass
class PairVerdict:
    a: str                       # case labels
    b: str | None
    figure: float | None         # the ratio a/b, or a's statistic
    low: float | None
    high: float | None
    verdict: str
    why: str = ""


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

    @property
    def measured(self):
        """The figure and interval of the pair furthest from the claim (the one that decides)."""
        judged = [p for p in self.pairs if p.figure is not None]
        if not judged:
            return None
        rank = {FAILS: 0, CANNOT_TELL: 1, HOLDS: 2}
        return min(judged, key=lambda p: rank[p.verdict])

    def as_dict(self):
        out = asdict(self)
        out["pairs"] = [asdict(p) for p in self.pairs]
        return out


def judge(claims, records, kept, seed=1, cache=None):
    """One Verdict per claim. `claims`: plan/claims.py Claims or their dicts (run.json's);
    `kept`: case id -> round -> kept samples; `cache` keeps ratios already drawn (a run
    publishes after every round)."""
    cache = {} if cache is None else cache
    return [_judge(_claim(c), records, kept, seed, cache) for c in claims]


def summary_line(verdicts):
    """"replication: 14 of 19 claims hold, 3 fail, 2 cannot tell"."""
    counts = {v: sum(1 for x in verdicts if x.verdict == v) for v in VERDICTS}
    return (f"replication: {counts[HOLDS]} of {len(verdicts)} claim"
            f"{'s' if len(verdicts) != 1 else ''} hold, {counts[FAILS]} fail, "
            f"{counts[CANNOT_TELL]} cannot tell")


def _claim(c):
    return c if isinstance(c, claim_table.Claim) else claim_table.Claim(**c)


def _judge(claim, records, kept, seed, cache):
    a_cases, b_cases = claim_table.sides(claim, records)
    pairs, left_out = [], 0
    for a in a_cases:
        for b in [None] if claim.b is None else [b for b in b_cases if _paired(claim, a, b)]:
            if any(r is not None and r["status"] == NOT_APPLICABLE for r in (a, b)):
                left_out += 1
            elif b is None:
                pairs.append(_against_number(claim, a, kept, seed, cache))
            else:
                pairs.append(_against_case(claim, a, b, kept, seed, cache))
    comparison = claim.b is not None
    base = dict(text=claim.text, source=claim.source, study_value=claim.study_value,
                statistic=claim.statistic, relation=claim.relation, value=claim.value,
                tolerance=claim.tolerance, comparison=comparison, pairs=pairs)
    if not pairs:
        return Verdict(**base, verdict=CANNOT_TELL, advice=(
            f"no pair of its cases applies to these peers ({left_out} not applicable)"
            if left_out else "no pair of its cases is in this run"))
    verdict = (FAILS if any(p.verdict == FAILS for p in pairs)
               else HOLDS if all(p.verdict == HOLDS for p in pairs) else CANNOT_TELL)
    return Verdict(**base, verdict=verdict, advice=_advice(verdict, pairs, records))


@functools.cache
def _serverless():
    """Mechanisms without a server process (mechanisms.toml `inprocess = "self"`, the mock):
    their cases' server is the client's language, which says nothing to pair them on."""
    return frozenset(n for n, m in load_mechanisms().items() if m.inprocess == "self")


def _paired(claim, a, b):
    named = set(claim.a) | set(claim.b or {})
    if "variant" in named:
        named |= set(_VARIANT_AXES)
    if "pair" in named:
        named |= {"client", "server"}
    if {a.get("mechanism"), b.get("mechanism")} & _serverless():
        named |= {"server"}
    if a is b or any(a.get(k) != b.get(k) for k in PAIR_AXES if k not in named | {"settings"}):
        return False
    if "settings" in named:
        return True
    # A setting counts where it applies to both: gRPC's nodelay does not part it from Thrift.
    mine, theirs = a.get("settings") or {}, b.get("settings") or {}
    return all(mine[k] == theirs[k] for k in set(mine) & set(theirs) if k not in named)


def _against_case(claim, a, b, kept, seed, cache):
    figure, low, high, why = _ratio(claim.statistic, a, b, kept, seed, cache)
    return _pair(claim, _label(a), _label(b), figure, low, high, why)


def _against_number(claim, a, kept, seed, cache):
    figure, low, high, why = _own(claim.statistic, a, kept, seed, cache)
    return _pair(claim, _label(a), None, figure, low, high, why)


def _pair(claim, a, b, figure, low, high, why):
    if figure is None:
        return PairVerdict(a, b, None, None, None, CANNOT_TELL, why)
    return PairVerdict(a, b, figure, low, high, _side(claim, figure, low, high), why)


def _side(claim, figure, low, high):
    v = claim.value
    if claim.relation == "≈":
        band = (v * (1 - claim.tolerance), v * (1 + claim.tolerance))
        if high < band[0] or low > band[1]:
            return FAILS
        return HOLDS if band[0] <= figure <= band[1] else CANNOT_TELL
    below, above = high < v, low > v
    if claim.relation == "<":
        return HOLDS if below else FAILS if above else CANNOT_TELL
    return HOLDS if above else FAILS if below else CANNOT_TELL


def _ratio(statistic, a, b, kept, seed, cache):
    """(figure, low, high, why) of a's statistic over b's."""
    if a["status"] != "ok" or b["status"] != "ok":
        return None, None, None, f"not run: {a['status'] if a['status'] != 'ok' else b['status']}"
    if statistic in claim_table.TIME_STATISTICS:
        mine, theirs = kept.get(a["id"], {}), kept.get(b["id"], {})
        common = sorted(set(mine) & set(theirs))
        if not common:
            return None, None, None, "no round in common"
        key = ("ratio", statistic, a["id"], b["id"], seed,
               tuple((r, mine[r].size, float(mine[r].sum()), theirs[r].size,
                      float(theirs[r].sum())) for r in common))
        if key not in cache:
            cache[key] = stats.paired_ratio([mine[r] for r in common], [theirs[r] for r in common],
                                            case_seed(seed, "claim", a["id"], b["id"]), statistic)
        return (*cache[key], "")
    fa, la, ha, why_a = _own(statistic, a, kept, seed, cache)
    fb, lb, hb, why_b = _own(statistic, b, kept, seed, cache)
    if fa is None or fb is None or fb <= 0 or lb is None or lb <= 0:
        return None, None, None, why_a or why_b or f"no {statistic}"
    return fa / fb, la / hb, ha / lb, ""


def _own(statistic, record, kept, seed, cache):
    """(figure, low, high, why): the case's statistic and its interval."""
    if record["status"] != "ok":
        return None, None, None, f"not run: {record['status']}"
    if statistic == "median":
        return record.get("trimmed", {}).get("median"), record.get("median_ci_low"), \
            record.get("median_ci_high"), ""
    if statistic == "mean":
        rounds = list(kept.get(record["id"], {}).values())
        if not rounds:
            return None, None, None, "no samples"
        key = ("mean", record["id"], seed, tuple((x.size, float(x.sum())) for x in rounds))
        if key not in cache:
            cache[key] = stats.hierarchical_mean_ci(rounds, case_seed(seed, "mean", record["id"]))
        return (float(np.concatenate(rounds).mean()), *cache[key], "")
    if statistic in claim_table.EXACT_STATISTICS:
        value = record.get(statistic)
        return value, value, value, "" if value is not None else "not counted (--wire-bytes)"
    if statistic in claim_table.RATE_STATISTICS:
        return record.get(statistic), record.get(f"{statistic}_ci_low"), \
            record.get(f"{statistic}_ci_high"), ""
    phase = statistic[len(claim_table.PHASE_PREFIX):]
    for row in record.get("phases") or []:
        if row["side"] == "server" and row["phase"] == phase:
            return row["mean_ns"], row["ci95_low_ns"], row["ci95_high_ns"], ""
    return None, None, None, f"no {phase} phase"


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


def _label(record):
    return f"case {record['index']}: {case_label(record)}"
