"""Access patterns bound to parameter values, and the DynamoDB semantics of running them.

Pure (layer 1): :func:`bind` turns a pattern and its parameters into a :class:`KeyRequest` (the
key values, the sort-key condition, the index, paging and consistency); :func:`paginate` turns
the matching items, in key order, into DynamoDB's pages with their cost; :func:`write_cost`
prices a write with its index write amplification. The stores and the DynamoDB client only
fetch rows; what a page holds and what it costs is decided here, once, for every backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable, Iterator, Mapping

from blue_nb.errors import QueryError, TemplateError
from blue_nb.sizing import PAGE_BYTES, item_size, query_read_units, read_units, write_units
from blue_nb.spec import AccessPattern, Spec
from blue_nb.values import item_to_wire, validate_number

__all__ = ["KeyRequest", "Page", "QueryResult", "WriteResult", "bind", "paginate", "project", "index_entry",
           "write_cost", "prefix_successor", "row_values", "sort_value", "sk_matches", "SK_OPS"]

SK_OPS = {"sk": "eq", "sk_begins_with": "begins_with", "sk_between": "between", "sk_lt": "lt", "sk_lte": "lte",
          "sk_gt": "gt", "sk_gte": "gte"}


@dataclass(frozen=True)
class KeyRequest:
    """One run of a pattern: everything a backend needs, as plain values."""

    pattern: str
    operation: str
    table: str
    index: str                       # "table" or an index name
    index_type: str                  # "table", "global" or "local"
    pk_attr: str
    sk_attr: str | None
    pk_type: str
    sk_type: str
    pk_value: Any = None             # None for a scan
    sk_op: str | None = None         # eq begins_with between lt lte gt gte
    sk_values: tuple = ()
    limit: int | None = None
    forward: bool = True
    consistent: bool = False
    projection: Any = "all"          # all | keys_only | tuple of attribute names
    table_keys: tuple[str, str | None] = ("pk", "sk")
    params: Mapping[str, str] = field(default_factory=dict)

    @property
    def is_read(self) -> bool:
        return self.operation in ("get_item", "query", "scan")

    @property
    def read_mode(self) -> str:
        return "strong" if self.consistent and self.index_type != "global" else "eventual"


def row_values(spec: Spec, entity: str, item: Mapping[str, Any]) -> dict[str, str]:
    """The source-row values an item came from: its key templates parsed back, plus its scalar
    attributes as text. These are the values a pattern's parameters take."""
    row: dict[str, str] = {}
    for attr, value in item.items():
        if isinstance(value, (str, Decimal, bool)) and not isinstance(value, bool):
            row[attr] = str(value)
    for attr, template in spec.entities[entity].templates.items():
        parsed = template.parse(str(item.get(attr, ""))) if attr in item else None
        if parsed:
            row.update(parsed)
    return row


def _typed(value: str, typ: str, where: str) -> Any:
    if typ == "N":
        return validate_number(value, where)
    if typ == "B":
        return value.encode("utf-8")
    return value


