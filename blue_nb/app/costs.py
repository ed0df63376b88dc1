"""What a design costs per month, from a spec and a data folder: :func:`design_cost` (``blue-nb cost``)
and :func:`cost_whatif` (v1 vs v2 of a design, in dollars and units).

Layer 3, a thin workflow: it loads the rows into an in-memory DuckDB store
(:func:`blue_nb.app.workflows.load_data`, the app's) and has :func:`blue_nb.pricing.monthly_bill` price
the heat model's workload on them. The dollars are all :mod:`blue_nb.pricing`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, NamedTuple

import pandas as pd

from blue_nb.app.display import DisplayTable
from blue_nb.app.workflows import as_spec, data_store, load_data
from blue_nb.errors import SourceError
from blue_nb.pricing import Bill, Prices, as_prices, compare_bills, monthly_bill
from blue_nb.spec import Spec
from blue_nb.stores import open_store

__all__ = ["CostWhatIf", "design_cost", "cost_whatif"]


class CostWhatIf(NamedTuple):
    """Two designs priced alike: their bills and :func:`~blue_nb.pricing.compare_bills`' frame (``diff``)."""

    old: Bill
    new: Bill
    diff: pd.DataFrame

    def table(self) -> DisplayTable:
        """``diff`` as a reader takes it: per pattern, index, capacity and total, the units per second and the
        dollars per month before and after, and the change; dollars in the one money format, and no units
        (empty, not 0) where a row has none (storage, the totals)."""
        units = ["rcu_old", "rcu_new", "wcu_old", "wcu_new"]
        money = ["usd_old", "usd_new", "usd_diff"]
        frame = self.diff[["kind", "name", *units, *money]].set_index("name")
        frame[units] = frame[units].astype(float)                      # None (no units) shows as an empty cell
        return DisplayTable(frame, left=["kind"], signed=["usd_diff"], money=money,
                            caption="units per second and dollars per month, before and after")


def design_cost(spec: Spec | str | Path, data_dir: str | Path | None = None, *, duckdb: str | Path | None = None,
                prices: Prices | str | Path | None = None, utilisation: float = 0.6,
                rates: Mapping[str, float] | None = None, progress: bool = False, **options: Any) -> Bill:
    """The monthly bill of ``spec``'s design on the rows under ``data_dir`` (loaded into an in-memory
    DuckDB store), or on the items a load put in the DuckDB file ``duckdb``; ``options`` go to
    :func:`~blue_nb.pricing.monthly_bill` (peaks, seconds, seed, table_class, free_storage)."""
    spec = as_spec(spec)
    prices = as_prices(prices)                           # a bad file fails before loading
    if data_dir is None and duckdb is None:
        raise SourceError("the bill needs the items: give the rows (--data DIR) or a loaded store (--duckdb FILE)",
                          hint="blue-nb load SPEC --data DIR --duckdb FILE fills a store once for every command")
    if duckdb is not None:
        with data_store(spec, data_dir, duckdb) as loaded:
            return monthly_bill(spec, loaded, prices=prices, utilisation=utilisation, rates=rates, **options)
    store = open_store("duckdb")
    try:
        load_data(spec, data_dir, stores=[store], progress=progress)
        return monthly_bill(spec, store, prices=prices, utilisation=utilisation, rates=rates, **options)
    finally:
        store.close()


def cost_whatif(old_spec: Spec | str | Path, new_spec: Spec | str | Path, data_dir: str | Path, *,
                new_data_dir: str | Path | None = None, prices: Prices | str | Path | None = None,
                utilisation: float = 0.6, rates: Mapping[str, float] | None = None, progress: bool = False,
                **options: Any) -> CostWhatIf:
    """Both designs priced on the same rows (``new_data_dir`` if the new one needs other files), the
    same prices, utilisation, rates and simulation: ``(old, new, diff)``."""
    prices = as_prices(prices)
    kw = dict(prices=prices, utilisation=utilisation, rates=rates, progress=progress, **options)
    old = design_cost(old_spec, data_dir, **kw)
    new = design_cost(new_spec, new_data_dir or data_dir, **kw)
    return CostWhatIf(old, new, compare_bills(old, new))
