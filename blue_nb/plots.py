"""Pictures of partition heat and item sizes: each function takes DataFrames and returns a Figure.

No pyplot and no global state: figures are ``matplotlib.figure.Figure`` objects built directly,
so they render headless and show themselves in Jupyter (``_repr_png_``) without ``plt.show()``.
Bytes are binary (1 KB = 1024 bytes); the limits come from :mod:`blue_nb.sizing`
(docs/dynamodb-rules.md sections 2 and 4). Empty input gives a Figure that says "no data".

* :func:`key_heatmap` - time across, partition keys in key order down, colour = units/s
* :func:`top_keys` - the hottest keys, RCU/s and WCU/s against the per-partition limits
* :func:`partition_sizes` - bytes per partition key against the 10 GB partition
* :func:`item_size_distribution` - item sizes per entity against 1 KB, 4 KB and 400 KB
* :func:`capacity_waste` - bytes paid (read and write unit rounding) against bytes used
* :func:`attribute_sizes` - which attributes make the items of each entity big
* :func:`index_entry_sizes` - index entry sizes per GSI, the table's items for comparison
"""

from __future__ import annotations

import functools
import io

import numpy as np
import pandas as pd
from matplotlib import colormaps, font_manager
from matplotlib.colors import PowerNorm, to_rgb
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter, NullLocator

from blue_nb.errors import BlueNbError
from blue_nb.sizing import KB, MAX_ITEM_BYTES, PARTITION_BYTES, PARTITION_RCU, PARTITION_WCU, READ_UNIT_BYTES

__all__ = ["PlotFigure", "attribute_sizes", "capacity_waste", "human_bytes", "index_entry_sizes",
           "item_size_distribution", "key_heatmap", "partition_sizes", "top_keys"]

WARN = "#d62728"    # over a limit
BASE = "#4c72b0"    # under it
OVER = "#00e5ff"    # heat map cells over the limit: a colour magma never uses
MAX_KEY_LABEL = 28  # characters of a partition key shown in a tick label
_UNITS = ("B", "KB", "MB", "GB", "TB", "PB")
_METRICS = {"rcu": ("read units/s", PARTITION_RCU), "wcu": ("write units/s", PARTITION_WCU),  # unit, partition limit
            "ctu": ("consumed throughput units/s (3×WCU + RCU)", PARTITION_RCU)}
NAME_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK KR", "Source Han Sans", "Hiragino Sans",
              "Yu Gothic", "Microsoft YaHei", "Malgun Gothic", "WenQuanYi Zen Hei", "Droid Sans Fallback", "Arial Unicode MS")
ITEM_MARKS = [(KB, "1 KB\n1 write unit"), (READ_UNIT_BYTES, "4 KB\n1 read unit"), (MAX_ITEM_BYTES, "400 KB\nitem limit")]


class PlotFigure(Figure):
    """A Figure that shows itself as PNG in Jupyter even when pyplot was never imported."""

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=100)
        return buf.getvalue()


def human_bytes(n: float) -> str:
    """``1536 -> '1.5 KB'``, ``10 * 2**30 -> '10 GB'`` (binary units, 3 significant digits)."""
    n, i = float(n), 0
    while abs(n) >= 1024 and i < len(_UNITS) - 1:
        n, i = n / 1024, i + 1
    text = f"{n:.0f}" if abs(n) >= 100 or n == round(n) else f"{n:.3g}"
    return f"{text} {_UNITS[i]}"


def _figure(width: float, height: float) -> PlotFigure:
    return PlotFigure(figsize=(width, height), layout="constrained")


def _check(df: pd.DataFrame, columns: tuple[str, ...], where: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise BlueNbError(f"missing column(s) {missing}; got {list(df.columns)}", where=where,
                          hint=f"pass a DataFrame with the columns {list(columns)}")


def _no_data(title: str, message: str = "no data") -> PlotFigure:
    fig = _figure(8, 2.5)
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=16, color="0.4", transform=ax.transAxes)
    ax.set_axis_off()
    return fig


