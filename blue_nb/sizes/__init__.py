"""The measured sizes of a loaded table: item and index-entry size statistics per entity and
attribute, and their limit findings (layer 2, below :mod:`blue_nb.heat`, which puts them in its report).

>>> scratch = store.analytics()              # store: a DuckDB store loaded with the spec's items
>>> entity_size_stats(scratch, spec)["Dialogue"]       # count, p50, p95, max, bytes
>>> size_findings(scratch, spec)             # PARTITION-SIZE, ITEM-SIZE-NEAR-LIMIT

* :mod:`.stats` - per entity and attribute: item sizes, the 4 KB / 1 KB rounding's waste, the bytes of
  each attribute, index entry sizes (the size plots' frames) and ``summary.json``'s ``item_sizes``
* :mod:`.limits` - partition and item sizes against DynamoDB's limits: the PARTITION-SIZE and
  ITEM-SIZE-NEAR-LIMIT findings (the rules and their thresholds live in :mod:`blue_nb.rules.heat_rules`)

All aggregation runs in SQL on the store's catalog, through its analytics session
(:class:`~blue_nb.stores.analytics.Scratch`); no driver is imported here.
"""

from blue_nb.sizes.limits import size_findings
from blue_nb.sizes.stats import ATTR_SAMPLE, attribute_size_frame, entity_size_stats, item_size_frame, size_frames

__all__ = ["ATTR_SAMPLE", "attribute_size_frame", "entity_size_stats", "item_size_frame", "size_findings", "size_frames"]
