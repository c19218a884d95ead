"""`ipclab claims check` (each claim on its own study's figures) and `ipclab why` (what decides a
claim that does not hold on a saved run): thin commands over analyse/claim_check.py and
analyse/why.py."""
import sys
from pathlib import Path

import click

from ipclab.analyse import claim_check, saved, why as claim_why
from ipclab.analyse import claims as claim_verdicts
from ipclab.common.errors import UserError
from ipclab.output import claims as claims_out
from ipclab.execute.probe import load_catalog
from ipclab.plan.scenario import StatSettings, load_scenario
from ipclab.terminal_console import console


@click.group()
def claims():
    """A study's claims ([[claim]]): checked against the study's own figures."""


@claims.command("check")
@click.argument("scenarios", nargs=-1, type=click.Path())
def claims_check(scenarios):
    """Judge every claim of SCENARIOS (default: every scenario with claims) on its study's own
    figures. Exit 1 when one does not hold on them, a line naming the claim, the cell and the
    value: the claim says what its study does not."""
    catalog = load_catalog(check=False)
    paths = [Path(s) for s in scenarios] or sorted((catalog.root / "scenarios").glob("*.toml"))
    wrong = 0
    for path in paths:
        plan = load_scenario(path, catalog)
        if not plan.claims and not scenarios:
            continue
        checked = [claim_check.check(c) for c in plan.claims]
        for i, found in enumerate(checked):
            for line in claim_check.problems(path, i, found):
                wrong += 1
                _say(line, "red")
        _say(claim_check.summary(path, checked))
    if wrong:
        sys.exit(1)


@click.command("why")
@click.argument("run_dir", type=click.Path())
@click.argument("claim", required=False)
@click.option("--claims", "claims_file", type=click.Path(),
              help="judge the claims of this scenario file instead of the run's own")
def why(run_dir, claim, claims_file):
    """Why CLAIM (its number from 1, or words of its text; default: every claim that does not
    hold) fails or cannot tell on RUN_DIR: the claim judged again with one condition changed at
    a time, from the axes the run has, and the condition that decides it."""
    document, kept = load_judged(run_dir, claims_file)
    chosen = _chosen(document["scenario"].get("claims") or [], claim, document, kept)
    seed = document["scenario"].get("run", {}).get("seed", 1)
    cache = {}
    for c in chosen:
        for line in claims_out.why_lines(claim_why.explain(c, document["results"], kept, seed,
                                                            cache)):
            _say(line)


def load_judged(run_dir, claims_file=None):
    """A saved run analysed again (its document and kept samples), with the claims of
    `claims_file` in place of its own when given (a run judged by claims edited since)."""
    document = with_claims(saved.load(run_dir), claims_file)
    settings = StatSettings(**document["scenario"]["statistics"])
    return document, saved.reanalyse(run_dir, document, settings)


def with_claims(document, claims_file):
    """`document` with the claims of the scenario file `claims_file` in place of its own (None:
    as it is)."""
    if claims_file:
        plan = load_scenario(claims_file, load_catalog(check=False))
        document["scenario"]["claims"] = [c.as_dict() for c in plan.claims]
    return document


def _chosen(claims_list, claim, document, kept):
    if claim is None:
        seed = document["scenario"].get("run", {}).get("seed", 1)
        verdicts = claim_verdicts.judge(claims_list, document["results"], kept, seed)
        return [c for c, v in zip(claims_list, verdicts) if v.verdict != claim_verdicts.HOLDS]
    if claim.isdigit() and 1 <= int(claim) <= len(claims_list):
        return [claims_list[int(claim) - 1]]
    found = [c for c in claims_list if claim.lower() in c["text"].lower()]
    if not found:
        raise UserError(f"why: no claim {claim!r} in the run (numbers 1-{len(claims_list)}, or "
                        f"words of a claim's text)")
    return found


def _say(text, style=None):
    console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)
