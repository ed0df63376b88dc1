"""Loading items into the stores: one pass, one transaction per store, all or nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator

from tqdm.auto import tqdm

from blue_nb.errors import StoreError
from blue_nb.patterns import MAIN_COLUMNS, TableLayout, quote_ident
from blue_nb.sizing import item_sizes
from blue_nb.spec import Spec
from blue_nb.stores.base import Store

__all__ = ["LoadResult", "load_items"]


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


def load_items(stores: list[Store], spec: Spec, items: Iterable[tuple[str | None, dict[str, Any]]], *,
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
                store.insert_rows(layout.table, MAIN_COLUMNS, list(main.values()))
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
    return tqdm(total=total, desc=desc, unit="item", unit_scale=True, mininterval=0.5)
