"""The median's interval with the between-round spread pooled over a run's cases (empirical
Bayes): with three rounds a case's own spread is a poor estimate of itself (two degrees of
freedom: Student's t is 4.30), while the run holds dozens of cases measured on the same machine in
the same minutes, whose spreads say what a case's spread usually is. Each case's variance is
moderated toward that prior as limma moderates a gene's (Smyth 2004, "Linear models and empirical
Bayes methods for assessing differential expression in microarray experiments", SAGA 3(1));
a case much noisier than the rest keeps most of its own. The method is stated in stats.py.

Run-level: a case's interval depends on the other cases of its pattern, so `moderate` redoes
every record's interval (closed form, milliseconds) whenever any case gained a round."""
import numpy as np
from scipy import optimize, special

from ipclab.analyse import case_stats

# Fewer cases than this with two rounds or more (of one pattern) leave the intervals as their own
# rounds give them: the prior's spread would be estimated from too few variances.
MIN_CASES = 8
LEVEL = 0.95
OUTLIER_P = 0.01


def fit_prior(variances, dfs):
    """(d0, s0²): the prior degrees of freedom and variance of Smyth's moment estimator from
    sample variances and their degrees of freedom (variances of 0 are left out); d0 is inf when
    the variances spread no more than sampling alone would (one common variance), None when too
    few are left."""
    s2, d = np.asarray(variances, dtype=np.float64), np.asarray(dfs, dtype=np.float64)
    keep = s2 > 0
    if keep.sum() < MIN_CASES:
        return None
    s2, d = s2[keep], d[keep]
    e = np.log(s2) - special.digamma(d / 2) + np.log(d / 2)
    excess = e.var(ddof=1) - special.polygamma(1, d / 2).mean()
    if excess <= 0:
        return np.inf, float(np.exp(e.mean()))
    half = optimize.brentq(lambda x: special.polygamma(1, x) - excess, 1e-8, 1e12)
    d0 = 2 * half
    return float(d0), float(np.exp(e.mean() + special.digamma(half) - np.log(half)))


def moderated_interval(point, log_medians, prior, level=LEVEL):
    """(low, high): point × exp(∓ t(level, d0 + R − 1) · s̃ / √R), s̃² the case's variance of its
    R log round medians moderated toward the prior's s0² by d0 degrees of freedom."""
    d0, s0 = prior
    r = len(log_medians)
    s2 = float(np.var(log_medians, ddof=1))
    if np.isinf(d0):
        moderated, df = s0, np.inf
    else:
        moderated, df = (d0 * s0 + (r - 1) * s2) / (d0 + r - 1), d0 + r - 1
    q = 1 - (1 - level) / 2
    t = special.ndtri(q) if np.isinf(df) else special.stdtrit(df, q)
    half = float(t * np.sqrt(moderated / r))
    return point * float(np.exp(-half)), point * float(np.exp(half))


def moderate(records, settings):
    """Every ok record with two rounds or more gets its median's interval from its rounds'
    variance moderated toward its pattern's prior (when the pattern has MIN_CASES such cases),
    then its stability judged again with that interval. Returns pattern -> the prior (for
    run.json), only for the patterns that had one."""
    groups = {}
    for record in records:
        logs = _log_medians(record)
        if logs is not None:
            groups.setdefault(record.get("pattern"), []).append((record, logs))
    priors = {}
    for pattern, members in groups.items():
        prior = fit_prior([np.var(logs, ddof=1) for _, logs in members],
                          [len(logs) - 1 for _, logs in members])
        if prior is not None:
            priors[pattern] = {"cases": len(members),
                               "prior_df": None if np.isinf(prior[0]) else round(prior[0], 3),
                               "prior_sd": round(float(np.sqrt(prior[1])), 5)}
        # Every member is set from its rounds and this prior alone, whatever an earlier pass set
        # (a live run passes again after each round and re-analyses only the case that changed).
        for record, logs in members:
            if prior is None or _far_outside(logs, prior):
                record["median_ci_low"], record["median_ci_high"] = record["rounds_ci"]
            else:
                record["median_ci_low"], record["median_ci_high"] = moderated_interval(
                    record["trimmed"]["median"], logs, prior)
            _judge_again(record, settings)
    return priors


def _far_outside(log_medians, prior):
    """True when a case's own variance is beyond what the prior makes likely (F test, upper tail
    below OUTLIER_P): a bimodal case among calm ones. Pulling it toward the others would narrow
    its interval below what its rounds show, so it keeps its own (limma's robust option answers
    the same worry)."""
    d0, s0 = prior
    df = len(log_medians) - 1
    f = float(np.var(log_medians, ddof=1)) / s0
    p = special.chdtrc(df, df * f) if np.isinf(d0) else special.fdtrc(df, d0, f)
    return p < OUTLIER_P


def _log_medians(record):
    """The log of a record's round medians, or None when its interval is not the rounds' own
    (clients on several hosts: three levels), it has fewer than two, or one is not positive."""
    medians = record.get("round_medians") or []
    if record.get("status") != "ok" or len(medians) < 2 or min(medians) <= 0 \
            or not (record.get("trimmed") or {}).get("median") or not record.get("rounds_ci") \
            or len(record.get("client_hosts") or []) > 1:
        return None
    return np.log(np.asarray(medians, dtype=np.float64))


def _judge_again(record, settings):
    """The case's stability with its new interval (case_stats.judge_stability), from its round
    entries' medians and intervals, in round order as its round_medians."""
    entries = [e for e in record.get("rounds") or [] if e.get("status") == "ok"
               and e["round"] > settings.skip_rounds and e.get("median") is not None]
    if len(entries) != len(record["round_medians"]):
        return
    case_stats.judge_stability(record, record["round_medians"],
                               [(e["median_ci_low"], e["median_ci_high"]) for e in entries])
