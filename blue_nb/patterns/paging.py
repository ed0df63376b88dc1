"""DynamoDB's pages: what a read returns, page by page, and what each page costs.

Pure (layer 1): :func:`pages_of` is DynamoDB's page rule, stated once: entries in key order cut
into pages (a page ends after ``limit`` entries, or with the entry that takes its bytes read to or
past 1 MB). :func:`paginate` turns the matching items into pages with their read units (a store's
run), and the heat model cuts the entries of every candidate with the same function
(:mod:`blue_nb.heat.costs`); :func:`project` and :func:`index_entry` give what an index holds of
an item. The stores only fetch rows; what a page holds and what it costs is decided here, once,
for every backend.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from decimal import Decimal
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar

from blue_nb.printing import Fields
from blue_nb.items.values import item_to_wire
from blue_nb.layout import stored_key
from blue_nb.patterns.bind import KeyRequest, projection_of, sk_matches, sort_value
from blue_nb.patterns.filters import matches
from blue_nb.patterns.projection import project_paths
from blue_nb.patterns.plan import Plan
from blue_nb.sizing import PAGE_BYTES, item_size, query_read_units, read_units
from blue_nb.spec import Spec

__all__ = ["Page", "ReadResult", "index_entry", "key_order", "pages_of", "paginate", "project", "read_page", "segment_of",
           "sizing_request", "after_key"]

T = TypeVar("T")


def project(item: Mapping[str, Any], req: KeyRequest) -> dict[str, Any]:
    """What a read returns of an item: all of it on the table, the projected entry on an index."""
    if req.index_type == "table" or req.projection == "all":
        return dict(item)
    keep = {k for k in (*req.table_keys, req.pk_attr, req.sk_attr) if k}
    if req.projection != "keys_only":
        keep |= set(req.projection)
    return {k: v for k, v in item.items() if k in keep}


def index_entry(item: Mapping[str, Any] | None, spec: Spec, index: str) -> dict[str, Any] | None:
    """An item's entry in an index, or None when the item lacks the index keys (sparse index)."""
    if item is None:
        return None
    pk_attr, sk_attr = spec.key_attributes(index)
    if pk_attr not in item or (sk_attr and sk_attr not in item):
        return None
    idx = spec.table.indexes[index]
    req = KeyRequest(pattern="", operation="query", table=spec.table_name, index=index, index_type=idx.type,
                     pk_attr=pk_attr, sk_attr=sk_attr, pk_type="S", sk_type="S", projection=projection_of(idx),
                     table_keys=(spec.table.partition_key, spec.table.sort_key))
    return project(item, req)


def key_order(req: KeyRequest, rows: Iterable[tuple[dict[str, Any], int]]) -> Iterable[tuple[dict[str, Any], int]]:
    """(item, size) rows of a query or scan in DynamoDB's order, and blue_nb's where DynamoDB leaves it open
    (:attr:`~blue_nb.patterns.bind.KeyRequest.order_keys`). The SQL filters and orders a read whose keys
    are all strings itself; for any other (a number or binary key among them) it returns the rows,
    filtered by the sort-key condition and ordered here exactly (numbers numerically, binary by bytes). The
    order keys end with the whole table key, so no two items tie and a descending query is the exact
    reverse of the ascending one."""
    if req.operation not in ("query", "scan") or req.ordered_in_sql:
        return rows
    attrs = [a for a, _ in req.order_keys]
    if req.operation == "query" and req.sk_op:
        rows = (r for r in rows if sk_matches(req, r[0].get(req.sk_attr)))
    return sorted(rows, key=lambda r: tuple(sort_value(r[0][a]) for a in attrs),      # a read's items hold them all
                  reverse=req.operation == "query" and not req.forward)


