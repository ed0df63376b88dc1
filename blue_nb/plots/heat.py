"""Pictures of partition heat: the key-space heat map (Google Cloud's Key Visualizer is the model) and the
hottest keys against DynamoDB's per-partition limits (3,000 RCU/s, 1,000 WCU/s).

The heat sliders' map is drawn by the browser from :func:`heat_cells` (:class:`blue_nb.widgets.heatmap.HeatCanvas`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.colors import PowerNorm
from matplotlib.ticker import FuncFormatter, MaxNLocator

from blue_nb.errors import BlueNbError
from blue_nb.plots.base import (BASE, DPI, MAX_KEY_LABEL, OVER, WARN, PlotFigure, check_columns, count_tick,
                                limit_marks, new_figure, no_data_figure, set_fonts)
from blue_nb.printing import number, per_second, short
from blue_nb.sizing import PARTITION_RCU, PARTITION_WCU

__all__ = ["METRICS", "HeatAxes", "HeatCells", "empty_heatmap", "heat_cells", "heatmap_title", "key_heatmap",
           "scale_label", "scale_top", "timeline_rows", "top_keys_chart"]

METRICS = {"rcu": ("read units/s", PARTITION_RCU), "wcu": ("write units/s", PARTITION_WCU),  # unit, partition limit
           "ctu": ("consumed throughput units/s (3×WCU + RCU)", PARTITION_RCU)}
TIMELINE_COLUMNS = ("second", "index", "pk", "rcu", "wcu")
MAX_BARS = 100                 # top_keys_chart: one bar per row of the ranked frame it is given


def _heat_grid(df: pd.DataFrame, metric: str, max_rows: int, max_cols: int, starts: list[str] | None = None):
    """(grid of the max units/s per key range and time bin, units per (key rank, second), keys in key order, T,
    the grid row of each key, the first key of each row). The rows are the contiguous key ranges that begin
    at ``starts`` (keys in key order) when they are given, no key lies before the first and they fit in
    ``max_rows``; else the keys split evenly."""
    values = (df["rcu"] + 3 * df["wcu"] if metric == "ctu" else df[metric]).to_numpy(float)
    codes, uniq = pd.factorize(df["pk"].astype(str))
    order = np.argsort(np.asarray(uniq, dtype=object), kind="stable")  # code-point order == UTF-8 byte order
    rank = np.empty(len(uniq), np.int64)
    rank[order] = np.arange(len(uniq))
    keys = np.asarray(uniq, dtype=object)[order]
    seconds = int(df["second"].max()) + 1
    cell = pd.Series(values).groupby(rank[codes] * seconds + df["second"].to_numpy(np.int64)).sum()
    key, sec = cell.index.to_numpy() // seconds, cell.index.to_numpy() % seconds
    cell.index = pd.MultiIndex.from_arrays([key, sec], names=["key", "second"])
    firsts = np.asarray(starts or [], dtype=object)
    rows = np.searchsorted(firsts, keys, side="right") - 1
    if not 0 < len(firsts) <= max_rows or (rows < 0).any():
        n_rows = min(len(keys), max_rows)
        rows = np.arange(len(keys)) * n_rows // len(keys)
        firsts = keys[-(-np.arange(n_rows) * len(keys) // n_rows)]
    grid = np.zeros((len(firsts), min(seconds, max_cols)))              # contiguous key ranges x time bins
    np.maximum.at(grid, (rows[key], sec * grid.shape[1] // seconds), cell.to_numpy())
    return grid, cell, keys, seconds, rows, firsts


@dataclass
class HeatCells:
    """The numbers of one heat map, for a picture drawn elsewhere (the browser's canvas of the heat sliders):
    ``grid`` (rows x columns, the peak units/s of the hottest key of each key range and time bin), ``owner``
    (the same shape: the position in ``names`` of that key, -1 where no key has traffic), ``names`` (the keys
    that own a cell), ``starts`` (the first key of each row), ``seconds``, ``keys`` (how many keys are drawn),
    ``hot`` ((row, key, peak) of the hottest keys, hottest first, rows apart: the ones a picture names) and
    ``peak`` (the largest cell)."""

    grid: np.ndarray
    owner: np.ndarray
    names: list[str]
    starts: list[str]
    seconds: int
    keys: int
    hot: list[tuple[int, str, float]]
    peak: float


def heat_cells(timeline: pd.DataFrame, index: str = "table", metric: str = "rcu", *, max_rows: int = 200,
               max_cols: int = 600, key_ranges: Mapping[str, list[str]] | None = None,
               most_named: int = 6) -> HeatCells:
    """The cells :func:`key_heatmap` draws for ``index`` and ``metric`` (same arguments, same rows and
    columns), with the key that owns each cell: what a browser needs to draw the map and name a cell's key."""
    df = timeline_rows(timeline, index, metric)
    if df.empty:
        return HeatCells(np.zeros((0, 0)), np.zeros((0, 0), np.int32), [], [], 0, 0, [], 0.0)
    grid, cell, keys, seconds, rows, firsts = _heat_grid(df, metric, max_rows, max_cols,
                                                         (key_ranges or {}).get(index))
    key, sec = (cell.index.get_level_values(n).to_numpy() for n in ("key", "second"))
    values = cell.to_numpy()
    order = np.argsort(values, kind="stable")                  # the largest last: it owns its cell
    owner = np.full(grid.shape, -1, np.int64)
    owner[rows[key[order]], sec[order] * grid.shape[1] // seconds] = key[order]
    used, at = np.unique(owner[owner >= 0], return_inverse=True)
    compact = np.full(grid.shape, -1, np.int32)
    compact[owner >= 0] = at
    peaks = cell.groupby(level="key").max()
    hot = [(r, str(keys[k]), p) for r, k, p in _hot_rows(peaks.nlargest(40), rows, 1, most_named)]
    return HeatCells(grid, compact, [str(k) for k in keys[used]], [str(k) for k in firsts], seconds, len(keys), hot,
                     float(grid.max()) if grid.size else 0.0)


def timeline_rows(timeline: pd.DataFrame, index: str, metric: str) -> pd.DataFrame:
    """The rows of one ``index`` of a heat timeline (``second, index, pk, rcu, wcu``), once the metric and the
    columns are checked: what a heat map draws."""
    if metric not in METRICS:
        raise BlueNbError(f"unknown metric {metric!r}", where="key_heatmap", hint=f"use one of {list(METRICS)}")
    check_columns(timeline, TIMELINE_COLUMNS, "key_heatmap(timeline)")
    return timeline[timeline["index"] == index]


def empty_heatmap(timeline: pd.DataFrame, index: str, title: str) -> PlotFigure:
    """The "no data" figure of a heat map whose index has no rows, naming the indexes the timeline has."""
    have = ", ".join(sorted(map(str, timeline["index"].unique())))
    return no_data_figure(title, f"no data for index {index!r} (the timeline has {have})" if have else "no data")


def _nice(x: float) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^k that is at least ``x``."""
    if x <= 0:
        return 1.0
    base = 10.0 ** np.floor(np.log10(x))
    return float(next(m * base for m in (1, 2, 2.5, 5, 10) if m * base >= x * (1 - 1e-9)))


def scale_top(peak: float, limit: float) -> float:
    """Where the colour scale ends: the partition limit once the peak reaches a quarter of it (cells over it
    are cyan), else a round number just above the peak, so a quiet map (writes, mostly) is not all black."""
    return limit if peak >= limit / 4 else _nice(peak)


def scale_label(v: float, top: float) -> str:
    """A colour-scale label: whole units on a scale that ends at 50 or more, else three significant digits."""
    return number(v, 0) if top >= 50 else number(v, significant=3)


class HeatAxes:
    """The parts of one heat map figure: the frame (drawn once) and the artists that follow the data
    (:meth:`paint`). :func:`key_heatmap` paints one."""

    def __init__(self, index: str, metric: str, limit: float, title: str, seconds: int, max_cols: int,
                 figsize: tuple[float, float], dpi: float):
        self.unit, self.limit = METRICS[metric][0], limit
        self.fig = fig = new_figure(*figsize, dpi=dpi)
        self.ax = ax = fig.add_subplot()
        self.im = ax.imshow(np.zeros((1, 1)), aspect="auto", interpolation="nearest",
                            cmap=colormaps["magma"].with_extremes(over=OVER),
                            norm=PowerNorm(0.5, vmin=0, vmax=limit), extent=(0, seconds, 1, 0))
        self.bar = fig.colorbar(self.im, ax=ax, extend="max", extendfrac=0.06)
        self.bar.ax.axhline(limit, color=OVER, lw=3)
        n_cols = min(seconds, max_cols)
        ax.set_xlabel("time (s)" + (f"; 1 column = {number(seconds / n_cols, 1)} s" if n_cols < seconds else ""))
        self.right = ax.secondary_yaxis("right")
        self.right.tick_params(length=0)
        fig.suptitle(title)
        self.index, self.seconds, self.top = index, seconds, None
        self.fit = max(4, int((figsize[1] - 1.5) * 72 / 9.6))     # key labels of 7 pt the axis holds

    def paint(self, df: pd.DataFrame, metric: str, max_rows: int, max_cols: int,
              keys_with_traffic: int | None = None, key_ranges: Mapping[str, list[str]] | None = None) -> None:
        """Cells, colour scale, key labels (the hottest rows named on the left with their peak on the right,
        key-order landmarks or every row on the left) and title; ``key_ranges``: :func:`key_heatmap`'s."""
        ax, limit = self.ax, self.limit
        starts = (key_ranges or {}).get(self.index)
        grid, cell, keys, seconds, rows, firsts = _heat_grid(df, metric, max_rows, max_cols, starts)
        (n_rows, _), n_keys = grid.shape, len(keys)
        self.im.set_data(grid)
        self.im.set_extent((0, seconds, n_rows, 0))
        ax.set_xlim(0, seconds)
        ax.set_ylim(n_rows, 0)
        self._colour_scale(float(grid.max()))
        peaks = cell.groupby(level="key").max()
        gap = max(1, -(-n_rows // self.fit))
        hot = _hot_rows(peaks.nlargest(40), rows, gap)
        _label_rows(ax, hot, keys, firsts, gap, limit)
        _peaks_of_hot_rows(self.right, hot, limit)
        ax.set_ylabel(_key_axis_label(n_keys, n_rows, keys_with_traffic, every=gap == 1))
        n_hot = int((peaks.to_numpy() > limit).sum())
        top_key = short(keys[peaks.idxmax()], MAX_KEY_LABEL) if len(peaks) else ""
        # no number that moves with a slider: the peaks are at the right edge, and a title that stays is not drawn again
        ax.set_title(f"{n_hot:,} key{'s' if n_hot > 1 else ''} over the {number(limit, 0)}/s partition limit (cyan); "
                     f"the hottest is {top_key}" if n_hot else
                     f"no key over the {number(limit, 0)}/s partition limit; the hottest is {top_key}",
                     color=WARN if n_hot else "0.2", fontsize=10)
        set_fonts(self.fig, [*ax.get_yticklabels(), *self.right.get_yticklabels(), ax.title, ax.yaxis.label,
                             *self.bar.ax.get_yticklabels(), self.bar.ax.yaxis.label])

    def _colour_scale(self, peak: float) -> None:
        """Square-root colours from 0 to the limit, or to a round number above a quiet map's peak."""
        top, limit = scale_top(peak, self.limit), self.limit
        if top == self.top:
            return
        self.top, cmap = top, colormaps["magma"]
        self.im.set_cmap(cmap.with_extremes(over=OVER if top == limit else cmap(1.0)))  # cyan only past the limit
        self.im.norm.vmax = top
        fractions = (0, 0.05, 0.25, 0.5, 0.75, 1)
        labels = [scale_label(top * f, top) for f in fractions]
        if top == limit:
            labels[-1] = f"limit {number(limit, 0)}"
        self.bar.set_ticks([top * f for f in fractions], labels=labels)
        scale = ("cyan: over the partition limit" if top == limit
                 else f"scale ends at {scale_label(top, top)}; the limit, {number(limit, 0)}, is far above")
        self.bar.set_label(f"{self.unit} of the hottest key in each cell,\nin its busiest second "
                           f"(square-root scale)\n{scale}")


def _hot_rows(peaks: pd.Series, rows: np.ndarray, gap: int, most: int = 6) -> list[tuple[int, int, float]]:
    """(row, key, peak) of the hottest keys, hottest first, at most ``most``, rows at least ``gap`` apart
    (``rows``: the row of each key)."""
    taken: list[tuple[int, int, float]] = []
    for key, peak in peaks.items():
        row = int(rows[key])
        if len(taken) < most and all(abs(row - r) >= gap for r, _, _ in taken):
            taken.append((row, int(key), float(peak)))
    return taken


def _label_rows(ax, hot, keys: np.ndarray, firsts: np.ndarray, gap: int, limit: float) -> None:
    """Left labels: every row when they fit (its first key), else the hot rows (named by their hottest key,
    dark) and, where there is room, the first key of evenly spaced rows (grey)."""
    n_rows = len(firsts)
    hot_at = {row: (key, peak) for row, key, peak in hot}
    if gap == 1:
        rows = list(range(n_rows))
    else:
        marks = np.unique(np.linspace(0, n_rows - 1, min(n_rows, 10)).astype(int))
        rows = sorted([*hot_at, *(m for m in marks.tolist() if all(abs(m - r) >= gap for r in hot_at))])
    labels = [short(keys[hot_at[r][0]] if r in hot_at else firsts[r], MAX_KEY_LABEL) for r in rows]
    ax.set_yticks(np.array(rows) + 0.5, labels, fontsize=7 if n_rows > 30 else 8)
    for label, row in zip(ax.get_yticklabels(), rows):
        over = row in hot_at and hot_at[row][1] > limit
        label.set_color(WARN if over else "black" if row in hot_at or gap == 1 else "0.45")


def _key_axis_label(n_keys: int, n_rows: int, keys_with_traffic: int | None, every: bool) -> str:
    """What the rows are and what the left labels name, in at most three short lines."""
    if keys_with_traffic is not None and keys_with_traffic > n_keys:    # a timeline of the keys that matter
        counts = f"{keys_with_traffic:,} keys with traffic, the busiest drawn"     # no count that moves with a slider
    elif n_keys > n_rows:
        counts = f"{n_keys:,} keys, {number(n_keys / n_rows, 0)} per row"
    else:
        counts = f"{n_keys:,} keys"
    if every and n_keys <= n_rows and keys_with_traffic in (None, n_keys):
        return f"partition key (key order; {counts})"
    named = ("row named by its first key; hot row: its hottest" if every
             else "named: the hottest rows (black), range starts (grey)")
    return f"partition key in key order\n{counts}\n{named}"


def _peaks_of_hot_rows(right, hot, limit: float) -> None:
    """On the right edge, at the rows of the hottest keys (named on the left), their peak (red when over the
    limit)."""
    right.set_yticks([r + 0.5 for r, _, _ in hot], [f"◀ {per_second(p)}/s" for _, _, p in hot], fontsize=8)
    for label, (_, _, peak) in zip(right.get_yticklabels(), hot):
        label.set_color(WARN if peak > limit else "0.3")


def heatmap_title(index: str, metric: str, title: str | None) -> str:
    """``title``, or the heat map's own: the index and the metric."""
    return title or f"Key-space heat map · {index} · {METRICS[metric][0].split(' (')[0]} (per-second peaks)"


def _size(n_rows: int, figsize: tuple[float, float] | None) -> tuple[float, float]:
    """11 x 6.5 inches; taller (up to 9.5 in) when that names every row (up to 59 rows)."""
    tall = 1.5 + n_rows * 0.135
    return figsize or (11.0, max(6.5, tall) if tall <= 9.5 else 6.5)


def key_heatmap(timeline: pd.DataFrame, *, index: str = "table", metric: str = "rcu", limit: float | None = None,
                title: str | None = None, max_rows: int = 200, max_cols: int = 600,
                keys_with_traffic: int | None = None, figsize: tuple[float, float] | None = None,
                dpi: float = DPI, key_ranges: Mapping[str, list[str]] | None = None) -> PlotFigure:
    """Key Visualizer style: seconds across, partition keys in key order (UTF-8 bytes) down, colour = units/s.

    ``timeline`` has ``second, index, pk, rcu, wcu``; one ``index`` is drawn. Keys are binned into at most
    ``max_rows`` contiguous key ranges (colour = the hottest key of the range, so a hot key stays visible);
    cells over the per-partition ``limit`` (3,000 RCU/s, 1,000 WCU/s) are cyan. A cell's number is a per-second
    peak; colours follow a square-root scale from 0 to the limit, or to a round number above the peak when the
    peak is under a quarter of the limit. The hottest keys are named on the left at their rows, their peak
    on the right; every row is named when the rows fit.
    ``keys_with_traffic``: when the timeline holds only the keys that matter, how many keys have traffic in all.
    ``key_ranges``: per index, the first key of each key range to draw as one row (a rate model's result gives
    them: :attr:`RateResult.key_ranges <blue_nb.heat.RateResult>`); without them the keys split evenly.
    ``figsize`` (inches; default 11 wide, 6.5 to 9.5 tall) and ``dpi`` (default 110) size the figure.
    """
    df = timeline_rows(timeline, index, metric)
    title = heatmap_title(index, metric, title)
    if df.empty:
        return empty_heatmap(timeline, index, title)
    n_rows = min(df["pk"].nunique(), max_rows)
    heat = HeatAxes(index, metric, float(limit or METRICS[metric][1]), title, int(df["second"].max()) + 1, max_cols,
                    _size(n_rows, figsize), dpi)
    heat.paint(df, metric, max_rows, max_cols, keys_with_traffic, key_ranges)
    return heat.fig


def top_keys_chart(top: pd.DataFrame, title: str | None = None, *, figsize: tuple[float, float] | None = None,
                   dpi: float = DPI) -> PlotFigure:
    """The hottest partition keys, one bar each in the frame's order: consumed throughput units (3×WCU + RCU,
    what they are ranked by), RCU/s and WCU/s - each a mean over the run - against the per-partition limits.

    ``top`` is already ranked, hottest first: :func:`blue_nb.heat.top_keys` (``report.top_keys(20)``) gives it.
    Without ``consumed_throughput_units`` it is computed. ``figsize`` (inches) and ``dpi`` size the figure."""
    check_columns(top, ("index", "pk", "rcu_per_s", "wcu_per_s"), "top_keys_chart(top)")
    if len(top) > MAX_BARS:
        raise BlueNbError(f"top_keys_chart draws at most {MAX_BARS} keys, got {len(top):,} rows", where="top_keys_chart(top)",
                          hint="rank them first: blue_nb.heat.top_keys(partitions, n=20) or report.top_keys(20)")
    title = title or (f"Top {len(top) or ''} partition keys by consumed throughput (3×WCU + RCU), "
                      "mean units/s over the run").replace("  ", " ")
    if top.empty:
        return no_data_figure(title)
    if "consumed_throughput_units" not in top.columns:
        top = top.assign(consumed_throughput_units=3 * top["wcu_per_s"] + top["rcu_per_s"])
    labels = [short(f"{i} · {k}", 36) for i, k in zip(top["index"], top["pk"])]
    fig = new_figure(12, 1.9 + 0.28 * len(top), figsize, dpi)
    axes = fig.subplots(1, 3, sharey=True)
    y = np.arange(len(top))
    panels = (("consumed_throughput_units", PARTITION_RCU, "consumed throughput units/s\n(3×WCU + RCU; the ranking)"),
              ("rcu_per_s", PARTITION_RCU, "read units/s (RCU)"), ("wcu_per_s", PARTITION_WCU, "write units/s (WCU)"))
    for ax, (col, limit, unit) in zip(axes, panels):
        v = top[col].to_numpy(float)
        ax.barh(y, v, height=0.7, color=np.where(v > limit, WARN, BASE))
        for yy, x in zip(y, v):
            ax.text(x, yy, f" {number(x, 1)}" + (f" ({x / limit:.1f}×)" if x > limit else ""), va="center", fontsize=8,
                    color=WARN if x > limit else "0.2")
        ax.set_xlim(0, max(limit, v.max()) * 1.45)
        limit_marks(ax, [(limit, f"partition limit {limit:,}/s")], color=WARN)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.xaxis.set_major_formatter(FuncFormatter(count_tick))
        ax.set_xlabel(f"mean {unit}\nred: over the limit")
    axes[0].set_yticks(y, labels, fontsize=8)
    axes[0].invert_yaxis()
    axes[0].set_ylabel("partition key (index · key)")
    fig.suptitle(title)
    return set_fonts(fig)
