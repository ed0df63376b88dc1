"""DynamoClient: one boto3 DynamoDB client, every call through one place, every failure a DynamoError.

Every request goes through :meth:`DynamoClient.call`, which adds the table prefix to every table
name sent (``TableName`` and the keys of ``RequestItems``), checks the names against DynamoDB's
rule (3-255 characters of ``[A-Za-z0-9_.-]``), and turns botocore's exceptions into
:class:`~blue_nb.errors.DynamoError` with ``code`` = the AWS error code, ``where`` = the table or
the endpoint, and a hint on how to fix it. boto3's standard retry mode (up to 10 retries) retries
throttling and transient errors first (:mod:`.calls` has the error mapping). Table names are given
without the client's prefix. Its methods, by concept:

* **Tables**: :meth:`~DynamoClient.create_table` sends :func:`blue_nb.patterns.create_table_request`
  (the same request ``blue-nb`` shows and ``aws dynamodb create-table --cli-input-json`` takes),
  refuses an existing table unless ``replace=True`` (then deletes it and waits until it is gone),
  and waits until the table and each of its global indexes are ACTIVE; ``describe``,
  ``delete_table``, ``tags`` and ``tag``. Tags mark a table blue_nb is loading, so an interrupted
  load can be resumed.
* **Writes**: :meth:`~DynamoClient.write_items` sends the items in the batches of
  :func:`~blue_nb.dynamo.batches.batches` (optionally from several threads, one boto3 client each),
  retries ``UnprocessedItems`` and throttled calls with exponential backoff and full jitter (base
  50 ms, cap 5 s) and gives up after ``max_attempts`` with a DynamoError saying how many items are
  not written. Puts are idempotent: writing the same items again resumes an interrupted load.
  :meth:`~DynamoClient.delete_keys` deletes by key, 25 at a time, with the same retries.
  :meth:`~DynamoClient.send_actions` sends a pattern's TransactWriteItems or BatchWriteItem for real and
  reads back the items at its keys; :meth:`~DynamoClient.scratch_table` makes a table of the spec's design
  to send it to (apply's compare) and deletes it after.
* **Reads**: :meth:`~DynamoClient.run_plan` sends exactly the plan's boto3 request
  (``plan.boto3``), follows ``LastEvaluatedKey`` and returns a :class:`blue_nb.patterns.ReadResult`
  built from what the endpoint returned: the items, and one :class:`DynamoPage` per call with the
  call's ``Count``, its ``ScannedCount`` and its ``LastEvaluatedKey`` as returned. Bytes and read
  units are computed by blue_nb from the returned items (their index entries on an index) with
  :func:`blue_nb.sizing.query_read_units`: emulators return fixed ConsumedCapacity numbers, so the
  endpoint's own figure is only kept, raw, in :attr:`DynamoPage.raw`. ``scan_items`` (a parallel
  Scan) and ``count_items``.
"""

from __future__ import annotations

import os
from decimal import Decimal
import queue
import re
import threading
import time
from contextlib import contextmanager
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

import botocore.session
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from blue_nb.printing import fields_html
from blue_nb.dynamo.batches import Put, batches
from blue_nb.dynamo.calls import THROTTLE_CODES, backoff, boto_item, boto_request, wrap_error
from blue_nb.dynamo.local import MOTO_ITEM_LIMIT
from blue_nb.errors import DynamoError, QueryError
from blue_nb.items.values import item_from_wire, item_to_wire, to_wire
from blue_nb.patterns import (ActionsPlan, ActionsResult, Page, Plan, ReadResult, actions_cost, boto3_request,
                              create_table_request, failed_write, global_index_request, observed_write, read_page, sizing_request,
                              write_cost)
from blue_nb.sizing import BATCH_WRITE_MAX_REQUESTS, MAX_ITEM_BYTES, item_size, read_units
from blue_nb.spec import Spec

__all__ = ["RESUME_HINT", "STALLED", "BatchWriteReport", "DynamoClient", "DynamoPage", "WriteInterrupted"]

TABLE_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]{3,255}")
STALLED = "Stalled"                 # the code of a write that wrote nothing for its stall time
RESUME_HINT = "run the same command again: it resumes where this stopped (puts are idempotent)"
_NOT_WRITING = frozenset({"ResourceNotFoundException", "ValidationException", "AccessDeniedException",
                          "UnrecognizedClientException", "InvalidSignatureException", "ExpiredTokenException",
                          "NoCredentials", "NoRegion", "ProfileNotFound", "InvalidTableName", "ItemTooLarge"})
WAIT_TIMEOUT = 600.0
MISSING = "ResourceNotFoundException"
SCRATCH_SUFFIX = ".blue-nb-scratch"     # the scratch table apply sends write transactions and batches to


@dataclass
class BatchWriteReport:
    """What :meth:`DynamoClient.write_items` did: items written, BatchWriteItem calls, retries, wall time."""

    items: int
    calls: int
    unprocessed_retries: int          # calls that re-sent UnprocessedItems
    throttle_retries: int             # throttled (or transient) calls retried, by botocore or here
    seconds: float

    def __repr__(self) -> str:
        return (f"BatchWriteReport({self.items:,} items in {self.calls:,} calls, {self.unprocessed_retries:,} "
                f"unprocessed and {self.throttle_retries:,} throttled retries, {self.seconds:,.1f} s)")

    def _repr_html_(self) -> str:
        return fields_html({"items written": self.items, "BatchWriteItem calls": self.calls,
                            "calls re-sending unprocessed items": self.unprocessed_retries,
                            "throttled calls retried": self.throttle_retries, "seconds": round(self.seconds, 2)},
                           "BatchWriteItem")


