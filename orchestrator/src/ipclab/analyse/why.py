"""Why a claim fails or cannot tell on its study's condition (`ipclab why`, report.html): the
claim judged again with one condition changed at a time, from what the run already holds: each
axis of the study's condition set to every other value the run has (another pair, Nagle on, FFM),
each other axis the run varies (placement, a setting) fixed to one value, and the claim's
statistic swapped for the other time statistics. A change that turns the verdict names the
condition that decides it; where none does, the study's conclusion does not hold here under any
condition this run has, and the finding says so."""
import dataclasses
from dataclasses import dataclass, field

from ipclab.analyse import claims as claim_verdicts
from ipclab.analyse.claim_pairs import FAILS, HOLDS
from ipclab.plan import claims as claim_table
from ipclab.plan import settings as setting_table
from ipclab.plan.matrix import axis_value

# Axes a run may vary that are how a case ran rather than what it compares.
FREE_AXES = ("placement", "pair", *setting_table.NAMES)


@dataclass
class Tried:
    changed: str                 # "nodelay off → on", "statistic median → mean"
    found: object                # analyse/claims.py Verdict under that change

    @property
    def verdict(self):
        return self.found.verdict


@dataclass
class Why:
    text: str
    verdict: str                 # the study's verdict, as the claim has it
    tried: list = field(default_factory=list)
    finding: str = ""

    def as_dict(self):
        return {"text": self.text, "verdict": self.verdict, "finding": self.finding,
                "tried": [{"changed": t.changed, "verdict": t.verdict,
                           "measured": dataclasses.asdict(t.found.measured)
                           if t.found.measured else None, "pairs": len(t.found.pairs)}
                          for t in self.tried]}


def explain(claim, records, kept, seed=1, cache=None):
    """The Why of one claim (a plan/claims.py Claim or its dict)."""
    claim = claim_table.Claim.of(claim)
    cache = {} if cache is None else cache
    base = claim_verdicts.judge_one(claim, records, kept, seed, cache)
    tried = []
    for changed, other in _alternatives(claim, records):
        found = claim_verdicts.judge_one(other, records, kept, seed, cache)
        if found.pairs:                   # a change that leaves no pair tells nothing
            tried.append(Tried(changed, found))
    return Why(claim.text, base.verdict, tried, _finding(base.verdict, tried))


def _alternatives(claim, records):
    """(what changed, the claim with it changed) for every condition the run can change: each
    axis of the study's condition to each other value its cases have, and each other axis the
    study's own cases vary (placement, a setting) to each of its values."""
    a, b = claim_table.sides(claim, records)
    cases = [c for c in a + b if c["status"] != claim_verdicts.NOT_APPLICABLE]
    condition = claim.condition
    studied = [c for c in cases if claim_table.meets(c, condition)]
    for axis in dict.fromkeys([*condition, *FREE_AXES]):
        now = condition.get(axis)
        pool = cases if now is not None else studied
        values = [v for v in dict.fromkeys(axis_value(c, axis) for c in pool) if v is not None]
        if now is None and len(values) < 2:
            continue                      # the study's own cases do not vary it
        for v in (v for v in values if now is None or v not in now):
            was = "/".join(map(str, now)) if now else "(all)"
            yield (f"{axis} {was} → {v}",
                   dataclasses.replace(claim, condition={**condition, axis: [v]}))
    if claim.statistic in claim_table.TIME_STATISTICS:
        for statistic in claim_table.TIME_STATISTICS:
            if statistic != claim.statistic and claim.relation in ("<", ">", "between"):
                yield (f"statistic {claim.statistic} → {statistic}",
                       dataclasses.replace(claim, statistic=statistic))


def _finding(verdict, tried):
    if verdict == HOLDS:
        return "it holds on the study's condition"
    if not tried:
        return ("the run holds no other condition to try: run the claim's cases under another "
                "(a placement, a setting) to see what decides it")
    holding = [t.changed for t in tried if t.verdict == HOLDS]
    if holding:
        axes = list(dict.fromkeys(c.split(" ")[0] for c in holding))
        decides = (f"{axes[0]} decides it" if len(axes) == 1
                   else f"{', '.join(axes[:-1])} and {axes[-1]} each decide it")
        return f"it holds with {'; '.join(holding)}: {decides}"
    if verdict == FAILS:
        return ("no condition this run holds makes it hold: the study's conclusion does not "
                "hold here")
    failing = [t.changed for t in tried if t.verdict == FAILS]
    return ("it cannot tell under every condition tried" if not failing else
            f"it fails with {'; '.join(failing)}") + \
        ": the difference is within the noise here"