@dataclass
class Page:
    """One call's page: how many items it evaluated (DynamoDB's ScannedCount), the bytes it read, its read
    units, the key a caller passes as ExclusiveStartKey for the next page (None when the key range is
    exhausted) and, when a filter dropped some, how many items it returned (DynamoDB's Count)."""

    count: int
    bytes_read: int
    rcu: float
    last_evaluated_key: dict[str, Any] | None
    returned: int | None = None      # Count, after the filter; None: every evaluated item was returned
    index_rcu: float | None = None   # the units of ``rcu`` spent on the index (None: a read of the table);
                                     # the rest were spent on the table (a local index's fetches)

    @property
    def items(self) -> int:
        """The number of items the page returned (its Count: ``count`` less what the filter dropped)."""
        return self.count if self.returned is None else self.returned

    @property
    def table_rcu(self) -> float:
        """The units of ``rcu`` spent on the table: all of a table read, a local index's fetches."""
        return _units(Decimal(str(self.rcu)) - Decimal(str(self.index_rcu or 0)))

    @property
    def has_more(self) -> bool:
        """Whether the page carries a LastEvaluatedKey (a caller following it makes one more call)."""
        return self.last_evaluated_key is not None


@dataclass
class ReadResult:
    """What a read pattern returned, page by page, and what it cost; ``plan`` is what ran."""

    plan: Plan
    items: list[dict[str, Any]]
    pages: list[Page]

    @property
    def request(self) -> KeyRequest:
        return self.plan.request

    @property
    def count(self) -> int:
        """DynamoDB's Count: the items returned (after a filter), also with Select COUNT, which returns none."""
        return sum(p.items for p in self.pages)

    @property
    def scanned_count(self) -> int:
        return sum(p.count for p in self.pages)

    @property
    def bytes_read(self) -> int:
        return sum(p.bytes_read for p in self.pages)

    @property
    def rcu(self) -> float:
        return _units(sum(Decimal(str(p.rcu)) for p in self.pages))

    def consumed_capacity(self) -> dict[str, Any]:
        """The units as DynamoDB reports them with ReturnConsumedCapacity INDEXES: in all, on the table,
        and on the index read (``GlobalSecondaryIndexes`` or ``LocalSecondaryIndexes``)."""
        req = self.request
        table = _units(sum(Decimal(str(p.table_rcu)) for p in self.pages))
        out: dict[str, Any] = {"TableName": req.table, "CapacityUnits": self.rcu, "Table": {"CapacityUnits": table}}
        if req.index != "table":
            kind = "GlobalSecondaryIndexes" if req.index_type == "global" else "LocalSecondaryIndexes"
            index = _units(sum(Decimal(str(p.index_rcu or 0)) for p in self.pages))
            out[kind] = {req.index: {"CapacityUnits": index}}
        return out

    @property
    def page_sizes(self) -> list[int]:
        """Each page's item count, in call order: what DynamoDB's ``Count`` of each call would be."""
        return [p.items for p in self.pages]

    @property
    def last_keys(self) -> list[dict[str, Any] | None]:
        """Each page's LastEvaluatedKey (None on the page that ends the key range)."""
        return [p.last_evaluated_key for p in self.pages]

    def summary(self) -> dict[str, Any]:
        """The read's counts and units (a dict; a notebook shows it as a table)."""
        return Fields({"count": self.count, "scanned_count": self.scanned_count, "bytes_read": self.bytes_read,
                       "rcu": self.rcu, "pages": len(self.pages)})

    def to_json(self) -> dict[str, Any]:
        """The contract's ``blue-nb query --format json`` object."""
        return {"items": [item_to_wire(i) for i in self.items], **self.summary()}


def _units(total: Decimal) -> int | float:
    return int(total) if total == total.to_integral_value() else float(total)


