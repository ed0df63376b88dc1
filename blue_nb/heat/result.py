"""The result of :func:`blue_nb.heat.partition_heat`: :class:`HeatReport`, every frame the plots and notebooks need,
the findings, and ``summary.json``; and :func:`top_keys`, the hottest keys as the summary, the
``top_keys`` picture and the heat explorer's table all show them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from blue_nb.rules import Findings
from blue_nb.printing import fields_html, number

__all__ = ["HeatReport", "skew", "top_keys", "SUMMARY_TOP"]

SUMMARY_TOP = 20
TOP_COLUMNS = ["index", "pk", "rcu_per_s", "wcu_per_s", "consumed_throughput_units", "items", "bytes", "patterns"]


def skew(partitions: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per index, over the keys that get traffic: max over median of the consumed throughput units,
    and the share of all units taken by the top 1% of keys (at least one key)."""
    out = {}
    for index, g in partitions.groupby("index", sort=False):
        u = g["consumed_throughput_units"].to_numpy(dtype=float)
        u = u[u > 0]
        if not len(u):
            out[index] = {"keys": int(len(g)), "keys_with_traffic": 0, "max_over_median": None,
                          "top1pct_share": None}
            continue
        u.sort()
        top = max(1, math.ceil(len(u) * 0.01))
        median = float(pd.Series(u).median())
        out[index] = {"keys": int(len(g)), "keys_with_traffic": int(len(u)),
                      "max_over_median": float(u[-1] / median) if median else None,
                      "top1pct_share": float(u[-top:].sum() / u.sum())}
    return out


def top_keys(partitions: pd.DataFrame, n: int = SUMMARY_TOP) -> pd.DataFrame:
    """The ``n`` hottest keys of a ``partitions`` frame: the rows with traffic, ranked by consumed
    throughput units (3×WCU + RCU) descending, ties in the frame's own order (hottest-first frames,
    as :func:`~blue_nb.heat.partition_heat` and :meth:`~blue_nb.heat.RateModel.evaluate` give, are kept as is)."""
    hot = partitions[partitions["consumed_throughput_units"] > 0]
    if not hot["consumed_throughput_units"].is_monotonic_decreasing:
        hot = hot.sort_values("consumed_throughput_units", ascending=False, kind="stable")
    return hot.head(n)


def _clean(v: Any) -> Any:
    if isinstance(v, float):
        return None if math.isnan(v) else round(float(v), 3)      # float(): no np.float64 in the summary
    if hasattr(v, "item"):
        return _clean(v.item())
    return v


def hottest_text(partitions: pd.DataFrame) -> str:
    """``table 'nvidia-dec' at 860.3 RCU/s, 9.3 WCU/s``: the first (hottest) row of a partitions frame."""
    if not len(partitions):
        return "no partitions"
    top = partitions.iloc[0]
    return f"{top['index']} {top['pk']!r} at {number(float(top['rcu_per_s']), 1)} RCU/s, {number(float(top['wcu_per_s']), 1)} WCU/s"


