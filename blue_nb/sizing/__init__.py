"""Item sizes and capacity units, exactly as DynamoDB counts them (stdlib only at import).

* :mod:`.numbers` - :func:`number_size` (base-100 digit-pair rule)
* :mod:`.exact` - the reference: :func:`item_size`, :func:`value_size`, :func:`wire_item_size`,
  :func:`wire_value_size`, one recursive walk per value; every faster path equals it, errors included
* :mod:`.batch` - the product's batch entry points, same results as the reference:
  :func:`item_sizes` (Python items; from ``batch.COLUMNAR_MIN_ITEMS`` items on the fast path
  :func:`.columnar.python_item_sizes`, below that grouped C-level passes) and :func:`wire_item_sizes`
  (DynamoDB JSON items, grouped passes)
* :mod:`.columnar` - vectorized sizing over Arrow columns (pyarrow + numpy, imported only when a
  batch is sized in columns): :func:`.columnar.item_size_column`, :func:`.columnar.python_item_sizes`
* :mod:`.capacity` - read/write units per operation, limits and constants
"""

from __future__ import annotations

from blue_nb.sizing.batch import item_sizes, wire_item_sizes
from blue_nb.sizing.capacity import (
    BATCH_GET_MAX_KEYS,
    BATCH_MAX_BYTES,
    BATCH_WRITE_MAX_REQUESTS,
    GB,
    KB,
    MAX_ITEM_BYTES,
    MAX_NESTING,
    MB,
    PAGE_BYTES,
    PARTITION_BYTES,
    PARTITION_KEY_MAX_BYTES,
    PARTITION_RCU,
    PARTITION_WCU,
    READ_MODES,
    READ_UNIT_BYTES,
    SORT_KEY_MAX_BYTES,
    STORAGE_OVERHEAD,
    TRANSACT_MAX_BYTES,
    TRANSACT_MAX_ITEMS,
    WRITE_UNIT_BYTES,
    batch_get_read_units,
    batch_write_units,
    delete_write_units,
    fits_item_limit,
    item_costs,
    put_write_units,
    query_read_units,
    read_units,
    transact_get_read_units,
    transact_write_units,
    write_units,
)
from blue_nb.sizing.exact import b64_raw_length, item_size, str_size, value_size, wire_item_size, wire_value_size
from blue_nb.sizing.numbers import MAX_NUMBER_BYTES, number_size

__all__ = [
    "BATCH_GET_MAX_KEYS",
    "BATCH_MAX_BYTES",
    "BATCH_WRITE_MAX_REQUESTS",
    "GB",
    "KB",
    "MAX_ITEM_BYTES",
    "MAX_NESTING",
    "MAX_NUMBER_BYTES",
    "MB",
    "PAGE_BYTES",
    "PARTITION_BYTES",
    "PARTITION_KEY_MAX_BYTES",
    "PARTITION_RCU",
    "PARTITION_WCU",
    "READ_MODES",
    "READ_UNIT_BYTES",
    "SORT_KEY_MAX_BYTES",
    "STORAGE_OVERHEAD",
    "TRANSACT_MAX_BYTES",
    "TRANSACT_MAX_ITEMS",
    "WRITE_UNIT_BYTES",
    "b64_raw_length",
    "batch_get_read_units",
    "batch_write_units",
    "delete_write_units",
    "fits_item_limit",
    "item_costs",
    "item_size",
    "item_sizes",
    "number_size",
    "put_write_units",
    "query_read_units",
    "read_units",
    "str_size",
    "transact_get_read_units",
    "transact_write_units",
    "value_size",
    "wire_item_size",
    "wire_item_sizes",
    "wire_value_size",
    "write_units",
]
