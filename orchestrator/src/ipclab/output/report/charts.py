"""A chart described once, drawn twice: the figure functions (figures.py) return these plain
descriptions, plotly.py draws them with Plotly (for output/html.py's page) and paper.py with
matplotlib. Neither drawing library leaks into the figures, so a figure is one small pure
function and its tests need neither."""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Series:
    """One line, one set of bars or one ECDF. `low`/`high` are the interval's absolute bounds
    (drawn as error bars), `hover` one text per point. `style` picks the look: "line" (lines and
    markers), "dash" (a dashed line with markers: p99 beside p50), "step" (an ECDF), "bar",
    "points" (markers only: one per connection). A `companion` is drawn with the series before
    it and shares its legend entry (a p99 beside its median): a chart of nine language pairs has
    nine entries, not eighteen."""
    name: str
    x: list
    y: list
    low: list | None = None
    high: list | None = None
    hover: list | None = None
    style: str = "line"
    group: str | None = None
    companion: bool = False


@dataclass(frozen=True)
class Heat:
    """A client × server grid: `z[i][j]` is row i, column j (None: no ok case there); `text` is
    written in the cell, `hover` (optional, same shape) shown on pointing at it."""
    rows: list
    columns: list
    z: list
    text: list
    group: str | None = None
    hover: list | None = None


@dataclass(frozen=True)
class Chart:
    """One figure. With `groups`, it is one panel per group (HTML: a menu chooses the panel;
    matplotlib: small multiples); every series or heat names its group."""
    key: str            # file name of the PNG/SVG and the HTML anchor
    title: str
    caption: str        # units, placement, what the marks mean
    kind: str           # "lines", "bars" or "heatmap"
    x_title: str = ""
    y_title: str = ""
    x_log: bool = False
    y_log: bool = False
    series: tuple = ()
    heats: tuple = ()
    groups: tuple = ()
    stacked: bool = False
    colour_title: str = ""  # heatmap: what the colour means, with its unit
    meta: dict = field(default_factory=dict, compare=False)

    def panels(self):
        """(group name, its series, its heats) per panel; one unnamed panel without groups."""
        if not self.groups:
            return [(None, list(self.series), list(self.heats))]
        return [(g, [s for s in self.series if s.group == g], [h for h in self.heats if h.group == g])
                for g in self.groups]
