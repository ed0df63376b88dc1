"""The key-space heat map of the heat sliders, drawn in the browser: :class:`HeatCanvas`.

A slider's move sends numbers, not a picture: the cells of :func:`blue_nb.plots.heat.heat_cells` (a float64
grid of units/s, the key that owns each cell, the names of the hottest rows) go to a canvas that the
browser paints (``heatmap.js``, an anywidget). Hovering a cell shows its key, its units per second and its
share of the partition limit. The static pictures (the report's, the CLI's, ``key_heatmap``) stay matplotlib.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import anywidget
import numpy as np
import pandas as pd
import traitlets as T
from matplotlib import colormaps

from blue_nb.plots.base import MAX_KEY_LABEL, OVER, WARN
from blue_nb.plots.heat import METRICS, HeatCells, heat_cells, heatmap_title, scale_label, scale_top
from blue_nb.printing import number, per_second, short

__all__ = ["HeatCanvas"]

#: magma, 256 colours as RGB bytes: the static heat map's colours
PALETTE = (colormaps["magma"](np.linspace(0, 1, 256))[:, :3] * 255).round().astype(np.uint8).tobytes()


class HeatCanvas(anywidget.AnyWidget):
    """A heat map painted by the browser from numbers: :meth:`show` a timeline (``second, index, pk, rcu,
    wcu``) for one index and metric; ``cells`` (the :class:`~blue_nb.plots.heat.HeatCells` last sent) holds
    the numbers the canvas shows."""

    _esm = Path(__file__).with_name("heatmap.js")
    rows = T.Int(0).tag(sync=True)
    cols = T.Int(0).tag(sync=True)
    seconds = T.Int(0).tag(sync=True)
    width = T.Int(860).tag(sync=True)
    height = T.Int(420).tag(sync=True)
    grid = T.Bytes(b"").tag(sync=True)
    owners = T.Bytes(b"").tag(sync=True)
    names = T.List(T.Unicode()).tag(sync=True)
    row_starts = T.List(T.Unicode()).tag(sync=True)
    labels = T.List().tag(sync=True)                  # [row, text, colour, peak text] of the named rows
    limit = T.Float(1.0).tag(sync=True)
    top = T.Float(1.0).tag(sync=True)
    scale_top = T.Unicode("").tag(sync=True)
    unit = T.Unicode("").tag(sync=True)
    title = T.Unicode("").tag(sync=True)
    caption = T.Unicode("").tag(sync=True)
    palette = T.Bytes(PALETTE).tag(sync=True)
    over_color = T.Unicode(OVER).tag(sync=True)
    state = T.Unicode("").tag(sync=True)              # set last: the browser paints when it changes

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.cells: HeatCells | None = None
        self._sent = 0

    def show(self, timeline: pd.DataFrame, index: str = "table", metric: str = "rcu", *,
             key_ranges: Mapping[str, list[str]] | None = None, keys_with_traffic: int | None = None,
             max_rows: int = 200, state: str = "") -> HeatCells:
        """Send the cells of ``timeline``'s heat map for ``index`` and ``metric`` (rows: ``key_ranges``,
        as :func:`~blue_nb.plots.key_heatmap`) in one message; the browser paints them. ``state`` names
        what was drawn (the page reads it back)."""
        unit, limit = METRICS[metric][0], float(METRICS[metric][1])
        cells = heat_cells(timeline, index, metric, max_rows=max_rows, max_cols=self.width - 300,
                           key_ranges=key_ranges)
        top = scale_top(cells.peak, limit)
        n_over = int(sum(1 for _, _, p in cells.hot if p > limit))
        labels = [[row, short(key, MAX_KEY_LABEL), WARN if peak > limit else "#000",
                   f"◀ {per_second(peak)}/s"] for row, key, peak in cells.hot]
        shown = keys_with_traffic if keys_with_traffic is not None else cells.keys
        self._sent += 1
        self.cells = cells
        with self.hold_sync():
            self.rows, self.cols = cells.grid.shape if cells.grid.size else (0, 0)
            self.seconds = cells.seconds
            self.grid = cells.grid.astype(np.float64).tobytes()     # the numbers as computed: one rounding, shown
            self.owners = cells.owner.astype(np.int32).tobytes()
            self.names, self.row_starts, self.labels = cells.names, [short(k, MAX_KEY_LABEL) for k in cells.starts], labels
            self.limit, self.top, self.unit = limit, top, unit.split(" (")[0]
            self.scale_top = f"limit {number(limit, 0)}" if top == limit else scale_label(top, top)
            self.title = heatmap_title(index, metric, None)
            over = (f"{n_over} of the named keys over the {number(limit, 0)}/s partition limit (cyan)" if n_over
                    else f"no key over the {number(limit, 0)}/s partition limit")
            self.caption = (f"{shown:,} keys with traffic in key order, {self.rows} rows (a row: a key range, "
                            f"its hottest key's colour); square-root colours; {over}. Hover a cell for its key."
                            if cells.keys else f"no data for index {index!r}")
            self.state = f"{self._sent}:{state}"
        return cells
