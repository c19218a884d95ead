"""`ipclab compare RUN_A RUN_B`: the cases of two saved runs paired by their parameters, and per
pair the ratio of medians B/A with its 95% interval, a Mann–Whitney U p-value and a verdict.

Pairing: by mechanism, pattern, client, server, sizes (or payload and sequence length) and
placement, never by case id. A parameter with one value in each run, different between them
(a same-core run against a cross-core one), is what the runs compare: it leaves the key.

Verdict (the rule, stated in the output too): B is "faster" or "slower" than A only when the
ratio's 95% interval excludes 1 AND the Mann–Whitney p < 0.05; otherwise "no significant
difference". The methods are in stats.py (median_ratio, mann_whitney_p); the samples are each
run's own kept samples (inside its outlier fences, a stream's time per message), analysed as
`ipclab report` analyses them.

Pure functions from the two documents onward; only `load_run` reads files."""
from dataclasses import asdict, dataclass, field

import numpy as np

from ipclab.analyse import case_stats
from ipclab.analyse import claims as claim_verdicts
from ipclab.analyse import explained
from ipclab.analyse import stats
from ipclab.common.errors import UserError
from ipclab.plan.matrix import short_label
from ipclab.plan.scenario import StatSettings
from ipclab.analyse import saved

KEY = ("mechanism", "pattern", "client", "server", "request_size", "response_size",
       "message_size", "payload", "sequence_length", "placement")
SIGNIFICANCE = 0.05
RULE = ("B/A: B's median over A's; faster/slower only when the ratio's 95% interval (hierarchical "
        "bootstrap) excludes 1 and the Mann–Whitney U p < 0.05, otherwise no significant "
        "difference")


@dataclass
class Run:
    """A saved run: its document and each case's kept samples per round."""
    name: str
    document: dict
    kept: dict   # case id -> round -> sorted samples (case_stats.analyse)


@dataclass
class Pair:
    label: str
    status: str              # "compared", "only in A", "only in B", "not compared"
    median_a: float | None = None
    median_b: float | None = None
    ratio: float | None = None
    low: float | None = None
    high: float | None = None
    p: float | None = None
    verdict: str | None = None   # "faster", "slower", "no significant difference"
    reason: str | None = None
    costs: list = field(default_factory=list)  # --explain: per-call costs that changed
    case_a: int | None = None
    case_b: int | None = None
    rounds_a: int | None = None
    rounds_b: int | None = None


@dataclass
class Comparison:
    a: str
    b: str
    varied: dict             # axis -> (A's value, B's value): what the runs compare
    pairs: list
    rule: str = RULE
    claims: list = field(default_factory=list)  # (claim, A's verdict, B's verdict), both judged

    @property
    def notes(self):
        """Advice on what the comparison can and cannot say."""
        notes = []
        if any(p.status == "compared" and min(p.rounds_a, p.rounds_b) < 2 for p in self.pairs):
            notes.append("a run with one round: the intervals cover the sampling within that "
                         "round, not the differences from one run of the peers to the next; run "
                         "both with --rounds 3 or more before trusting a verdict")
        common = self.common_shift
        if common is not None and abs(np.log(common)) > np.log(1 + SHARED_MOVE):
            notes.append(f"the median pair's ratio is {common:.2f}: every case moved about "
                         f"alike, as when the machine itself changed speed between the runs "
                         f"(on a VM, the host's load), which no run's intervals hold; compare "
                         f"cases within one run, or rerun both when the machine is quiet")
        return notes

    @property
    def common_shift(self):
        """The median over compared pairs of B's median over A's: a move every case shares (the
        machine between the runs); None for fewer than MIN_PAIRS pairs."""
        ratios = [p.ratio for p in self.pairs if p.status == "compared" and p.ratio]
        return float(np.median(ratios)) if len(ratios) >= MIN_PAIRS else None

    def as_dict(self):
        """Plain data (JSON-ready) for an HTML report."""
        return {"a": self.a, "b": self.b, "rule": self.rule, "notes": self.notes,
                "varied": {k: list(v) for k, v in self.varied.items()},
                "pairs": [asdict(p) for p in self.pairs],
                "claims": [{"claim": t, "a": a, "b": b} for t, a, b in self.claims]}

    @property
    def changed_claims(self):
        """The study's claims whose verdict differs between the runs."""
        return [c for c in self.claims if c[1] != c[2]]

    def slower_than(self, threshold):
        """The pairs significantly slower in B by more than `threshold` (0.05: 5%)."""
        return [p for p in self.pairs if p.verdict == "slower" and p.ratio > 1 + threshold]


def load_run(run_dir):
    """A saved run (any schema `ipclab report` reads) with its samples, analysed under its own
    statistics settings, as `ipclab report` analyses it."""
    document = saved.load(run_dir)
    settings = StatSettings(**document["scenario"]["statistics"])
    try:
        kept = saved.reanalyse(run_dir, document, settings)
    except OSError as e:
        raise UserError(f"{e.filename}: cannot read: {e.strerror}") from None
    # A failed case's finished rounds are not compared: the case as a whole did not work.
    ok = {r["id"] for r in document["results"] if r["status"] == "ok"}
    return Run(str(run_dir), document, {k: v for k, v in kept.items() if v and k in ok})