def pages_of(entries: Iterable[T], size: Callable[[T], int] | None, limit: int | None = None,
             keep: Callable[[T], Any] | None = None) -> Iterator[tuple[list[Any], list[int], bool]]:
    """DynamoDB's page rule: ``entries`` (in key order, each ``size(entry)`` bytes as read; ``size`` None:
    the entries are their sizes) cut into pages, yielded as they end: ``(page, sizes, full)`` with the page's
    entries (``keep(entry)`` with ``keep``) and their sizes.

    A page ends when it holds ``limit`` entries or when its bytes read reach 1 MB (the entry that takes
    the read to or past :data:`~blue_nb.sizing.PAGE_BYTES` is on the page). Such a page is ``full``: it
    carries a LastEvaluatedKey even when nothing is left (DynamoDB does not look ahead), so one more page
    follows. The last page yielded is the one that runs out of entries (possibly empty; ``full`` False).
    Lazy: a caller that stops after its pages reads no further entry. No object is made or kept per entry
    (``keep`` takes the item out of an ``(item, size)`` pair, so the pair is freed at once): thousands of
    tuples alive at a time would make Python's collector run more often, and its full runs land in reads."""
    page: list[Any] = []
    sizes: list[int] = []
    read = 0                                           # bytes read on the current page
    for entry in entries:
        n = entry if size is None else size(entry)
        page.append(entry if keep is None else keep(entry))
        sizes.append(n)
        read += n
        if read >= PAGE_BYTES or (limit and len(page) >= limit):
            yield page, sizes, True
            page, sizes, read = [], [], 0
    yield page, sizes, False


def segment_of(pk_value: Any, total_segments: int) -> int:
    """The segment of a parallel scan that reads the items of partition key value ``pk_value``: blue_nb's split
    of the hash space into ``total_segments`` equal ranges (the MD5 of the key as stored, its first 8 bytes as a
    number), so every item of one partition key is in one segment, each item in exactly one, and the segments
    together are the whole scan. DynamoDB's own hash is not published, so its segments hold other items."""
    digest = hashlib.md5(stored_key(pk_value).encode("utf-8")).digest()
    return (int.from_bytes(digest[:8], "big") * total_segments) >> 64


def paginate(plan: Plan, items: Iterable[tuple[dict[str, Any], int]],
             max_pages: int | None = None, *, follow: bool = False) -> ReadResult:
    """(item, table item size) pairs, already in key order and matching the key condition -> pages.
    The result holds the items given when a read returns them whole (the table, or an index that
    projects all): the stores pass items of their own, just read, so nothing is copied.

    A filter (``req.filter``) is applied to each page after it is cut and priced: the page keeps its
    evaluated count, bytes and units, and returns (``Page.returned``, the call's Count) only the entries
    that pass; a page can return nothing and still carry LastEvaluatedKey. On an index the filter reads
    the index entry (what a GSI holds; an LSI fetch of other attributes from the table is not modelled).

    As DynamoDB pages: a page ends when ``limit`` items have been evaluated or when its bytes read
    reach 1 MB (the item that takes the read to or past 1 MB is on the page, so a page can cost up
    to ceil((1 MB + 400 KB) / 4 KB) units). Such a page carries LastEvaluatedKey even when nothing
    is left (DynamoDB does not look ahead): the next call returns an empty page without one, which
    still costs the minimum. Only the page that runs out of the key range has no LastEvaluatedKey.
    Each page's read units round once over the sizes it read (index entry sizes on an index).

    Which pages are read: a pattern with a ``limit`` reads one page per call; without a limit, or
    with ``follow=True``, every page is read, following LastEvaluatedKey as a caller would;
    ``max_pages`` caps either. GetItem costs by its one item, and the minimum when there is none.
    """
    req = plan.request
    whole = req.index_type == "table" or req.projection == "all" or req.fetch
    if req.total_segments:                             # a parallel scan reads its segment's items only
        items = ((item, size) for item, size in items
                 if segment_of(item.get(req.pk_attr), req.total_segments) == req.segment)
    if req.operation == "get_item":
        found = [(item, size) for item, size in items][:1]
        size = found[0][1] if found else 0
        got = [_returned(req, found[0][0] if whole else project(found[0][0], req))] if found else []
        return ReadResult(plan, got, [Page(len(found), size, read_units(size, req.read_mode), None)])
    if max_pages is None and req.limit is not None and not follow:
        max_pages = 1                                  # a paged pattern reads one page per call
    if req.start_key:
        items = after_key(req, items)
    pages: list[Page] = []
    out: list[dict[str, Any]] = []
    if whole:                                          # the items as given: nothing copied
        cut = pages_of(items, itemgetter(1), req.limit, keep=itemgetter(0))
    else:                                              # index entries: projected, sized as projected
        cut = pages_of((project(item, req) for item, _ in items), item_size, req.limit)
    for page, sizes, full in cut:
        page_ = read_page(req, page, sizes, full)          # a full page carries LastEvaluatedKey, even at the end
        if req.filter is not None:                     # read and paid for; returned only when it passes
            page = [e for e in page if matches(req.filter, e, req.filter_values)]
            page_.returned = len(page)
        if req.select == "COUNT":                      # counted, paid, not returned
            page_.returned, page = len(page), []
        elif req.select == "SPECIFIC_ATTRIBUTES" or (req.fetch and req.select != "ALL_ATTRIBUTES"):
            page = [_returned(req, e) for e in page]
        pages.append(page_)
        out += page
        if full and max_pages is not None and len(pages) >= max_pages:
            break
    return ReadResult(plan, out, pages)


