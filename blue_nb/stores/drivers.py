"""Open a store's driver by backend name. Each driver module is imported only when asked for, so
opening SQLite never loads DuckDB (and pyarrow). No recovery here: see :func:`blue_nb.stores.open_store`."""

from __future__ import annotations

from pathlib import Path

from blue_nb.errors import StoreError
from blue_nb.patterns import BACKENDS
from blue_nb.stores.base import Store

__all__ = ["open_driver"]


def open_driver(backend: str, path: str | Path = ":memory:", *, read_only: bool = False,
                timeout: float = 30.0) -> Store:
    """The driver of ``backend`` on ``path``. ``read_only`` opens a file that must exist, for reading only
    (DuckDB lets one process write a file); ``timeout`` is how long SQLite waits for another writer's lock."""
    if backend == "sqlite":
        from blue_nb.stores.sqlite import SQLiteStore  # deferred: open only the driver asked for

        return SQLiteStore(path, timeout=timeout, read_only=read_only)
    if backend == "duckdb":
        from blue_nb.stores.duckdb import DuckDBStore  # deferred: open only the driver asked for

        return DuckDBStore(path, read_only=read_only)
    raise StoreError(f"unknown backend {backend!r}", hint="use one of: " + ", ".join(BACKENDS))