@functools.cache
def _fonts() -> tuple[tuple[str, ...], tuple[FT2Font, ...]]:
    """The families names are drawn with (the default sans-serif, then any installed CJK font) and their fonts."""
    files = {f.name: f.fname for f in font_manager.fontManager.ttflist}
    extra = tuple(f for f in NAME_FONTS if f in files)
    default = font_manager.findfont(font_manager.FontProperties(family=["sans-serif"]))
    return ("sans-serif", *extra), tuple(FT2Font(f) for f in (default, *(files[e] for e in extra)))


def _short(text: str, width: int = MAX_KEY_LABEL) -> str:
    """``text`` cut to ``width`` characters; a character no font here can draw is written as an escape (\\u6771)."""
    fonts = _fonts()[1]
    text = "".join(c if c.isascii() or any(f.get_char_index(ord(c)) for f in fonts)
                   else c.encode("ascii", "backslashreplace").decode() for c in str(text))
    return text if len(text) <= width else text[: width - 1] + "…"


def _finish(fig: PlotFigure) -> PlotFigure:
    """Let every text fall back to the installed CJK fonts (keys, entities and attributes may be in any script)."""
    for text in fig.findobj(lambda a: hasattr(a, "set_fontfamily")) if len(_fonts()[0]) > 1 else ():
        text.set_fontfamily(list(_fonts()[0]))
    return fig


def _count(v: float, _pos=None) -> str:
    return f"{v:,.0f}"


