"""A design's monthly bill, on demand and provisioned: :func:`monthly_bill` -> :class:`~.bill.Bill`.

The units come from the heat model, not from a second model: a :class:`~blue_nb.heat.model.HeatModel`
prices every pattern's candidates on the real items (:mod:`blue_nb.heat.costs`: units per call) and
weighs them as the workload draws keys for the pattern's ``key_distribution`` (:mod:`blue_nb.heat.workload`).
Then:

* per pattern: the weighted mean RCU and WCU per call (:meth:`HeatModel.pattern_costs`), the write
  units split per index (the ``effects`` table for GSIs; LSI entries are written with the table's
  capacity), units/s = rate x units per call, on-demand $ = units/s x 3600 x 730 x price per unit;
* per index: storage (bytes + 100 B per item or entry, GB = 2^30 bytes) and the units put on it;
* provisioned, per table (with its LSIs) and per GSI: ceil(peak / utilisation) units, where the
  peak is the busiest second of the heat model's simulation (``seconds``, ``seed``; never below the
  mean) or, with ``peaks=False``, the mean; at least 1 unit each, as CreateTable requires.

Prices are data (:mod:`blue_nb.pricing.prices`); the arithmetic is exact Decimal.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Mapping

import pandas as pd

from blue_nb.errors import QueryError
from blue_nb.heat.model import HeatModel
from blue_nb.heat.result import HeatReport
from blue_nb.heat.run import DEFAULT_SECONDS, DEFAULT_SEED
from blue_nb.heat.workload import build_candidates
from blue_nb.layout import TableLayout
from blue_nb.pricing.bill import Bill, CapacityLine, IndexLine, PatternLine
from blue_nb.pricing.prices import (Prices, as_prices, provisioned_units, provisioned_usd, request_usd, storage_gb,
                                    storage_usd, to_decimal)
from blue_nb.sizing import STORAGE_OVERHEAD
from blue_nb.spec import MAX_RATE, Spec
from blue_nb.stores import Store
from blue_nb.stores.analytics import Scratch, ident
from blue_nb.stores.entries import entries_table

__all__ = ["monthly_bill"]

_ZERO = Decimal(0)


def _number(x) -> Decimal | None:
    """A finite number as a Decimal, else None (bools and text are not numbers here)."""
    if isinstance(x, bool) or not isinstance(x, (int, float, Decimal)):
        return None
    try:
        d = to_decimal(x)
    except ValueError:                                      # inf, nan
        return None
    return d if d.is_finite() else None


def _utilisation(u: float | Decimal) -> Decimal:
    d = _number(u)
    if d is None or not (0 < d <= 1):
        raise QueryError(f"utilisation must be a number in (0, 1], got {u!r}", where="utilisation",
                         hint="0.6 provisions for the peak at 60% target utilisation (peak / 0.6)")
    return d


def _rates(spec: Spec, rates: Mapping[str, float] | None) -> dict[str, Decimal]:
    """Pattern name -> calls/s: the spec's ``rate_per_second`` unless ``rates`` overrides it."""
    rates = dict(rates or {})
    names = [p.name for p in spec.access_patterns]
    unknown = sorted(set(rates) - set(names))
    if unknown:
        raise QueryError(f"no access pattern {', '.join(unknown)}", where="rates", hint="the patterns are "
                         + ", ".join(names))
    out = {}
    for p in spec.access_patterns:
        r = rates.get(p.name, p.rate_per_second or 0)
        d = _number(r)
        if d is None or d < 0 or d > MAX_RATE:
            raise QueryError(f"rate of {p.name} must be a number of calls/s from 0 to {MAX_RATE:,}, got {r!r}",
                             where=f"rates.{p.name}", hint="give calls per second")
        out[p.name] = d
    return out


def _index_kinds(spec: Spec) -> dict[str, str]:
    return {"table": "table", **{n: i.type for n, i in spec.table.indexes.items()}}


def _capacity_of(spec: Spec, index: str) -> str:
    """Whose provisioned capacity an index uses: a GSI its own, an LSI the table's."""
    idx = spec.table.indexes.get(index)
    return index if idx is not None and idx.type == "global" else "table"