@dataclass
class HeatReport:
    """What :func:`blue_nb.heat.partition_heat` computed; every frame follows the plots' data contract.

    * ``partitions``: index, pk, items, bytes, rcu_per_s, wcu_per_s, consumed_throughput_units,
      patterns - hottest first;
    * ``timeline``: second, index, pk, rcu, wcu - units consumed per second;
    * ``sizes`` (entity, size), ``waste`` (entity, items, bytes_used, bytes_paid_read,
      bytes_paid_write), ``attrs`` (entity, attribute, bytes, share), ``entries`` (index, size);
    * ``findings`` (:class:`blue_nb.rules.Findings`), ``skew`` (per index), ``hot_items``,
      ``drivers`` (units per key and pattern), ``patterns`` (per-call costs), ``table``
      (billing mode and burst), ``size_stats`` (per entity count, p50, p95, max; ``item_sizes`` in ``summary.json``);
    * ``rate_model``: with ``partition_heat(..., rate_model=True)``, a :class:`~blue_nb.heat.rates.RateModel` (else None).
    """

    source: str
    seconds: int
    partitions: pd.DataFrame
    timeline: pd.DataFrame
    findings: Findings
    skew: dict[str, Any]
    hot_items: pd.DataFrame
    drivers: pd.DataFrame
    patterns: pd.DataFrame
    table: dict[str, Any]
    size_stats: dict[str, dict[str, int]]
    sizes: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["entity", "size"]))
    waste: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=["entity", "items", "bytes_used", "bytes_paid_read", "bytes_paid_write"]))
    attrs: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["entity", "attribute", "bytes", "share"]))
    entries: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["index", "size"]))
    timings: dict[str, float] = field(default_factory=dict)
    rate_model: Any = None      # a RateModel when partition_heat(..., rate_model=True): re-evaluate other rates and skews
    priced: Any = None          # the model's patterns priced at the spec's rates (heat.model.Priced; None from a log)

    def top_keys(self, n: int = SUMMARY_TOP) -> pd.DataFrame:
        """The n hottest keys (by consumed throughput units) with their load and size: :func:`top_keys`."""
        return top_keys(self.partitions, n)

    def indexes_frame(self) -> pd.DataFrame:
        """Per index (the table first): keys, items, bytes, mean RCU/s and WCU/s, and the busiest key's
        per-second peaks, rounded to 0.1 for reading (the numbers of ``summary()["indexes"]``)."""
        rows = self.summary(top=0)["indexes"]
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("index").round(1)

    def summary(self, top: int = SUMMARY_TOP) -> dict[str, Any]:
        """The ``summary.json`` of ``blue-nb heat``."""
        per_index = self.partitions.groupby("index", sort=False).agg(
            keys=("pk", "count"), items=("items", "sum"), bytes=("bytes", "sum"), rcu_per_s=("rcu_per_s", "sum"),
            wcu_per_s=("wcu_per_s", "sum"))
        peaks = (self.timeline.groupby(["index", "pk"])[["rcu", "wcu"]].max().groupby("index").max()
                 if len(self.timeline) else pd.DataFrame(columns=["rcu", "wcu"]))
        indexes = {}
        for rec in per_index.reset_index().to_dict("records"):
            index = rec.pop("index")
            indexes[index] = {k: _clean(v) for k, v in rec.items()}
            if index in peaks.index:
                indexes[index].update(peak_key_rcu=_clean(peaks.loc[index, "rcu"]),
                                      peak_key_wcu=_clean(peaks.loc[index, "wcu"]))
        return {
            "source": self.source,
            "seconds": self.seconds,
            "partitions": int(len(self.partitions)),
            "indexes": indexes,
            "top_keys": [{k: _clean(v) for k, v in rec.items()}
                         for rec in self.top_keys(top)[TOP_COLUMNS].to_dict("records")],
            "findings": self.findings.to_dicts(),
            "counts": self.findings.counts,
            "item_sizes": self.size_stats,
            "skew": {i: {k: _clean(v) for k, v in s.items()} for i, s in self.skew.items()},
            "table": {k: (_clean(v) if not isinstance(v, dict) else {a: _clean(b) for a, b in v.items()})
                      for k, v in self.table.items()},
            "patterns": [{k: _clean(v) for k, v in rec.items()} for rec in self.patterns.to_dict("records")],
            "hot_items": [{k: _clean(v) for k, v in rec.items()} for rec in self.hot_items.head(top).to_dict("records")],
        }

    def __repr__(self) -> str:
        hottest = hottest_text(self.partitions)
        return (f"HeatReport({self.source}: {len(self.partitions):,} partitions, hottest {hottest}; "
                f"{self.findings.summary()})")

    def _repr_html_(self) -> str:
        return fields_html({"source": self.source, "seconds modelled": self.seconds,
                            "partition keys": len(self.partitions), "hottest": hottest_text(self.partitions),
                            "findings": self.findings.summary()}, "Partition heat")
