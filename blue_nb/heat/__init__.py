"""Partition heat: the workload model, per-partition units, throttle prediction (layer 2).

>>> report = heat(spec, store)               # store: a DuckDB store loaded with the spec's items
>>> report.partitions.head()                 # index, pk, items, bytes, rcu_per_s, wcu_per_s, ...
>>> report.findings                          # HOT-PARTITION, HOT-INDEX-PARTITION, PARTITION-SIZE, ...

* :mod:`.workload` - candidates (distinct parameter tuples in the data) and their weights
* :mod:`.costs` - the per-call cost of every candidate on the real items, in SQL
* :mod:`.model` - per-partition units, per-second simulation, hot items
* :mod:`.logs` - a recorded access log (CSV, Parquet, JSONL) instead of the model
* :mod:`.throttle` - predictions and findings; :mod:`.sizes` - item and entry sizes
* :mod:`.report` - :class:`HeatReport` and ``summary.json``; :mod:`.run` - the entry points
* :mod:`.whatif` - :class:`HeatWhatIf`: the model as arrays, re-evaluated for new rates and skews in ms

All aggregation runs in DuckDB through the store's ``execute``: no Python loop over items.
"""

from blue_nb.heat.costs import call_costs
from blue_nb.heat.logs import parse_timestamp, read_access_log
from blue_nb.heat.report import HeatReport, skew
from blue_nb.heat.run import DEFAULT_SECONDS, DEFAULT_SEED, heat, heat_findings, what_if
from blue_nb.heat.throttle import HEAT_RULES, is_time_like
from blue_nb.heat.whatif import HeatWhatIf, WhatIfResult
from blue_nb.heat.workload import candidates, parse_distribution

__all__ = ["DEFAULT_SECONDS", "DEFAULT_SEED", "HEAT_RULES", "HeatReport", "HeatWhatIf", "WhatIfResult", "call_costs",
           "candidates", "heat", "heat_findings", "is_time_like", "parse_distribution", "parse_timestamp",
           "read_access_log", "skew", "what_if"]
