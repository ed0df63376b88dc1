"""Pictures of bytes: partition sizes against 10 GB, item and index entry sizes against 1 KB, 4 KB and
400 KB, capacity-unit rounding waste, and the attributes that make items big. Axes of bytes are labelled
in binary units (1 KB = 1024 bytes) by :func:`blue_nb.printing.human_bytes`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter, NullLocator

from blue_nb.plots.base import (BASE, MAX_KEY_LABEL, WARN, PlotFigure, check_columns, count_tick, limit_marks,
                                new_figure, no_data_figure, set_fonts)
from blue_nb.printing import human_bytes, short
from blue_nb.sizing import KB, MAX_ITEM_BYTES, PARTITION_BYTES, READ_UNIT_BYTES

__all__ = ["attribute_sizes", "capacity_waste", "index_entry_sizes", "item_size_distribution", "partition_sizes"]

ITEM_MARKS = [(KB, "1 KB\n1 write unit"), (READ_UNIT_BYTES, "4 KB\n1 read unit"), (MAX_ITEM_BYTES, "400 KB\nitem limit")]


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


def _ink(color) -> str:
    """Black or white text, whichever reads on ``color``."""
    r, g, b = to_rgb(color)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def partition_sizes(partitions: pd.DataFrame, n: int = 30, title: str | None = None) -> PlotFigure:
    """The ``n`` largest partition keys (bytes) and the histogram of all, against the 10 GB partition."""
    check_columns(partitions, ("index", "pk", "bytes"), "partition_sizes(partitions)")
    title = title or "Partition key sizes against the 10 GB partition"
    if partitions.empty:
        return no_data_figure(title)
    b = partitions["bytes"].to_numpy(float)
    top = partitions.nlargest(n, "bytes")
    lo, hi = max(1.0, b[b > 0].min() if (b > 0).any() else 1.0) / 2, max(PARTITION_BYTES, b.max()) * 4
    fig = new_figure(12, max(4.5, 1.8 + 0.22 * len(top)))
    ax, hx = fig.subplots(1, 2, width_ratios=[3, 2])
    v, y = top["bytes"].to_numpy(float), np.arange(len(top))
    ax.barh(y, v, height=0.7, color=np.where(v > PARTITION_BYTES, WARN, BASE))
    ax.set_yticks(y, [short(f"{i} · {k}", 36) for i, k in zip(top["index"], top["pk"])], fontsize=8)
    ax.invert_yaxis()
    ax.set_ylabel("partition key (index · key)")
    ax.set_title(f"the {len(top)} largest of {len(b):,} keys", fontsize=10)
    edges = np.geomspace(lo, hi, 41)
    counts, _ = np.histogram(np.clip(b, lo, hi), edges)
    hx.stairs(counts, edges, fill=True, color=BASE)
    hx.set_yscale("log")
    hx.set_ylim(0.7, max(2.0, counts.max() * 1.5))
    hx.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    hx.yaxis.set_major_formatter(FuncFormatter(count_tick))
    hx.set_ylabel("partition keys (count, log scale)")
    hx.set_title(f"all {len(b):,} keys", fontsize=10)
    for a in (ax, hx):
        _bytes_x(a)
        a.set_xlim(lo, hi)
        a.set_xlabel("bytes per partition key (log scale)")
        limit_marks(a, [(PARTITION_BYTES, "10 GB partition")], color=WARN)
    fig.suptitle(title)
    return set_fonts(fig)


_ONE = {"items": "item", "entries": "entry"}


def _ridges(groups, marks, *, title: str, xlabel: str, ylabel: str) -> PlotFigure:
    """One log-binned histogram row per group (name, sizes, noun, colour), each scaled to its own peak."""
    groups = [g for g in groups if len(g[1])]
    if not groups:
        return no_data_figure(title)
    lo = max(1.0, min(float(g[1].min()) for g in groups)) / 1.5
    hi = max(max(float(g[1].max()) for g in groups), max(x for x, _ in marks)) * 1.5
    edges = np.geomspace(lo, hi, 81)
    fig = new_figure(11, max(3.2, 1.9 + 0.75 * len(groups)))
    ax = fig.add_subplot()
    labels = []
    for i, (name, v, noun, color) in enumerate(groups):
        base = len(groups) - 1 - i
        counts, _ = np.histogram(v, edges)
        ax.stairs(base + 0.85 * counts / max(counts.max(), 1), edges, baseline=base, fill=True, color=color, alpha=0.85)
        p50 = float(np.percentile(v, 50, method="inverted_cdf"))     # nearest rank, as every size table
        ax.plot([p50, p50], [base, base + 0.9], color="black", lw=1.5)
        noun = noun if len(v) != 1 else _ONE.get(noun, noun)
        labels.append(f"{short(name, MAX_KEY_LABEL)}\n{len(v):,} {noun} · p50 {human_bytes(p50)} · "
                      f"max {human_bytes(v.max())}")
    ax.set_yticks(np.arange(len(groups))[::-1] + 0.3, labels, fontsize=8)
    ax.set_ylim(0, len(groups))
    _bytes_x(ax)
    ax.set_xlim(lo, hi)
    limit_marks(ax, marks)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    fig.suptitle(title)
    return set_fonts(fig)


def _split(df: pd.DataFrame, by: str, first: tuple[str, ...] = ()):
    """(name, sizes) per value of ``by``, biggest group first (``first`` names before the rest)."""
    col = df[by]
    if isinstance(col.dtype, pd.CategoricalDtype):              # millions of items: no string per row
        codes, names = col.cat.codes.to_numpy(), col.cat.categories.astype(str)
    else:
        codes, names = pd.factorize(col.astype(str))
    sizes = df["size"].to_numpy(float)
    counts = np.bincount(codes, minlength=len(names))
    order = sorted(range(len(names)), key=lambda c: (names[c] not in first, -counts[c], names[c]))
    return [(names[c], sizes[codes == c]) for c in order]


def item_size_distribution(sizes: pd.DataFrame, title: str | None = None) -> PlotFigure:
    """Item sizes per entity (one row each, log x) against 1 KB, 4 KB and 400 KB; black tick = median."""
    check_columns(sizes, ("entity", "size"), "item_size_distribution(sizes)")
    title = title or "Item sizes per entity (each row scaled to its peak; black tick: median)"
    colors = colormaps["tab10"].colors
    groups = [(name, v, "items", colors[i % 10]) for i, (name, v) in enumerate(_split(sizes, "entity"))]
    return _ridges(groups, ITEM_MARKS, title=title, xlabel="item size (bytes, log scale)",
                   ylabel="entity (items per size bin)")


def index_entry_sizes(entries: pd.DataFrame, title: str | None = None) -> PlotFigure:
    """Index entry sizes per GSI (log x) against 1 KB and 4 KB; rows with index 'table' are the table's items."""
    check_columns(entries, ("index", "size"), "index_entry_sizes(entries)")
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
    check_columns(waste, cols, "capacity_waste(waste)")
    title = title or "Bytes paid against bytes used per entity (capacity-unit rounding, one item per request)"
    if waste.empty:
        return no_data_figure(title)
    w = waste.sort_values("bytes_used", ascending=False)
    fig = new_figure(11, 2.0 + 0.85 * len(w))
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
    ax.set_yticks(y, [f"{short(e, MAX_KEY_LABEL)}\n{n:,} items" for e, n in zip(w["entity"], w["items"])], fontsize=9)
    ax.invert_yaxis()
    ax.set_ylabel("entity")
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncols=3, frameon=False, fontsize=9)
    fig.suptitle(title)
    return set_fonts(fig)