@dataclass
class DynamoPage(Page):
    """A page as the endpoint returned it: ``count`` is the call's ScannedCount, ``returned`` its Count,
    ``raw`` its own numbers."""

    scanned_count: int | None = None
    raw: dict[str, Any] = field(default_factory=dict)   # Count, ScannedCount, ConsumedCapacity as returned


class DynamoClient:
    """One boto3 DynamoDB client; all its calls go through :meth:`call`.

    ``credentials`` (a dict of boto3 session arguments) makes an isolated session that reads
    nothing of the user's AWS configuration; ``profile`` names a profile; with neither, boto3's
    default credential chain is used (real AWS). ``retries``: botocore's retries of a throttled
    or failed call (standard mode), after the first attempt; 0 leaves every retry to the caller.
    """

    def __init__(self, endpoint_url: str | None = None, *, region: str | None = "us-east-1",
                 credentials: Mapping[str, str] | None = None, profile: str | None = None, table_prefix: str = "",
                 label: str | None = None, emulator: str | None = None, retries: int = 10,
                 connect_timeout: float = 5, read_timeout: float = 60):
        self._args = dict(endpoint_url=endpoint_url, region=region, credentials=credentials, profile=profile,
                          table_prefix=table_prefix, label=label, emulator=emulator, retries=retries,
                          connect_timeout=connect_timeout, read_timeout=read_timeout)
        self.prefix = table_prefix or ""
        if self.prefix and not re.fullmatch(r"[A-Za-z0-9_.\-]+", self.prefix):
            raise DynamoError(f"table prefix {self.prefix!r} holds characters a table name cannot",
                              code="InvalidTableName", where="--table-prefix", hint="use only A-Z a-z 0-9 _ . -")
        self.label = label or (endpoint_url or f"AWS DynamoDB ({region or 'default region'})")
        self.emulator = emulator
        config = Config(retries={"mode": "standard", "max_attempts": retries}, connect_timeout=connect_timeout,
                        read_timeout=read_timeout, max_pool_connections=32,
                        proxies={} if _loopback(endpoint_url) else None)
        try:
            session = _session(credentials, profile)
            self._client = session.create_client("dynamodb", region_name=region or (
                "us-east-1" if credentials is not None else None), endpoint_url=endpoint_url, config=config)
        except (BotoCoreError, ValueError) as e:
            raise wrap_error(e, self.label, self.label) from e

    @property
    def table_prefix(self) -> str:
        return self.prefix

    @property
    def endpoint_url(self) -> str:
        return self._client.meta.endpoint_url

    @property
    def region(self) -> str:
        return self._client.meta.region_name

    def __repr__(self) -> str:
        return f"DynamoClient({self.label!r}, prefix={self.prefix!r})"

    def clone(self) -> "DynamoClient":
        """Another client like this one, with its own boto3 client (one per thread)."""
        return DynamoClient(**self._args)

    def name(self, table: str) -> str:
        """The table name sent to the endpoint: the prefix added, DynamoDB's naming rule checked."""
        full = self.prefix + table
        if not TABLE_NAME_RE.fullmatch(full):
            raise DynamoError(f"table name {full!r} is not valid: DynamoDB needs 3-255 characters of "
                              "A-Z a-z 0-9 _ . -", code="InvalidTableName", where=full,
                              hint="rename the table (table.name in the spec) or change --table-prefix")
        return full

    def call(self, method: str, **kw: Any) -> dict[str, Any]:
        """Call boto3's ``method`` with the table names prefixed; botocore failures become DynamoError."""
        if "TableName" in kw:
            kw["TableName"] = self.name(kw["TableName"])
        if "RequestItems" in kw:
            kw["RequestItems"] = {self.name(t): v for t, v in kw["RequestItems"].items()}
        if "TransactItems" in kw:
            kw["TransactItems"] = [{kind: {**a, "TableName": self.name(a["TableName"])} for kind, a in one.items()}
                                   for one in kw["TransactItems"]]
        where = kw.get("TableName") or next(iter(kw.get("RequestItems") or {}), None) or self.label
        try:
            return getattr(self._client, method)(**kw)
        except (ClientError, BotoCoreError) as e:
            raise wrap_error(e, where, self.label) from e

    # -- tables ---------------------------------------------------------------------------------------
    def describe(self, table: str) -> dict[str, Any]:
        """DescribeTable's ``Table`` (DynamoError code ResourceNotFoundException when missing)."""
        return self.call("describe_table", TableName=table)["Table"]

    def table_exists(self, table: str) -> bool:
        try:
            self.describe(table)
        except DynamoError as e:
            if e.code == MISSING:
                return False
            raise
        return True

    def create_table(self, spec: Spec, *, replace: bool = False, wait: bool = True,
                     tags: Mapping[str, Any] | None = None, timeout: float = WAIT_TIMEOUT,
                     name: str | None = None) -> dict[str, Any]:
        """Create ``spec``'s table (prefixed; named ``name`` instead of the spec's table name when given);
        returns its description (ACTIVE when ``wait``)."""
        table = name or spec.table_name
        full = self.name(table)
        if self.table_exists(table):
            if not replace:
                raise DynamoError(f"table {full!r} already exists", code="TableExists", where=full,
                                  hint="give --replace to delete and recreate it, or --table-prefix to use another "
                                       "name")
            self.delete_table(table, wait=True, timeout=timeout)
        request = create_table_request(spec, table)
        if tags:
            request["Tags"] = _tag_list(tags)
        description = self.call("create_table", **request)["TableDescription"]
        return self.wait_active(table, timeout) if wait else description

    def wait_active(self, table: str, timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """Wait until the table and its global indexes are ACTIVE; returns the last description."""
        seen: dict[str, Any] = {}

        def active() -> bool:
            seen.clear()                 # the last description only: an index deleted since is not in it
            seen.update(self.describe(table))
            indexes = seen.get("GlobalSecondaryIndexes") or []
            return seen.get("TableStatus") == "ACTIVE" and all(i.get("IndexStatus") == "ACTIVE" for i in indexes)

        _poll(active, timeout, "the table and its indexes to become ACTIVE", self.name(table))
        return seen

    def global_indexes(self, table: str) -> dict[str, str]:
        """The table's global indexes as described: name -> IndexStatus."""
        return {i["IndexName"]: i.get("IndexStatus", "ACTIVE")
                for i in self.describe(table).get("GlobalSecondaryIndexes") or []}

    def create_index(self, spec: Spec, index: str, *, table: str | None = None,
                     timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """Create ``spec``'s global index ``index`` on the table (``table``, else the spec's; UpdateTable, one index
        per call as DynamoDB allows) and wait until it and the table are ACTIVE, that is until DynamoDB has
        backfilled its entries of the items already there. Returns the last description."""
        table = table or spec.table_name
        self.call("update_table", **{**global_index_request(spec, index), "TableName": table})
        described = self.wait_active(table, timeout)
        if index not in {i["IndexName"] for i in described.get("GlobalSecondaryIndexes") or []}:
            raise DynamoError(f"the endpoint answered the UpdateTable that creates index {index!r} but does not "
                              f"describe that index on {self.name(table)!r}: it does not create global indexes on "
                              "an existing table", code="IndexNotCreated", where=self.name(table),
                              hint="run it on DynamoDB or moto_server (the embedded endpoint); or create a new table "
                                   "with the index (blue-nb apply) and copy the items")
        return described

    def delete_index(self, table: str, index: str, *, timeout: float = WAIT_TIMEOUT) -> None:
        """Delete the global index ``index`` (UpdateTable, one per call; not again when it is already being
        deleted) and wait until the endpoint no longer describes it and the table is ACTIVE."""
        if self.global_indexes(table).get(index, "DELETING") != "DELETING":
            answer = self.call("update_table", TableName=table,
                               GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": index}}])["TableDescription"]
            status = {i["IndexName"]: i.get("IndexStatus") for i in answer.get("GlobalSecondaryIndexes") or []}
            if status.get(index) == "ACTIVE":       # DynamoDB answers DELETING, moto without the index
                raise DynamoError(f"the endpoint answered the UpdateTable that deletes index {index!r} of "
                                  f"{self.name(table)!r} with the index still ACTIVE: it does not delete global "
                                  "indexes of an existing table", code="IndexNotDeleted", where=self.name(table),
                                  hint="run it on DynamoDB or moto_server (the embedded endpoint); or create a new "
                                       "table without the index (blue-nb apply) and copy the items")
        _poll(lambda: index not in self.global_indexes(table), timeout, f"index {index} to be deleted",
              self.name(table))
        self.wait_active(table, timeout)

    def delete_table(self, table: str, *, wait: bool = True, timeout: float = WAIT_TIMEOUT) -> bool:
        """Delete the table; False when there was none. With ``wait``, returns once it is gone."""
        try:
            self.call("delete_table", TableName=table)
        except DynamoError as e:
            if e.code == MISSING:
                return False
            raise
        if wait:
            _poll(lambda: not self.table_exists(table), timeout, "the table to be deleted", self.name(table))
        return True

    def tags(self, table: str) -> dict[str, str]:
        """The table's tags as a dict."""
        arn = self.describe(table)["TableArn"]
        out: dict[str, str] = {}
        kw: dict[str, Any] = {"ResourceArn": arn}
        while True:
            resp = self.call("list_tags_of_resource", **kw)
            out.update({t["Key"]: t["Value"] for t in resp.get("Tags", [])})
            if not resp.get("NextToken"):
                return out
            kw["NextToken"] = resp["NextToken"]

    def tag(self, table: str, tags: Mapping[str, Any]) -> None:
        """Add or overwrite tags on the table (e.g. ``{"blue-nb:state": "complete"}``)."""
        if tags:
            self.call("tag_resource", ResourceArn=self.describe(table)["TableArn"], Tags=_tag_list(tags))

    def key_attributes(self, table: str) -> tuple[str, ...]:
        """The table's key attribute names as the endpoint describes them: partition key first."""
        schema = self.describe(table)["KeySchema"]
        return tuple(k["AttributeName"] for k in sorted(schema, key=lambda k: k["KeyType"] != "HASH"))

    # -- writes ---------------------------------------------------------------------------------------
    def write_items(self, table: str, items: Iterable[Mapping[str, Any]], *, total: int | None = None,
                    workers: int = 1, progress: bool = True, max_attempts: int = 12,
                    stall: float | None = None) -> BatchWriteReport:
        """Put every item into ``table`` (named without the prefix) with BatchWriteItem (see the module).

        ``stall``: seconds the endpoint may go without writing an item (every call throttled, refused or
        unanswered) before the write gives up. Any failure, and Ctrl-C (:class:`WriteInterrupted`), says
        how many items are written and that writing again resumes."""
        start = time.monotonic()
        stats = _Stats(stall)
        chunks = batches(items, self.key_attributes(table), self.name(table))
        from tqdm.auto import tqdm  # deferred: tqdm.auto loads asyncio, ~0.1 s of every command's start
        bar = tqdm(total=total, desc=f"writing {self.name(table)}", unit="item", unit_scale=True, mininterval=0.5,
                   disable=not progress)
        seen = 0

        def counted() -> Iterator[list[Put]]:
            nonlocal seen
            for batch in chunks:
                seen += len(batch)
                yield batch

        try:
            if workers <= 1:
                for batch in counted():
                    self._send(table, batch, stats, max_attempts)
                    bar.update(len(batch))
            else:
                self._send_parallel(table, counted(), stats, workers, max_attempts, bar)
        except DynamoError as e:
            if e.code in _NOT_WRITING and stats.items == 0:
                raise                          # refused before any item: the hint says how to fix it
            of = f"of {total:,}" if total is not None else f"of the {seen:,} read so far"
            left = (total if total is not None else seen) - stats.items
            if stats.items:
                state = f"the table is partly written: {stats.items:,} items {of} are in it, {left:,} are not"
            else:
                state = f"no item {of} is known to be written" if stats.pending else f"no item {of} is written"
            state += _unclear(stats.pending)
            raise DynamoError(f"{e.msg}; {state}", code=e.code, where=e.where, cause=e.cause or e,
                              hint=(e.hint + "; " if e.hint else "") + RESUME_HINT) from e
        except KeyboardInterrupt as e:
            of = f" of {total:,}" if total is not None else ""
            raise WriteInterrupted(f"interrupted while writing: {stats.items:,} items{of} are known to be written "
                                   f"to {self.name(table)} on {self.label}{_unclear(stats.pending)}; {RESUME_HINT}",
                                   stats.items) from e
        finally:
            bar.close()
        return BatchWriteReport(stats.items, stats.calls, stats.unprocessed, stats.throttled,
                                round(time.monotonic() - start, 3))

    def delete_keys(self, table: str, keys: Iterable[Mapping[str, Any]], *, max_attempts: int = 12,
                    stall: float | None = None) -> BatchWriteReport:
        """Delete the items with these keys (each a dict of the table's key attributes) with BatchWriteItem,
        25 at a time, retried as :meth:`write_items` retries; deleting a key that is not there is no error,
        so deleting again resumes an interrupted delete."""
        start, stats = time.monotonic(), _Stats(stall)
        batch: list[dict[str, Any]] = []
        for key in keys:
            batch.append({"DeleteRequest": {"Key": boto_item(item_to_wire(key))}})
            if len(batch) == BATCH_WRITE_MAX_REQUESTS:
                self._send_requests(table, batch, stats, max_attempts)
                batch = []
        if batch:
            self._send_requests(table, batch, stats, max_attempts)
        return BatchWriteReport(stats.items, stats.calls, stats.unprocessed, stats.throttled,
                                round(time.monotonic() - start, 3))

    def _send(self, table: str, batch: list[Put], stats: "_Stats", max_attempts: int) -> None:
        """One batch, until every put is processed or ``max_attempts`` calls are spent."""
        self._send_requests(table, [{"PutRequest": {"Item": boto_item(p.wire)}} for p in batch], stats,
                            max_attempts, batch)

    def _send_requests(self, table: str, requests: list[dict[str, Any]], stats: "_Stats", max_attempts: int,
                       batch: list[Put] | None = None) -> None:
        """One BatchWriteItem request list (puts or deletes), until every request is processed or
        ``max_attempts`` calls are spent."""
        full = self.name(table)
        for attempt in range(1, max_attempts + 1):
            stats.add(pending=len(requests))           # sent: written or not, until the answer says
            try:
                resp = self.call("batch_write_item", RequestItems={table: requests})
            except DynamoError as e:
                refused = e.code in THROTTLE_CODES or e.code in _NOT_WRITING     # else: no clear answer
                stats.add(calls=1, throttled=_retries_of(getattr(e.cause, "response", None)),
                          pending=-len(requests) if refused else 0)
                if batch and "maximum allowed size" in e.msg and all(p.size <= MAX_ITEM_BYTES for p in batch):
                    raise self._item_limit_error(batch, e) from e
                if e.code not in THROTTLE_CODES:
                    raise
                if attempt == max_attempts:
                    raise _give_up(full, len(requests), e.code, max_attempts, e.code, e) from e
                stats.add(throttled=1)
                stats.wait(backoff(attempt), full, e.code)
                continue
            left = (resp.get("UnprocessedItems") or {}).get(full, [])
            stats.add(calls=1, throttled=_retries_of(resp), items=len(requests) - len(left), pending=-len(requests))
            if not left:
                return
            if attempt == max_attempts:
                raise _give_up(full, len(left), "still unprocessed", max_attempts, "UnprocessedItems", None)
            stats.add(unprocessed=1)
            requests = left
            stats.wait(backoff(attempt), full, "UnprocessedItems")

    def _send_parallel(self, table: str, chunks: Iterator[list[Put]], stats: "_Stats", workers: int,
                       max_attempts: int, bar: Any) -> None:
        """Send batches from ``workers`` threads (one client each), at most 2 x workers in flight."""
        local = threading.local()

        def run(batch: list[Put]) -> int:
            if not hasattr(local, "client"):
                local.client = self.clone()
            local.client._send(table, batch, stats, max_attempts)
            return len(batch)

        with ThreadPoolExecutor(workers, thread_name_prefix="blue-nb-write") as pool:
            pending: set[Future] = set()
            try:
                for batch in chunks:
                    while len(pending) >= 2 * workers:
                        done, pending = wait(pending, return_when=FIRST_COMPLETED)
                        for f in done:
                            bar.update(f.result())
                    pending.add(pool.submit(run, batch))
                for f in pending:
                    bar.update(f.result())
            finally:
                for f in pending:
                    f.cancel()

    def _item_limit_error(self, batch: list[Put], e: DynamoError) -> DynamoError:
        """A refusal of an item blue_nb sized within DynamoDB's limit: the endpoint's limit, said so."""
        big = max(batch, key=lambda p: p.size)
        who = "moto" if self.emulator == "moto" else "the endpoint"
        limit = (f"moto's own limit is {MOTO_ITEM_LIMIT:,} bytes of its size estimate: a moto limitation, "
                 "not DynamoDB's" if who == "moto" else "its limit is lower than DynamoDB's")
        return DynamoError(f"{who} refused an item DynamoDB would take ({e.msg.split(': ')[-1]!r}): the largest "
                           f"item of the batch ({big.shown}) is {big.size:,} bytes and DynamoDB's limit is "
                           f"{MAX_ITEM_BYTES:,}; {limit}", code=e.code, where=big.shown, cause=e,
                           hint="write items this large to real DynamoDB (--aws), or keep them under "
                                f"{MOTO_ITEM_LIMIT:,} bytes for moto")

    # -- reads ----------------------------------------------------------------------------------------
    def run_actions(self, plan: ActionsPlan, items: list[Mapping[str, Any] | None] | None = None, *,
                    retry_unprocessed: bool = True) -> ActionsResult:
        """Run a transaction or a batch on the endpoint, as one request. A TransactGetItems or a BatchGetItem is
        sent as planned (its units computed from the items returned, as a read's are). A TransactWriteItems
        is sent as a probe that writes nothing (:meth:`probe_transaction`): its CancellationReasons are the
        endpoint's outcome of each action; each action is priced on the item the endpoint holds at its key
        (``items[i]``: the item action ``i`` puts, a store's dry run's). A BatchWriteItem would write: it is
        refused here (:meth:`send_actions` sends writes for real, to a table of the caller's choosing).
        A BatchGetItem's UnprocessedKeys are sent again until none is left (``resent`` counts those calls), unless
        ``retry_unprocessed`` is False: then they are the result's ``unprocessed`` actions, unread and unpaid, as
        a model that cuts the response at 16 MB has them."""
        method, kwargs = plan.boto3_for(items)
        if plan.operation == "batch_write_item":
            raise QueryError(f"pattern {plan.pattern.name!r} is a batch_write_item: on a DynamoDB endpoint blue_nb "
                             "runs reads and probes transactions, and a batch write would write",
                             where=f"access_patterns.{plan.pattern.name}", hint="price it on a local store")
        if plan.operation == "transact_write_items":
            reasons = self.probe_transaction(plan, items)
            writes = []
            for i, p in enumerate(plan.plans):
                old = self._item_at(plan.spec.table_name, p)
                new = items[i] if items and items[i] is not None else old
                writes.append(write_cost(p, old, new))
            result = actions_cost(plan, writes)
            result.cancellation_reasons = [{k: v for k, v in r.items() if k != "Item"} for r in reasons] \
                if any(r.get("Code", "None") != "None" for r in reasons) else None
            result.cancelled = result.cancellation_reasons is not None
            return result
        left: list[dict[str, Any]] = []
        resent = 0
        if plan.operation == "transact_get_items":
            resp = self.call(method, **boto_request(kwargs))
            found = [item_from_wire(r["Item"]) if "Item" in r else None for r in resp.get("Responses", [])]
        else:
            wires, left, resent = self._batch_get(plan.spec.table_name, boto_request(kwargs), retry_unprocessed)
            got = [item_from_wire(w) for w in wires]
            by_key = {_item_key(i, p.request): i for p in plan.plans for i in got}
            found = [by_key.get(_plan_key(p)) for p in plan.plans]
        results = []
        for p, item in zip(plan.plans, found):
            size = item_size(item) if item is not None else 0
            page = DynamoPage(int(item is not None), size, read_units(size, p.request.read_mode), None)
            results.append(ReadResult(p, [item] if item is not None else [], [page]))
        result = actions_cost(plan, results)
        unread = {_item_key(item_from_wire(k), plan.plans[0].request) for k in left}
        result.unprocessed = [i for i, p in enumerate(plan.plans) if _plan_key(p) in unread]
        for i in result.unprocessed:                      # an unprocessed key is not read, and not paid
            result.units[i] = 0
        result.resent = resent
        return result

    def _batch_get(self, table: str, request: dict[str, Any], retry: bool, max_attempts: int = 12
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
        """A BatchGetItem (boto3's arguments): its items, the keys it left unprocessed, and the calls that re-sent
        them. Throttled calls are retried with backoff; with ``retry``, so are UnprocessedKeys, until none is left
        (at most ``max_attempts`` calls)."""
        full, stats, got = self.name(table), _Stats(), []
        for attempt in range(1, max_attempts + 1):
            try:
                resp = self.call("batch_get_item", **request)
            except DynamoError as e:
                if e.code not in THROTTLE_CODES or attempt == max_attempts:
                    raise
                stats.add(throttled=1)
                stats.wait(backoff(attempt), full, e.code)
                continue
            got += resp.get("Responses", {}).get(full, [])
            left = (resp.get("UnprocessedKeys") or {}).get(full)
            if not left or not left.get("Keys"):
                return got, [], stats.unprocessed
            if not retry or attempt == max_attempts:
                return got, list(left["Keys"]), stats.unprocessed
            stats.add(unprocessed=1)
            request = {**request, "RequestItems": {table: left}}
            stats.wait(backoff(attempt), full, "UnprocessedKeys")
        raise AssertionError("unreachable: the last attempt returns or raises")

    def send_actions(self, plan: ActionsPlan, items: list[Mapping[str, Any] | None] | None = None, *,
                     table: str | None = None, max_attempts: int = 12) -> ActionsResult:
        """Send a TransactWriteItems or a BatchWriteItem for real, to ``table`` (the spec's table unless given: a
        scratch copy, :meth:`scratch_table`, keeps the real one as it is), and return what the endpoint did: the
        item at each action's key before and after the call (consistent GetItem), each action priced on those two
        items (:func:`~blue_nb.patterns.observed_write`; a cancelled transaction's prepare phase on the item each
        put would have written, ``items[i]``), the endpoint's CancellationReasons as it gave them, and the calls
        that re-sent UnprocessedItems (retried with backoff until none is left, at most ``max_attempts`` calls)."""
        if plan.operation not in ("transact_write_items", "batch_write_item"):
            raise QueryError(f"pattern {plan.pattern.name!r} is a {plan.operation}: send_actions sends writes",
                             where=f"access_patterns.{plan.pattern.name}", hint="run a read with run_actions")
        table = table or plan.spec.table_name
        before = [self._item_at(table, p) for p in plan.plans]
        method, kwargs = plan.boto3_for(items)
        kwargs = boto_request(kwargs)
        reasons: list[dict[str, Any]] | None = None
        stats = _Stats()
        if method == "transact_write_items":
            sent = [{kind: {**a, "TableName": table} for kind, a in one.items()} for one in kwargs["TransactItems"]]
            try:
                self.call(method, TransactItems=sent)
            except DynamoError as e:
                got = getattr(e.__cause__, "response", {}).get("CancellationReasons") if e.__cause__ else None
                if e.code != "TransactionCanceledException" or not got:
                    raise
                reasons = [{**r, "Item": item_to_wire(item_from_wire(r["Item"]))} if "Item" in r else dict(r)
                           for r in got]
        else:
            self._send_requests(table, kwargs["RequestItems"][plan.spec.table_name], stats, max_attempts)
        after = [self._item_at(table, p) for p in plan.plans]
        writes = []
        for i, p in enumerate(plan.plans):
            has_condition = p.request.condition is not None
            if reasons is None:
                writes.append(observed_write(p, before[i], after[i], True if has_condition else None))
                continue
            would = items[i] if items and items[i] is not None else before[i]     # the prepare phase's item
            if reasons[i].get("Code") == "ConditionalCheckFailed":
                returned = item_from_wire(reasons[i]["Item"]) if "Item" in reasons[i] else None
                writes.append(failed_write(p, before[i], would, returned))
            else:
                writes.append(observed_write(p, before[i], would, True if has_condition else None))
        result = actions_cost(plan, writes)
        if reasons is not None:
            result.cancelled, result.cancellation_reasons = True, reasons
        result.after, result.resent = after, stats.unprocessed
        return result

    @contextmanager
    def scratch_table(self, spec: Spec) -> Iterator[str]:
        """A table of ``spec``'s design (its keys and indexes) named ``<table>.blue-nb-scratch``, for writes that
        must not touch the spec's table: created (a scratch left by an interrupted run is replaced), yielded as
        its name (without the client's prefix), deleted after."""
        name = f"{spec.table_name}{SCRATCH_SUFFIX}"
        self.create_table(spec, replace=True, name=name)
        try:
            yield name
        finally:
            self.delete_table(name, wait=False)

    def put_at(self, table: str, plans: Iterable[Plan], items: Iterable[Mapping[str, Any] | None]) -> None:
        """Make ``items[i]`` the item at plan ``i``'s key (None: no item there): one PutItem or DeleteItem each."""
        for p, item in zip(plans, items):
            if item is not None:
                self.call("put_item", TableName=table, Item=boto_item(item_to_wire(item)))
            else:
                self.call("delete_item", TableName=table, Key=self._key_of(p))

    def _key_of(self, plan: Plan) -> dict[str, Any]:
        req = plan.request
        return boto_item({req.pk_attr: to_wire(req.pk_value),
                          **({req.sk_attr: to_wire(req.sk_values[0])} if req.sk_attr else {})})

    def _item_at(self, table: str, plan: Plan) -> dict[str, Any] | None:
        """The item at a single-item plan's key, read consistently (None: none there)."""
        got = self.call("get_item", TableName=table, Key=self._key_of(plan), ConsistentRead=True)
        return item_from_wire(got["Item"]) if "Item" in got else None

    def probe_transaction(self, plan: ActionsPlan, items: list[Mapping[str, Any] | None] | None = None
                          ) -> list[dict[str, Any]]:
        """The CancellationReasons of a TransactWriteItems sent with one more ConditionCheck that always fails
        (``attribute_exists`` on a key no item has): each action's own outcome, nothing written. The last
        reason (the probe's own) is left out. ``items``: the items the puts write (:meth:`ActionsPlan.boto3_for`)."""
        method, kwargs = plan.boto3_for(items)
        req = plan.plans[0].request
        probe = {req.pk_attr: to_wire(_PROBE[req.pk_type])}
        if req.sk_attr:
            probe[req.sk_attr] = to_wire(_PROBE[req.sk_type])
        check = {"ConditionCheck": {"TableName": plan.spec.table_name, "Key": probe,
                                    "ConditionExpression": "attribute_exists(#probe)",
                                    "ExpressionAttributeNames": {"#probe": req.pk_attr}}}
        kw = {**kwargs, "TransactItems": [*kwargs["TransactItems"], check]}
        kw.pop("ReturnConsumedCapacity", None)
        try:
            self.call(method, **boto_request(kw))
        except DynamoError as e:
            cause = e.__cause__
            reasons = getattr(cause, "response", {}).get("CancellationReasons") if cause is not None else None
            if e.code == "TransactionCanceledException" and reasons:
                return list(reasons[:-1])
            raise
        raise DynamoError(f"the endpoint committed a transaction whose ConditionCheck fails ({plan.pattern.name})",
                          code="ProbeCommitted", where=self.label,
                          hint="the endpoint does not evaluate ConditionCheck: it wrote the transaction's items")

    def run_plan(self, plan: Plan, *, follow: bool = True, max_pages: int | None = None) -> ReadResult:
        """Run a read plan on the endpoint; ``follow`` LastEvaluatedKey until none (or ``max_pages``); a
        transaction or a batch: :meth:`run_actions`."""
        if isinstance(plan, ActionsPlan):
            return self.run_actions(plan)  # type: ignore[return-value]
        req = plan.request
        if not req.is_read:
            raise QueryError(f"pattern {req.pattern!r} is a {req.operation}; run_plan runs reads",
                             where=f"access_patterns.{req.pattern}", hint="write patterns are priced, not sent")
        method, kwargs = plan.boto3
        kwargs = boto_request(kwargs)
        if method == "get_item":
            resp = self.call(method, **kwargs)
            item = item_from_wire(resp["Item"]) if "Item" in resp else None     # {}: an item, none of its projection
            size = item_size(item) if item is not None else 0
            page = DynamoPage(int(item is not None), size, read_units(size, req.read_mode), None, raw=_raw(resp))
            return ReadResult(plan, [item] if item is not None else [], [page])
        items: list[dict[str, Any]] = []
        pages: list[Page] = []
        # a page is paid on what it read, which a filter, a projection or COUNT does not return: the same call
        # returning what it reads (same Limit, same ExclusiveStartKey) reads the same items, to size them
        sizing = sizing_request(req)
        whole = boto_request(boto3_request(sizing, exclusive_start_key=sizing.start_key)[1]) \
            if sizing is not None else None
        start: dict[str, Any] = {}
        while True:
            resp = self.call(method, **{**kwargs, **start})
            got = [item_from_wire(w) for w in resp.get("Items", [])]
            read = got if whole is None else [
                item_from_wire(w) for w in self.call(method, **{**whole, **start}).get("Items", [])]
            lek = resp.get("LastEvaluatedKey")
            page = read_page(req, read, [item_size(i) for i in read], False)
            pages.append(DynamoPage(int(resp.get("ScannedCount", len(read))), page.bytes_read, page.rcu,
                                    item_from_wire(lek) if lek else None, returned=int(resp.get("Count", len(got))),
                                    index_rcu=page.index_rcu, scanned_count=resp.get("ScannedCount"), raw=_raw(resp)))
            items += got
            if not lek or not follow or (max_pages is not None and len(pages) >= max_pages):
                return ReadResult(plan, items, pages)
            start = {"ExclusiveStartKey": lek}

    def count_items(self, table: str) -> int:
        """Items in the table (Scan with Select=COUNT, every page)."""
        total, kw = 0, {"TableName": table, "Select": "COUNT"}
        while True:
            resp = self.call("scan", **kw)
            total += int(resp.get("Count", 0))
            if not resp.get("LastEvaluatedKey"):
                return total
            kw["ExclusiveStartKey"] = resp["LastEvaluatedKey"]

    def scan_items(self, table: str, *, segments: int = 4, progress: bool = True,
                   total: int | None = None) -> Iterator[dict[str, Any]]:
        """Every item of the table, as Python values, from a parallel Scan (one thread and one
        client per segment); items arrive in no particular order."""
        segments = max(1, int(segments))
        out: queue.Queue = queue.Queue(maxsize=4 * segments)
        stop = threading.Event()
        threads = [threading.Thread(target=self.clone()._scan_segment, args=(table, s, segments, out, stop),
                                    name=f"blue-nb-scan-{s}", daemon=True) for s in range(segments)]
        from tqdm.auto import tqdm  # deferred: tqdm.auto loads asyncio, ~0.1 s of every command's start
        bar = tqdm(total=total, desc=f"scanning {self.name(table)}", unit="item", unit_scale=True,
                   mininterval=0.5, disable=not progress)
        for t in threads:
            t.start()
        try:
            done = 0
            while done < segments:
                kind, value = out.get()
                if kind == "done":
                    done += 1
                elif kind == "error":
                    raise value
                else:
                    bar.update(len(value))
                    for wire in value:
                        yield item_from_wire(wire)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=5)
            bar.close()

    def _scan_segment(self, table: str, segment: int, segments: int, out: queue.Queue,
                      stop: threading.Event) -> None:
        """One segment's pages into ``out``: ("items", [...]) per page, ("error", e), then ("done", None)."""
        def put(msg: tuple[str, Any]) -> bool:
            while not stop.is_set():
                try:
                    out.put(msg, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        kw: dict[str, Any] = {"TableName": table, "Segment": segment, "TotalSegments": segments}
        try:
            while not stop.is_set():
                resp = self.call("scan", **kw)
                if not put(("items", resp.get("Items", []))):
                    return
                if not resp.get("LastEvaluatedKey"):
                    break
                kw["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
        except BaseException as e:          # handed to the consumer, raised there
            put(("error", e))
        finally:
            put(("done", None))


_LOADER: list[Any] = []             # one botocore data loader for every session of the process
_LOADER_LOCK = threading.Lock()


def _session(credentials: Mapping[str, str] | None, profile: str | None) -> botocore.session.Session:
    """A botocore session: with ``credentials`` (boto3's argument names) one that reads no profile, config or
    credentials file, only what is passed; else the named ``profile`` or the default chain. Every session shares
    one data loader, so botocore's service models are read once per process, not once per client (0.1 s each:
    every clone in a parallel write, every client of a test)."""
    if credentials is not None:
        core = botocore.session.Session(session_vars={"profile": (None, None, None, None)})
        core.set_config_variable("config_file", os.devnull)
        core.set_config_variable("credentials_file", os.devnull)
        core.set_credentials(credentials.get("aws_access_key_id"), credentials.get("aws_secret_access_key"),
                             credentials.get("aws_session_token"))
    else:
        core = botocore.session.Session(profile=profile)
    with _LOADER_LOCK:
        if not _LOADER:
            _LOADER.append(core.get_component("data_loader"))
    core.register_component("data_loader", _LOADER[0])
    return core


def _loopback(url: str | None) -> bool:
    return bool(url) and url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0] in ("127.0.0.1", "localhost")


def _poll(check: Callable[[], bool], timeout: float, what: str, where: str) -> None:
    """Call ``check`` until it is true, with a growing pause (50 ms to 2 s), at most ``timeout`` s."""
    deadline, pause = time.monotonic() + timeout, 0.05
    while not check():
        if time.monotonic() + pause > deadline:
            raise DynamoError(f"gave up waiting {timeout:g} s for {what}", code="WaitTimeout", where=where,
                              hint="look at the table in the console or with describe-table, then run again")
        time.sleep(pause)
        pause = min(pause * 1.5, 2.0)


def _tag_list(tags: Mapping[str, Any]) -> list[dict[str, str]]:
    return [{"Key": str(k), "Value": str(v)} for k, v in tags.items()]


class _Stats:
    """The counts of a write, added to from several threads, and when it last wrote an item."""

    def __init__(self, stall: float | None = None) -> None:
        self.lock = threading.Lock()
        self.items = self.calls = self.unprocessed = self.throttled = 0
        self.pending = 0                 # items sent in calls without a clear answer (in flight, timed out, 5xx)
        self.stall = stall
        self.progressed = time.monotonic()

    def add(self, **counts: int) -> None:
        with self.lock:
            for k, v in counts.items():
                setattr(self, k, getattr(self, k) + v)
            if counts.get("items"):
                self.progressed = time.monotonic()

    def wait(self, seconds: float, table: str, why: str) -> None:
        """Sleep before a retry, unless the write has stalled for ``stall`` seconds: then give up."""
        if self.stall is not None and time.monotonic() + seconds - self.progressed > self.stall:
            raise DynamoError(f"no item written to {table} for {self.stall:g} s: every call was answered with "
                              f"{why}; gave up waiting", code=STALLED, where=table,
                              hint="the table is throttled: raise its capacity or write with fewer --workers; "
                                   "--deadline SECONDS waits longer")
        time.sleep(seconds)


def _retries_of(resp_or_error: Any) -> int:
    meta = resp_or_error.get("ResponseMetadata", {}) if isinstance(resp_or_error, dict) else {}
    return int(meta.get("RetryAttempts", 0) or 0)


def _unclear(pending: int) -> str:
    return (f" (and up to {pending:,} more, sent in calls that got no clear answer, may be in it)"
            if pending else "")


def _give_up(table: str, left: int, why: str, attempts: int, code: str, cause: BaseException | None) -> DynamoError:
    return DynamoError(f"{left:,} items not written to {table}: {why} after {attempts} attempts", code=code,
                       where=table, cause=cause,
                       hint="the table is throttled: write again with fewer --workers or more capacity")


class WriteInterrupted(KeyboardInterrupt):
    """Ctrl-C while :meth:`DynamoClient.write_items` wrote: ``message`` says how many items are written
    (``written``) and that writing again resumes."""

    def __init__(self, message: str, written: int):
        super().__init__(message)
        self.message = message
        self.written = written


#: the key value of the probe's ConditionCheck, by key type: a key no item of a blue_nb table has
_PROBE = {"S": "blue_nb#probe#no-item", "N": Decimal("-9.99999E+125"), "B": b"blue_nb#probe#no-item"}


def _item_key(item: Mapping[str, Any], req: Any) -> tuple:
    return (item.get(req.pk_attr), item.get(req.sk_attr) if req.sk_attr else None)


def _plan_key(plan: Plan) -> tuple:
    """A single-item plan's key as :func:`_item_key` reads it from an item."""
    req = plan.request
    return (req.pk_value, req.sk_values[0] if req.sk_attr and req.sk_values else None)


def _raw(resp: dict[str, Any]) -> dict[str, Any]:
    return {k: resp[k] for k in ("Count", "ScannedCount", "ConsumedCapacity") if k in resp}
