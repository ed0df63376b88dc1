"""The partition-heat explorer: a rate slider and a skew slider per access pattern; the key-space
heat map, the hottest keys and the findings re-drawn on every change.

Wiring only (layer 3): every number comes from :class:`blue_nb.heat.HeatWhatIf` (the model
re-evaluated for the sliders' rates and skews), every picture from :mod:`blue_nb.plots`. Tests drive
it without a browser: set slider values (or call :meth:`HeatExplorer.set_rate`) and read
``result``, ``findings``, ``last_ms`` and the PNG bytes of the images.
"""

from __future__ import annotations

import html
import io
import math
import time
from typing import Any

import ipywidgets as W

from blue_nb.errors import BlueNbError
from blue_nb.heat import HeatReport, HeatWhatIf, WhatIfResult
from blue_nb.plots import key_heatmap, top_keys

__all__ = ["HeatExplorer"]

METRICS = ("rcu", "wcu", "ctu")
SKEW_MAX = 3.0


def _whatif(source: Any) -> HeatWhatIf:
    if isinstance(source, HeatWhatIf):
        return source
    if isinstance(source, HeatReport) and source.whatif is not None:
        return source.whatif
    raise BlueNbError(f"HeatExplorer needs a heat model, got {type(source).__name__}", where="HeatExplorer",
                      hint="pass heat(spec, store, whatif=True) or blue_nb.heat.what_if(spec, store)")


def _png(fig, dpi: int) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


