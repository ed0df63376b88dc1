"""Pictures of partition heat: the key-space heat map (Google Cloud's Key Visualizer is the model) and the
hottest keys against DynamoDB's per-partition limits (3,000 RCU/s, 1,000 WCU/s).

:class:`LiveHeatmap` is the heat map for sliders: laid out once, then only the cells, the key labels
and the title are drawn again onto the saved rest of the picture (matplotlib blitting on the Agg
canvas), so a redraw at 100k partitions costs a fraction of a new figure.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import PowerNorm
from matplotlib.ticker import FuncFormatter
from PIL import Image

from blue_nb.errors import BlueNbError
from blue_nb.plots.base import (BASE, OVER, WARN, PlotFigure, _check, _count, _figure, _finish, _marks,
                                _no_data, _short)
from blue_nb.sizing import PARTITION_RCU, PARTITION_WCU

__all__ = ["LiveHeatmap", "key_heatmap", "top_keys_chart"]

METRICS = {"rcu": ("read units/s", PARTITION_RCU), "wcu": ("write units/s", PARTITION_WCU),  # unit, partition limit
           "ctu": ("consumed throughput units/s (3×WCU + RCU)", PARTITION_RCU)}
TIMELINE_COLUMNS = ("second", "index", "pk", "rcu", "wcu")
MAX_BARS = 100                 # top_keys_chart: one bar per row of the ranked frame it is given


def _heat_grid(df: pd.DataFrame, metric: str, max_rows: int, max_cols: int):
    """(grid of the max units/s per key range and time bin, units per (key rank, second), keys in key order, T)."""
    values = (df["rcu"] + 3 * df["wcu"] if metric == "ctu" else df[metric]).to_numpy(float)
    codes, uniq = pd.factorize(df["pk"].astype(str))
    order = np.argsort(np.asarray(uniq, dtype=object), kind="stable")  # code-point order == UTF-8 byte order
    rank = np.empty(len(uniq), np.int64)
    rank[order] = np.arange(len(uniq))
    seconds = int(df["second"].max()) + 1
    cell = pd.Series(values).groupby(rank[codes] * seconds + df["second"].to_numpy(np.int64)).sum()
    key, sec = cell.index.to_numpy() // seconds, cell.index.to_numpy() % seconds
    cell.index = pd.MultiIndex.from_arrays([key, sec], names=["key", "second"])
    grid = np.zeros((min(len(uniq), max_rows), min(seconds, max_cols)))  # contiguous key ranges x time bins
    np.maximum.at(grid, (key * len(grid) // len(uniq), sec * grid.shape[1] // seconds), cell.to_numpy())
    return grid, cell, np.asarray(uniq, dtype=object)[order], seconds


def _rows_of(timeline: pd.DataFrame, index: str, metric: str) -> pd.DataFrame:
    if metric not in METRICS:
        raise BlueNbError(f"unknown metric {metric!r}", where="key_heatmap", hint=f"use one of {list(METRICS)}")
    _check(timeline, TIMELINE_COLUMNS, "key_heatmap(timeline)")
    return timeline[timeline["index"] == index]


def _empty(timeline: pd.DataFrame, index: str, title: str) -> PlotFigure:
    have = ", ".join(sorted(map(str, timeline["index"].unique())))
    return _no_data(title, f"no data for index {index!r} (the timeline has {have})" if have else "no data")


class _HeatAxes:
    """The parts of one heat map figure: the frame (drawn once) and the artists that follow the data."""

    def __init__(self, index: str, metric: str, limit: float, title: str, seconds: int, max_cols: int):
        self.unit, self.limit = METRICS[metric][0], limit
        self.fig = fig = _figure(11, 6.5)
        self.ax = ax = fig.add_subplot()
        self.im = ax.imshow(np.zeros((1, 1)), aspect="auto", interpolation="nearest",
                            cmap=colormaps["magma"].with_extremes(over=OVER),
                            norm=PowerNorm(0.5, vmin=0, vmax=limit), extent=(0, seconds, 1, 0))
        bar = fig.colorbar(self.im, ax=ax, extend="max", extendfrac=0.06)
        bar.set_label(f"{self.unit} per partition key\ncyan: over the limit")
        bar.set_ticks([limit * f for f in (0, 0.05, 0.25, 0.5, 0.75, 1)],
                      labels=[_count(limit * f) for f in (0, 0.05, 0.25, 0.5, 0.75)] + [f"limit {limit:,.0f}"])
        bar.ax.axhline(limit, color=OVER, lw=3)
        n_cols = min(seconds, max_cols)
        ax.set_xlabel("time (s)" + (f"; 1 column = {seconds / n_cols:,.1f} s" if n_cols < seconds else ""))
        self.right = ax.secondary_yaxis("right")
        self.right.tick_params(length=0)
        fig.suptitle(title)
        self.seconds = seconds

    @property
    def changing(self) -> list:
        """The artists :meth:`paint` changes: everything else is the same for every timeline."""
        return [self.im, *self.ax.spines.values(), self.ax.yaxis, self.ax.title, self.right]  # spines over the cells

    def reserve(self, slack: int = 4) -> None:
        """Labels ``slack`` digits wider than the widest now (the hot-key names at least 12 characters), so a
        layout made with them still holds the labels of the next few timelines."""
        pad = "0" * slack
        ticks, texts = self.ax.get_yticks(), [t.get_text() for t in self.ax.get_yticklabels()]
        self.ax.set_yticks(ticks, [max(texts, key=len, default="") + pad] * len(ticks))
        names = [t.get_text() for t in self.right.get_yticklabels()] or ["◀ " + "0" * 12 + "  000,000/s"]
        self.right.set_yticks([0.5], [max(names, key=len) + pad])
        self.ax.set_ylabel(self.ax.get_ylabel().split("\n")[0] + "\n ")

    def paint(self, df: pd.DataFrame, metric: str, max_rows: int, max_cols: int,
              keys_with_traffic: int | None = None) -> None:
        """Cells, key labels (first key of a few ranges on the left, the hottest keys on the right) and title."""
        ax, limit = self.ax, self.limit
        grid, cell, keys, seconds = _heat_grid(df, metric, max_rows, max_cols)
        (n_rows, _), n_keys = grid.shape, len(keys)
        self.im.set_data(grid)
        self.im.set_extent((0, seconds, n_rows, 0))
        ax.set_xlim(0, seconds)
        ax.set_ylim(n_rows, 0)
        ticks = np.unique(np.linspace(0, n_rows - 1, min(n_rows, 10)).astype(int))
        ax.set_yticks(ticks + 0.5, [_short(k) for k in keys[-(-ticks * n_keys // n_rows)]], fontsize=8)
        if keys_with_traffic is not None and keys_with_traffic > n_keys:    # a timeline of the keys that matter
            ax.set_ylabel(f"partition key (key order; {keys_with_traffic:,} keys with traffic,\n"
                          f"{n_keys:,} drawn: the hottest of each key range)")
        else:
            per = f", {n_keys / n_rows:,.0f} keys per row" if n_keys > n_rows else ""
            ax.set_ylabel(f"partition key (key order; {n_keys:,} keys{per})")
        _name_hot_rows(self.right, cell.groupby(level="key").max().nlargest(40), keys, n_keys, n_rows, limit)
        hot = cell[cell.to_numpy() > limit]
        n_hot = hot.index.get_level_values("key").nunique()
        ax.set_title(f"{n_hot:,} key(s) over the {limit:,.0f}/s partition limit, for {len(hot):,} key-second(s)"
                     if n_hot else f"no key over the {limit:,.0f}/s partition limit (peak {grid.max():,.0f})",
                     color=WARN if n_hot else "0.2", fontsize=10)
        _finish(self.fig)


def _name_hot_rows(right, peaks: pd.Series, keys: np.ndarray, n_keys: int, n_rows: int, limit: float,
                   most: int = 6) -> None:
    """Name, on the right edge, the hottest keys and their peak (red when over the limit), never crowded."""
    gap, taken = max(1, n_rows // 25), []
    for key, peak in peaks.items():
        row = key * n_rows // n_keys
        if len(taken) < most and all(abs(row - r) >= gap for r, _, _ in taken):
            taken.append((row, f"◀ {_short(keys[key])}  {peak:,.0f}/s", WARN if peak > limit else "0.3"))
    right.set_yticks([r + 0.5 for r, _, _ in taken], [t for _, t, _ in taken], fontsize=8)
    for label, (_, _, color) in zip(right.get_yticklabels(), taken):
        label.set_color(color)


def _title(index: str, metric: str, title: str | None) -> str:
    return title or f"Key-space heat map · {index} · {METRICS[metric][0].split(' (')[0]}"


def key_heatmap(timeline: pd.DataFrame, *, index: str = "table", metric: str = "rcu", limit: float | None = None,
                title: str | None = None, max_rows: int = 200, max_cols: int = 600,
                keys_with_traffic: int | None = None) -> PlotFigure:
    """Key Visualizer style: seconds across, partition keys in key order (UTF-8 bytes) down, colour = units/s.

    ``timeline`` has ``second, index, pk, rcu, wcu``; one ``index`` is drawn. Keys are binned into at most
    ``max_rows`` contiguous key ranges (colour = the hottest key of the range, so a hot key stays visible);
    cells over the per-partition ``limit`` (3,000 RCU/s, 1,000 WCU/s) are cyan and their keys named on the right.
    ``keys_with_traffic``: when the timeline holds only the keys that matter, how many keys have traffic in all.
    """
    df = _rows_of(timeline, index, metric)
    title = _title(index, metric, title)
    if df.empty:
        return _empty(timeline, index, title)
    heat = _HeatAxes(index, metric, float(limit or METRICS[metric][1]), title, int(df["second"].max()) + 1, max_cols)
    heat.paint(df, metric, max_rows, max_cols, keys_with_traffic)
    return heat.fig


class LiveHeatmap:
    """:func:`key_heatmap` for a timeline that keeps changing (sliders): ``png(timeline)`` returns the PNG bytes.

    The first call lays the figure out (constrained layout) and saves everything that does not depend on
    the data; later calls with the same time span draw only the cells, the key labels and the title over
    that saved background. A label that would not fit the saved layout makes it lay out again, so
    nothing overlaps. ``figure`` is the current Figure; ``layouts`` counts the full draws."""

    def __init__(self, index: str = "table", metric: str = "rcu", *, limit: float | None = None,
                 title: str | None = None, dpi: int = 72, max_rows: int = 200, max_cols: int = 600):
        if metric not in METRICS:
            raise BlueNbError(f"unknown metric {metric!r}", where="LiveHeatmap", hint=f"use one of {list(METRICS)}")
        self.index, self.metric, self.dpi = index, metric, dpi
        self.limit, self.title = float(limit or METRICS[metric][1]), _title(index, metric, title)
        self.max_rows, self.max_cols = max_rows, max_cols
        self.figure: PlotFigure | None = None
        self.layouts = 0
        self._heat: _HeatAxes | None = None
        self._canvas = self._background = self._room = None

    def png(self, timeline: pd.DataFrame, *, keys_with_traffic: int | None = None) -> bytes:
        df = _rows_of(timeline, self.index, self.metric)
        if df.empty:
            self._heat, self.figure = None, _empty(timeline, self.index, self.title)
            buf = io.BytesIO()
            self.figure.savefig(buf, format="png", dpi=self.dpi)
            return buf.getvalue()
        seconds = int(df["second"].max()) + 1
        if self._heat is None or self._heat.seconds != seconds:
            self._heat = _HeatAxes(self.index, self.metric, self.limit, self.title, seconds, self.max_cols)
            self._heat.fig.set_dpi(self.dpi)
            self.figure, self._canvas = self._heat.fig, FigureCanvasAgg(self._heat.fig)
            self._background = None
        def paint():
            self._heat.paint(df, self.metric, self.max_rows, self.max_cols, keys_with_traffic)
        paint()
        if self._background is None or not self._blit():
            self._layout(paint)
        rgba = Image.frombuffer("RGBA", self._canvas.get_width_height(), self._canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        buf = io.BytesIO()
        rgba.convert("RGB").save(buf, format="png", compress_level=1)
        return buf.getvalue()

    def _layout(self, paint) -> None:
        """Lay the whole figure out with room for the widest labels (so dragging a slider does not move the
        picture), save it without the changing artists as the background, then ``paint`` and blit."""
        fig, changing = self.figure, self._heat.changing
        self._heat.reserve()
        fig.set_layout_engine("constrained")
        self._canvas.draw()
        self._room, title_at = self._extents(), self._heat.ax.title.get_position()
        fig.set_layout_engine("none")                  # keep these positions for the blits
        for artist in changing:
            artist.set_visible(False)
        self._canvas.draw()
        self._background = self._canvas.copy_from_bbox(fig.bbox)
        for artist in changing:
            artist.set_visible(True)
        self._heat.ax.title.set_position(title_at)     # the hidden draw placed it as if nothing were above the axes
        paint()
        self._blit()                                   # the same drawing as every later call: same pixels
        self.layouts += 1

    def _blit(self) -> bool:
        """Draw the changing artists over the background; False when a label needs more room than laid out."""
        self._canvas.restore_region(self._background)
        for artist in self._heat.changing:
            self.figure.draw_artist(artist)
        left, right = self._extents()
        return left >= self._room[0] - 1 and right <= self._room[1] + 1

    def _extents(self) -> tuple[float, float]:
        """(left edge of the key labels and axis label, right edge of the hot-key names), in pixels, as last drawn."""
        ax, right = self._heat.ax, self._heat.right
        left = [t.get_window_extent() for t in (*ax.yaxis.get_ticklabels(), ax.yaxis.label) if t.get_text()]
        names = [t.get_window_extent() for t in right.yaxis.get_ticklabels() if t.get_text()]
        return min((b.x0 for b in left), default=np.inf), max((b.x1 for b in names), default=-np.inf)


def top_keys_chart(top: pd.DataFrame, title: str | None = None) -> PlotFigure:
    """The hottest partition keys, one bar each in the frame's order: RCU/s and WCU/s against 3,000 and 1,000/s.

    ``top`` is already ranked, hottest first: :func:`blue_nb.heat.top_keys` (``report.top_keys(20)``) gives it."""
    _check(top, ("index", "pk", "rcu_per_s", "wcu_per_s"), "top_keys_chart(top)")
    if len(top) > MAX_BARS:
        raise BlueNbError(f"top_keys_chart draws at most {MAX_BARS} keys, got {len(top):,} rows", where="top_keys_chart(top)",
                          hint="rank them first: blue_nb.heat.top_keys(partitions, n=20) or report.top_keys(20)")
    title = title or f"Top {len(top) or ''} partition keys by consumed throughput (3×WCU + RCU)".replace("  ", " ")
    if top.empty:
        return _no_data(title)
    labels = [_short(f"{i} · {k}", 36) for i, k in zip(top["index"], top["pk"])]
    fig = _figure(11, 1.8 + 0.28 * len(top))
    axes = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(top))
    for ax, col, limit, unit in ((axes[0], "rcu_per_s", PARTITION_RCU, "read units/s"),
                                 (axes[1], "wcu_per_s", PARTITION_WCU, "write units/s")):
        v = top[col].to_numpy(float)
        ax.barh(y, v, height=0.7, color=np.where(v > limit, WARN, BASE))
        for yy, x in zip(y, v):
            ax.text(x, yy, f" {x:,.0f}" + (f" ({x / limit:.1f}×)" if x > limit else ""), va="center", fontsize=8,
                    color=WARN if x > limit else "0.2")
        ax.set_xlim(0, max(limit, v.max()) * 1.4)
        _marks(ax, [(limit, f"partition limit {limit:,}/s")], color=WARN)
        ax.xaxis.set_major_formatter(FuncFormatter(_count))
        ax.set_xlabel(f"{unit} (red: over the limit)")
    axes[0].set_yticks(y, labels, fontsize=8)
    axes[0].invert_yaxis()
    axes[0].set_ylabel("partition key (index · key)")
    fig.suptitle(title)
    return _finish(fig)
