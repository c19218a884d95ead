"""The claims table (analyse/claims.py's verdicts) as table.md shows it, and the terminal's one
line. Pure: verdicts in, text out."""
from ipclab.analyse import claims as claim_verdicts
from ipclab.common.units import format_ns_interval, format_rate_interval
from ipclab.plan import claims as claim_table

HEADERS = ("claim", "source", "study", "measured", "verdict")


def measured_text(verdict):
    """"0.62× [0.58–0.66]" for a comparison, "53.2 µs [52.1–54.0]" for a case's own figure."""
    pair = verdict.measured
    if pair is None:
        return "-"
    if verdict.comparison:
        if pair.low == pair.high:
            return f"{pair.figure:.3g}×"
        return f"{pair.figure:.3g}× [{pair.low:.3g}–{pair.high:.3g}]"
    if verdict.statistic in claim_table.RATE_STATISTICS:
        return format_rate_interval(pair.figure, pair.low, pair.high) + "/s"
    if verdict.statistic in claim_table.EXACT_STATISTICS:
        return f"{pair.figure:g} B"
    return format_ns_interval(pair.figure, pair.low, pair.high)


def claimed_text(verdict):
    """What the claim says of the figure: "< 1×", "≈ 0.63× ± 20%", "> 20 µs"."""
    unit = "×" if verdict.comparison else ""
    band = f" ± {verdict.tolerance:.0%}" if verdict.relation == "≈" else ""
    return f"{verdict.statistic} {verdict.relation} {verdict.value:g}{unit}{band}"


def rows(verdicts):
    return [(v.text, v.source, v.study_value or "-",
             f"{measured_text(v)} ({claimed_text(v)}; {_pairs(v)})", v.verdict)
            for v in verdicts]


def _pairs(verdict):
    if len(verdict.pairs) == 1:
        return verdict.pairs[0].a.split(": ", 1)[1] + (
            f" / {verdict.pairs[0].b.split(': ', 1)[1]}" if verdict.pairs[0].b else "")
    counts = {v: sum(1 for p in verdict.pairs if p.verdict == v) for v in claim_verdicts.VERDICTS}
    return f"{len(verdict.pairs)} pairs: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n)


def markdown_of(verdicts):
    lines = ["## claims of the study", "", "| " + " | ".join(HEADERS) + " |",
             "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows(verdicts)]
    lines += ["", f"- {claim_verdicts.summary_line(verdicts)}."]
    lines += [f"- {v.text}: {v.verdict}: {v.advice}" for v in verdicts if v.advice]
    lines.append(f"- {claim_verdicts.RULE}")
    return "\n".join(lines) + "\n"


def terminal_line(verdicts, where="table.md"):
    return f"{claim_verdicts.summary_line(verdicts)}; see {where}"


def _escape(text):  # as markdown.py's, which imports this module
    return str(text).replace("|", "\\|").replace("\n", " ")
