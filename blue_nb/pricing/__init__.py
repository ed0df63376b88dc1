"""Pricing: what a design costs in dollars per month (layer 2, above :mod:`blue_nb.heat`).

>>> bill = monthly_bill(spec, store)          # store: a DuckDB store loaded with the spec's items
>>> print(bill)                               # per pattern, per index, provisioned capacity, totals
>>> compare_bills(old, new)                   # what changed, in units and dollars

* :mod:`.prices` - the price tables as data (``tables/<region>.json``: :func:`load_prices`,
  :func:`as_prices`) and the exact dollar arithmetic: on-demand requests, provisioned capacity, storage
* :mod:`.monthly` - :func:`monthly_bill`: the heat model's units per call and its simulated peaks, priced
* :mod:`.bill` - :class:`Bill` and its lines, its text, its JSON summary; :func:`compare_bills` and
  :func:`dollar_changes`, two bills side by side

Units (read and write units per call, per partition) are computed where sizes are: :mod:`blue_nb.sizing`
and :mod:`blue_nb.heat`; this room only puts a price on them. Loading a data folder to price it is the
app's (:func:`blue_nb.app.costs.design_cost`, ``blue-nb cost``). Dollars print with
:func:`blue_nb.printing.usd`.
"""

from blue_nb.pricing.bill import (DOLLAR_TOTALS, Bill, CapacityLine, IndexLine, PatternLine, compare_bills,
                                  dollar_changes)
from blue_nb.pricing.monthly import monthly_bill
from blue_nb.pricing.prices import Prices, as_prices, load_prices, regions
from blue_nb.pricing.waste import ReadWaste, read_waste

__all__ = ["DOLLAR_TOTALS", "Bill", "CapacityLine", "IndexLine", "PatternLine", "Prices", "as_prices", "compare_bills",
           "dollar_changes", "load_prices", "monthly_bill", "ReadWaste", "read_waste", "regions"]
