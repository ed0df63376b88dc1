"""The key-space heat map for sliders: laid out once, then only the cells and the frame are drawn again
onto the saved rest of the picture (matplotlib blitting on the Agg canvas), and the labels are pasted
from pixels kept by what they say, so a redraw at 100k partitions costs a fraction of a new figure."""

from __future__ import annotations

import io
from typing import Mapping

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.transforms import Bbox

from blue_nb.errors import BlueNbError
from blue_nb.plots.base import PlotFigure, png_bytes
from blue_nb.plots.heat import METRICS, HeatAxes, empty_heatmap, heatmap_title, timeline_rows

__all__ = ["LiveHeatmap"]


class LiveHeatmap:
    """:func:`key_heatmap` for a timeline that keeps changing (sliders): ``png(timeline)`` returns the PNG bytes.

    The first call lays the figure out (constrained layout) and saves everything that does not depend on
    the data; later calls with the same time span draw only the cells and the frame over that saved
    background. The key labels on the left, the peaks on the right and the title are pixels kept by what
    they say: while a slider moves the same keys stay hottest, and their labels are pasted, not drawn (text
    is the dear part of a matplotlib picture); when a strip of labels changes, only its new texts are drawn,
    each text's pixels being kept too. A label that would not fit the saved layout makes it lay out
    again, so nothing overlaps. ``figure`` is the current Figure; ``layouts`` counts the full draws.
    ``dpi`` and ``figsize`` (inches) set the PNG's size: a widget showing it at its natural width gives it
    its own dpi."""

    STRIPS = 48                    # label strips and titles kept per layout (a strip is a few hundred KB at most)
    TEXTS = 400                    # texts kept as pixels per layout (a few KB each; an axis label some 50 KB)

    def __init__(self, index: str = "table", metric: str = "rcu", *, limit: float | None = None,
                 title: str | None = None, dpi: int = 72, max_rows: int = 200, max_cols: int = 600,
                 figsize: tuple[float, float] = (11.0, 6.5)):
        if metric not in METRICS:
            raise BlueNbError(f"unknown metric {metric!r}", where="LiveHeatmap", hint=f"use one of {list(METRICS)}")
        self.index, self.metric, self.dpi = index, metric, dpi
        self.limit, self.title = float(limit or METRICS[metric][1]), heatmap_title(index, metric, title)
        self.max_rows, self.max_cols, self.figsize = max_rows, max_cols, figsize
        self.figure: PlotFigure | None = None
        self.layouts = 0
        self._heat: HeatAxes | None = None
        self._canvas = self._backgrounds = self._room = None
        self._strips: dict = {}
        self._bares: dict = {}
        self._texts: dict = {}
        self._boxes: dict[str, Bbox] = {}

    def png(self, timeline: pd.DataFrame, *, keys_with_traffic: int | None = None,
            key_ranges: Mapping[str, list[str]] | None = None) -> bytes:
        """The PNG of ``timeline``'s heat map (:func:`key_heatmap`'s arguments; ``key_ranges`` keeps the rows
        put while a slider moves: :attr:`RateResult.key_ranges <blue_nb.heat.RateResult>`)."""
        df = timeline_rows(timeline, self.index, self.metric)
        if df.empty:
            self._heat, self.figure = None, empty_heatmap(timeline, self.index, self.title)
            buf = io.BytesIO()
            self.figure.savefig(buf, format="png", dpi=self.dpi)
            return buf.getvalue()
        seconds = int(df["second"].max()) + 1
        if self._heat is None or self._heat.seconds != seconds:
            self._heat = HeatAxes(self.index, self.metric, self.limit, self.title, seconds, self.max_cols,
                                  self.figsize, self.dpi)
            self.figure, self._canvas = self._heat.fig, FigureCanvasAgg(self._heat.fig)
            self._backgrounds = None
        def paint():
            self._heat.paint(df, self.metric, self.max_rows, self.max_cols, keys_with_traffic, key_ranges)
        paint()
        if self._backgrounds is not None and self._heat.top not in self._backgrounds and not self._snapshot():
            self._backgrounds = None                          # its labels need more room than laid out
        if self._backgrounds is None or not self._blit():
            self._layout(paint)
        # a slider's heat map is mostly long runs of one colour: deflated fast, it is as small
        return png_bytes(np.asarray(self._canvas.buffer_rgba()), level=1)

    def _layout(self, paint) -> None:
        """Lay the whole figure out with room for the widest labels (so dragging a slider does not move the
        picture), then ``paint``, save the background and blit."""
        fig, heat = self.figure, self._heat
        heat.reserve()
        fig.set_layout_engine("constrained")
        self._canvas.draw()
        self._room, self._title_at = self._extents(), heat.ax.title.get_position()
        fig.set_layout_engine("none")                  # keep these positions for the blits
        height = self._canvas.get_width_height()[1]
        ax, bar = heat.ax.get_window_extent(), heat.bar.ax.get_window_extent()
        self._boxes = {"left": Bbox([[0, 0], [np.ceil(ax.x0), height]]),          # key labels, tick marks, axis label
                       "right": Bbox([[np.floor(ax.x1), 0], [np.floor(bar.x0), height]])}   # the hot rows' peaks
        self._backgrounds, self._strips, self._bares, self._texts = {}, {}, {}, {}
        paint()
        self._snapshot()
        self._blit()                                   # the same drawing as every later call: same pixels
        self.layouts += 1

    def _snapshot(self) -> bool:
        """Save the picture without the changing artists as the background of the current colour scale (the
        scale and its labels are part of it: a few backgrounds, one per scale, instead of drawing it each time).
        False when the scale's labels reach past the room laid out for them."""
        changing = self._heat.changing
        if len(self._backgrounds) >= 12:
            self._backgrounds.clear()
        for artist in changing:
            artist.set_visible(False)
        self._canvas.draw()
        self._backgrounds[self._heat.top] = self._canvas.copy_from_bbox(self.figure.bbox)
        for artist in changing:
            artist.set_visible(True)
        return self._extents()[2] <= self._room[2] + 1

    @staticmethod
    def _kept(cache: dict, key, most: int) -> bool:
        """Whether ``cache`` keeps ``key``'s pixels (then they become the newest); makes room for them if not,
        keeping at most ``most``."""
        if key in cache:
            cache[key] = cache.pop(key)
            return True
        while len(cache) >= most:
            cache.pop(next(iter(cache)))                           # the least recently used
        return False

    def _pasted(self, kind: str, artist, texts: list, box, axis=None) -> tuple:
        """(pixels, outer edge) of ``artist`` drawn alone on the background, within ``box`` (a Bbox, or a
        function of the drawn texts giving one): kept by what ``texts`` say and where, made only the first
        time. The edge is the outer x of the texts in pixels (left: the smallest, else the largest).

        A strip is made without drawing a text that was drawn before: its bare pixels (the artist without
        its texts: tick marks, spines) are laid on, and each text's pixels are laid on them from
        :meth:`_text_pixels`, darkest wins (text is ink on the figure's white, so where one text's margin meets
        another's ink the ink stays). For the strip of an ``axis`` (``box`` a Bbox), the bare pixels are kept
        too, by where the axis's tick marks are."""
        label = axis.label if axis is not None else None              # its place follows from the tick labels'
        key = (kind, tuple(_text_key(t, placed=t is not label) for t in texts))
        if not self._kept(self._strips, key, self.STRIPS):
            canvas = self._canvas
            area, bare = (self._bare(kind, artist, axis, box) if axis is not None
                          else self._drawn_bare(artist, box, texts))
            inked = [self._text_pixels(t) for t in texts if t.get_visible() and t.get_text()]
            canvas.restore_region(bare)
            buffer = np.asarray(canvas.buffer_rgba())
            for (x0, y0), pixels in inked:
                view = buffer[y0:y0 + pixels.shape[0], x0:x0 + pixels.shape[1]]
                np.minimum(view, pixels, out=view)
            self._strips[key] = (canvas.copy_from_bbox(area), _edge(texts, canvas.get_renderer(), kind == "left"))
        return self._strips[key]

    def _drawn_bare(self, artist, box, texts: list) -> tuple:
        """(area, pixels) of ``artist`` drawn on the background with its texts placed but not rasterised (the
        artist lays its texts out; their pixels are laid on after)."""
        canvas = self._canvas
        canvas.restore_region(self._backgrounds[self._heat.top])
        renderer = canvas.get_renderer()
        renderer.draw_text = _no_text
        try:
            self.figure.draw_artist(artist)
        finally:
            del renderer.draw_text
        area = box if isinstance(box, Bbox) else box(texts)
        return area, canvas.copy_from_bbox(area)

    def _bare(self, kind: str, artist, axis, box: Bbox) -> tuple:
        """:meth:`_drawn_bare` for the strip of ``axis``, made without drawing the artist again: the artist is
        drawn once per layout without its tick marks too, and the tick marks (the lines the axis draws per
        tick, in its order) are drawn on that; kept by the pixel rows of the marks. The axis label is placed as
        the artist's draw places it (beside the widest tick label)."""
        ticks = axis._update_ticks()                     # the ticks the axis draws, where it draws them
        lines = [line for t in ticks for line in (t.gridline, t.tick1line, t.tick2line) if line.get_visible()]
        at = axis.axes.transData.transform(np.column_stack([np.zeros(len(ticks)), [t.get_loc() for t in ticks]]))
        key = (kind, tuple(np.round(at[:, 1], 3)))
        if not self._kept(self._bares, key, self.STRIPS):
            if not self._kept(self._bares, (kind, None), self.STRIPS):
                for line in lines:
                    line.set_visible(False)
                try:
                    self._bares[(kind, None)] = self._drawn_bare(artist, box, [])
                finally:
                    for line in lines:
                        line.set_visible(True)
            area, unmarked = self._bares[(kind, None)]
            self._canvas.restore_region(unmarked)
            for line in lines:
                self.figure.draw_artist(line)
            self._bares[key] = (area, self._canvas.copy_from_bbox(area))
        if axis.label.get_text():
            axis._update_label_position(self._canvas.get_renderer())
        return self._bares[key]

    def _text_pixels(self, text) -> tuple[tuple[int, int], np.ndarray]:
        """((x, y) of the top-left pixel in the canvas buffer, RGBA pixels) of ``text`` drawn alone on the
        background: drawn the first time it says this there, then kept (at most TEXTS, the oldest go)."""
        key = _text_key(text)
        if self._kept(self._texts, key, self.TEXTS):
            return self._texts[key]
        box = self._box_of([text])
        if box is None:                                  # outside the picture: no pixels (a layout follows)
            self._texts[key] = ((0, 0), np.zeros((0, 0, 4), np.uint8))
        else:                                            # the box's pixels: rows from the top, as the buffer's
            buffer = np.asarray(self._canvas.buffer_rgba())
            x0, y0, x1, y1 = (int(v) for v in box.extents)
            at = np.s_[buffer.shape[0] - y1:buffer.shape[0] - y0, x0:x1]
            buffer[at] = np.asarray(self._backgrounds[self._heat.top])[at]     # the background there, then the text
            self.figure.draw_artist(text)
            self._texts[key] = ((x0, buffer.shape[0] - y1), buffer[at].copy())
        return self._texts[key]

    def _blit(self) -> bool:
        """The background, the label strips and the title, then the cells and the frame; False when a label
        needs more room than laid out."""
        heat, ax = self._heat, self._heat.ax
        ax.title.set_position(self._title_at)        # a full draw (hidden artists, another dpi) moves it
        peaks = heat.right                           # its limits and place follow the heat map's only when drawn
        locate = peaks.get_axes_locator()
        peaks.apply_aspect(locate(peaks, self._canvas.get_renderer()) if locate else None)
        left, left_edge = self._pasted("left", ax.yaxis, [*ax.yaxis.get_ticklabels(), ax.yaxis.label],
                                       self._boxes["left"], ax.yaxis)
        right, right_edge = self._pasted("right", peaks, peaks.yaxis.get_ticklabels(), self._boxes["right"],
                                         peaks.yaxis)
        title, _ = self._pasted("title", ax.title, [ax.title], self._box_of)
        self._canvas.restore_region(self._backgrounds[heat.top])
        for region in (left, right, title):
            self._canvas.restore_region(region)
        for artist in (heat.im, *heat.ax.spines.values()):   # spines over the cells
            self.figure.draw_artist(artist)
        return left_edge >= self._room[0] - 1 and right_edge <= self._room[1] + 1

    def _box_of(self, texts: list) -> Bbox | None:
        """The pixels around ``texts`` as drawn (a pixel of anti-aliasing and two of margin), inside the figure
        (None: none of them is)."""
        renderer = self._canvas.get_renderer()          # this canvas's (a text keeps the renderer it was last drawn by)
        box = Bbox.union([t.get_window_extent(renderer) for t in texts]).expanded(1, 1).padded(2)
        box = Bbox.intersection(box, self.figure.bbox)
        return None if box is None else Bbox([np.floor(box.min), np.ceil(box.max)])

    def _extents(self) -> tuple[float, float, float]:
        """(left edge of the key labels and axis label, right edge of the peaks, right edge of the colour
        scale's labels), in pixels, as last drawn (valid right after a full draw)."""
        ax, right, bar = self._heat.ax, self._heat.right, self._heat.bar.ax
        r = self._canvas.get_renderer()
        return (_edge([*ax.yaxis.get_ticklabels(), ax.yaxis.label], r, left=True),
                _edge(right.yaxis.get_ticklabels(), r), _edge(bar.yaxis.get_ticklabels(), r))


def _no_text(*args, **kwargs) -> None:
    """A renderer's ``draw_text`` that draws nothing: the artist lays its texts out, :meth:`LiveHeatmap._pasted`
    lays their pixels on."""


def _text_key(t, placed: bool = True) -> tuple:
    """What a text's pixels depend on: what it says, its colour and font, and how it is anchored, and where
    (unless not ``placed``: an axis label, placed beside its tick labels, by them)."""
    return (t.get_text(), t.get_color(), t.get_fontproperties(), t.get_rotation(), t.get_ha(), t.get_va(),
            tuple(t.get_transform().transform(t.get_position())) if placed else None)


def _edge(texts: list, renderer, left: bool = False) -> float:
    """The outer x, in pixels, of the texts that say something: the leftmost left edge or the rightmost right."""
    boxes = [t.get_window_extent(renderer) for t in texts if t.get_text()]
    return min((b.x0 for b in boxes), default=np.inf) if left else max((b.x1 for b in boxes), default=-np.inf)


