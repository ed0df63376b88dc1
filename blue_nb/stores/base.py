"""What the SQLite and DuckDB stores share: the table layout as SQL (pure ``*_sql`` functions),
turning items into rows, and the loading and reading logic. Drivers live in their own modules.

Each store holds, for a spec's table ``blue_{domain}``:

- ``blue_{domain}``: exactly ADR 0018's table ``(pk, sk, data JSON, created_at)``; ``data`` is
  the whole item in DynamoDB JSON, so every type survives unchanged;
- ``blue_{domain}__items``: a catalog derived from the items: entity, exact item size in bytes,
  and each index's key values, indexed per index so index queries are not full scans.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator

from blue_nb.errors import StoreError
from blue_nb.sizing import item_sizes
from blue_nb.spec import Spec
from blue_nb.values import dumps_wire, item_from_wire, item_to_wire, loads_wire

__all__ = ["Store", "LoadResult", "load_items", "TableLayout", "main_table_sql", "catalog_table_sql", "quote_ident"]

_IDENT = re.compile(r"^[A-Za-z0-9_.-]{1,255}$")


def quote_ident(name: str) -> str:
    """A validated, double-quoted SQL identifier (table and index names are [A-Za-z0-9_.-])."""
    if not _IDENT.match(name or ""):
        raise StoreError(f"invalid identifier {name!r}", hint="table and index names use letters, digits, _ . -")
    return f'"{name}"'


def main_table_sql(table: str) -> str:
    """ADR 0018's table, exactly."""
    return (f"CREATE TABLE {quote_ident(table)} (\n  pk TEXT NOT NULL,\n  sk TEXT NOT NULL,\n"
            "  data JSON NOT NULL,\n  created_at TEXT NOT NULL,\n  PRIMARY KEY (pk, sk)\n)")


def catalog_table_sql(table: str, indexes: list[str]) -> list[str]:
    """The derived catalog table and its indexes."""
    cat = quote_ident(f"{table}__items")
    cols = "".join(f",\n  {quote_ident(i + '__pk')} TEXT,\n  {quote_ident(i + '__sk')} TEXT" for i in indexes)
    stmts = [f"CREATE TABLE {cat} (\n  pk TEXT NOT NULL,\n  sk TEXT NOT NULL,\n  entity TEXT,\n"
             f"  size INTEGER NOT NULL{cols},\n  PRIMARY KEY (pk, sk)\n)"]
    for i in indexes:
        stmts.append(f"CREATE INDEX {quote_ident(f'{table}__{i}')} ON {cat} "
                     f"({quote_ident(i + '__pk')}, {quote_ident(i + '__sk')})")
    return stmts


