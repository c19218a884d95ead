"""The report's figures: a registry of small pure functions, each RunData in, a list of Charts
out (empty when the run has nothing for it: no streams, no wire bytes...). plotly.py (the page's) and
paper.py draw every chart the registry returns, in registry order. Adding a figure is one function in
latency_figures.py, pattern_figures.py, load_figures.py or study_figures.py (a study's own, drawn when the
scenario's `[report] figures` names it), its place in FIGURES, and a test on a hand-made
document.

Units: times in µs (the samples are ns), rates per second, CPU in µs per message. Statistics
are the saved run's (after outlier removal, `trimmed`; intervals from analyse/case_stats.py);
nothing here re-estimates them."""
from ipclab.output.report.figure_parts import case_label
from ipclab.output.report.latency_figures import (distributions, headline, heatmaps,
                                                  latency_vs_size, warmup)
from ipclab.output.report.load_figures import load_curve, load_spectrum
from ipclab.output.report.pattern_figures import (burst_connections, burst_phases, short_rates,
                                                  explained_costs, stream_cpu, stream_throughput,
                                                  wire_bytes)
from ipclab.output.report.study_figures import (bars_by_sequence_length, bars_by_size,
                                                histogram, mechanisms_by_size)

FIGURES = (headline, bars_by_size, histogram, mechanisms_by_size, bars_by_sequence_length,
           latency_vs_size, distributions, heatmaps, stream_throughput, stream_cpu, short_rates,
           warmup, wire_bytes, explained_costs, burst_phases, burst_connections, load_curve, load_spectrum)

__all__ = ["FIGURES", "charts", "case_label", *(f.__name__ for f in FIGURES)]


def charts(data):
    """Every chart of the run, in registry order."""
    return [chart for function in FIGURES for chart in function(data) or ()]
