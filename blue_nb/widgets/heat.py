"""The partition-heat explorer: a rate slider and a skew slider per access pattern; the key-space
heat map, the hottest keys and the findings re-drawn on every change.

Wiring only (layer 3): every number comes from :class:`blue_nb.heat.RateModel` (the model
re-evaluated for the sliders' rates and skews); the heat map is drawn by the browser
(:class:`blue_nb.widgets.heatmap.HeatCanvas`: a move sends the cells' numbers, not a picture; hovering a
cell names its key, its units per second and its share of the limit). The hottest keys (:func:`blue_nb.heat.top_keys`)
are an HTML table with bars against the per-partition limits: the browser draws it in no time and any
script's keys with it.
Tests drive it without a browser: set slider values (or call :meth:`HeatExplorer.set_rate`) and read
``result``, ``findings``, ``last_ms``, the heat map's cells (``heatmap.cells``) and the table's HTML.

A rate slider is logarithmic on a grid of ``STEP`` in the exponent, and the browser snaps the value it is
given to that grid as it draws the slider (and sends the snapped value back): a rate of 300 would come back
as 10^2.48 = 302.0, and the explorer would show the load at 302 calls/s (3,756 RCU/s on nvidia-dec) while a
:class:`~blue_nb.heat.RateResult` at 300 says 3,732.6. So the explorer keeps the rate it was given, exactly,
and takes a slider's value as a new rate only when it is off the grid point of the rate held: the
explorer, its ``result`` and ``rate_model.evaluate(rates)`` show the same numbers for the same rates.
"""

from __future__ import annotations

import html
import math
import time
from typing import Any

import ipywidgets as W

from blue_nb.errors import BlueNbError
from blue_nb.heat import HeatReport, RateModel, RateResult, top_keys
from blue_nb.plots import key_heatmap
from blue_nb.plots.base import BASE, WARN
from blue_nb.printing import number
from blue_nb.sizing import PARTITION_RCU, PARTITION_WCU
from blue_nb.widgets.heatmap import HeatCanvas

__all__ = ["HeatExplorer", "top_keys_html"]

METRICS = ("rcu", "wcu", "ctu")
SKEW_MAX = 3.0
DECADES_BELOW, DECADES_ABOVE = 1, 2   # a rate slider spans a decade below the spec's rate to two above
STEP = 0.01                            # a rate slider's grid, in the exponent (base 10)


def rate_label(rate: float) -> str:
    """A rate in plain numbers, as the label beside its slider reads it: ``1,000``, ``363``, ``2.5``, ``0.05``."""
    return number(rate, significant=2)


def _rate_model(source: Any) -> RateModel:
    if isinstance(source, RateModel):
        return source
    if isinstance(source, HeatReport) and source.rate_model is not None:
        return source.rate_model
    raise BlueNbError(f"HeatExplorer needs a heat model, got {type(source).__name__}", where="HeatExplorer",
                      hint="pass partition_heat(spec, store, rate_model=True) or blue_nb.heat.rate_model(spec, store)")


def snaps_to(slider: W.FloatLogSlider, rate: float, value: float) -> bool:
    """Whether ``value`` is only the browser's snap of ``rate`` to the slider's grid (its nearest grid point,
    within the slider's range): the same rate, not a move."""
    if value <= 0:
        return rate <= 0
    lo, hi = float(slider.min), float(slider.max)
    exponent = min(max(math.log(rate, slider.base) if rate > 0 else lo, lo), hi)
    grid = lo + round((exponent - lo) / slider.step) * slider.step
    return abs(math.log(value, slider.base) - grid) < slider.step / 1000


def _bar(value: float, limit: float, scale: float) -> str:
    """A bar of ``value`` on a track of ``scale`` with the limit marked; red and "(n×)" when over it."""
    over = value > limit
    color = WARN if over else BASE
    text = f"{value:,.0f}" + (f" ({value / limit:.1f}×)" if over else "")
    return (f'<div style="position:relative;width:220px;height:14px;background:#f0f0f0">'
            f'<div style="width:{100 * min(value, scale) / scale:.1f}%;height:100%;background:{color}"></div>'
            f'<div style="position:absolute;left:{100 * limit / scale:.1f}%;top:-2px;height:18px;border-left:2px dashed {WARN}"'
            f' title="partition limit {limit:,.0f}/s"></div></div>'
            f'<span style="color:{color if over else "inherit"}">{text}</span>')