class HeatExplorer:
    """``HeatExplorer(report)`` (a report of ``heat(..., whatif=True)``) or ``HeatExplorer(what_if(spec, store))``;
    displays itself. ``result`` holds the last :class:`~blue_nb.heat.WhatIfResult`, ``last_ms`` the wall
    time of the last redraw (evaluation, both pictures and the findings) and ``timings`` its parts."""

    def __init__(self, report_or_model: Any, *, index: str = "table", metric: str = "rcu", top: int = 20,
                 dpi: int = 72, continuous_update: bool = False):
        self.model = _whatif(report_or_model)
        self.top, self.dpi = top, dpi
        self.result: WhatIfResult | None = None
        self.last_ms = 0.0
        self.timings: dict[str, float] = {}
        self.heatmap_figure = self.top_figure = None
        self.skews: dict[str, float] = {}          # the patterns whose skew slider moved (the others keep their spec's)
        self._quiet = False
        self.rate_sliders: dict[str, W.FloatLogSlider] = {}
        self.skew_sliders: dict[str, W.FloatSlider] = {}
        self.distribution_labels: dict[str, W.HTML] = {}
        rows = [self._pattern_row(name, continuous_update) for name in self.model.patterns]
        self.index = W.Dropdown(options=self.model.indexes, value=index if index in self.model.indexes
                                else self.model.indexes[0], description="index")
        self.metric = W.Dropdown(options=METRICS, value=metric, description="metric")
        self.status = W.HTML()
        self.heatmap = W.Image(format="png", layout=W.Layout(max_width="100%"))
        self.top_chart = W.Image(format="png", layout=W.Layout(max_width="100%"))
        self.findings_html = W.HTML()
        self.index.observe(lambda _: self._redraw_heatmap(), names="value")
        self.metric.observe(lambda _: self._redraw_heatmap(), names="value")
        self.widget = W.VBox([W.HTML("<b>calls/s and skew (Zipf s; 0 = uniform) per access pattern</b>"), *rows,
                              W.HBox([self.index, self.metric]), self.status, self.heatmap, self.top_chart,
                              W.HTML("<b>Findings</b>"), self.findings_html])
        self.redraw()

    def _pattern_row(self, name: str, continuous_update: bool) -> W.HBox:
        rate = self.model.base_rates[name]
        decade = math.floor(math.log10(rate)) if rate > 0 else 0
        kind, s = self.model.base_distributions[name]
        r = W.FloatLogSlider(value=rate, base=10, min=decade - 2, max=decade + 3, step=0.01, readout_format=".3g",
                             description="calls/s", continuous_update=continuous_update)
        k = W.FloatSlider(value=min(s, SKEW_MAX) if kind == "zipf" else 0.0, min=0.0, max=SKEW_MAX, step=0.05,
                          description="skew s", continuous_update=continuous_update,
                          disabled=self.model.spec.pattern(name).operation == "scan")
        label = W.HTML()
        r.observe(lambda _: self.redraw(), names="value")
        k.observe(lambda change, n=name: self._skew_moved(n, change["new"]), names="value")
        self.rate_sliders[name], self.skew_sliders[name], self.distribution_labels[name] = r, k, label
        return W.HBox([W.HTML(f"<code>{html.escape(name)}</code>", layout=W.Layout(width="190px")), r, k, label])

    # -- wiring ----------------------------------------------------------------------------
    def _skew_moved(self, name: str, value: float) -> None:
        self.skews[name] = float(value)
        self.redraw()

    @property
    def rates(self) -> dict[str, float]:
        return {n: float(s.value) for n, s in self.rate_sliders.items()}

    def set_rate(self, pattern: str, rate: float) -> WhatIfResult:
        """Move one rate slider (widening its range if needed) and redraw; returns the new result."""
        return self.move(rates={pattern: rate})

    def set_skew(self, pattern: str, skew: float) -> WhatIfResult:
        """Move one skew slider (0 = uniform, s > 0 = zipf:s) and redraw; returns the new result."""
        return self.move(skews={pattern: skew})

    def move(self, rates: dict[str, float] | None = None, skews: dict[str, float] | None = None) -> WhatIfResult:
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
            for name, s in (skews or {}).items():
                self.skew_sliders[name].value = s
                self.skews[name] = float(self.skew_sliders[name].value)
        finally:
            self._quiet = False
        self.redraw()
        return self.result

    def reset(self) -> WhatIfResult:
        """Back to the spec's rates and distributions."""
        self._quiet = True
        try:
            for name, rate in self.model.base_rates.items():
                self.rate_sliders[name].value = rate
            for name, (kind, s) in self.model.base_distributions.items():
                self.skew_sliders[name].value = min(s, SKEW_MAX) if kind == "zipf" else 0.0
            self.skews.clear()
        finally:
            self._quiet = False
        self.redraw()
        return self.result

    # -- answers ---------------------------------------------------------------------------
    def redraw(self) -> None:
        if self._quiet:
            return
        start = time.perf_counter()
        self.result = self.model.evaluate(self.rates, self.skews)
        evaluated = time.perf_counter()
        self._redraw_heatmap(timed=False)
        drawn = time.perf_counter()
        self.top_figure = top_keys(self.result.partitions, n=self.top)
        self.top_chart.value = _png(self.top_figure, self.dpi)
        charted = time.perf_counter()
        self.findings_html.value = self.result.findings._repr_html_()
        for name, label in self.distribution_labels.items():
            label.value = f"<small>{html.escape(self.result.distributions[name])}</small>"
        end = time.perf_counter()
        self.timings = {"evaluate_ms": (evaluated - start) * 1000, "heatmap_ms": (drawn - evaluated) * 1000,
                        "top_keys_ms": (charted - drawn) * 1000, "findings_ms": (end - charted) * 1000}
        self.last_ms = (end - start) * 1000
        self._status()

    def _redraw_heatmap(self, timed: bool = True) -> None:
        if self.result is None:
            return
        start = time.perf_counter()
        index, metric = self.index.value, self.metric.value
        fig = key_heatmap(self.result.timeline, index=index, metric=metric)
        parts = self.result.partitions
        keys = int(((parts["index"] == index) & (parts["consumed_throughput_units"] > 0)).sum())
        drawn = self.result.timeline.loc[self.result.timeline["index"] == index, "pk"].nunique()
        if fig.axes and keys > drawn:       # the timeline holds the keys that matter, not every key
            fig.axes[0].set_ylabel(f"partition key (key order; {keys:,} keys with traffic,\n"
                                   f"{drawn:,} drawn: the hottest of each key range)")
        self.heatmap_figure = fig
        self.heatmap.value = _png(fig, self.dpi)
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
        self.status.value = (f"{len(p):,} partitions · {hottest}{html.escape(self.result.findings.summary())} · "
                             f"redraw {self.last_ms:,.0f} ms ({parts})")

    # -- for tests and notebooks -----------------------------------------------------------
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
