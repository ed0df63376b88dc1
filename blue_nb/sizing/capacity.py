"""Capacity-unit arithmetic and DynamoDB limits (rules doc sections 2 and 3).

::

    read_units(S)  = ceil(S / 4096) x {strong: 1, eventual: 0.5, transactional: 2}
    write_units(S) = ceil(S / 1024) x {standard: 1, transactional: 2}

Every charge is at least one 4 KB read unit / one 1 KB write unit, even for a missing item
(size 0). Results are ``int`` when whole and ``float`` only for the .5 of eventual reads.
On-demand request units (RRU/WRU) use the same arithmetic.
"""

from __future__ import annotations

from collections.abc import Iterable

from blue_nb.errors import ItemError

__all__ = [
    "BATCH_GET_MAX_KEYS",
    "BATCH_MAX_BYTES",
    "BATCH_WRITE_MAX_REQUESTS",
    "GB",
    "KB",
    "MAX_ITEM_BYTES",
    "MAX_NESTING",
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
    "batch_get_read_units",
    "batch_write_units",
    "delete_write_units",
    "fits_item_limit",
    "item_costs",
    "put_write_units",
    "query_read_units",
    "read_units",
    "transact_get_read_units",
    "transact_write_units",
    "unit_blocks",
    "write_units",
]

KB = 1024
MB = 1_048_576
GB = 1_073_741_824
MAX_ITEM_BYTES = 409_600  # 400 KB, inclusive, names included
STORAGE_OVERHEAD = 100  # billed storage bytes per item / index entry
READ_UNIT_BYTES = 4 * KB
WRITE_UNIT_BYTES = KB
PAGE_BYTES = MB  # a Query / Scan page ends with the item that takes its read to 1 MB (before filters)
PARTITION_BYTES = 10 * GB
PARTITION_RCU = 3000
PARTITION_WCU = 1000
PARTITION_KEY_MAX_BYTES = 2048
SORT_KEY_MAX_BYTES = 1024
MAX_NESTING = 32
BATCH_WRITE_MAX_REQUESTS = 25
BATCH_GET_MAX_KEYS = 100
BATCH_MAX_BYTES = 16 * MB
TRANSACT_MAX_ITEMS = 100
TRANSACT_MAX_BYTES = 4 * MB

#: read mode -> units per 4 KB, as halves (strong 1, eventual 0.5, transactional 2)
_HALVES = {"strong": 2, "eventual": 1, "transactional": 4}
READ_MODES = tuple(_HALVES)


def _whole(halves: int) -> int | float:
    """``halves / 2`` as an int when whole, else the exact .5 float."""
    return halves // 2 if halves % 2 == 0 else halves / 2


def _check_size(size: int) -> int:
    """Reject negative or non-integer sizes."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ItemError(f"size {size!r} must be a non-negative int of bytes", hint="pass item_size(...) results")
    return size


def _halves_per_unit(mode: str) -> int:
    """Half read units charged per 4 KB in ``mode``."""
    try:
        return _HALVES[mode]
    except (KeyError, TypeError):
        raise ItemError(f"unknown read mode {mode!r}", hint=f"use one of {', '.join(READ_MODES)}") from None


def unit_blocks(size, block: int):
    """``ceil(size / block)``, at least 1: the ``block``-byte units (4 KB read, 1 KB write) charged for
    ``size`` bytes; every charge is at least one unit, even for a missing item (size 0). The one statement
    of the rounding: ``size`` is an int, or an array of ints (numpy computes it element-wise; the heat
    model prices every candidate at once with it); unchecked (:func:`read_units` and the others check)."""
    blocks = -(-size // block)
    return blocks + (blocks == 0)


def _blocks(size: int, block: int) -> int:
    """Number of ``block``-byte units for ``size`` bytes, at least 1 (``size`` checked)."""
    return unit_blocks(_check_size(size), block)


def read_units(size: int, mode: str = "strong") -> int | float:
    """Read units for reading one item of ``size`` bytes (0 = missing item, still the minimum)."""
    return _whole(_blocks(size, READ_UNIT_BYTES) * _halves_per_unit(mode))


def write_units(size: int, transactional: bool = False) -> int:
    """Write units for writing one item of ``size`` bytes (doubled in a transaction)."""
    return _blocks(size, WRITE_UNIT_BYTES) * (2 if transactional else 1)


def item_costs(size: int) -> dict[str, int | float]:
    """Every single-item charge for an item of ``size`` bytes."""
    return {
        "size": _check_size(size),
        "rcu_strong": read_units(size, "strong"),
        "rcu_eventual": read_units(size, "eventual"),
        "rcu_transactional": read_units(size, "transactional"),
        "wcu": write_units(size),
        "wcu_transactional": write_units(size, transactional=True),
    }


def query_read_units(sizes: Iterable[int], mode: str = "strong") -> int | float:
    """Read units of one Query / Scan page: sizes of all items read summed, rounded up once to 4 KB.

    ``sizes`` are the items the key condition matched (before filters and projection); a page ends
    with the item that takes its bytes to :data:`PAGE_BYTES` (so it can hold up to 1 MB plus one
    item); callers split longer reads into pages (:func:`blue_nb.patterns.paginate`).
    """
    total = sum(_check_size(s) for s in sizes)
    return _whole(_blocks(total, READ_UNIT_BYTES) * _halves_per_unit(mode))


def batch_get_read_units(sizes: Iterable[int], mode: str = "strong") -> int | float:
    """Read units of a BatchGetItem: each item rounded up to 4 KB separately, then summed."""
    halves = _halves_per_unit(mode)
    return _whole(sum(_blocks(s, READ_UNIT_BYTES) for s in sizes) * halves)


def transact_get_read_units(sizes: Iterable[int]) -> int:
    """Read units of a TransactGetItems: 2 per 4 KB of each item."""
    return sum(read_units(s, "transactional") for s in sizes)


def batch_write_units(sizes: Iterable[int]) -> int:
    """Write units of a BatchWriteItem: each put/delete rounded up to 1 KB separately."""
    return sum(write_units(s) for s in sizes)


def transact_write_units(sizes: Iterable[int]) -> int:
    """Write units of a TransactWriteItems: 2 per 1 KB of each item (prepare + commit)."""
    return sum(write_units(s, transactional=True) for s in sizes)


def put_write_units(old_size: int | None, new_size: int, transactional: bool = False) -> int:
    """Write units of a PutItem / UpdateItem: charged on the larger of the old and new item."""
    return write_units(max(_check_size(old_size or 0), _check_size(new_size)), transactional)


def delete_write_units(size: int | None = None, transactional: bool = False) -> int:
    """Write units of a DeleteItem (``None`` or 0 = missing item, still 1 unit)."""
    return write_units(size or 0, transactional)


def fits_item_limit(size: int) -> bool:
    """True if an item of ``size`` bytes is within the 400 KB (409,600 bytes, inclusive) limit."""
    return _check_size(size) <= MAX_ITEM_BYTES
