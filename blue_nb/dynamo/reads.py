"""Reads on an endpoint: a plan's request page by page, a parallel scan, a count.

:meth:`ReadsMixin.run_plan` sends exactly the plan's boto3 request (``plan.boto3``), follows
``LastEvaluatedKey`` and returns a :class:`blue_nb.patterns.ReadResult` built from what the
endpoint returned: the items, and one :class:`DynamoPage` per call with the call's ``Count``,
its ``ScannedCount`` and its ``LastEvaluatedKey`` as returned. Bytes and read units are computed
by blue_nb from the returned items (their index entries on an index) with
:func:`blue_nb.sizing.query_read_units`: emulators return fixed ConsumedCapacity numbers, so
the endpoint's own figure is only kept, raw, in :attr:`DynamoPage.raw`.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from tqdm.auto import tqdm

from blue_nb.dynamo.calls import boto_item, boto_value
from blue_nb.errors import QueryError
from blue_nb.items.values import item_from_wire
from blue_nb.patterns import Page, Plan, ReadResult
from blue_nb.sizing import item_size, query_read_units, read_units

__all__ = ["DynamoPage", "ReadsMixin", "boto_request"]

_KEYED = ("Key", "ExclusiveStartKey")


@dataclass
class DynamoPage(Page):
    """A page as the endpoint returned it; ``count`` is the call's Count, ``raw`` its own numbers."""

    scanned_count: int | None = None
    raw: dict[str, Any] = field(default_factory=dict)   # Count, ScannedCount, ConsumedCapacity as returned


def boto_request(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A plan's boto3 keyword arguments with binary values as raw bytes."""
    out = dict(kwargs)
    for k in _KEYED:
        if k in out:
            out[k] = boto_item(out[k])
    if "ExpressionAttributeValues" in out:
        out["ExpressionAttributeValues"] = {k: boto_value(v) for k, v in out["ExpressionAttributeValues"].items()}
    return out


def _raw(resp: dict[str, Any]) -> dict[str, Any]:
    return {k: resp[k] for k in ("Count", "ScannedCount", "ConsumedCapacity") if k in resp}


class ReadsMixin:
    """Read methods of :class:`~blue_nb.dynamo.client.DynamoClient` (they use its ``_call``)."""

    _call: Callable[..., dict[str, Any]]
    clone: Callable[[], Any]
    name: Callable[[str], str]

    def run_plan(self, plan: Plan, *, follow: bool = True, max_pages: int | None = None) -> ReadResult:
        """Run a read plan on the endpoint; ``follow`` LastEvaluatedKey until none (or ``max_pages``)."""
        req = plan.request
        if not req.is_read:
            raise QueryError(f"pattern {req.pattern!r} is a {req.operation}; run_plan runs reads",
                             where=f"access_patterns.{req.pattern}", hint="write patterns are priced, not sent")
        method, kwargs = plan.boto3
        kwargs = boto_request(kwargs)
        if method == "get_item":
            resp = self._call(method, **kwargs)
            item = item_from_wire(resp["Item"]) if resp.get("Item") else None
            size = item_size(item) if item is not None else 0
            page = DynamoPage(int(item is not None), size, read_units(size, req.read_mode), None, raw=_raw(resp))
            return ReadResult(plan, [item] if item is not None else [], [page])
        items: list[dict[str, Any]] = []
        pages: list[Page] = []
        while True:
            resp = self._call(method, **kwargs)
            got = [item_from_wire(w) for w in resp.get("Items", [])]
            sizes = [item_size(i) for i in got]
            lek = resp.get("LastEvaluatedKey")
            pages.append(DynamoPage(int(resp.get("Count", len(got))), sum(sizes),
                                    query_read_units(sizes, req.read_mode), item_from_wire(lek) if lek else None,
                                    scanned_count=resp.get("ScannedCount"), raw=_raw(resp)))
            items += got
            if not lek or not follow or (max_pages is not None and len(pages) >= max_pages):
                return ReadResult(plan, items, pages)
            kwargs = {**kwargs, "ExclusiveStartKey": lek}

    def count_items(self, table: str) -> int:
        """Items in the table (Scan with Select=COUNT, every page)."""
        total, kw = 0, {"TableName": table, "Select": "COUNT"}
        while True:
            resp = self._call("scan", **kw)
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
        threads = [threading.Thread(target=_scan_segment, args=(self.clone(), table, s, segments, out, stop),
                                    name=f"blue-nb-scan-{s}", daemon=True) for s in range(segments)]
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


def _scan_segment(client: Any, table: str, segment: int, segments: int, out: queue.Queue,
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
            resp = client._call("scan", **kw)
            if not put(("items", resp.get("Items", []))):
                return
            if not resp.get("LastEvaluatedKey"):
                break
            kw["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
    except BaseException as e:          # handed to the consumer, raised there
        put(("error", e))
    finally:
        put(("done", None))
