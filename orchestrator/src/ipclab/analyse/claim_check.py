"""A claim judged on its own study's figures (plan/claim_figures.py) by the rule a run is judged
by, each figure exact: `ipclab claims check`. A claim its study's own cells do not bear out is an
encoding error (the claim says what the study does not), never a finding about the mechanisms."""
from dataclasses import dataclass

from ipclab.analyse import claim_pairs, claims as claim_verdicts
from ipclab.plan import claim_figures, claims as claim_table


@dataclass
class Checked:
    claim: object                # plan/claims.py Claim
    verdict: str | None          # None: the claim carries no figures (`no_figures` says why)
    rows: list                   # (Figure, figure in the claim's terms, PairVerdict)


def check(claim):
    """The claim's verdict on its figures, and each figure's own."""
    if not claim.figures:
        return Checked(claim, None, [])
    rows = [(f, *_judged(claim, f)) for f in claim.figures
            if claim_figures.in_scope(f, claim.where)]
    if not rows:
        return Checked(claim, claim_pairs.CANNOT_TELL, [])
    return Checked(claim, claim_verdicts.combine(claim, [p for _, _, p in rows]), rows)


def _judged(claim, figure):
    if isinstance(figure.b, tuple):       # "between": a among the others
        pairs = [_exact(claim, _in_terms(claim, figure, figure.a / b)) for b in figure.b]
        return None, claim_pairs.between(claim, "figure", pairs)
    if figure.b is not None:
        x = _in_terms(claim, figure, figure.a / figure.b)
    else:
        x = figure.scaled(figure.a)
        if _inverted(claim, figure):      # a time against a rate, or the other way round
            x = 1e9 / x
    return x, _exact(claim, x)


def _exact(claim, x):
    return claim_pairs.PairVerdict("figure", None, x, x, x, claim_pairs.side(claim, x, x, x))


def _inverted(claim, figure):
    rate = claim.statistic in claim_table.RATE_STATISTICS
    return (figure.kind() == "time" and rate) or (figure.kind() == "rate" and not rate)


def _in_terms(claim, figure, ratio):
    return 1 / ratio if _inverted(claim, figure) else ratio


def problems(source, index, checked):
    """One line per figure that does not bear its claim out (empty when it holds)."""
    claim = checked.claim
    if checked.verdict is None:
        return [] if claim.no_figures else [
            f"{source}: claim[{index}] \"{claim.text}\": no figures, and no_figures does not say "
            f"why"]
    if checked.verdict == claim_pairs.HOLDS:
        return []
    if not checked.rows:
        return [f"{source}: claim[{index}] \"{claim.text}\": none of its {len(claim.figures)} "
                f"figures lies in its where ({claim_table.describe(claim.where)})"]
    wrong = [(i, f, x, p) for i, (f, x, p) in enumerate(checked.rows)
             if p.verdict != claim_pairs.HOLDS]
    return [f"{source}: claim[{index}] \"{claim.text}\": figures[{i}] ({f.cell or 'no cell'}: "
            f"{claim_figures.describe(f)}) is {_said(x, p)}, not {_claimed(claim)}: "
            f"{p.verdict}" for i, f, x, p in wrong]


def _said(x, pair):
    return pair.why.split(":")[0] if x is None else f"{x:.4g}"


def _claimed(claim):
    if claim.relation == "between":
        return "between the others"
    if claim.relation == "≈":
        v, t = claim.value, claim.tolerance
        return f"≈ {v:g} ± {t:.0%} ({v * (1 - t):.4g}–{v * (1 + t):.4g})"
    return f"{claim.relation} {claim.value:g}"


def summary(source, checked):
    """"scenarios/x.toml: 9 claims: 7 hold on their figures, 2 stated without figures"."""
    held = sum(1 for c in checked if c.verdict == claim_pairs.HOLDS)
    bare = sum(1 for c in checked if c.verdict is None and c.claim.no_figures)
    wrong = len(checked) - held - bare
    return (f"{source}: {len(checked)} claim{'s' if len(checked) != 1 else ''}: {held} hold on "
            f"their study's figures" + (f", {wrong} do not" if wrong else "")
            + (f", {bare} without figures (the study gives none: each says why)" if bare else ""))