def after_key(req: KeyRequest, rows: Iterable[tuple[dict[str, Any], int]]) -> Iterator[tuple[dict[str, Any], int]]:
    """The (item, size) rows of a read, in its order, that come after ``req.start_key`` (ExclusiveStartKey):
    by the read's order keys (:attr:`~blue_nb.patterns.bind.KeyRequest.order_keys`), so a key no longer
    in the table still says where to go on."""
    attrs = [a for a, _ in req.order_keys]
    start = tuple(sort_value(req.start_key[a]) for a in attrs)
    backward = req.operation == "query" and not req.forward
    for row in rows:
        key = tuple(sort_value(row[0][a]) for a in attrs)
        if (key < start) if backward else (key > start):
            yield row


def sizing_request(req: KeyRequest) -> KeyRequest | None:
    """The same read returning what it reads (no filter, the whole entries, a local index's fetched items),
    to size a call an endpoint answered with less (a filter, a projection, COUNT); None when the read
    returns what it reads."""
    whole = "ALL_ATTRIBUTES" if req.index_type == "table" or req.fetch else "ALL_PROJECTED_ATTRIBUTES"
    if req.filter is None and not req.paths and req.select == whole:
        return None
    return replace(req, filter=None, filter_values={}, select=whole, paths=())


def _returned(req: KeyRequest, entry: dict[str, Any]) -> dict[str, Any]:
    """What a read returns of an entry it read (an item, an index entry, or a fetched item)."""
    if req.select == "SPECIFIC_ATTRIBUTES":
        return project_paths(entry, req.paths)
    if req.fetch and req.select == "ALL_PROJECTED_ATTRIBUTES":
        return project(entry, req)
    return entry


def read_page(req: KeyRequest, entries: list[dict[str, Any]], sizes: list[int], full: bool) -> Page:
    """A page of the entries a call read (items; index entries; a local index's fetched items) and their
    sizes, with its units on the table and on the index; a full one carries its last entry's key as
    LastEvaluatedKey. The filter and the Select are applied after (:func:`paginate`)."""
    key = None
    if full:
        last = entries[-1]
        key = {k: last[k] for k in {*req.table_keys, req.pk_attr, req.sk_attr} if k and k in last}
    units = query_read_units(sizes, req.read_mode)
    if req.index_type == "table":
        return Page(len(sizes), sum(sizes), units, key)
    if not req.fetch:
        return Page(len(sizes), sum(sizes), units, key, index_rcu=units)
    # a local index read that fetches: the index entries read, then each item from the table, each part
    # rounded once per page (the table's part only when it fetched something)
    entries = [item_size(project(e, req)) for e in entries]
    index = query_read_units(entries, req.read_mode)
    table = query_read_units(sizes, req.read_mode) if sizes else 0
    return Page(len(sizes), sum(sizes), _units(Decimal(str(index)) + Decimal(str(table))), key, index_rcu=index)
