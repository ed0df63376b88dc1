"""Item sizes and capacity units, exactly as DynamoDB counts them (stdlib only at import).

* :mod:`.numbers` - :func:`number_size` (base-100 digit-pair rule)
* :mod:`.exact` - the per-item path: :func:`item_size`, :func:`value_size`, :func:`wire_item_size`,
  :func:`wire_value_size`, one recursive walk per value (one item, a nested value, the reference error);
  the batch path equals it, errors included
* :mod:`.columnar` - the batch path, a column at a time (pyarrow + numpy, imported only when a batch
  is sized): :func:`item_sizes` (Python items), :func:`wire_item_sizes` (DynamoDB JSON items),
  :func:`.columnar.item_size_column` (an Arrow table: a CSV file's columns)
* :mod:`.capacity` - read/write units per operation, limits and constants
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

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


def item_sizes(items: Iterable[Mapping[str, Any]]) -> list[int]:
    """Sizes of many Python items (:func:`.columnar.item_sizes`): ``[item_size(i) for i in items]``, faster."""
    from blue_nb.sizing import columnar  # deferred: numpy/pyarrow load only when a batch is sized

    return columnar.item_sizes(items)


def wire_item_sizes(wire_items: Iterable[Mapping[str, Any]]) -> list[int]:
    """Sizes of many DynamoDB JSON items (:func:`.columnar.wire_item_sizes`): ``[wire_item_size(i) ...]``, faster."""
    from blue_nb.sizing import columnar  # deferred: numpy/pyarrow load only when a batch is sized

    return columnar.wire_item_sizes(wire_items)
