"""Local stores: SQLite and DuckDB behind one small interface (:class:`Store`): execute a plan,
load items, read the catalog. Layer 2.

Each driver is imported only by its own module; :func:`open_store` imports the one asked for.
A store's analytics capability (scratch tables, numpy columns, DuckDB's SQL: what the heat model
and the size statistics run on) is an interface of its own, :mod:`.analytics`, opened with
:meth:`Store.analytics() <blue_nb.stores.base.Store.analytics>` (a DuckDB store's only); the
entries of a table and its indexes as such a query are :mod:`.entries`.
A load stages the new items and switches them in at one commit point (:mod:`.load`,
:mod:`.journal`); opening a store file finishes or rolls back a load that was interrupted there.
"""

from __future__ import annotations

from pathlib import Path

from blue_nb.errors import StoreError
from blue_nb.patterns import BACKENDS
from blue_nb.layout import TableLayout
from blue_nb.stores.base import Store
from blue_nb.stores import drivers
from blue_nb.stores.journal import (keep_checks, kept_checks, loaded_digest, loaded_key_format, loaded_spec, recover,
                                   require_key_format)
from blue_nb.stores.load import LoadInterrupted, LoadResult, LoadResults, load_items, load_tables

__all__ = ["BACKENDS", "LoadInterrupted", "LoadResult", "LoadResults", "Store", "TableLayout", "load_items",
           "load_tables", "keep_checks", "kept_checks", "loaded_digest", "loaded_key_format", "loaded_spec", "open_store",
           "recover", "require_key_format"]


def open_store(backend: str, path: str | Path = ":memory:", *, read_only: bool = False) -> Store:
    """Open (or create) a store file of the given backend; ``:memory:`` for an in-memory one.

    A missing folder of the file is created, and named in the store's ``created_folder`` (the
    library does not print; the CLI says so). A path below a file, or naming a folder, is a
    :class:`~blue_nb.errors.StoreError`. An interrupted load left in the file is finished or
    rolled back first (:func:`blue_nb.stores.journal.recover`); ``recovered`` says what was done.

    ``read_only=True`` opens an existing file for reading only (a file of somebody else's, such as Blue's
    own SQLite file an import reads): nothing is created, recovered or written.
    """
    if backend not in BACKENDS:
        raise StoreError(f"unknown backend {backend!r}", hint="use one of: " + ", ".join(BACKENDS))
    if read_only:
        return drivers.open_driver(backend, path, read_only=True)
    created = None if str(path) == ":memory:" else _folder_for(backend, Path(path))
    store = drivers.open_driver(backend, path)
    store.created_folder = created
    try:
        store.recovered = tuple(recover(store))
    except BaseException:
        store.close()
        raise
    return store


def _folder_for(backend: str, path: Path) -> str | None:
    """Check the store path; create its missing folder. The folder created, or None."""
    hint = f"give a {backend} file path whose folder is a folder (or does not exist yet)"
    if path.is_dir():
        raise StoreError(f"the {backend} store path is a folder, not a file", where=str(path),
                         hint=f"name a file in it, e.g. {path / ('store.' + backend)}")
    missing = None
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise StoreError(f"cannot create the {backend} store: {str(parent)!r} is a file, not a folder",
                                 where=str(path), hint=hint)
            break
        missing = parent
    if missing is None:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"cannot create the folder of the {backend} store: {e.strerror or e}", where=str(path),
                         hint=hint, cause=e) from e
    return str(path.parent)
