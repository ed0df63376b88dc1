"""Local stores: SQLite and DuckDB behind one small interface (:class:`Store`).

Each driver is imported only by its own module; :func:`open_store` imports the one asked for.
"""

from __future__ import annotations

from pathlib import Path

from blue_nb.errors import StoreError
from blue_nb.stores.base import (LoadResult, Store, TableLayout, catalog_table_sql, load_items, main_table_sql,
                                quote_ident)

__all__ = ["BACKENDS", "LoadResult", "Store", "TableLayout", "catalog_table_sql", "load_items", "main_table_sql",
           "open_store", "quote_ident"]

BACKENDS = ("sqlite", "duckdb")


def open_store(backend: str, path: str | Path = ":memory:") -> Store:
    """Open (or create) a store file of the given backend; ``:memory:`` for an in-memory one.

    The file's folder is created when missing.
    """
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    if backend == "sqlite":
        from blue_nb.stores.sqlite import SQLiteStore

        return SQLiteStore(path)
    if backend == "duckdb":
        from blue_nb.stores.duckdb import DuckDBStore

        return DuckDBStore(path)
    raise StoreError(f"unknown backend {backend!r}", hint="use one of: " + ", ".join(BACKENDS))
