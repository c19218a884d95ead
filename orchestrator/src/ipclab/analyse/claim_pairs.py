"""One pair of a claim judged: which b case an a case pairs with, the statistic's figure and
interval for the pair (or the a case alone, against a number), and which side of the claim it
lies on. analyse/claims.py gathers pairs into a claim's verdict."""
import functools
from dataclasses import dataclass

import numpy as np

from ipclab.analyse import stats
from ipclab.analyse.case_stats import case_seed
from ipclab.plan import claims as claim_table
from ipclab.plan.catalog import load_mechanisms
from ipclab.plan.matrix import case_label

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


@functools.cache
def _serverless():
    """Mechanisms without a server process (mechanisms.toml `inprocess = "self"`, the mock):
    their cases' server is the client's language, which says nothing to pair them on."""
    return frozenset(n for n, m in load_mechanisms().items() if m.inprocess == "self")


def paired(claim, a, b):
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


def against_case(claim, a, b, kept, seed, cache):
    figure, low, high, why = _ratio(claim.statistic, a, b, kept, seed, cache)
    return _pair(claim, label(a), label(b), figure, low, high, why)


def against_number(claim, a, kept, seed, cache):
    figure, low, high, why = own(claim.statistic, a, kept, seed, cache)
    return _pair(claim, label(a), None, figure, low, high, why)


def between(claim, a_label, pairs):
    """One a case against every b case it pairs with ("between"): it holds when some b lies
    wholly below it and some wholly above, fails when every b lies on one side of it, and
    cannot tell otherwise. The figure is its rank among them, 1 the smallest."""
    judged = [p for p in pairs if p.figure is not None]
    if len(judged) < len(pairs) or not pairs:
        return PairVerdict(a_label, f"{len(pairs)} cases", None, None, None, CANNOT_TELL,
                           "; ".join(dict.fromkeys(p.why for p in pairs if p.figure is None))
                           or "no case to place it among")
    above = sum(1 for p in judged if p.low > 1)     # a above b
    below = sum(1 for p in judged if p.high < 1)
    rank = 1 + sum(1 for p in judged if p.figure > 1)
    verdict = (HOLDS if above and below else FAILS if max(above, below) == len(judged)
               else CANNOT_TELL)
    return PairVerdict(a_label, f"{len(judged)} cases", float(rank), float(rank), float(rank),
                       verdict, f"rank {rank} of {len(judged) + 1}: above {above}, below "
                                f"{below} beyond their intervals")


def _pair(claim, a, b, figure, low, high, why):
    if figure is None:
        return PairVerdict(a, b, None, None, None, CANNOT_TELL, why)
    return PairVerdict(a, b, figure, low, high, side(claim, figure, low, high), why)


def side(claim, figure, low, high):
    """The verdict of one figure and its interval on `claim` (a pair's, or a study's cell)."""
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
    if statistic in (*claim_table.TIME_STATISTICS, *claim_table.DISPERSION_STATISTICS):
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
        if cache[key][0] is None:
            return None, None, None, f"no {statistic} of b above zero"
        return (*cache[key], "")
    fa, la, ha, why_a = own(statistic, a, kept, seed, cache)
    fb, lb, hb, why_b = own(statistic, b, kept, seed, cache)
    if fa is None or fb is None or fb <= 0 or lb is None or lb <= 0:
        return None, None, None, why_a or why_b or f"no {statistic}"
    return fa / fb, la / hb, ha / lb, ""


def own(statistic, record, kept, seed, cache):
    """(figure, low, high, why): the case's statistic and its interval."""
    if record["status"] != "ok":
        return None, None, None, f"not run: {record['status']}"
    if statistic == "median":
        return record.get("trimmed", {}).get("median"), record.get("median_ci_low"), \
            record.get("median_ci_high"), ""
    if statistic in ("mean", "total", *claim_table.DISPERSION_STATISTICS):
        return _drawn(statistic, record, kept, seed, cache)
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


def _drawn(statistic, record, kept, seed, cache):
    """The mean, total, sd or cv of a case's kept samples with its hierarchical interval."""
    rounds = list(kept.get(record["id"], {}).values())
    if not rounds:
        return None, None, None, "no samples"
    key = (statistic, record["id"], seed, tuple((x.size, float(x.sum())) for x in rounds))
    if key not in cache:
        rng = case_seed(seed, statistic, record["id"])
        if statistic in claim_table.DISPERSION_STATISTICS:
            cache[key] = stats.hierarchical_dispersion_ci(rounds, rng, statistic)
        else:
            mean = float(np.concatenate(rounds).mean())
            low, high = stats.hierarchical_mean_ci(rounds, rng)
            size = 1.0 if statistic == "mean" else float(np.mean([x.size for x in rounds]))
            cache[key] = (mean * size, low * size, high * size)
    return (*cache[key], "")


def label(record):
    return f"case {record['index']}: {case_label(record)}"