# -- from the model ------------------------------------------------------------------------------
def _storage(scratch: Scratch, spec: Spec) -> dict[str, tuple[int, int]]:
    """index -> (entries, bytes) of the table's items and of each index's entries."""
    out = {}
    for name in ["table", *spec.table.indexes]:
        ent = (f"(SELECT size AS esize FROM {ident(TableLayout.of(spec).catalog)})" if name == "table"
               else entries_table(scratch, spec, name))
        n, b = scratch.execute(f"SELECT count(*), coalesce(sum(esize), 0) FROM {ent} e")[0]
        out[name] = (int(n), int(b))
    return out


def _storage_of(heat: HeatReport, spec: Spec) -> dict[str, tuple[int, int]]:
    """:func:`_storage` read off a heat report's item and index entry sizes (the same entries, counted once)."""
    out = {"table": (len(heat.sizes), int(heat.sizes["size"].sum()))}
    for name in spec.table.indexes:
        sizes = heat.entries.loc[heat.entries["index"] == name, "size"]
        out[name] = (len(sizes), int(sizes.sum()))
    return out


def _peaks(spec: Spec, timeline: pd.DataFrame) -> dict[str, tuple[Decimal, Decimal]]:
    """capacity owner -> (peak RCU/s, peak WCU/s): the busiest simulated second of the table (with its
    LSIs) and of each GSI."""
    if not len(timeline):
        return {}
    tl = timeline.assign(owner=timeline["index"].map(lambda i: _capacity_of(spec, i)))
    per_second = tl.groupby(["owner", "second"])[["rcu", "wcu"]].sum().groupby("owner").max()
    return {o: (to_decimal(r["rcu"]), to_decimal(r["wcu"])) for o, r in per_second.iterrows()}


def _patterns(spec: Spec, rates: dict[str, Decimal], costs: pd.DataFrame, splits: dict[int, dict[str, float]],
              modelled: dict[str, int], prices: Prices) -> list[PatternLine]:
    by_name = costs.set_index("pattern") if len(costs) else pd.DataFrame()
    h, out = prices.hours_per_month, []
    for pid, p in enumerate(spec.access_patterns):
        rate, note = rates[p.name], ""
        if p.name in by_name.index:
            rcu, wcu = to_decimal(by_name.loc[p.name, "rcu_per_call"]), to_decimal(by_name.loc[p.name, "wcu_per_call"])
        else:
            rcu = wcu = _ZERO
            note = "not modelled: no items carry its parameters" if p.name in modelled else "no rate"
        writes: dict[str, Decimal] = {}
        if wcu:
            split = {k: to_decimal(v) for k, v in splits.get(modelled.get(p.name, pid), {}).items()}
            writes = {"table": wcu - sum(split.values(), _ZERO), **split}
        out.append(PatternLine(p.name, p.operation, p.index, rate, rcu, wcu, writes,
                               request_usd(rate * rcu, prices.on_demand_read_per_million, h),
                               request_usd(rate * wcu, prices.on_demand_write_per_million, h), note))
    return out


def _indexes(spec: Spec, patterns: list[PatternLine], storage: dict[str, tuple[int, int]], prices: Prices,
             table_class: str) -> list[IndexLine]:
    out, h = [], prices.hours_per_month
    for name, kind in _index_kinds(spec).items():
        rcu = sum((x.rate * x.rcu_per_call for x in patterns if x.index == name), _ZERO)
        wcu = sum((x.rate * x.writes.get(name, _ZERO) for x in patterns), _ZERO)
        n, b = storage[name]
        billed = b + STORAGE_OVERHEAD * n
        gb = storage_gb(billed, prices.storage_gb_bytes)
        out.append(IndexLine(name, kind, n, b, billed, gb, storage_usd(gb, prices.storage_price(table_class)), rcu, wcu,
                             request_usd(rcu, prices.on_demand_read_per_million, h)
                             + request_usd(wcu, prices.on_demand_write_per_million, h)))
    return out


def _capacity(spec: Spec, indexes: list[IndexLine], peaks: dict[str, tuple[Decimal, Decimal]] | None,
              util: Decimal, prices: Prices) -> list[CapacityLine]:
    owners = ["table", *(n for n, i in spec.table.indexes.items() if i.type == "global")]
    out, h = [], prices.hours_per_month
    for owner in owners:
        mine = [i for i in indexes if _capacity_of(spec, i.index) == owner]
        mr, mw = sum((i.rcu_per_s for i in mine), _ZERO), sum((i.wcu_per_s for i in mine), _ZERO)
        pr, pw = (peaks or {}).get(owner, (_ZERO, _ZERO)) if peaks is not None else (mr, mw)
        pr, pw = max(pr, mr), max(pw, mw)
        rcu, wcu = provisioned_units(pr, util), provisioned_units(pw, util)
        out.append(CapacityLine(owner, mr, mw, pr, pw, rcu, wcu, provisioned_usd(rcu, prices.provisioned_rcu_hour, h),
                                provisioned_usd(wcu, prices.provisioned_wcu_hour, h)))
    return out


