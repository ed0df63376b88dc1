"""The interface the SQLite and DuckDB stores share: driver hooks, the schema, executing a plan,
and reads over the catalog (a store's analytics capability, which only DuckDB has, is
:mod:`.analytics`). Drivers live in their own modules (:mod:`.sqlite`, :mod:`.duckdb`);
table and column names come from :mod:`blue_nb.layout`.
"""

from __future__ import annotations

import json
from itertools import islice, zip_longest
from typing import Any, Iterator

from blue_nb.errors import StoreError
from blue_nb.items.item_json import stored_item
from blue_nb.items.values import loads_wire
from blue_nb.patterns import (ActionsPlan, ActionsResult, Plan, ReadResult, WriteResult, actions_cost, data_bytes,
                              key_order, paginate, write_cost)
from blue_nb.layout import MAIN_COLUMNS, TableLayout, catalog_name, index_column, quote_ident
from blue_nb.rules.key_rows import KeyRows

__all__ = ["KeyConflict", "Store"]


class KeyConflict(StoreError):
    """:meth:`Store.insert_new` met a key that is already in the table (nothing of the batch was kept)."""


class Store:
    """A local store of one or more single tables. Subclasses supply the driver.

    ``created_folder`` is the folder :func:`~blue_nb.stores.open_store` created for the file (else
    None); ``recovered`` lists what recovery did when the store was opened (see
    :mod:`blue_nb.stores.journal`), for a caller to show.
    """

    kind = "store"
    chunk_size = 5_000
    path = ":memory:"
    read_only = False
    created_folder: str | None = None
    recovered: tuple[str, ...] = ()

    @property
    def in_memory(self) -> bool:
        return self.path == ":memory:"

    @property
    def ref(self) -> str:
        """``backend:absolute path``: how a journal in another store names this one."""
        return f"{self.kind}:{self.path}"

    # -- driver hooks ----------------------------------------------------------------------
    def execute(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        raise NotImplementedError

    def insert_rows(self, table: str, columns: list[str], rows: list[tuple]) -> None:
        raise NotImplementedError

    def insert_new(self, table: str, columns: list[str], rows: list[tuple]) -> None:
        """Insert rows whose keys must be new: a key already in ``table`` raises :class:`KeyConflict`
        (call inside a transaction, and roll it back then)."""
        raise NotImplementedError

    def insert_columns(self, table: str, columns: dict[str, Any]) -> None:
        """:meth:`insert_new` of rows given a column at a time (name -> a sequence, a numpy array or an Arrow
        array; None / NaN / null is NULL)."""
        names = list(columns)
        values = [v.to_pylist() if hasattr(v, "to_pylist") else v.tolist() if hasattr(v, "tolist") else list(v)
                  for v in columns.values()]
        self.insert_new(table, names, [tuple(None if x != x else x for x in row) for row in zip(*values)])

    def table_columns(self, table: str) -> list[str]:
        raise NotImplementedError

    def analytics(self):
        """A new analytics session on this store: a :class:`~blue_nb.stores.analytics.Scratch` (temporary tables,
        numpy columns, DuckDB's SQL), what the heat model and the size statistics run on; close it when done.
        Only a DuckDB store has one: any other raises :class:`~blue_nb.errors.StoreError`."""
        raise StoreError(f"the heat model runs on a DuckDB store, not {self.kind!r}",
                         hint='open one with blue_nb.stores.open_store("duckdb") and load the data into it')

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

    def check_table(self, layout: TableLayout) -> None:
        """Refuse a table of the spec's name that is not ADR 0018's (a load would replace it)."""
        cols = self.table_columns(layout.table)
        if cols and cols != MAIN_COLUMNS:
            raise StoreError(f"table {layout.table!r} exists with columns {cols}, not ADR 0018's "
                             "(pk, sk, data, created_at)", where=self.path,
                             hint="load into another file, or drop that table first")

    # -- read ------------------------------------------------------------------------------
    def count(self, table: str, entity: str | None = None) -> int:
        if entity is None:
            return self.execute(f"SELECT count(*) FROM {quote_ident(table)}")[0][0]
        return self.execute(f"SELECT count(*) FROM {quote_ident(catalog_name(table))} WHERE entity = ?", (entity,))[0][0]

    def get_item(self, table: str, pk: str, sk: str = "") -> dict[str, Any] | None:
        rows = self.execute(f"SELECT {data_bytes(self.kind)} FROM {quote_ident(table)} WHERE pk = ? AND sk = ?",
                            (pk, sk))
        return stored_item(rows[0][0]) if rows else None

    def iter_entity_items(self, table: str, batch: int = 10_000) -> Iterator[tuple[str | None, dict[str, Any]]]:
        """(entity, item) for every item, in key order: what the design checks read. The table and its catalog
        are each read in key order and walked side by side (ordering a join of millions of rows runs out of
        DuckDB's memory); a catalog that does not hold the table's keys is an error."""
        t, c = quote_ident(table), quote_ident(catalog_name(table))
        items = self.rows(f"SELECT pk, sk, {data_bytes(self.kind)} FROM {t} ORDER BY pk, sk", [], batch)
        entities = self.rows(f"SELECT pk, sk, entity FROM {c} ORDER BY pk, sk", [], batch)
        for (pk, sk, data), (cpk, csk, entity) in zip_longest(items, entities, fillvalue=(None, None, None)):
            if (pk, sk) != (cpk, csk):
                raise StoreError(f"the catalog of {table!r} does not match the table at key {pk or cpk!r} / "
                                 f"{sk if pk is not None else csk!r}", where=self.path,
                                 hint="load the data again: a load rebuilds the table and its catalog together")
            yield entity, stored_item(data)

    json_text = "json_extract"        # SQL: the text at a JSON path of ``data`` (DuckDB: json_extract_string)

    def iter_key_items(self, layout: TableLayout,
                       batch: int = 10_000) -> Iterator[tuple[str | None, dict[str, Any], int]]:
        """(entity, item, size) for every item, in key order: ``item`` holds only the key attributes of the
        table and its indexes, ``size`` is the size the load recorded (:meth:`key_rows`, a row at a time)."""
        for rows in self.key_rows(layout, batch):
            yield from rows.entries()

    def key_rows(self, layout: TableLayout, batch: int = 10_000) -> Iterator[KeyRows]:
        """Every item in key order, ``batch`` at a time, as :class:`~blue_nb.rules.key_rows.KeyRows`: its entity, the
        size its load recorded and the key attributes of the table and its indexes, a column each. What the
        design checks of a loaded store need, read from the catalog without decoding the items; the few items
        with a key value that is not a string (a number, binary) are decoded whole."""
        cols = {"pk": layout.pk, **({"sk": layout.sk} if layout.sk else {})}       # catalog column -> attribute
        for ix, (pk, sk) in layout.indexes.items():
            cols[index_column(ix, "pk")] = pk
            if sk:
                cols[index_column(ix, "sk")] = sk
        others = self._not_strings(layout.table, list(dict.fromkeys(cols.values())))
        sql = (f"SELECT pk, sk, entity, size, {', '.join(quote_ident(c) for c in cols)} "
               f"FROM {quote_ident(layout.catalog)} ORDER BY pk, sk")
        for chunk in self.column_chunks(sql, [], batch):
            keys: dict[str, list] = {}
            for attr, col in zip(cols.values(), chunk[4:]):
                keys.setdefault(attr, col)
            whole = {}
            if others:
                for i, key in enumerate(zip(chunk[0], chunk[1])):
                    if key in others:
                        whole[i] = self.get_item(layout.table, *key) or {}
            yield KeyRows(chunk[2], chunk[3], keys, whole)

    def column_chunks(self, sql: str, params: list, batch: int = 10_000) -> Iterator[list[list]]:
        """The rows of a query, ``batch`` at a time, each chunk as its columns (a list per column)."""
        rows = self.rows(sql, params, batch)
        while chunk := list(islice(rows, batch)):
            yield [list(c) for c in zip(*chunk)]

    def _not_strings(self, table: str, attrs: list[str]) -> set[tuple[str, str]]:
        """The keys of the items where one of ``attrs`` holds something other than a string."""
        cond, params = self._not_strings_sql(attrs)
        return {(r[0], r[1]) for r in self.execute(f"SELECT pk, sk FROM {quote_ident(table)} WHERE {cond}", params)}

    def _not_strings_sql(self, attrs: list[str]) -> tuple[str, list[str]]:
        """(condition, parameters): one of ``attrs`` of ``data`` holds something other than a string."""
        fn, cond, params = self.json_text, [], []
        for a in attrs:
            path = "$." + json.dumps(a)
            cond.append(f"({fn}(data, ?) IS NOT NULL AND {fn}(data, ?) IS NULL)")
            params += [path, path + ".S"]
        return " OR ".join(cond), params

    def iter_items(self, table: str, entity: str | None = None, *, wire: bool = False, batch: int = 10_000,
                   limit: int | None = None) -> Iterator[dict[str, Any]]:
        """Every item (or the first ``limit``) of the table or of one entity, in key order, as Python values
        or, with ``wire=True``, DynamoDB JSON: one query, streamed ``batch`` rows at a time. The table is
        ordered once (a query per batch would order it again each time); an entity's items are picked
        by a semi-join on the catalog (a full join of millions of rows runs out of DuckDB's memory)."""
        t, c = quote_ident(table), quote_ident(catalog_name(table))
        where, params = ("", [])
        if entity:
            where = f" WHERE EXISTS (SELECT 1 FROM {c} c WHERE c.pk = t.pk AND c.sk = t.sk AND c.entity = ?)"
            params = [entity]
        sql = f"SELECT {data_bytes(self.kind, 't.data')} FROM {t} t{where} ORDER BY t.pk, t.sk"
        if limit is not None:
            sql, params = sql + " LIMIT ?", params + [max(limit, 0)]
        for (data,) in self.rows(sql, params, batch):
            yield loads_wire(data) if wire else stored_item(data)

    def rows(self, sql: str, params: list, batch: int = 500) -> Iterator[tuple]:
        """Stream the rows of a query without fetching them all (a pattern may stop after one page)."""
        raise NotImplementedError

    def run_actions(self, plan: ActionsPlan) -> ActionsResult:
        """Execute a transaction's or a batch's plan: every action's statement in one SQL transaction (one
        ``BEGIN`` .. ``COMMIT``, so the actions see one state of the table), each read or priced as its own
        pattern, then DynamoDB's rules over them (:func:`~blue_nb.patterns.actions_cost`)."""
        self.execute("BEGIN")
        try:
            results = [self.run_plan(p) for p in plan.plans]
        finally:
            self.execute("COMMIT")
        return actions_cost(plan, results)

    def run_plan(self, plan: Plan, *, max_pages: int | None = None, new_item: dict[str, Any] | None = None,
                 follow: bool = False) -> ReadResult | WriteResult:
        """Execute a :class:`~blue_nb.patterns.Plan`: its statement for this store, nothing else.

        A read returns a ReadResult (items in DynamoDB's order, its pages and their cost): one page
        for a pattern with a limit, every page (following LastEvaluatedKey) without one or with
        ``follow=True``, at most ``max_pages`` (see :func:`~blue_nb.patterns.paginate`); a write
        is a dry run that returns its WriteResult (WCU with index writes): the statement reads the
        item at the key, which ``new_item`` (or, without one, that item or the median-size item of
        the pattern's entity, re-keyed) replaces.
        """
        if isinstance(plan, ActionsPlan):
            return self.run_actions(plan)  # type: ignore[return-value]
        sql, args = plan.paged_statement(self.kind, max_pages, follow)
        req = plan.request
        if not req.is_read:
            found = self.execute(sql, args)
            old = stored_item(found[0][0]) if found else None
            new = new_item if new_item is not None else (old or self._typical_item(plan))
            return write_cost(plan, old, new)
        # a page of Limit items needs Limit + 1 rows at most (the last says whether the range goes on): fetch
        # that many at a time, not 500 (at 1M items, 500 rows of a GSI query took 5 ms for a 50-item page)
        batch = min(req.limit + 1, 500) if req.limit else 500
        rows = ((stored_item(d), size) for d, size in self.rows(sql, args, batch=batch))
        return paginate(plan, key_order(req, rows), max_pages, follow=follow)

    def _typical_item(self, plan: Plan) -> dict[str, Any]:
        """For a write to a new key: the median-size item of the pattern's entity, re-keyed (none stored: the key
        alone, which is what the put sends then)."""
        req, p = plan.request, plan.pattern
        cat = quote_ident(plan.layout.catalog)
        n = self.count(req.table, p.entities[0])
        item: dict[str, Any] = {}
        if n:
            pk, sk = self.execute(f"SELECT pk, sk FROM {cat} WHERE entity = ? ORDER BY size, pk, sk LIMIT 1 "
                                  "OFFSET ?", (p.entities[0], (n - 1) // 2))[0]
            item = self.get_item(req.table, pk, sk) or {}
        item[req.pk_attr] = req.pk_value
        if req.sk_attr and req.sk_values:
            item[req.sk_attr] = req.sk_values[0]
        return item

    def entity_counts(self, table: str) -> dict[str, int]:
        return {e: v[0] for e, v in self.entity_sizes(table).items()}

    def entity_sizes(self, table: str) -> dict[str, tuple[int, int, int, int]]:
        """entity -> (items, bytes, median size, max size), most items first."""
        cat = quote_ident(catalog_name(table))
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
            f"SELECT pk, sk, entity, size FROM {quote_ident(catalog_name(table))} ORDER BY size DESC, pk, sk LIMIT ?", (n,))]

    def largest_partitions(self, table: str, n: int = 10) -> list[tuple[str, int, int]]:
        """(pk, items, bytes) of the n largest item collections."""
        return [tuple(r) for r in self.execute(
            f"SELECT pk, count(*), sum(size) FROM {quote_ident(catalog_name(table))} GROUP BY pk "
            "ORDER BY 3 DESC, 1 LIMIT ?", (n,))]