def label(record, also=()):
    """"tcp cpp→cpp 16 B/16 B" (a case as the terminal names it), then the values of `also`
    (pattern, placement) where they tell cases apart: plan/matrix.py's case_label."""
    return short_label(record, also)


def compare(run_a, run_b, seed=1):
    """The Comparison of two runs (B against A)."""
    recs_a = [r for r in run_a.document["results"] if r["status"] not in ("not-applicable",)]
    recs_b = [r for r in run_b.document["results"] if r["status"] not in ("not-applicable",)]
    varied = _varied(recs_a, recs_b)
    key_axes = [k for k in KEY if k not in varied]
    by_a = {tuple(r.get(k) for k in key_axes): r for r in recs_a}
    by_b = {tuple(r.get(k) for k in key_axes): r for r in recs_b}
    also = [k for k in ("pattern", "placement")
            if k not in varied and len({r.get(k) for r in (*recs_a, *recs_b)}) > 1]
    pairs = []
    for key in [*by_a, *(k for k in by_b if k not in by_a)]:
        a, b = by_a.get(key), by_b.get(key)
        name = label(a or b, also)
        if a is None or b is None:
            pairs.append(Pair(name, "only in A" if b is None else "only in B",
                              case_a=a and a["index"], case_b=b and b["index"]))
            continue
        pairs.append(_pair(name, a, b, run_a, run_b, seed))
    return Comparison(run_a.name, run_b.name, varied, pairs, claims=_claims(run_a, run_b))


# Every case moving alike by more than this between two runs is worth a note: on a 2-CPU VM the
# whole machine drifts by several percent over minutes (two quick runs 4 minutes apart: every
# case 8% faster in the second). The preflight floor did not track it (0.90× once, 0.75× when
# the cases held still), so the cases themselves say it, when there are enough of them.
SHARED_MOVE = 0.05
MIN_PAIRS = 8


def _claims(run_a, run_b):
    """Each claim both runs' scenarios make (by its text), judged in each run as its report
    judges it."""
    def judged(run):
        scenario = run.document["scenario"]
        return {v.text: v.verdict for v in claim_verdicts.judge(
            scenario.get("claims") or [], run.document["results"], run.kept,
            scenario.get("run", {}).get("seed", 1))}
    a, b = judged(run_a), judged(run_b)
    return [(text, a[text], b[text]) for text in a if text in b]


def _varied(recs_a, recs_b):
    """The parameters with one value in each run, different between the runs."""
    varied = {}
    for k in KEY:
        va, vb = {r.get(k) for r in recs_a}, {r.get(k) for r in recs_b}
        if len(va) == 1 and len(vb) == 1 and va != vb:
            varied[k] = (va.pop(), vb.pop())
    return varied


def _pair(name, a, b, run_a, run_b, seed):
    pair = Pair(name, "not compared", case_a=a["index"], case_b=b["index"],
                costs=explained.changed_costs(a, b))
    missing = [f"{which}: {r['status']}" + (f" ({r['reason']})" if r.get("reason") else "")
               for which, r, run in (("A", a, run_a), ("B", b, run_b))
               if r["id"] not in run.kept]
    if missing:
        pair.reason = "; ".join(missing)
        return pair
    rounds_a = list(run_a.kept[a["id"]].values())
    rounds_b = list(run_b.kept[b["id"]].values())
    rng = case_stats.case_seed(seed, "compare", name)
    ratio, low, high = stats.median_ratio(rounds_a, rounds_b, rng)
    p = stats.mann_whitney_p(np.concatenate(rounds_a), np.concatenate(rounds_b))
    pair.status = "compared"
    pair.rounds_a, pair.rounds_b = len(rounds_a), len(rounds_b)
    pair.median_a = float(np.median(np.concatenate(rounds_a)))
    pair.median_b = float(np.median(np.concatenate(rounds_b)))
    pair.ratio, pair.low, pair.high, pair.p = ratio, low, high, p
    pair.verdict = verdict(low, high, p)
    return pair


def verdict(low, high, p, level=SIGNIFICANCE):
    """"faster"/"slower" (B against A) only when the interval excludes 1 and p < level."""
    if low is None or high is None or p is None or p >= level or low <= 1 <= high:
        return "no significant difference"
    return "faster" if high < 1 else "slower"


def parse_threshold(text):
    """A percentage ("5%" or "5") as a fraction (0.05); raises UserError otherwise."""
    value = str(text).strip().removesuffix("%")
    try:
        number = float(value)
    except ValueError:
        number = -1
    if not 0 <= number < 1000 or number != number:
        raise UserError(f"--fail-above: {text!r} is not a percentage (e.g. 5%)")
    return number / 100
