"""The claims table (analyse/claims.py's verdicts) as table.md shows it, and the terminal's one
line. Pure: verdicts in, text out."""
from ipclab.analyse import claims as claim_verdicts
from ipclab.common.units import format_ns_interval, format_rate_interval
from ipclab.plan import claims as claim_table

HEADERS = ("claim", "source", "study", "measured", "verdict")


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


def markdown_of(verdicts, whys=()):
    lines = ["## claims of the study", "", "| " + " | ".join(HEADERS) + " |",
             "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows(verdicts)]
    lines += ["", f"- {claim_verdicts.summary_line(verdicts)}."]
    lines += [f"- {v.text}: {v.verdict}: {v.advice}" for v in verdicts if v.advice]
    lines.append(f"- {claim_verdicts.RULE}")
    if whys:
        lines += ["", "## what decides the claims that do not hold", "",
                  "Each claim judged again with one condition changed at a time, from what "
                  "this run holds (`ipclab why RUN`).", ""]
        for why in whys:
            first, *tried = why_lines(why)
            lines += [f"- {_escape(first)}", *(f"  - {_escape(t.strip())}" for t in tried)]
    return "\n".join(lines) + "\n"


def terminal_line(verdicts, where="table.md"):
    return f"{claim_verdicts.summary_line(verdicts)}; see {where}"


def _escape(text):  # as markdown.py's, which imports this module
    return str(text).replace("|", "\\|").replace("\n", " ")


def why_lines(why):
    """analyse/why.py's Why in words: the claim and its finding, then each condition tried."""
    out = [f"{why.text}: {why.verdict} as the study ran it; {why.finding}"]
    for t in why.tried:
        measured = measured_text(t.found) if t.found.measured else "-"
        out.append(f"  {t.changed}: {t.verdict}, {measured} ({_pairs(t.found.pairs)})")
    return out
