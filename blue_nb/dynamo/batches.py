"""BatchWriteItem requests: the items cut into batches DynamoDB accepts.

:func:`batches` cuts the items into requests DynamoDB takes: at most 25 puts, at most 16 MB of
request body (each item counted as the JSON boto3 sends for it, so binary counts as base64 and
escaped characters as their escapes), never two puts on the same key in one call. An item above
409,600 bytes is an :class:`~blue_nb.errors.ItemError` naming its key, before anything is sent.
:meth:`blue_nb.dynamo.DynamoClient.write_items` sends them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from blue_nb.errors import ItemError
from blue_nb.items.values import item_to_wire
from blue_nb.sizing import BATCH_MAX_BYTES, BATCH_WRITE_MAX_REQUESTS, MAX_ITEM_BYTES, item_size

__all__ = ["Put", "batches", "key_of", "request_bytes"]

PUT_OVERHEAD = len('{"PutRequest": {"Item": }}, ')      # around each item in the request body
BODY_OVERHEAD = len('{"RequestItems": {"": []}}')
EXACT_FROM = 4096      # items this large are measured exactly; smaller ones by a bound (16 x size + 64)


@dataclass
class Put:
    """One put request: the item as boto3 sends it, its DynamoDB size, its key, its request bytes."""

    wire: dict[str, Any]
    size: int
    key: tuple
    shown: str
    body_bytes: int


def key_of(item: Mapping[str, Any], key_attrs: tuple[str, ...]) -> tuple[tuple, str]:
    """(hashable key, ``pk=..., sk=...`` text) of an item; ItemError when a key attribute is missing."""
    shown = ", ".join(f"{a}={item.get(a)!s:.80}" for a in key_attrs)
    missing = [a for a in key_attrs if a not in item]
    if missing:
        raise ItemError(f"item has no {', '.join(missing)} (the table's key)", where=shown,
                        hint="every item needs the table's partition and sort key attributes")
    return tuple(item[a] for a in key_attrs), shown


def request_bytes(wire: Mapping[str, Any], size: int) -> int:
    """Bytes an item adds to a BatchWriteItem body: exact (boto3's JSON) for large items, a safe
    bound for small ones (an item's JSON is never more than 16 x its size + 64 bytes)."""
    if size < EXACT_FROM:
        return 16 * size + 64 + PUT_OVERHEAD
    return len(json.dumps(wire)) + PUT_OVERHEAD


def _put(item: Mapping[str, Any], key_attrs: tuple[str, ...]) -> Put:
    key, shown = key_of(item, key_attrs)
    wire = item_to_wire(item)
    size = item_size(item)
    if size > MAX_ITEM_BYTES:
        raise ItemError(f"item is {size:,} bytes; DynamoDB's limit is {MAX_ITEM_BYTES:,} bytes (names included)",
                        where=shown, hint="shrink the item: move large values to S3 and keep a pointer")
    return Put(wire, size, key, shown, request_bytes(wire, size))


def batches(items: Iterable[Mapping[str, Any]], key_attrs: tuple[str, ...], table: str = "", *,
            max_requests: int = BATCH_WRITE_MAX_REQUESTS, max_bytes: int = BATCH_MAX_BYTES) -> Iterator[list[Put]]:
    """The items as BatchWriteItem batches: <= 25 puts, <= 16 MB of body, no key twice."""
    budget = max_bytes - BODY_OVERHEAD - len(json.dumps(table))
    batch: list[Put] = []
    used, keys = 0, set()
    for item in items:
        p = _put(item, key_attrs)
        if batch and (len(batch) >= max_requests or used + p.body_bytes > budget or p.key in keys):
            yield batch
            batch, used, keys = [], 0, set()
        batch.append(p)
        used += p.body_bytes
        keys.add(p.key)
    if batch:
        yield batch