def monthly_bill(spec: Spec, store: Store, *, prices: Prices | str | Path | None = None, utilisation: float = 0.6,
                 rates: Mapping[str, float] | None = None, peaks: bool = True, seconds: int = DEFAULT_SECONDS,
                 seed: int = DEFAULT_SEED, table_class: str = "standard", free_storage: bool = False,
                 heat: HeatReport | None = None) -> Bill:
    """The monthly bill of ``spec``'s design on the items in a DuckDB ``store`` (see the module docstring).

    ``prices``: a :class:`~blue_nb.pricing.prices.Prices`, a price file, or None for the packaged
    us-east-1 table; ``utilisation``: the provisioned target (capacity = peak / utilisation);
    ``rates``: calls/s per pattern name instead of the spec's ``rate_per_second``; ``peaks``: size
    provisioned capacity for the busiest of ``seconds`` simulated seconds (``seed``), else for the mean;
    ``table_class``: ``standard`` or ``standard_ia`` (storage price; request prices stay the file's);
    ``free_storage``: take the free tier's GB (25 per account) off the storage bill; ``heat``: a
    :class:`~blue_nb.heat.HeatReport` of the same spec and items whose timeline (the model's simulated
    seconds, or a recorded log's) gives the peaks instead of a new simulation (and a model's report its pricing of
    the patterns too)."""
    prices, util, rate = as_prices(prices), _utilisation(utilisation), _rates(spec, rates)
    if heat is not None and (rates or not peaks):
        raise QueryError("a heat report's peaks are those of its own run", where="heat",
                         hint="leave out rates (and peaks=False) with heat=, or drop heat= to simulate these rates")
    prices.storage_price(table_class)                       # an unknown class fails before any work
    scratch = store.analytics()
    try:
        priced = heat.priced if heat is not None else None       # a model's report priced these rates already
        timeline = heat.timeline if heat is not None else None
        if priced is None:
            model = HeatModel(scratch, spec)
            for pid, p in enumerate(spec.access_patterns):
                if rate[p.name] > 0 and p.is_composite:         # a transaction or a batch: its actions at its rate
                    model.price_actions(pid, replace(p, rate_per_second=float(rate[p.name])))
                elif rate[p.name] > 0:
                    model.price(pid, p.name, float(rate[p.name]), build_candidates(scratch, spec, p, tag=str(pid)))
            priced = model.priced()
            if heat is None and peaks and model.rates:
                timeline = model.timeline(model.simulate(seconds, seed))
        storage = _storage_of(heat, spec) if heat is not None and len(heat.sizes) else _storage(scratch, spec)
    finally:
        scratch.close()
    patterns = _patterns(spec, rate, priced.costs, priced.index_writes, priced.modelled, prices)
    indexes = _indexes(spec, patterns, storage, prices, table_class)
    peak = _peaks(spec, timeline) if timeline is not None else ({} if peaks else None)
    capacity = _capacity(spec, indexes, peak, util, prices)
    where = (f"busiest second of the heat report's {heat.seconds} s ({heat.source}), never below the mean"
             if heat is not None else f"busiest second of {seconds} simulated (seed {seed}), never below the mean"
             if peaks else "mean load (peaks=False)")
    notes = [f"{x.pattern}: {x.note}" for x in patterns if x.note.startswith("not modelled")]
    if not spec.access_patterns:
        notes.append("the spec has no access patterns: the requests cost $0 here, and the bill is storage and the "
                     "least provisioned capacity only (add access_patterns with a rate_per_second)")
    elif not any(rate.values()):
        notes.append("no access pattern has a rate: the requests cost $0 here (give each pattern a rate_per_second, "
                     "or --rate NAME=CALLS_PER_S)")
    if any(i.type == "local" for i in spec.table.indexes.values()):
        notes.append("LSIs use the table's provisioned capacity; their writes are listed apart but provisioned "
                     "with the table's")
    free = prices.free_storage_gb if free_storage else _ZERO
    return Bill(spec.domain, prices, util, where, table_class, spec.table.billing_mode, patterns, indexes, capacity,
                free, notes)
