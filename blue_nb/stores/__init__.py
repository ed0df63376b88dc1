"""Local stores: SQLite and DuckDB behind one small interface (:class:`Store`): execute a plan,
load items, read the catalog. Layer 2.

Each driver is imported only by its own module; :func:`open_store` imports the one asked for.
"""

from __future__ import annotations

from pathlib import Path

from blue_nb.errors import StoreError
from blue_nb.patterns import BACKENDS, TableLayout
from blue_nb.stores.base import Store
from blue_nb.stores.load import LoadResult, load_items

__all__ = ["BACKENDS", "LoadResult", "Store", "TableLayout", "load_items", "open_store"]


def open_store(backend: str, path: str | Path = ":memory:") -> Store:
    """Open (or create) a store file of the given backend; ``:memory:`` for an in-memory one.

    The file's folder is created when missing.
    """
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    if backend == "sqlite":
        from blue_nb.stores.sqlite import SQLiteStore  # deferred: open only the driver asked for

        return SQLiteStore(path)
    if backend == "duckdb":
        from blue_nb.stores.duckdb import DuckDBStore  # deferred: open only the driver asked for

        return DuckDBStore(path)
    raise StoreError(f"unknown backend {backend!r}", hint="use one of: " + ", ".join(BACKENDS))
