"""Partition heat: the workload model, per-partition units, throttle prediction (layer 2).

>>> report = partition_heat(spec, store)               # store: a DuckDB store loaded with the spec's items
>>> report.partitions.head()                 # index, pk, items, bytes, rcu_per_s, wcu_per_s, ...
>>> report.findings                          # HOT-PARTITION, HOT-INDEX-PARTITION, PARTITION-SIZE, ...

* :mod:`.workload` - candidates (distinct parameter tuples in the data) and their weights
* :mod:`.costs` - the per-call cost of every candidate on the real items (pages by :func:`blue_nb.patterns.pages_of`)
* :mod:`.model` - per-partition units, per-second simulation, hot items
* :mod:`.load` - the mean load per partition, per pattern and per item (the hot items), shared by the report
  and :class:`RateModel`
* :mod:`.seconds` - the per-second model (calls drawn per second, their units per key), shared by the report
  and :class:`RateModel`
* :mod:`.logs` - a recorded access log (CSV, Parquet, JSONL) instead of the model
* :mod:`.throttle` - predictions and findings (the rules are defined in :mod:`blue_nb.rules.heat_rules`);
  the item and entry sizes and their findings come from :mod:`blue_nb.sizes`
* :mod:`.result` - :class:`HeatReport` (what :func:`partition_heat` returns), ``summary.json`` and :func:`top_keys`;
  :mod:`.run` - the entry points
* :mod:`.rates` - :class:`RateModel`: the model as arrays, re-evaluated for new rates and skews in ms

Dollars are :mod:`blue_nb.pricing`'s, the layer above: it prices these units.

The joins over items run in the store's analytics session (:meth:`Store.analytics()
<blue_nb.stores.base.Store.analytics>`, a DuckDB store's); the load (per partition, pattern and item), the
per-second model and the re-evaluation for other rates run in numpy: no Python loop over items, no driver
imported here.
"""

from blue_nb.heat.costs import call_costs
from blue_nb.heat.logs import parse_timestamp, read_access_log
from blue_nb.heat.rates import RateModel, RateResult
from blue_nb.heat.result import HeatReport, skew, top_keys
from blue_nb.heat.run import DEFAULT_SECONDS, DEFAULT_SEED, partition_heat, heat_findings, rate_model
from blue_nb.heat.throttle import is_time_like
from blue_nb.heat.workload import candidates, parse_distribution

__all__ = ["DEFAULT_SECONDS", "DEFAULT_SEED", "HeatReport", "RateModel", "RateResult", "call_costs", "candidates",
           "heat_findings", "partition_heat", "is_time_like", "parse_distribution", "parse_timestamp", "rate_model",
           "read_access_log", "skew", "top_keys"]
