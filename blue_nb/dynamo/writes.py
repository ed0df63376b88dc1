"""Writing items with BatchWriteItem: batches DynamoDB accepts, retries until every item is stored.

:func:`batches` cuts the items into requests DynamoDB takes: at most 25 puts, at most 16 MB of
request body (each item counted as the JSON boto3 sends for it, so binary counts as base64 and
escaped characters as their escapes), never two puts on the same key in one call. An item above
409,600 bytes is an :class:`~blue_nb.errors.ItemError` naming its key, before anything is sent.

:func:`write_items` sends the batches (optionally from several threads, one boto3 client each),
retries ``UnprocessedItems`` and throttled calls with exponential backoff and full jitter (base
50 ms, cap 5 s) and gives up after ``max_attempts`` with a DynamoError saying how many items are
not written. Puts are idempotent: writing the same items again resumes an interrupted load.
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

from tqdm.auto import tqdm

from blue_nb.dynamo.calls import THROTTLE_CODES, boto_item
from blue_nb.errors import DynamoError, ItemError
from blue_nb.items.values import item_to_wire
from blue_nb.sizing import BATCH_MAX_BYTES, BATCH_WRITE_MAX_REQUESTS, MAX_ITEM_BYTES, item_size

if TYPE_CHECKING:
    from blue_nb.dynamo.client import DynamoClient

__all__ = ["BatchWriteReport", "Put", "PAUSE_ENV", "backoff", "batches", "key_of", "request_bytes", "write_items"]

PAUSE_ENV = "BLUE_NB_TEST_PAUSE"
PAUSE_PHASE = "dynamo-writing"
BACKOFF_BASE, BACKOFF_CAP = 0.05, 5.0
MOTO_ITEM_LIMIT = 405_000
PUT_OVERHEAD = len('{"PutRequest": {"Item": }}, ')      # around each item in the request body
BODY_OVERHEAD = len('{"RequestItems": {"": []}}')
EXACT_FROM = 4096      # items this large are measured exactly; smaller ones by a bound (16 x size + 64)


@dataclass
class BatchWriteReport:
    """What :func:`write_items` did: items written, BatchWriteItem calls, retries, wall time."""

    items: int
    calls: int
    unprocessed_retries: int          # calls that re-sent UnprocessedItems
    throttle_retries: int             # throttled (or transient) calls retried, by botocore or here
    seconds: float


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


def backoff(attempt: int, rng: random.Random | None = None) -> float:
    """Full-jitter exponential backoff: uniform(0, min(5 s, 50 ms x 2^(attempt-1)))."""
    return (rng or random).uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1)))


class _Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items = self.calls = self.unprocessed = self.throttled = 0

    def add(self, **counts: int) -> None:
        with self.lock:
            for k, v in counts.items():
                setattr(self, k, getattr(self, k) + v)


def _retries_of(resp_or_error: Any) -> int:
    meta = resp_or_error.get("ResponseMetadata", {}) if isinstance(resp_or_error, dict) else {}
    return int(meta.get("RetryAttempts", 0) or 0)


def _item_limit_error(client: "DynamoClient", batch: list[Put], e: DynamoError) -> DynamoError:
    """A refusal of an item blue_nb sized within DynamoDB's limit: the endpoint's limit, said so."""
    big = max(batch, key=lambda p: p.size)
    who = "moto" if client.emulator == "moto" else "the endpoint"
    limit = (f"moto's own limit is {MOTO_ITEM_LIMIT:,} bytes of its size estimate: a moto limitation, "
             "not DynamoDB's" if who == "moto" else "its limit is lower than DynamoDB's")
    return DynamoError(f"{who} refused an item DynamoDB would take ({e.msg.split(': ')[-1]!r}): the largest item "
                       f"of the batch ({big.shown}) is {big.size:,} bytes and DynamoDB's limit is "
                       f"{MAX_ITEM_BYTES:,}; {limit}", code=e.code, where=big.shown, cause=e,
                       hint="write items this large to real DynamoDB (--aws), or keep them under "
                            f"{MOTO_ITEM_LIMIT:,} bytes for moto")


def _give_up(table: str, left: int, why: str, attempts: int, code: str, cause: BaseException | None) -> DynamoError:
    return DynamoError(f"{left:,} items not written to {table}: {why} after {attempts} attempts", code=code,
                       where=table, cause=cause,
                       hint="the table is throttled: write again with fewer --workers or more capacity (puts are "
                            "idempotent, so running again resumes the load)")


def _send(client: "DynamoClient", table: str, batch: list[Put], stats: _Stats, max_attempts: int) -> None:
    """One batch, until every put is processed or ``max_attempts`` calls are spent."""
    requests = [{"PutRequest": {"Item": boto_item(p.wire)}} for p in batch]
    full = client.name(table)
    for attempt in range(1, max_attempts + 1):
        try:
            resp = client._call("batch_write_item", RequestItems={table: requests})
        except DynamoError as e:
            stats.add(calls=1, throttled=_retries_of(getattr(e.cause, "response", None)))
            if "maximum allowed size" in e.msg and all(p.size <= MAX_ITEM_BYTES for p in batch):
                raise _item_limit_error(client, batch, e) from e
            if e.code not in THROTTLE_CODES:
                raise
            if attempt == max_attempts:
                raise _give_up(full, len(requests), e.code, max_attempts, e.code, e) from e
            stats.add(throttled=1)
            time.sleep(backoff(attempt))
            continue
        left = (resp.get("UnprocessedItems") or {}).get(full, [])
        stats.add(calls=1, throttled=_retries_of(resp), items=len(requests) - len(left))
        if not left:
            return
        if attempt == max_attempts:
            raise _give_up(full, len(left), "still unprocessed", max_attempts, "UnprocessedItems", None)
        stats.add(unprocessed=1)
        requests = left
        time.sleep(backoff(attempt))


def _pause() -> None:
    """Test hook: stop after the first batch so a test can kill the process mid-write."""
    if os.environ.get(PAUSE_ENV) == PAUSE_PHASE:
        sys.stderr.write(f"blue-nb-test-pause {PAUSE_PHASE}\n")
        sys.stderr.flush()
        time.sleep(float(os.environ.get(f"{PAUSE_ENV}_SECONDS", "60")))


def _key_attrs(client: "DynamoClient", table: str) -> tuple[str, ...]:
    schema = client.describe(table)["KeySchema"]
    return tuple(k["AttributeName"] for k in sorted(schema, key=lambda k: k["KeyType"] != "HASH"))


def _run_parallel(client: "DynamoClient", table: str, chunks: Iterator[list[Put]], stats: _Stats, workers: int,
                  max_attempts: int, bar: Any) -> None:
    """Send batches from ``workers`` threads (one client each), at most 2 x workers in flight."""
    local = threading.local()

    def run(batch: list[Put]) -> int:
        if not hasattr(local, "client"):
            local.client = client.clone()
        _send(local.client, table, batch, stats, max_attempts)
        return len(batch)

    first = True
    with ThreadPoolExecutor(workers, thread_name_prefix="blue-nb-write") as pool:
        pending: set[Future] = set()
        try:
            for batch in chunks:
                while len(pending) >= 2 * workers:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        bar.update(f.result())
                        if first:
                            first = False
                            _pause()
                pending.add(pool.submit(run, batch))
            for f in pending:
                bar.update(f.result())
        finally:
            for f in pending:
                f.cancel()


def write_items(client: "DynamoClient", table: str, items: Iterable[Mapping[str, Any]], *, total: int | None = None,
                workers: int = 1, progress: bool = True, max_attempts: int = 12) -> BatchWriteReport:
    """Put every item into ``table`` (named without the client's prefix) with BatchWriteItem."""
    start = time.monotonic()
    stats = _Stats()
    chunks = batches(items, _key_attrs(client, table), client.name(table))
    bar = tqdm(total=total, desc=f"writing {client.name(table)}", unit="item", unit_scale=True, mininterval=0.5,
               disable=not progress)
    seen = 0

    def counted() -> Iterator[list[Put]]:
        nonlocal seen
        for batch in chunks:
            seen += len(batch)
            yield batch

    try:
        if workers <= 1:
            for n, batch in enumerate(counted()):
                _send(client, table, batch, stats, max_attempts)
                bar.update(len(batch))
                if n == 0:
                    _pause()
        else:
            _run_parallel(client, table, counted(), stats, workers, max_attempts, bar)
    except DynamoError as e:
        if e.code not in THROTTLE_CODES and e.code != "UnprocessedItems":
            raise
        of = f"of {total:,}" if total is not None else f"of the {seen:,} read so far"
        left = (total if total is not None else seen) - stats.items
        raise DynamoError(f"{e.msg}; in all {left:,} items {of} are not written ({stats.items:,} written)",
                          code=e.code, where=e.where, hint=e.hint, cause=e.cause or e) from e
    finally:
        bar.close()
    return BatchWriteReport(stats.items, stats.calls, stats.unprocessed, stats.throttled,
                            round(time.monotonic() - start, 3))
