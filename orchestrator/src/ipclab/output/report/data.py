"""What the figures read beyond the Report (output/model.py): each round's samples reduced to a
quantile grid, each round's warm-up reduced to binned medians, and a burst round's per-connection
files, loaded from the run directory in one place. These are saved data (samples/, bursts/); no
exported file (cases.csv, phases.csv) is read back: the phases and the wire bytes come from the
Report.

Reduced, not raw: a quick run holds ~10^5 samples and a long one millions; embedding them would
make report.html tens of megabytes. A quantile grid keeps an ECDF's shape (dense in the tail,
where latency distributions differ) in ~120 points per round."""
import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ipclab.output.model import Report
from ipclab.plan import patterns

# Probabilities of the ECDF grid: every percent, then the tail to the maximum.
QUANTILE_GRID = np.unique(np.concatenate([np.linspace(0, 1, 101),
                                          [0.991, 0.993, 0.995, 0.997, 0.999, 0.9995, 0.9999]]))
WARMUP_BINS = 40
HISTOGRAM_BINS = 40
# A histogram's axis ends at this quantile: one 100x stall would otherwise squeeze every other
# sample into the first bar. The samples beyond it are counted in the figure's legend.
HISTOGRAM_TOP = 0.995


@dataclass
class RunData:
    report: Report
    quantiles: dict = field(default_factory=dict)  # case id -> round -> (p, x ns)
    warmup: dict = field(default_factory=dict)     # case id -> round -> (iteration, median ns)
    phases: list = None                            # the Report's phase rows unless given
    connections: dict = field(default_factory=dict)  # case id -> round -> server phases rows
    client_connections: dict = field(default_factory=dict)  # case id -> round -> records rows
    histograms: dict = field(default_factory=dict)  # case id -> Histogram (when a figure wants it)

    def __post_init__(self):
        if self.phases is None:
            self.phases = self.report.phases

    @property
    def document(self):
        return self.report.document

    @property
    def records(self):
        return self.report.records


def quantile_grid(samples, grid=QUANTILE_GRID):
    """(p, x): the ECDF of `samples` at the grid's probabilities (all of them when fewer
    samples than grid points: a stream's ten windows are shown as they are)."""
    x = np.sort(np.asarray(samples, dtype=np.float64))
    if x.size == 0:
        return np.empty(0), np.empty(0)
    if x.size <= grid.size:
        return np.arange(1, x.size + 1) / x.size, x
    return grid.copy(), np.quantile(x, grid)


def binned_medians(samples, bins=WARMUP_BINS):
    """(centre iteration, median ns) of `bins` equal runs of consecutive samples: the warm-up's
    course without its noise or its size."""
    x = np.asarray(samples, dtype=np.float64)
    if x.size == 0:
        return np.empty(0), np.empty(0)
    parts = np.array_split(np.arange(x.size), min(bins, x.size))
    return (np.array([p.mean() for p in parts]), np.array([np.median(x[p]) for p in parts]))


@dataclass(frozen=True)
class Histogram:
    """A case's samples (its measured rounds pooled, before outlier removal) in equal bins up to
    HISTOGRAM_TOP, with the moments that say its shape."""
    edges: np.ndarray       # ns, HISTOGRAM_BINS + 1
    counts: np.ndarray
    n: int
    beyond: int             # samples above the last edge
    mean: float
    std: float
    median: float
    skewness: float
    excess_kurtosis: float


def histogram(samples, bins=HISTOGRAM_BINS, top=HISTOGRAM_TOP):
    """The Histogram of `samples` (None for fewer than 4: no shape to speak of)."""
    x = np.asarray(samples, dtype=np.float64)
    if x.size < 4:
        return None
    low, high = float(x.min()), float(np.quantile(x, top))
    counts, edges = np.histogram(x, bins=bins, range=(low, high if high > low else low + 1))
    mean, std = float(x.mean()), float(x.std())
    z = (x - mean) / std if std > 0 else np.zeros_like(x)
    return Histogram(edges, counts, int(x.size), int(x.size - counts.sum()), mean, std,
                     float(np.median(x)), float((z ** 3).mean()), float((z ** 4).mean() - 3))


def _wants_histograms(report):
    scenario = report.document.get("scenario") or {}
    return "histogram" in ((scenario.get("report") or {}).get("figures") or ())


def load(run_dir, report):
    """The figures' input for a run directory and its Report."""
    run_dir = Path(run_dir)
    data = RunData(report)
    skip = ((report.document.get("scenario") or {}).get("statistics") or {}).get("skip_rounds", 0)
    for record in data.records:
        measured = []
        for entry in record.get("rounds") or []:
            if entry.get("status") != "ok":
                continue
            samples = _read(run_dir, entry.get("samples_file"))
            if samples is not None:
                data.quantiles.setdefault(record["id"], {})[entry["round"]] = quantile_grid(samples)
                if entry["round"] > (skip or 0):
                    measured.append(samples)
            _burst_files(run_dir, record, entry, data)
            warmup = _read(run_dir, entry.get("warmup_samples_file"))
            if warmup is not None:
                data.warmup.setdefault(record["id"], {})[entry["round"]] = binned_medians(warmup)
        if measured and _wants_histograms(report):
            data.histograms[record["id"]] = histogram(np.concatenate(measured))
    return data


def _burst_files(run_dir, record, entry, data):
    """A burst round's per-connection files (PROTOCOL.md 11.4), named in its round entry (under
    its row's entry_key, as burst.py saves them): the server's phases and the client's records."""
    pattern, case_id = patterns.of_record(record), record["id"]
    burst = (entry.get(pattern.entry_key) if pattern.phases else None) or entry
    for key, into in (("phases_file", data.connections), ("records_file", data.client_connections)):
        name = burst.get(key)
        if name and (run_dir / name).is_file():
            into.setdefault(case_id, {})[entry["round"]] = _read_csv(run_dir / name)


def _read(run_dir, name):
    if not name or not (run_dir / name).is_file():
        return None  # a report of a copied run without its samples: figures without them
    return np.fromfile(run_dir / name, dtype="<i8")


def _read_csv(path):
    if not path.is_file():
        return []
    with path.open(newline="") as f:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(f)]


def _number(text):
    if text is None or text == "":
        return None
    try:
        return float(text)
    except ValueError:
        return text