def bind(spec: Spec, pattern: AccessPattern | str, params: Mapping[str, Any] | None = None) -> KeyRequest:
    """Render a pattern's key condition with ``params``; every missing parameter is named at once."""
    p = spec.pattern(pattern) if isinstance(pattern, str) else pattern
    params = {k: v for k, v in (params or {}).items() if v is not None and v != ""}
    missing = [n for n in p.parameters if n not in params]
    if missing:
        raise QueryError(f"pattern {p.name!r} needs {', '.join(missing)}", where=f"access_patterns.{p.name}",
                         hint="give " + " ".join(f"--param {n}=VALUE" for n in missing))
    index = spec.table.indexes.get(p.index) if p.index != "table" else None
    pk_attr, sk_attr = spec.key_attributes(p.index)
    t = spec.table
    pk_type = index.partition_key_type if index is not None and index.type == "global" else t.partition_key_type
    sk_type = index.sort_key_type if index is not None else t.sort_key_type
    base = dict(pattern=p.name, operation=p.operation, table=spec.table_name, index=p.index,
                index_type=index.type if index is not None else "table", pk_attr=pk_attr, sk_attr=sk_attr,
                pk_type=pk_type, sk_type=sk_type, limit=p.limit, forward=p.scan_forward,
                consistent=p.consistent_read, projection=_projection(index),
                table_keys=(t.partition_key, t.sort_key), params=dict(params))
    kc = p.key_condition
    if kc is None:
        return KeyRequest(**base)
    where = f"access_patterns.{p.name}.key_condition"
    try:
        pk_value = _typed(kc.pk_template.render(params, where), pk_type, where)
        sk_values = tuple(_typed(tp.render(params, where), sk_type, where) for tp in kc.sk_templates)
    except TemplateError as e:
        raise QueryError(e.msg, where=e.where, hint=e.hint, cause=e) from e
    return KeyRequest(**base, pk_value=pk_value, sk_op=SK_OPS.get(kc.sk_op or ""), sk_values=sk_values)


def _projection(index) -> Any:
    if index is None:
        return "all"
    return tuple(index.projection) if isinstance(index.projection, list) else index.projection


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
                     pk_attr=pk_attr, sk_attr=sk_attr, pk_type="S", sk_type="S", projection=_projection(idx),
                     table_keys=(spec.table.partition_key, spec.table.sort_key))
    return project(item, req)


def sort_value(value: Any) -> Any:
    """A key value in DynamoDB's order: strings by UTF-8 bytes, numbers numerically, binary by bytes."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return Decimal(value)


def sk_matches(req: KeyRequest, value: Any) -> bool:
    """Does a sort-key value satisfy the request's sort-key condition?"""
    if req.sk_op is None:
        return True
    if value is None:
        return False
    v, ops = sort_value(value), [sort_value(x) for x in req.sk_values]
    if req.sk_op == "begins_with":
        return v.startswith(ops[0]) if isinstance(v, bytes) else False
    return {"eq": lambda: v == ops[0], "lt": lambda: v < ops[0], "lte": lambda: v <= ops[0],
            "gt": lambda: v > ops[0], "gte": lambda: v >= ops[0],
            "between": lambda: ops[0] <= v <= ops[1]}[req.sk_op]()


def prefix_successor(prefix: str) -> str | None:
    """The smallest string greater than every string that starts with ``prefix`` (UTF-8 order), or None."""
    chars = list(prefix)
    while chars:
        c = ord(chars.pop()) + 1
        if c == 0xD800:
            c = 0xE000
        if c <= 0x10FFFF:
            return "".join(chars) + chr(c)
    return None


@dataclass
class Page:
    count: int
    bytes_read: int
    rcu: float
    last_evaluated_key: dict[str, Any] | None


@dataclass
class QueryResult:
    """What a read pattern returned, page by page, and what it cost."""

    request: KeyRequest
    items: list[dict[str, Any]]
    pages: list[Page]

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def scanned_count(self) -> int:
        return sum(p.count for p in self.pages)

    @property
    def bytes_read(self) -> int:
        return sum(p.bytes_read for p in self.pages)

    @property
    def rcu(self) -> float:
        total = sum(Decimal(str(p.rcu)) for p in self.pages)
        return int(total) if total == total.to_integral_value() else float(total)

    def summary(self) -> dict[str, Any]:
        return {"count": self.count, "scanned_count": self.scanned_count, "bytes_read": self.bytes_read,
                "rcu": self.rcu, "pages": len(self.pages)}

    def to_json(self) -> dict[str, Any]:
        """The contract's ``blue-nb query --format json`` object."""
        return {"items": [item_to_wire(i) for i in self.items], **self.summary()}