def top_keys_html(top) -> str:
    """The hottest keys, ranked by :func:`blue_nb.heat.top_keys`, as an HTML table: RCU/s and WCU/s bars
    against 3,000 and 1,000."""
    if top.empty:
        return "<i>no partition has traffic</i>"
    r_scale = max(PARTITION_RCU, float(top["rcu_per_s"].max())) * 1.1
    w_scale = max(PARTITION_WCU, float(top["wcu_per_s"].max())) * 1.1
    rows = "".join(
        f"<tr><td>{html.escape(str(p.index))}</td><td style='text-align:left'><code>{html.escape(str(p.pk))}</code></td>"
        f"<td>{_bar(p.rcu_per_s, PARTITION_RCU, r_scale)}</td><td>{_bar(p.wcu_per_s, PARTITION_WCU, w_scale)}</td>"
        f"<td>{p.consumed_throughput_units:,.0f}</td><td>{p.items:,}</td><td>{p.bytes:,}</td></tr>"
        for p in top.itertuples(index=False))
    return (f"<b>Top {len(top)} partition keys by consumed throughput (3×WCU + RCU)</b> "
            f"<small>dashed: the per-partition limit, {PARTITION_RCU:,} RCU/s and {PARTITION_WCU:,} WCU/s</small>"
            "<table><tr><th>index</th><th>partition key</th><th>read units/s</th><th>write units/s</th>"
            f"<th>3×WCU + RCU</th><th>items</th><th>bytes</th></tr>{rows}</table>")


