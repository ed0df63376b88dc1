"""What every picture shares: the Figure class, byte units, fonts for keys in any script (chosen by
glyph coverage in :mod:`blue_nb.plots.fonts`), axes of bytes, limit marks. Bytes are binary (1 KB = 1024 bytes)."""

from __future__ import annotations

import io
import struct
import unicodedata
import warnings
import zlib

import numpy as np
import pandas as pd
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter, NullLocator

from blue_nb.errors import BlueNbError
from blue_nb.plots.fonts import font_chain

__all__ = ["PlotFigure", "human_bytes", "png_bytes"]

WARN = "#d62728"    # over a limit
BASE = "#4c72b0"    # under it
OVER = "#00e5ff"    # heat map cells over the limit: a colour magma never uses
MAX_KEY_LABEL = 28  # characters of a partition key shown in a tick label
_UNITS = ("B", "KB", "MB", "GB", "TB", "PB")
DPI = 110            # figures shown in Jupyter and written by blue-nb heat


class PlotFigure(Figure):
    """A Figure that shows itself as PNG in Jupyter even when pyplot was never imported.

    Drawing it does not repeat matplotlib's "Glyph ... missing" warning for every character: the fonts
    were chosen when it was built, and a character no installed font has was reported once then
    (:class:`~blue_nb.plots.fonts.MissingGlyphWarning`, naming the package to install)."""

    def _repr_png_(self) -> bytes:
        return self.png()

    def png(self, dpi: float | None = None) -> bytes:
        """The figure as PNG bytes at ``dpi`` (its own, at least :data:`DPI`, by default): matplotlib's pixels,
        encoded by :func:`png_bytes` (a quarter the time Pillow takes, and smaller: measured on the 10 pictures
        of a review report at 1M items, 0.32 s and 740 KB against 1.2 s and 899 KB)."""
        dpi = dpi or max(self.dpi, DPI)
        buf = io.BytesIO()
        self.savefig(buf, format="raw", dpi=dpi)            # RGBA rows of int(size * dpi) pixels
        width, height = (int(x) for x in self.get_size_inches() * dpi)
        return png_bytes(np.frombuffer(buf.getbuffer(), np.uint8).reshape(height, width, 4), dpi=dpi)

    def draw(self, renderer):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            return super().draw(renderer)


def png_bytes(rgba: np.ndarray, level: int = 6, dpi: float | None = None) -> bytes:
    """An RGBA picture (height x width x 4 bytes) as an RGB PNG: rows unfiltered, deflated at ``level``; with
    ``dpi``, the resolution an image viewer or a printer reads (pHYs).
    Pictures of flat colours and text deflate well as they are; Pillow tries five filters on every row first,
    which takes several times as long (an 880 x 495 heat map: 13.6 ms against 6-8 at level 1)."""
    h, w, _ = rgba.shape
    rows = np.zeros((h, 1 + 3 * w), np.uint8)                 # each row: filter type 0, then its RGB bytes
    rows[:, 1:] = rgba[..., :3].reshape(h, 3 * w)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)     # 8 bits per sample, truecolour, no interlace
    per_metre = round(dpi / 0.0254) if dpi else 0
    phys = chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)) if per_metre else b""
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + phys
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), level)) + chunk(b"IEND", b""))


def human_bytes(n: float) -> str:
    """``1536 -> '1.5 KB'``, ``10 * 2**30 -> '10 GB'`` (binary units, 3 significant digits)."""
    n, i = float(n), 0
    while abs(n) >= 1024 and i < len(_UNITS) - 1:
        n, i = n / 1024, i + 1
    text = f"{n:.0f}" if abs(n) >= 100 or n == round(n) else f"{n:.3g}"
    return f"{text} {_UNITS[i]}"


def _figure(width: float, height: float, figsize: tuple[float, float] | None = None, dpi: float = DPI) -> PlotFigure:
    """A constrained-layout figure ``width`` x ``height`` inches (or ``figsize``) at ``dpi``."""
    return PlotFigure(figsize=figsize or (width, height), dpi=dpi, layout="constrained")


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


def _width(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 0 if unicodedata.combining(ch) else 1


def _short(text: str, width: int = MAX_KEY_LABEL) -> str:
    """``text`` as it is (never escaped), cut to ``width`` columns (a CJK character takes two) with an ellipsis."""
    text = str(text)
    if sum(map(_width, text)) <= width:
        return text
    kept, used = [], 1                                          # the ellipsis takes one column
    for ch in text:
        if used + _width(ch) > width:
            break
        kept.append(ch)
        used += _width(ch)
    return "".join(kept) + "…"


def _finish(fig: PlotFigure, texts=None) -> PlotFigure:
    """Give every text of ``fig`` (or only ``texts``, those just changed) the font chain its own characters
    need (DejaVu Sans, then installed fonts that cover CJK or other scripts): matplotlib falls back glyph by
    glyph along the chain. Per text, since a chain of several fonts makes every glyph of a text several
    times dearer to draw (a redraw of the live heat map with CJK keys took twice as long when all its texts
    carried the CJK chain)."""
    for text in fig.findobj(Text) if texts is None else texts:
        text.set_fontfamily(font_chain(text.get_text()))
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

