"""What every picture shares: the Figure class, byte units, fonts for keys in any script, axes of bytes,
limit marks. Bytes are binary (1 KB = 1024 bytes)."""

from __future__ import annotations

import functools
import io

import numpy as np
import pandas as pd
from matplotlib import font_manager
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter, NullLocator

from blue_nb.errors import BlueNbError

__all__ = ["PlotFigure", "human_bytes"]

WARN = "#d62728"    # over a limit
BASE = "#4c72b0"    # under it
OVER = "#00e5ff"    # heat map cells over the limit: a colour magma never uses
MAX_KEY_LABEL = 28  # characters of a partition key shown in a tick label
_UNITS = ("B", "KB", "MB", "GB", "TB", "PB")
NAME_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK KR", "Source Han Sans", "Hiragino Sans",
              "Yu Gothic", "Microsoft YaHei", "Malgun Gothic", "WenQuanYi Zen Hei", "Droid Sans Fallback", "Arial Unicode MS")


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