class HeatExplorer:
    """``HeatExplorer(report)`` (a report of ``partition_heat(..., rate_model=True)``) or
    ``HeatExplorer(rate_model(spec, store))``; displays itself. ``result`` holds the last
    :class:`~blue_nb.heat.RateResult`, ``last_ms`` the wall
    time of the last redraw (evaluation, both pictures and the findings) and ``timings`` its parts."""

    def __init__(self, report_or_model: Any, *, index: str = "table", metric: str = "rcu", top: int = 20,
                 continuous_update: bool = True, rates: dict[str, float] | None = None):
        self.model = _rate_model(report_or_model)
        self.top = top
        self.result: RateResult | None = None
        self.last_ms = 0.0
        self.timings: dict[str, float] = {}
        self.skews: dict[str, float] = {}          # the patterns whose skew slider moved (the others keep their spec's)
        self._rates = dict(self.model.base_rates)     # the rates shown, exactly (a slider holds them on its grid)
        self._quiet = False
        self.rate_sliders: dict[str, W.FloatLogSlider] = {}
        self.rate_labels: dict[str, W.HTML] = {}
        self.skew_sliders: dict[str, W.FloatSlider] = {}
        self.distribution_labels: dict[str, W.HTML] = {}
        rows = [self._pattern_row(name, continuous_update) for name in self.model.patterns]
        self.index = W.Dropdown(options=self.model.indexes, value=index if index in self.model.indexes
                                else self.model.indexes[0], description="index")
        self.metric = W.Dropdown(options=METRICS, value=metric, description="metric")
        self.status = W.HTML()
        self.heatmap = HeatCanvas()
        self.top_table = W.HTML()
        self.findings_html = W.HTML()
        self.index.observe(lambda _: self._redraw_heatmap(), names="value")
        self.metric.observe(lambda _: self._redraw_heatmap(), names="value")
        self.widget = W.VBox([W.HTML("<b>calls/s (a logarithmic slider) and skew (Zipf s; 0 = uniform) "
                                     "per access pattern</b>"), *rows, W.HBox([self.index, self.metric]), self.status,
                              self.heatmap, self.top_table, W.HTML("<b>Findings</b>"), self.findings_html])
        for w, css in ((self.status, "status"), (self.top_table, "top"), (self.heatmap, "heatmap"),
                       (self.widget, "heat-explorer")):
            w.add_class(f"blue-nb-{css}")             # stable names for a browser test (and user CSS)
        if rates:
            self.move(rates=rates)
        else:
            self.redraw()

    def _pattern_row(self, name: str, continuous_update: bool) -> W.HBox:
        rate = float(self.model.base_rates[name])
        decade = math.floor(math.log10(rate)) if rate > 0 else 0
        kind, s = self.model.base_distributions[name]
        # logarithmic, but read in plain numbers: the readout is off and a label says the rate, updated first
        r = W.FloatLogSlider(value=rate, base=10, min=decade - DECADES_BELOW, max=decade + DECADES_ABOVE + 1,
                             step=STEP, readout=False, description="calls/s", continuous_update=continuous_update,
                             layout=W.Layout(width="340px"))
        shown = W.HTML(f"<b>{rate_label(rate)}</b>", layout=W.Layout(width="70px"))
        self.rate_labels[name] = shown
        k = W.FloatSlider(value=min(s, SKEW_MAX) if kind == "zipf" else 0.0, min=0.0, max=SKEW_MAX, step=0.05,
                          description="skew s", continuous_update=continuous_update,
                          disabled=self.model.spec.pattern(name).operation == "scan")
        label = W.HTML()
        r.observe(lambda change, n=name: self._rate_moved(n, change["new"]), names="value")
        k.observe(lambda change, n=name: self._skew_moved(n, change["new"]), names="value")
        self.rate_sliders[name], self.skew_sliders[name], self.distribution_labels[name] = r, k, label
        r.add_class("blue-nb-rate")
        shown.add_class("blue-nb-rate-value")
        return W.HBox([W.HTML(f"<code>{html.escape(name)}</code>", layout=W.Layout(width="190px")), r, shown, k,
                       label])

    # -- wiring ----------------------------------------------------------------------------
    def _rate_moved(self, name: str, value: float) -> None:
        if self._quiet or snaps_to(self.rate_sliders[name], self._rates[name], value):
            return                                   # set from code, or the browser's snap of the rate held
        self._rates[name] = float(value)
        self.rate_labels[name].value = f"<b>{rate_label(value)}</b>"      # sent before the redraw: read while dragging
        self.redraw()

    def _skew_moved(self, name: str, value: float) -> None:
        self.skews[name] = float(value)
        self.redraw()

    @property
    def rates(self) -> dict[str, float]:
        """The rates the explorer shows (calls/s per pattern): as given or dragged to, not snapped to a grid."""
        return dict(self._rates)

    def set_rate(self, pattern: str, rate: float) -> RateResult:
        """Move one rate slider (widening its range if needed) and redraw; returns the new result."""
        return self.move(rates={pattern: rate})

    def set_skew(self, pattern: str, skew: float) -> RateResult:
        """Move one skew slider (0 = uniform, s > 0 = zipf:s) and redraw; returns the new result."""
        return self.move(skews={pattern: skew})

    def move(self, rates: dict[str, float] | None = None, skews: dict[str, float] | None = None) -> RateResult:
        """Move several sliders and redraw once."""
        unknown = sorted((set(rates or {}) | set(skews or {})) - set(self.rate_sliders))
        if unknown:
            raise BlueNbError(f"no slider for {', '.join(unknown)}", where="HeatExplorer",
                              hint=f"the patterns with a rate are {', '.join(self.rate_sliders)}")
        self._quiet = True
        try:
            for name, rate in (rates or {}).items():
                slider = self.rate_sliders[name]
                if rate > 0:
                    slider.max = max(slider.max, math.ceil(math.log10(rate)))
                    slider.min = min(slider.min, math.floor(math.log10(rate)))
                slider.value = rate
                self._rates[name] = float(rate)
                self.rate_labels[name].value = f"<b>{rate_label(self._rates[name])}</b>"
            for name, s in (skews or {}).items():
                self.skew_sliders[name].value = s
                self.skews[name] = float(self.skew_sliders[name].value)
        finally:
            self._quiet = False
        self.redraw()
        return self.result

    def reset(self) -> RateResult:
        """Back to the spec's rates and distributions."""
        self._quiet = True
        try:
            for name, rate in self.model.base_rates.items():
                self.rate_sliders[name].value = rate
                self._rates[name] = rate
                self.rate_labels[name].value = f"<b>{rate_label(rate)}</b>"
            for name, (kind, s) in self.model.base_distributions.items():
                self.skew_sliders[name].value = min(s, SKEW_MAX) if kind == "zipf" else 0.0
            self.skews.clear()
        finally:
            self._quiet = False
        self.redraw()
        return self.result

    # -- answers ---------------------------------------------------------------------------
    def redraw(self) -> None:
        """Evaluate the model for the sliders; send the heat map's numbers first (the browser paints them
        while the rest is made), then the hottest keys, the findings and the status line."""
        if self._quiet:
            return
        start = time.perf_counter()
        self.result = self.model.evaluate(self.rates, self.skews)
        evaluated = time.perf_counter()
        self._redraw_heatmap(timed=False)
        mapped = time.perf_counter()
        self.top_table.value = top_keys_html(top_keys(self.result.partitions, self.top))
        charted = time.perf_counter()
        self.findings_html.value = self.result.findings._repr_html_()
        for name, label in self.distribution_labels.items():
            label.value = f"<small>{html.escape(self.result.distributions[name])}</small>"
        end = time.perf_counter()
        self.timings = {"evaluate_ms": (evaluated - start) * 1000, "heatmap_ms": (mapped - evaluated) * 1000,
                        "top_keys_ms": (charted - mapped) * 1000, "findings_ms": (end - charted) * 1000}
        self.last_ms = (end - start) * 1000
        self._status()

    def _redraw_heatmap(self, timed: bool = True) -> None:
        if self.result is None:
            return
        start = time.perf_counter()
        index, metric = self.index.value, self.metric.value
        parts = self.result.partitions           # the timeline holds the keys that matter, not every key
        keys = int(((parts["index"] == index) & (parts["consumed_throughput_units"] > 0)).sum())
        self.heatmap.show(self.result.timeline, index, metric, key_ranges=self.result.key_ranges,
                          keys_with_traffic=keys, max_rows=self.model.rows, state=self.state_text())
        if timed:
            self.last_ms = (time.perf_counter() - start) * 1000
            self.timings = {"heatmap_ms": self.last_ms}
            self._status()

    def _status(self) -> None:
        p = self.result.partitions
        top = p.iloc[0] if len(p) else None
        hottest = (f"hottest {html.escape(str(top['index']))} <code>{html.escape(str(top['pk']))}</code>: "
                   f"{top['rcu_per_s']:,.0f} RCU/s, {top['wcu_per_s']:,.0f} WCU/s · " if top is not None else "")
        parts = " · ".join(f"{k.removesuffix('_ms')} {v:,.0f} ms" for k, v in self.timings.items())
        took = f"redraw {self.last_ms:,.0f} ms ({parts})"
        self.status.value = (f"{len(p):,} partitions · {hottest}{html.escape(self.result.findings.summary())} · "
                             f"{took}")

    # -- for tests and notebooks -----------------------------------------------------------
    @property
    def heatmap_figure(self):
        """The heat map shown now as a matplotlib Figure (what the report and the CLI draw)."""
        keys = int(((self.partitions["index"] == self.index.value)
                    & (self.partitions["consumed_throughput_units"] > 0)).sum())
        return key_heatmap(self.timeline, index=self.index.value, metric=self.metric.value,
                           key_ranges=self.result.key_ranges, keys_with_traffic=keys, max_rows=self.model.rows)

    def state_text(self) -> str:
        """The settings shown, as the page can read them back: each pattern's rate and skew, the index and
        the metric."""
        return "; ".join([*(f"{n}={self._rates[n]!r}/{self.skews.get(n, '')}" for n in self.model.patterns),
                          f"{self.index.value}/{self.metric.value}"])

    @property
    def partitions(self):
        return self.result.partitions

    @property
    def timeline(self):
        return self.result.timeline

    @property
    def findings(self):
        return self.result.findings

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