def paginate(req: KeyRequest, items: Iterable[tuple[dict[str, Any], int]],
             max_pages: int | None = None) -> QueryResult:
    """(item, table item size) pairs, already in key order and matching the key condition -> pages.

    A page ends after ``limit`` items, or before the item that would take the bytes read past
    1 MB (so a page never costs more than 256 RCU strong). Each page's read units round once
    over the sizes it read (index entry sizes on an index). GetItem costs by its one item, and
    the minimum when there is none.
    """
    if req.operation == "get_item":
        found = [(item, size) for item, size in items][:1]
        size = found[0][1] if found else 0
        return QueryResult(req, [project(found[0][0], req)] if found else [],
                           [Page(len(found), size, read_units(size, req.read_mode), None)])
    if max_pages is None and req.limit is not None:
        max_pages = 1                                  # a paged pattern reads one page per call
    pages: list[Page] = []
    out: list[dict[str, Any]] = []
    sizes: list[int] = []
    page_items: list[dict[str, Any]] = []
    stream: Iterator = iter(items)
    for item, size in stream:
        entry = project(item, req)
        entry_size = size if req.index_type == "table" or req.projection == "all" else item_size(entry)
        if page_items and (sum(sizes) + entry_size > PAGE_BYTES or (req.limit and len(page_items) >= req.limit)):
            pages.append(_page(req, sizes, page_items[-1]))
            out += page_items
            sizes, page_items = [], []
            if max_pages is not None and len(pages) >= max_pages:
                break
        sizes.append(entry_size)
        page_items.append(entry)
    else:
        if page_items or not pages:
            pages.append(_page(req, sizes, None))
            out += page_items
    return QueryResult(req, out, pages)


def _page(req: KeyRequest, sizes: list[int], last: dict[str, Any] | None) -> Page:
    key = None
    if last is not None:
        key = {k: last[k] for k in {*req.table_keys, req.pk_attr, req.sk_attr} if k and k in last}
    return Page(len(sizes), sum(sizes), query_read_units(sizes, req.read_mode), key)


@dataclass
class WriteResult:
    """What one write of a pattern costs: the table write plus each index's writes."""

    request: KeyRequest
    old_size: int | None
    new_size: int | None
    table_wcu: int
    index_wcu: dict[str, int]

    @property
    def wcu(self) -> int:
        return self.table_wcu + sum(self.index_wcu.values())

    def summary(self) -> dict[str, Any]:
        return {"operation": self.request.operation, "old_size": self.old_size, "new_size": self.new_size,
                "wcu": self.wcu, "table_wcu": self.table_wcu, "index_wcu": dict(self.index_wcu)}


def write_cost(spec: Spec, req: KeyRequest, old: Mapping[str, Any] | None,
               new: Mapping[str, Any] | None) -> WriteResult:
    """WCU of a put/update (``new`` replaces ``old``) or a delete (``new`` is None), with index writes:
    1 write for a new or removed entry, 2 when the index key changes, 1 when only projected
    attributes change, 0 when the entry is unchanged; each on its own entry size."""
    old_size = item_size(old) if old is not None else None
    new_size = item_size(new) if new is not None else None
    if req.operation == "delete_item":
        table = write_units(old_size or 0)
        new = None
    else:
        table = write_units(max(old_size or 0, new_size or 0))
    per_index = {}
    for name in spec.table.indexes:
        before, after = index_entry(old, spec, name), index_entry(new, spec, name)
        per_index[name] = _index_writes(spec, name, before, after)
    return WriteResult(req, old_size, new_size, table, per_index)


def _index_writes(spec: Spec, name: str, before: dict | None, after: dict | None) -> int:
    if before is None and after is None:
        return 0
    if before is None or after is None:
        return write_units(item_size(before or after))
    pk_attr, sk_attr = spec.key_attributes(name)
    if before.get(pk_attr) != after.get(pk_attr) or before.get(sk_attr) != after.get(sk_attr):
        return write_units(item_size(before)) + write_units(item_size(after))
    return 0 if before == after else write_units(item_size(after))
