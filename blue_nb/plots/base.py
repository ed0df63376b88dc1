"""What every picture shares: the Figure class and its PNG (saved by matplotlib), a new figure, the "no data" figure, the check of
a frame's columns, fonts for keys in any script (chosen by glyph coverage in :mod:`blue_nb.plots.fonts`),
count ticks and limit marks. Labels, counts and bytes print with :mod:`blue_nb.printing` (keys cut to
:data:`MAX_KEY_LABEL` columns), as in every table and report."""

from __future__ import annotations

import io
import warnings

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import NullLocator

from blue_nb.errors import BlueNbError
from blue_nb.plots.fonts import font_chain
from blue_nb.printing import number

__all__ = ["BASE", "DPI", "MAX_KEY_LABEL", "OVER", "PlotFigure", "WARN", "check_columns", "count_tick", "limit_marks",
           "new_figure", "no_data_figure", "set_fonts"]

WARN = "#d62728"    # over a limit
BASE = "#4c72b0"    # under it
OVER = "#00e5ff"    # heat map cells over the limit: a colour magma never uses
MAX_KEY_LABEL = 28  # columns of a partition key shown in a tick label (blue_nb.printing.short)
DPI = 110            # figures shown in Jupyter and written by blue-nb heat


class PlotFigure(Figure):
    """A Figure that shows itself as PNG in Jupyter even when pyplot was never imported.

    Drawing it does not repeat matplotlib's "Glyph ... missing" warning for every character: the fonts
    were chosen when it was built, and a character no installed font has was reported once then
    (:class:`~blue_nb.plots.fonts.MissingGlyphWarning`, naming the package to install)."""

    def _repr_png_(self) -> bytes:
        return self.png()

    def png(self, dpi: float | None = None) -> bytes:
        """The figure as PNG bytes at ``dpi`` (its own, at least :data:`DPI`, by default), saved by matplotlib."""
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=dpi or max(self.dpi, DPI))
        return buf.getvalue()

    def draw(self, renderer):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            return super().draw(renderer)


def new_figure(width: float, height: float, figsize: tuple[float, float] | None = None,
               dpi: float = DPI) -> PlotFigure:
    """A constrained-layout figure ``width`` x ``height`` inches (or ``figsize``) at ``dpi``."""
    return PlotFigure(figsize=figsize or (width, height), dpi=dpi, layout="constrained")


def check_columns(df: pd.DataFrame, columns: tuple[str, ...], where: str) -> None:
    """A :class:`~blue_nb.errors.BlueNbError` naming ``where`` when ``df`` lacks one of ``columns``."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise BlueNbError(f"missing column(s) {missing}; got {list(df.columns)}", where=where,
                          hint=f"pass a DataFrame with the columns {list(columns)}")


def no_data_figure(title: str, message: str = "no data") -> PlotFigure:
    """A small figure titled ``title`` that says ``message``: what every picture of empty input returns."""
    fig = new_figure(8, 2.5)
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=16, color="0.4", transform=ax.transAxes)
    ax.set_axis_off()
    return fig


def set_fonts(fig: PlotFigure, texts=None) -> PlotFigure:
    """Give every text of ``fig`` (or only ``texts``, those just changed) the font chain its own characters
    need (DejaVu Sans, then installed fonts that cover CJK or other scripts): matplotlib falls back glyph by
    glyph along the chain. Per text, since a chain of several fonts makes every glyph of a text several
    times dearer to draw (a redraw of the live heat map with CJK keys took twice as long when all its texts
    carried the CJK chain)."""
    for text in fig.findobj(Text) if texts is None else texts:
        text.set_fontfamily(font_chain(text.get_text()))
    return fig


def count_tick(v: float, _pos=None) -> str:
    """A tick label of a count or a rate (a ``FuncFormatter``'s function): whole, thousands separated."""
    return number(v, 0)


def limit_marks(ax, marks, color: str = "0.2") -> None:
    """Vertical lines at each x, labelled as ticks on the top edge so labels never cover data."""
    for x, _label in marks:
        ax.axvline(x, color=color, ls="--", lw=1.2, zorder=4)
    top = ax.secondary_xaxis("top")
    top.set_xticks([x for x, _ in marks], [label for _, label in marks])
    top.xaxis.set_minor_locator(NullLocator())
    top.tick_params(labelsize=8, colors=color, length=4)