class _BytesLog(LogLocator):
    """Powers of 4 (16 B, 64 B, ... 1 KB, 4 KB), as many as labels like '256 KB' fit along the axis."""

    def tick_values(self, vmin, vmax):
        if self.axis is not None:  # tick space assumes labels 3 font sizes wide; ours are about 4.5
            self.numticks = int(np.clip(self.axis.get_tick_space() * 2 // 3, 2, 9))
        return super().tick_values(vmin, vmax)


class _BytesLinear(MaxNLocator):
    """Round steps in the binary unit of the axis: 0, 10 KB, 20 KB (not 4.88 KB, 9.77 KB)."""

    def tick_values(self, vmin, vmax):
        unit = 1024.0 ** int(np.log(max(abs(vmin), abs(vmax), 1.0)) // np.log(1024))
        return super().tick_values(vmin / unit, vmax / unit) * unit


def _bytes_x(ax, log: bool = True) -> None:
    """An x axis of bytes labelled in KB/MB/GB: log with ticks at powers of 4, or linear at round steps."""
    if log:
        ax.set_xscale("log")
    ax.xaxis.set_major_locator(_BytesLog(base=4, subs=(1.0,)) if log else _BytesLinear(nbins=6, steps=[1, 2, 2.5, 5, 10]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: human_bytes(v)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


def _marks(ax, marks, color: str = "0.2") -> None:
    """Vertical lines at each x, labelled as ticks on the top edge so labels never cover data."""
    for x, _label in marks:
        ax.axvline(x, color=color, ls="--", lw=1.2, zorder=4)
    top = ax.secondary_xaxis("top")
    top.set_xticks([x for x, _ in marks], [label for _, label in marks])
    top.xaxis.set_minor_locator(NullLocator())
    top.tick_params(labelsize=8, colors=color, length=4)


def _ink(color) -> str:
    """Black or white text, whichever reads on ``color``."""
    r, g, b = to_rgb(color)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


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


def key_heatmap(timeline: pd.DataFrame, *, index: str = "table", metric: str = "rcu", limit: float | None = None,
                title: str | None = None, max_rows: int = 200, max_cols: int = 600) -> PlotFigure:
    """Key Visualizer style: seconds across, partition keys in key order (UTF-8 bytes) down, colour = units/s.

    ``timeline`` has ``second, index, pk, rcu, wcu``; one ``index`` is drawn. Keys are binned into at most
    ``max_rows`` contiguous key ranges (colour = the hottest key of the range, so a hot key stays visible);
    cells over the per-partition ``limit`` (3,000 RCU/s, 1,000 WCU/s) are cyan and their keys named on the right.
    """
    if metric not in _METRICS:
        raise BlueNbError(f"unknown metric {metric!r}", where="key_heatmap", hint=f"use one of {list(_METRICS)}")
    _check(timeline, ("second", "index", "pk", "rcu", "wcu"), "key_heatmap(timeline)")
    unit, default = _METRICS[metric]
    limit = float(limit or default)
    title = title or f"Key-space heat map · {index} · {unit.split(' (')[0]}"
    df = timeline[timeline["index"] == index]
    if df.empty:
        have = ", ".join(sorted(map(str, timeline["index"].unique())))
        return _no_data(title, f"no data for index {index!r} (the timeline has {have})" if have else "no data")
    grid, cell, keys, seconds = _heat_grid(df, metric, max_rows, max_cols)
    (n_rows, n_cols), n_keys = grid.shape, len(keys)
    fig = _figure(11, 6.5)
    ax = fig.add_subplot()
    im = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap=colormaps["magma"].with_extremes(over=OVER),
                   norm=PowerNorm(0.5, vmin=0, vmax=limit), extent=(0, seconds, n_rows, 0))
    bar = fig.colorbar(im, ax=ax, extend="max", extendfrac=0.06)
    bar.set_label(f"{unit} per partition key\ncyan: over the limit")
    bar.set_ticks([limit * f for f in (0, 0.05, 0.25, 0.5, 0.75, 1)],
                  labels=[_count(limit * f) for f in (0, 0.05, 0.25, 0.5, 0.75)] + [f"limit {limit:,.0f}"])
    bar.ax.axhline(limit, color=OVER, lw=3)
    ticks = np.unique(np.linspace(0, n_rows - 1, min(n_rows, 10)).astype(int))
    ax.set_yticks(ticks + 0.5, [_short(k) for k in keys[-(-ticks * n_keys // n_rows)]], fontsize=8)  # first key of the range
    per = f", {n_keys / n_rows:,.0f} keys per row" if n_keys > n_rows else ""
    ax.set_ylabel(f"partition key (key order; {n_keys:,} keys{per})")
    ax.set_xlabel("time (s)" + (f"; 1 column = {seconds / n_cols:,.1f} s" if n_cols < seconds else ""))
    peaks = cell.groupby(level="key").max().nlargest(40)
    _name_hot_rows(ax, peaks, keys, n_keys, n_rows, limit)
    hot = cell[cell.to_numpy() > limit]
    n_hot = hot.index.get_level_values("key").nunique()
    ax.set_title(f"{n_hot:,} key(s) over the {limit:,.0f}/s partition limit, for {len(hot):,} key-second(s)"
                 if n_hot else f"no key over the {limit:,.0f}/s partition limit (peak {grid.max():,.0f})",
                 color=WARN if n_hot else "0.2", fontsize=10)
    fig.suptitle(title)
    return _finish(fig)


def _name_hot_rows(ax, peaks: pd.Series, keys: np.ndarray, n_keys: int, n_rows: int, limit: float,
                   most: int = 6) -> None:
    """Name, on the right edge, the hottest keys and their peak (red when over the limit), never crowded."""
    gap, taken = max(1, n_rows // 25), []
    for key, peak in peaks.items():
        row = key * n_rows // n_keys
        if len(taken) < most and all(abs(row - r) >= gap for r, _, _ in taken):
            taken.append((row, f"◀ {_short(keys[key])}  {peak:,.0f}/s", WARN if peak > limit else "0.3"))
    right = ax.secondary_yaxis("right")
    right.set_yticks([r + 0.5 for r, _, _ in taken], [t for _, t, _ in taken], fontsize=8)
    right.tick_params(length=0)
    for label, (_, _, color) in zip(right.get_yticklabels(), taken):
        label.set_color(color)


def top_keys(partitions: pd.DataFrame, n: int = 20, title: str | None = None) -> PlotFigure:
    """The ``n`` hottest partition keys (by 3×WCU + RCU): RCU/s and WCU/s bars against 3,000 and 1,000/s."""
    _check(partitions, ("index", "pk", "rcu_per_s", "wcu_per_s", "consumed_throughput_units"), "top_keys(partitions)")
    title = title or f"Top {min(n, len(partitions)) or n} partition keys by consumed throughput (3×WCU + RCU)"
    if partitions.empty:
        return _no_data(title)
    top = partitions.nlargest(n, "consumed_throughput_units")
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


def partition_sizes(partitions: pd.DataFrame, n: int = 30, title: str | None = None) -> PlotFigure:
    """The ``n`` largest partition keys (bytes) and the histogram of all, against the 10 GB partition."""
    _check(partitions, ("index", "pk", "bytes"), "partition_sizes(partitions)")
    title = title or "Partition key sizes against the 10 GB partition"
    if partitions.empty:
        return _no_data(title)
    b = partitions["bytes"].to_numpy(float)
    top = partitions.nlargest(n, "bytes")
    lo, hi = max(1.0, b[b > 0].min() if (b > 0).any() else 1.0) / 2, max(PARTITION_BYTES, b.max()) * 4
    fig = _figure(12, max(4.5, 1.8 + 0.22 * len(top)))
    ax, hx = fig.subplots(1, 2, width_ratios=[3, 2])
    v, y = top["bytes"].to_numpy(float), np.arange(len(top))
    ax.barh(y, v, height=0.7, color=np.where(v > PARTITION_BYTES, WARN, BASE))
    ax.set_yticks(y, [_short(f"{i} · {k}", 36) for i, k in zip(top["index"], top["pk"])], fontsize=8)
    ax.invert_yaxis()
    ax.set_ylabel("partition key (index · key)")
    ax.set_title(f"the {len(top)} largest of {len(b):,} keys", fontsize=10)
    edges = np.geomspace(lo, hi, 41)
    counts, _ = np.histogram(np.clip(b, lo, hi), edges)
    hx.stairs(counts, edges, fill=True, color=BASE)
    hx.set_yscale("log")
    hx.set_ylim(0.7, max(2.0, counts.max() * 1.5))
    hx.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    hx.yaxis.set_major_formatter(FuncFormatter(_count))
    hx.set_ylabel("partition keys (count, log scale)")
    hx.set_title(f"all {len(b):,} keys", fontsize=10)
    for a in (ax, hx):
        _bytes_x(a)
        a.set_xlim(lo, hi)
        a.set_xlabel("bytes per partition key (log scale)")
        _marks(a, [(PARTITION_BYTES, "10 GB partition")], color=WARN)
    fig.suptitle(title)
    return _finish(fig)


def _ridges(groups, marks, *, title: str, xlabel: str, ylabel: str) -> PlotFigure:
    """One log-binned histogram row per group (name, sizes, noun, colour), each scaled to its own peak."""
    groups = [g for g in groups if len(g[1])]
    if not groups:
        return _no_data(title)
    lo = max(1.0, min(float(g[1].min()) for g in groups)) / 1.5
    hi = max(max(float(g[1].max()) for g in groups), max(x for x, _ in marks)) * 1.5
    edges = np.geomspace(lo, hi, 81)
    fig = _figure(11, max(3.2, 1.9 + 0.75 * len(groups)))
    ax = fig.add_subplot()
    labels = []
    for i, (name, v, noun, color) in enumerate(groups):
        base = len(groups) - 1 - i
        counts, _ = np.histogram(v, edges)
        ax.stairs(base + 0.85 * counts / max(counts.max(), 1), edges, baseline=base, fill=True, color=color, alpha=0.85)
        p50 = float(np.median(v))
        ax.plot([p50, p50], [base, base + 0.9], color="black", lw=1.5)
        labels.append(f"{_short(name)}\n{len(v):,} {noun} · p50 {human_bytes(p50)} · max {human_bytes(v.max())}")
    ax.set_yticks(np.arange(len(groups))[::-1] + 0.3, labels, fontsize=8)
    ax.set_ylim(0, len(groups))
    _bytes_x(ax)
    ax.set_xlim(lo, hi)
    _marks(ax, marks)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    fig.suptitle(title)
    return _finish(fig)


def _split(df: pd.DataFrame, by: str, first: tuple[str, ...] = ()):
    """(name, sizes) per value of ``by``, biggest group first (``first`` names before the rest)."""
    codes, names = pd.factorize(df[by].astype(str))
    sizes = df["size"].to_numpy(float)
    counts = np.bincount(codes, minlength=len(names))
    order = sorted(range(len(names)), key=lambda c: (names[c] not in first, -counts[c], names[c]))
    return [(names[c], sizes[codes == c]) for c in order]


def item_size_distribution(sizes: pd.DataFrame, title: str | None = None) -> PlotFigure:
    """Item sizes per entity (one row each, log x) against 1 KB, 4 KB and 400 KB; black tick = median."""
    _check(sizes, ("entity", "size"), "item_size_distribution(sizes)")
    title = title or "Item sizes per entity (each row scaled to its peak; black tick: median)"
    colors = colormaps["tab10"].colors
    groups = [(name, v, "items", colors[i % 10]) for i, (name, v) in enumerate(_split(sizes, "entity"))]
    return _ridges(groups, ITEM_MARKS, title=title, xlabel="item size (bytes, log scale)",
                   ylabel="entity (items per size bin)")


def index_entry_sizes(entries: pd.DataFrame, title: str | None = None) -> PlotFigure:
    """Index entry sizes per GSI (log x) against 1 KB and 4 KB; rows with index 'table' are the table's items."""
    _check(entries, ("index", "size"), "index_entry_sizes(entries)")
    colors, with_table = colormaps["tab10"].colors, (entries["index"] == "table").any()
    title = title or ("Index entry sizes per GSI, each row scaled to its peak"
                      + ("; grey: the table's items" if with_table else "") + "; black tick: median")
    groups = [(name, v, "items" if name == "table" else "entries", "0.6" if name == "table" else colors[i % 10])
              for i, (name, v) in enumerate(_split(entries, "index", first=("table",)))]
    return _ridges(groups, ITEM_MARKS[:2], title=title, xlabel="entry size (bytes, log scale)",
                   ylabel="index (entries per size bin)")


def capacity_waste(waste: pd.DataFrame, title: str | None = None) -> PlotFigure:
    """Per entity: bytes used against bytes paid when every item is read (4 KB units) and written (1 KB units)."""
    cols = ("entity", "items", "bytes_used", "bytes_paid_read", "bytes_paid_write")
    _check(waste, cols, "capacity_waste(waste)")
    title = title or "Bytes paid against bytes used per entity (capacity-unit rounding, one item per request)"
    if waste.empty:
        return _no_data(title)
    w = waste.sort_values("bytes_used", ascending=False)
    fig = _figure(11, 2.0 + 0.85 * len(w))
    ax = fig.add_subplot()
    y, h = np.arange(len(w)), 0.27
    used = w["bytes_used"].to_numpy(float)
    series = (("bytes_used", "used: sum of item sizes", "0.55"),
              ("bytes_paid_read", "paid per read: 4 KB units", "#4c72b0"),
              ("bytes_paid_write", "paid per write: 1 KB units", "#dd8452"))
    for j, (col, label, color) in enumerate(series):
        v, yy = w[col].to_numpy(float), y + (j - 1) * h
        ax.barh(yy, v, height=h * 0.92, color=color, label=label)
        for x, u, at in zip(v, used, yy):
            pct = f" · {100 * (x - u) / x:.0f}% waste" if j and x > 0 else ""
            ax.text(1.01, at, human_bytes(x) + pct, transform=ax.get_yaxis_transform(), va="center", fontsize=8)
    positive = w[[c for c, _, _ in series]].to_numpy(float)
    positive = positive[positive > 0]
    log = bool(len(positive)) and positive.max() / positive.min() > 30
    _bytes_x(ax, log)
    ax.set_xlabel(f"bytes{' (log scale)' if log else ''}; waste = share of the paid bytes that is rounding")
    ax.set_yticks(y, [f"{_short(e)}\n{n:,} items" for e, n in zip(w["entity"], w["items"])], fontsize=9)
    ax.invert_yaxis()
    ax.set_ylabel("entity")
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncols=3, frameon=False, fontsize=9)
    fig.suptitle(title)
    return _finish(fig)


def attribute_sizes(attrs: pd.DataFrame, title: str | None = None, top: int = 8) -> PlotFigure:
    """Per entity a 100% bar split by attribute (biggest first, the rest as 'other'); shares labelled where they fit."""
    _check(attrs, ("entity", "attribute", "bytes", "share"), "attribute_sizes(attrs)")
    title = title or "Which attributes make items big (share of each entity's bytes, names included)"
    if attrs.empty:
        return _no_data(title)
    totals = attrs.groupby("entity", sort=False)["bytes"].sum().sort_values(ascending=False)
    overall = attrs.groupby("attribute")["bytes"].sum().sort_values(ascending=False).index
    palette = [c for i, c in enumerate(colormaps["tab20"].colors) if i not in (14, 15)]  # greys mean 'other'
    color = {a: palette[i % len(palette)] for i, a in enumerate(overall)}
    fig = _figure(11, 2.2 + 0.7 * len(totals))
    ax = fig.add_subplot()
    inside, drawn = [], set()
    for row, entity in enumerate(totals.index):
        part = attrs[attrs["entity"] == entity].sort_values("share", ascending=False)
        shown, rest = part.iloc[:top], part.iloc[top:]
        segments = list(zip(shown["attribute"], shown["share"].to_numpy(float) * 100))
        if len(rest):
            segments.append((f"other ({len(rest)})", float(rest["share"].sum() * 100)))
        left = 0.0
        for name, pct in segments:
            c = color.get(name, "0.8")
            drawn.add(name)
            patch = ax.barh(row, pct, left=left, height=0.7, color=c, edgecolor="white")[0]
            text = ax.text(left + pct / 2, row, f"{_short(name, 18)}\n{pct:.0f}%", ha="center", va="center",
                           fontsize=8, color=_ink(c))
            inside.append((patch, text))
            left += pct
    ax.set_yticks(np.arange(len(totals)), [f"{_short(e)}\n{human_bytes(b)}" for e, b in totals.items()], fontsize=9)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of the entity's item bytes (%)")
    ax.set_ylabel("entity (total bytes)")
    used = [a for a in overall if a in drawn][:20]
    other = ["other (the smallest)"] if any(a.startswith("other (") for a in drawn - set(used)) else []
    fig.legend(handles=[Rectangle((0, 0), 1, 1, color=color.get(a, "0.8")) for a in used + other],
               labels=[_short(a, 20) for a in used + other],
               loc="outside lower center", ncols=min(len(used + other), 7), fontsize=8, frameon=False)
    fig.suptitle(title)
    _finish(fig)
    fig.draw_without_rendering()
    for patch, text in inside:  # the name and share, else the share alone, else nothing: never wider than the segment
        for label in (text.get_text(), text.get_text().split("\n")[-1], ""):
            text.set_text(label)
            if text.get_window_extent().width <= patch.get_window_extent().width - 2:
                break
    return fig
