"""`ipclab compare`'s page: two runs' Comparison (analyse/compare.py) as one section, which the
terminal, Markdown (--markdown) and HTML (compare.html) renderers lay out as they lay out a run's:
which runs and what they compare across, a row per pair (B/A with its interval, p, verdict; the
medians the first columns a narrow terminal gives up), the rule under it, then the notes, the
costs per call that changed (--explain) and the claims whose verdict changed. Pure: a
Comparison in, a page out (its document the comparison's plain data)."""
from ipclab.common.units import format_ns, format_ratio_interval
from ipclab.output.page import Line, Page, Section, Table

TITLE = "ipclab compare"
HEADERS = ("case", "A median", "B median", "B/A [95% CI]", "p", "verdict")
RIGHT = (False, True, True, True, True, False)
PRIORITY = (0, 2, 3, 0, 1, 0)   # B median goes first, then A median, then p
TONES = {"slower": "failed", "faster": "good"}


def page(comparison):
    table = Table(HEADERS, tuple(_cells(p) for p in comparison.pairs), RIGHT,
                  caption=comparison.rule, notes=notes(comparison),
                  tones=tuple(TONES.get(p.verdict) if p.status == "compared" else "quiet"
                              for p in comparison.pairs), priority=PRIORITY)
    return Page(TITLE, (Section("compare", "B against A", lead=heading(comparison),
                                tables=(table,)),), document=comparison.as_dict())


def heading(comparison):
    return (f"A: {comparison.a}", f"B: {comparison.b}",
            *(f"compared across {k}: {va} (A) → {vb} (B)"
              for k, (va, vb) in comparison.varied.items()))


def notes(comparison):
    """The verdicts counted, the advice, the costs that changed, the claims that did."""
    counts = {}
    for pair in comparison.pairs:
        what = pair.verdict or pair.status
        counts[what] = counts.get(what, 0) + 1
    out = [Line(", ".join(f"{n} {what}" for what, n in counts.items()))]
    out += [Line(f"note: {n}", "warning") for n in comparison.notes]
    out += [Line(f"cost changed: {p.label}: {'; '.join(p.costs)} (per call, A → B)")
            for p in comparison.pairs if p.costs]
    if comparison.claims:
        changed = comparison.changed_claims
        out += [Line(f"claim changed: {text}: {a} (A) → {b} (B)", "strong")
                for text, a, b in changed]
        out.append(Line(f"claims: {len(changed)} of {len(comparison.claims)} changed verdict",
                        "strong"))
    return tuple(out)


def _cells(pair):
    if pair.status != "compared":
        return (pair.label, "-", "-", "-", "-",
                pair.status + (f": {pair.reason}" if pair.reason else ""))
    return (pair.label, format_ns(pair.median_a), format_ns(pair.median_b),
            format_ratio_interval(pair.ratio, pair.low, pair.high), _p(pair.p), pair.verdict)


def _p(p):
    return "-" if p is None else ("<0.001" if p < 0.001 else f"{p:.3f}")
