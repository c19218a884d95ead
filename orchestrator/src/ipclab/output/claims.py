"""The claims of a study (analyse/claims.py's verdicts): their table and what decides those that
do not hold, first in table.md and report.html, and the terminal's last line; `why_lines` for
`ipclab why`. Pure: verdicts in, Sections and text out."""
from ipclab.analyse import claims as claim_verdicts
from ipclab.common.units import format_ns_interval, format_rate_interval
from ipclab.output.page import FILES, SCREEN, Line, Section, Table
from ipclab.plan import claims as claim_table

HEADERS = ("claim", "source", "study", "measured", "verdict")
WHY_HEADERS = ("condition changed", "verdict", "measured", "pairs")


def measured_text(verdict, pair=None):
    """"0.62× [0.58–0.66]" for a comparison, "53.2 µs [52.1–54.0]" for a case's own figure
    (`pair`: that pair's, else the one that decides the verdict)."""
    pair = pair or verdict.measured
    if pair is None:
        return "-"
    if verdict.relation == "between":
        return pair.why.split(":")[0]          # "rank 2 of 4"
    if verdict.comparison:
        if pair.low == pair.high:
            return f"{pair.figure:.3g}×"
        return f"{pair.figure:.3g}× [{pair.low:.3g}–{pair.high:.3g}]"
    if verdict.statistic in claim_table.RATE_STATISTICS:
        return format_rate_interval(pair.figure, pair.low, pair.high) + "/s"
    if verdict.statistic in claim_table.EXACT_STATISTICS:
        return f"{pair.figure:g} B"
    if verdict.statistic == "cv":
        return f"{pair.figure:.3g} [{pair.low:.3g}–{pair.high:.3g}]"
    return format_ns_interval(pair.figure, pair.low, pair.high)


def claimed_text(verdict):
    """What the claim says of the figure: "< 1×", "≈ 0.63× ± 20%", "> 20 µs"."""
    if verdict.relation == "between":
        return f"{verdict.statistic} between the others" + (
            " (most)" if verdict.over == "most" else "")
    unit = "×" if verdict.comparison else ""
    band = f" ± {verdict.tolerance:.0%}" if verdict.relation == "≈" else ""
    most = ", most pairs" if verdict.over == "most" else ""
    return f"{verdict.statistic} {verdict.relation} {verdict.value:g}{unit}{band}{most}"


BEYOND = "↳ beyond the study: "


def rows(verdicts):
    """A row per claim (its study's verdict), then a row per way beyond the study it ran."""
    out = []
    for v in verdicts:
        study = f" on {v.condition}" if v.condition else ""
        out.append((v.text, v.source, v.study_value or "-",
                    f"{measured_text(v)} ({claimed_text(v)}{study}; {_pairs(v.pairs)})",
                    v.verdict))
        out += [(f"{BEYOND}{row.condition}", "", "",
                 f"{measured_text(v, row.measured) if row.measured else '-'} "
                 f"({_pairs(row.pairs)})", row.verdict) for row in v.beyond]
    return out


def _pairs(pairs):
    if not pairs:
        return "no pair"
    if len(pairs) == 1:
        return pairs[0].a.split(": ", 1)[1] + (
            f" / {pairs[0].b.split(': ', 1)[1]}" if pairs[0].b and ": " in pairs[0].b
            else f" / {pairs[0].b}" if pairs[0].b else "")
    counts = {v: sum(1 for p in pairs if p.verdict == v) for v in claim_verdicts.VERDICTS}
    plural = {"holds": "hold", "fails": "fail"}
    return f"{len(pairs)} pairs: " + ", ".join(f"{n} {plural.get(v, v) if n > 1 else v}"
                                               for v, n in counts.items() if n)


def sections(report):
    """The claims table with its verdicts, first: what a study's run is for; a claim that does not
    hold is marked. Then what decides each claim that does not hold (analyse/why.py): the claim
    judged with one condition changed at a time, a row per change."""
    if not report.claims:
        return []
    table = rows(report.claims)
    notes = [f"{claim_verdicts.summary_line(report.claims)}.",
             *(f"{v.text}: {v.verdict}: {v.advice}" for v in report.claims if v.advice),
             claim_verdicts.RULE]
    out = [Section("claims", "claims of the study", tables=(Table(
        HEADERS, tuple(table), notes=tuple(Line(n) for n in notes),
        tones=tuple("failed" if row[-1] != claim_verdicts.HOLDS and not row[0].startswith(BEYOND)
                    else None for row in table)),), media=FILES, headline=True)]
    if report.why:
        out.append(Section(
            "why", "what decides the claims that do not hold", lead=(
                "Each claim judged again with one condition changed at a time, from what this "
                "run holds (`ipclab why RUN`).",),
            tables=tuple(_why_table(why) for why in report.why), media=FILES, headline=True))
    return out


def _why_table(why):
    return Table(WHY_HEADERS, tuple((t.changed, t.verdict,
                                     measured_text(t.found) if t.found.measured else "-",
                                     _pairs(t.found.pairs)) for t in why.tried),
                 title=why.text, caption=f"{why.verdict} as the study ran it; {why.finding}")


def summary(report, where="table.md"):
    """The terminal's last line: how the study's conclusions fared."""
    if not report.claims:
        return []
    return [Section("claims-summary", lines=(Line(
        f"{claim_verdicts.summary_line(report.claims)}; see {where}", "strong"),), media=SCREEN)]


def why_lines(why):
    """analyse/why.py's Why in words: the claim and its finding, then each condition tried."""
    out = [f"{why.text}: {why.verdict} as the study ran it; {why.finding}"]
    for t in why.tried:
        measured = measured_text(t.found) if t.found.measured else "-"
        out.append(f"  {t.changed}: {t.verdict}, {measured} ({_pairs(t.found.pairs)})")
    return out