def key_text(value: Any) -> str | None:
    """A key value as stored in the TEXT key columns (numbers as written, binary as base64)."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)


@dataclass(frozen=True)
class TableLayout:
    table: str
    pk: str
    sk: str | None
    indexes: dict[str, tuple[str, str | None]]

    @classmethod
    def of(cls, spec: Spec) -> "TableLayout":
        quote_ident(spec.table_name)
        for name in spec.table.indexes:
            quote_ident(name)
        return cls(spec.table_name, spec.table.partition_key, spec.table.sort_key, spec.index_key_attributes())

    @property
    def catalog(self) -> str:
        return f"{self.table}__items"

    @property
    def catalog_columns(self) -> list[str]:
        cols = ["pk", "sk", "entity", "size"]
        for i in self.indexes:
            cols += [f"{i}__pk", f"{i}__sk"]
        return cols

    def rows(self, entity: str | None, item: dict[str, Any], size: int, created: str) -> tuple[tuple, tuple]:
        """(main row, catalog row) of one item of ``size`` bytes."""
        pk = key_text(item[self.pk])
        sk = key_text(item.get(self.sk)) if self.sk else ""
        data = dumps_wire(item_to_wire(item))
        made = item.get("created_at") if isinstance(item.get("created_at"), str) else created
        cat = [pk, sk, entity, size]
        for ipk, isk in self.indexes.values():
            has = ipk in item and (isk is None or isk in item)
            cat += [key_text(item[ipk]) if has else None, key_text(item.get(isk)) if has and isk else None]
        return (pk, sk, data, made), tuple(cat)


@dataclass
class LoadResult:
    table: str
    items_written: int = 0
    per_entity: dict[str, int] = field(default_factory=dict)
    items_before: int = 0
    items_after: int = 0
    replaced: int = 0           # upsert mode: items that overwrote an item with the same key

    def __str__(self) -> str:
        ents = ", ".join(f"{n} {c:,}" for n, c in self.per_entity.items())
        return f"{self.table}: {self.items_written:,} items written ({ents}); {self.items_after:,} in the table"


class Store:
    """A local store of one or more single tables. Subclasses supply the driver."""

    kind = "store"
    chunk_size = 5_000

    # -- driver hooks ----------------------------------------------------------------------
    def execute(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        raise NotImplementedError

    def insert_rows(self, table: str, columns: list[str], rows: list[tuple]) -> None:
        raise NotImplementedError

    def table_columns(self, table: str) -> list[str]:
        raise NotImplementedError

    def begin(self) -> None: ...
    def commit(self) -> None: ...
    def rollback(self) -> None: ...
    def close(self) -> None: ...

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- schema ----------------------------------------------------------------------------
    def has_table(self, table: str) -> bool:
        return bool(self.table_columns(table))

    def ensure_tables(self, layout: TableLayout) -> None:
        """Create the main table and the catalog; rebuild the catalog if the indexes changed."""
        cols = self.table_columns(layout.table)
        if not cols:
            self.execute(main_table_sql(layout.table))
        elif cols != ["pk", "sk", "data", "created_at"]:
            raise StoreError(f"table {layout.table!r} exists with columns {cols}, not ADR 0018's (pk, sk, data, created_at)",
                             hint="load into another file, or drop that table first")
        if self.table_columns(layout.catalog) != layout.catalog_columns:
            if self.has_table(layout.catalog):
                self.execute(f"DROP TABLE {quote_ident(layout.catalog)}")
            for stmt in catalog_table_sql(layout.table, list(layout.indexes)):
                self.execute(stmt)

    # -- load ------------------------------------------------------------------------------
    def load(self, spec: Spec, items: Iterable[tuple[str | None, dict[str, Any]]], **kw: Any) -> LoadResult:
        """Load (entity, item) pairs into this store; see :func:`load_items`."""
        return load_items([self], spec, items, **kw)[0]

    # -- read ------------------------------------------------------------------------------
    def count(self, table: str, entity: str | None = None) -> int:
        if entity is None:
            return self.execute(f"SELECT count(*) FROM {quote_ident(table)}")[0][0]
        return self.execute(f"SELECT count(*) FROM {quote_ident(table + '__items')} WHERE entity = ?", (entity,))[0][0]

    def get_item(self, table: str, pk: str, sk: str = "") -> dict[str, Any] | None:
        rows = self.execute(f"SELECT data FROM {quote_ident(table)} WHERE pk = ? AND sk = ?", (pk, sk))
        return item_from_wire(loads_wire(rows[0][0])) if rows else None

    def iter_entity_items(self, table: str, batch: int = 10_000) -> Iterator[tuple[str | None, dict[str, Any]]]:
        """(entity, item) for every item, in key order: what the design checks read."""
        t, c = quote_ident(table), quote_ident(table + "__items")
        sql = f"SELECT c.entity, t.data FROM {t} t JOIN {c} c ON c.pk = t.pk AND c.sk = t.sk ORDER BY t.pk, t.sk"
        for entity, data in self.rows(sql, [], batch):
            yield entity, item_from_wire(loads_wire(data))

    def iter_items(self, table: str, entity: str | None = None, *, wire: bool = False,
                   batch: int = 10_000) -> Iterator[dict[str, Any]]:
        """Every item (in key order), as Python values or, with ``wire=True``, DynamoDB JSON."""
        t, c = quote_ident(table), quote_ident(table + "__items")
        where, params = ("WHERE c.entity = ?", [entity]) if entity else ("", [])
        last: tuple[str, str] | None = None
        while True:
            cond = ("AND" if where else "WHERE") + " (t.pk > ? OR (t.pk = ? AND t.sk > ?))" if last else ""
            args = params + ([last[0], last[0], last[1]] if last else []) + [batch]
            rows = self.execute(f"SELECT t.pk, t.sk, t.data FROM {t} t JOIN {c} c ON c.pk = t.pk AND c.sk = t.sk "
                                f"{where} {cond} ORDER BY t.pk, t.sk LIMIT ?", args)
            for _, _, data in rows:
                w = loads_wire(data)
                yield w if wire else item_from_wire(w)
            if len(rows) < batch:
                return
            last = (rows[-1][0], rows[-1][1])

    def rows(self, sql: str, params: list, batch: int = 500) -> Iterator[tuple]:
        """Stream the rows of a query without fetching them all (a pattern may stop after one page)."""
        raise NotImplementedError

    def run(self, spec: Spec, pattern: Any, params: dict[str, Any] | None = None, *,
            max_pages: int | None = None, new_item: dict[str, Any] | None = None):
        """Run an access pattern: a read returns a QueryResult (items in DynamoDB's order, its pages
        and their cost); a write is a dry run that returns its WriteResult (WCU with index writes)."""
        from blue_nb.access import bind, paginate, sk_matches, sort_value, write_cost
        from blue_nb.stores.sql import get_sql, read_sql

        req = bind(spec, pattern, params)
        layout = TableLayout.of(spec)
        if not req.is_read:
            sql, args = get_sql(layout, req)
            found = self.execute(sql, args)
            old = item_from_wire(loads_wire(found[0][0])) if found else None
            new = new_item if new_item is not None else (old or self._typical_item(spec, req))
            return write_cost(spec, req, old, new)
        sql, args = read_sql(layout, req)
        rows = ((item_from_wire(loads_wire(d)), size) for d, size in self.rows(sql, args))
        if req.sk_attr and req.sk_type != "S" and req.operation == "query":
            rows = sorted((r for r in rows if sk_matches(req, r[0].get(req.sk_attr))),
                          key=lambda r: sort_value(r[0][req.sk_attr]), reverse=not req.forward)
        return paginate(req, rows, max_pages)

    def _typical_item(self, spec: Spec, req) -> dict[str, Any] | None:
        """For a write to a new key: the median-size item of the pattern's entity, re-keyed."""
        p = spec.pattern(req.pattern)
        cat = quote_ident(f"{req.table}__items")
        n = self.count(req.table, p.entities[0])
        if not n:
            return None
        pk, sk = self.execute(f"SELECT pk, sk FROM {cat} WHERE entity = ? ORDER BY size, pk, sk LIMIT 1 OFFSET ?",
                              (p.entities[0], (n - 1) // 2))[0]
        item = self.get_item(req.table, pk, sk) or {}
        item[req.pk_attr] = req.pk_value
        if req.sk_attr and req.sk_values:
            item[req.sk_attr] = req.sk_values[0]
        return item

    def entity_counts(self, table: str) -> dict[str, int]:
        return {e: v[0] for e, v in self.entity_sizes(table).items()}

    def entity_sizes(self, table: str) -> dict[str, tuple[int, int, int, int]]:
        """entity -> (items, bytes, median size, max size), most items first."""
        cat = quote_ident(table + "__items")
        rows = self.execute(f"SELECT coalesce(entity, '?'), count(*), sum(size), max(size) FROM {cat} "
                            "GROUP BY 1 ORDER BY 2 DESC, 1")
        out = {}
        for e, n, b, mx in rows:
            med = self.execute(f"SELECT size FROM {cat} WHERE coalesce(entity, '?') = ? ORDER BY size "
                               "LIMIT 1 OFFSET ?", (e, (n - 1) // 2))[0][0]
            out[e] = (n, b, med, mx)
        return out

    def largest_items(self, table: str, n: int = 10) -> list[tuple[str, str, str, int]]:
        """(pk, sk, entity, size) of the n largest items."""
        return [tuple(r) for r in self.execute(
            f"SELECT pk, sk, entity, size FROM {quote_ident(table + '__items')} ORDER BY size DESC, pk, sk LIMIT ?", (n,))]

    def largest_partitions(self, table: str, n: int = 10) -> list[tuple[str, int, int]]:
        """(pk, items, bytes) of the n largest item collections."""
        return [tuple(r) for r in self.execute(
            f"SELECT pk, count(*), sum(size) FROM {quote_ident(table + '__items')} GROUP BY pk "
            "ORDER BY 3 DESC, 1 LIMIT ?", (n,))]


def load_items(stores: list["Store"], spec: Spec, items: Iterable[tuple[str | None, dict[str, Any]]], *,
               mode: str = "replace", total: int | None = None, progress: bool = True) -> list[LoadResult]:
    """Load (entity, item) pairs into one or more stores in one pass, one transaction per store.

    All of it lands, or, on any error or interrupt, none of it, in every store. ``mode='replace'``
    empties the table first (the store then mirrors the data exactly); ``'upsert'`` keeps other
    items and replaces those with the same key. Either way loading the same data twice leaves one copy.
    """
    if mode not in ("replace", "upsert"):
        raise StoreError(f"unknown load mode {mode!r}", hint="use 'replace' or 'upsert'")
    layout = TableLayout.of(spec)
    created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    results = [LoadResult(layout.table) for _ in stores]
    per_entity: dict[str, int] = {}
    written = 0
    bar = _progress(total, f"load {layout.table} into {', '.join(s.kind for s in stores)}", progress)
    begun: list[Store] = []
    try:
        for store, result in zip(stores, results):
            store.begin()
            begun.append(store)
            store.ensure_tables(layout)
            result.items_before = store.count(layout.table)
            if mode == "replace":
                store.execute(f"DELETE FROM {quote_ident(layout.table)}")
                store.execute(f"DELETE FROM {quote_ident(layout.catalog)}")
        for chunk in _chunks(items, min(s.chunk_size for s in stores) if stores else 5000):
            main, cat = {}, {}
            sizes = item_sizes([item for _, item in chunk])
            for (entity, item), size in zip(chunk, sizes):
                m, c = layout.rows(entity, item, size, created)
                main[m[:2]], cat[m[:2]] = m, c
                per_entity[entity or "?"] = per_entity.get(entity or "?", 0) + 1
            for store in stores:
                store.insert_rows(layout.table, ["pk", "sk", "data", "created_at"], list(main.values()))
                store.insert_rows(layout.catalog, layout.catalog_columns, list(cat.values()))
            written += len(chunk)
            bar.update(len(chunk))
        for store, result in zip(stores, results):
            result.items_after = store.count(layout.table)
        for store in stores:
            store.commit()
    except BaseException:
        for store in begun:
            store.rollback()
        raise
    finally:
        bar.close()
    for result in results:
        result.items_written, result.per_entity = written, dict(per_entity)
        start = 0 if mode == "replace" else result.items_before
        result.replaced = written - (result.items_after - start)
    return results


def _chunks(items: Iterable, n: int) -> Iterator[list]:
    chunk = []
    for x in items:
        chunk.append(x)
        if len(chunk) >= n:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class _NoBar:
    def update(self, n: int) -> None: ...
    def close(self) -> None: ...


def _progress(total: int | None, desc: str, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="item", unit_scale=True, mininterval=0.5)