def attribute_sizes(attrs: pd.DataFrame, title: str | None = None, top: int = 8) -> PlotFigure:
    """Per entity a 100% bar split by attribute (biggest first, the rest as 'other'); shares labelled where they fit."""
    check_columns(attrs, ("entity", "attribute", "bytes", "share"), "attribute_sizes(attrs)")
    title = title or "Which attributes make items big (share of each entity's bytes, names included)"
    if attrs.empty:
        return no_data_figure(title)
    totals = attrs.groupby("entity", sort=False)["bytes"].sum().sort_values(ascending=False)
    overall = attrs.groupby("attribute")["bytes"].sum().sort_values(ascending=False).index
    palette = [c for i, c in enumerate(colormaps["tab20"].colors) if i not in (14, 15)]  # greys mean 'other'
    color = {a: palette[i % len(palette)] for i, a in enumerate(overall)}
    fig = new_figure(11, 2.2 + 0.7 * len(totals))
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
            text = ax.text(left + pct / 2, row, f"{short(name, 18)}\n{pct:.0f}%", ha="center", va="center",
                           fontsize=8, color=_ink(c))
            inside.append((patch, text))
            left += pct
    ax.set_yticks(np.arange(len(totals)), [f"{short(e, MAX_KEY_LABEL)}\n{human_bytes(b)}" for e, b in totals.items()],
                  fontsize=9)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of the entity's item bytes (%)")
    ax.set_ylabel("entity (total bytes)")
    used = [a for a in overall if a in drawn][:20]
    other = ["other (the smallest)"] if any(a.startswith("other (") for a in drawn - set(used)) else []
    fig.legend(handles=[Rectangle((0, 0), 1, 1, color=color.get(a, "0.8")) for a in used + other],
               labels=[short(a, 20) for a in used + other],
               loc="outside lower center", ncols=min(len(used + other), 7), fontsize=8, frameon=False)
    fig.suptitle(title)
    set_fonts(fig)
    fig.draw_without_rendering()
    for patch, text in inside:  # the name and share, else the share alone, else nothing: never wider than the segment
        for label in (text.get_text(), text.get_text().split("\n")[-1], ""):
            text.set_text(label)
            if text.get_window_extent().width <= patch.get_window_extent().width - 2:
                break
    return fig
