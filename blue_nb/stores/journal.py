"""The journal of loads and the switch: how a load staged in several stores becomes visible in
all of them, or in none, whatever interrupts it.

A load (see :mod:`blue_nb.stores.load`) writes the next version of a table into staging tables
(:func:`~blue_nb.layout.staging_name`) of every store, then switches:

1. every store but the *commit store* (the first store that is a file) records the load in its
   journal table (:data:`~blue_nb.layout.LOADS_TABLE`) as ``ready``, naming the commit
   store (``backend:path``);
2. the **commit point**: one transaction in the commit store swaps its staging tables in and
   records the load as ``done``; before it commits, the load has changed nothing anyone can see;
3. each other store swaps its staging tables in and marks the load ``done``, one transaction each.

A crash (Ctrl-C, SIGKILL, power) can stop this anywhere. When a store is opened again,
:func:`recover` finds its ``ready`` loads and asks the commit store: a load recorded ``done``
there is rolled forward (the staging tables swapped in), any other is rolled back (staging
dropped, the load marked ``abandoned``). Each step is one transaction and checks the state first,
so recovery is idempotent and may itself be interrupted. The commit store never holds a
``ready`` load; its ``done`` rows are the decisions and stay. A commit store that cannot be read
(held by a running load, a lock that does not clear) leaves the load pending, and a new load of
that table refuses to start; one whose file is gone is presumed not to have committed.

Swapping is renaming: ``DROP`` the old table and catalog, ``ALTER TABLE ... RENAME`` the staging
ones, then build the catalog's index-key indexes (DuckDB cannot rename a table that has an index,
so staging catalogs have none until here). The record of which spec built the items
(:func:`stage_spec_record`, read back by :func:`loaded_spec`) is staged and swapped in the same way,
so it always describes the items in place.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from blue_nb.errors import StoreError
from blue_nb.layout import catalog_name, catalog_table_sql, quote_ident
from blue_nb.layout import (KEY_FORMAT, LOADS_TABLE, checks_record_name, has_number_keys, item_shape_digest,
                            source_rows_name, spec_record_name, staging_name)
from blue_nb.spec import Spec
from blue_nb.stores.base import Store
from blue_nb.stores.drivers import open_driver

__all__ = ["ABANDONED", "DONE", "READY", "abandon", "decide", "drop_staging", "ensure_journal", "finish",
           "loaded_digest", "loaded_key_format", "loaded_spec", "pending", "record", "recover", "require_key_format",
           "stage_spec_record", "state_of", "swap_in"]

READY, DONE, ABANDONED = "ready", "done", "abandoned"
_J = quote_ident(LOADS_TABLE)
_DECIDE_TIMEOUT = 60.0      # seconds to wait for a running load's commit transaction in a SQLite commit store


def ensure_journal(store: Store) -> None:
    store.execute(f"CREATE TABLE IF NOT EXISTS {_J} (load_id TEXT PRIMARY KEY, table_name TEXT NOT NULL, "
                  "state TEXT NOT NULL, commit_store TEXT NOT NULL, recorded_at TEXT NOT NULL)")


def record(store: Store, load_id: str, table: str, state: str, commit_store: str) -> None:
    at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    store.execute(f"INSERT OR REPLACE INTO {_J} (load_id, table_name, state, commit_store, recorded_at) "
                  "VALUES (?, ?, ?, ?, ?)", (load_id, table, state, commit_store, at))


def state_of(store: Store, load_id: str) -> str | None:
    """The journal's state of a load in this store (None: not recorded, or no journal)."""
    if not store.has_table(LOADS_TABLE):
        return None
    rows = store.execute(f"SELECT state FROM {_J} WHERE load_id = ?", (load_id,))
    return rows[0][0] if rows else None


def pending(store: Store, table: str | None = None) -> list[tuple[str, str, str]]:
    """(load_id, table, commit store) of every load recorded ``ready`` here (of ``table``, if given)."""
    if not store.has_table(LOADS_TABLE):
        return []
    rows = store.execute(f"SELECT load_id, table_name, commit_store FROM {_J} WHERE state = ? ORDER BY recorded_at",
                         (READY,))
    return [tuple(r) for r in rows if table is None or r[1] == table]


def drop_staging(store: Store, table: str) -> None:
    """Drop the staging tables of ``table`` (leftovers of an interrupted load included)."""
    nxt = staging_name(table)
    for t in (source_rows_name(table), spec_record_name(nxt), catalog_name(nxt), nxt):
        store.execute(f"DROP TABLE IF EXISTS {quote_ident(t)}")


def staged_indexes(store: Store, table: str) -> list[str]:
    """The index names of the staging catalog, read from its ``{index}__pk`` columns."""
    cols = store.table_columns(catalog_name(staging_name(table)))
    return [c.removesuffix("__pk") for c in cols[4::2]]


def swap_in(store: Store, table: str) -> None:
    """Replace ``table`` and its catalog by the staging ones (call inside a transaction)."""
    nxt, cat = staging_name(table), catalog_name(table)
    if not store.has_table(nxt) or not store.has_table(catalog_name(nxt)):
        raise StoreError(f"the staged tables of {table!r} are missing, so the load cannot be switched in",
                         where=store.path, hint="load the data again")
    indexes = staged_indexes(store, table)
    store.execute(f"DROP TABLE IF EXISTS {quote_ident(cat)}")
    store.execute(f"DROP TABLE IF EXISTS {quote_ident(table)}")
    store.execute(f"ALTER TABLE {quote_ident(nxt)} RENAME TO {quote_ident(table)}")
    store.execute(f"ALTER TABLE {quote_ident(catalog_name(nxt))} RENAME TO {quote_ident(cat)}")
    for stmt in catalog_table_sql(table, indexes)[1:]:
        store.execute(stmt)
    store.execute(f"DROP TABLE IF EXISTS {quote_ident(source_rows_name(table))}")
    store.execute(f"DROP TABLE IF EXISTS {quote_ident(spec_record_name(table))}")
    store.execute(f"DROP TABLE IF EXISTS {quote_ident(checks_record_name(table))}")    # findings on the old items
    if store.has_table(spec_record_name(nxt)):          # staged by a load that records its spec
        store.execute(f"ALTER TABLE {quote_ident(spec_record_name(nxt))} "
                      f"RENAME TO {quote_ident(spec_record_name(table))}")


def stage_spec_record(store: Store, table: str, spec: Spec, *, keep: bool) -> None:
    """Stage the record of which spec built the items (:func:`item_shape_digest`) and how their keys are stored
    (:data:`~blue_nb.layout.KEY_FORMAT`). An upsert that keeps items built with another spec (or with no
    record) records no digest: the table then holds a mix; one that keeps items of an earlier key format
    records that format, since those items keep their keys."""
    digest: str | None = item_shape_digest(spec)
    key_format = KEY_FORMAT
    if keep:
        if loaded_digest(store, table) != digest:
            digest = None
        key_format = min(key_format, loaded_key_format(store, table))
    rec = quote_ident(spec_record_name(staging_name(table)))
    store.execute(f"CREATE TABLE {rec} (digest TEXT, spec TEXT, loaded_at TEXT NOT NULL, key_format INTEGER)")
    at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    store.execute(f"INSERT INTO {rec} (digest, spec, loaded_at, key_format) VALUES (?, ?, ?, ?)",
                  (digest, spec.source_path or spec.domain, at, key_format))


def loaded_digest(store: Store, table: str) -> str | None:
    """The :func:`item_shape_digest` of the spec that built the items of ``table`` (None: unknown or mixed)."""
    return (loaded_spec(store, table) or (None,))[0]


def loaded_spec(store: Store, table: str) -> tuple[str | None, str, str] | None:
    """(digest, spec, loaded at) recorded by the last load of ``table``; None when no load recorded it."""
    rec = spec_record_name(table)
    if not store.has_table(rec):
        return None
    rows = store.execute(f"SELECT digest, spec, loaded_at FROM {quote_ident(rec)}")
    return tuple(rows[0]) if rows else None


def loaded_key_format(store: Store, table: str) -> int:
    """The :data:`~blue_nb.layout.KEY_FORMAT` the keys of ``table`` are stored in: the current one for a table
    not there yet, 1 for a table loaded before the format was recorded."""
    if not store.has_table(table):
        return KEY_FORMAT
    rec = spec_record_name(table)
    if "key_format" not in store.table_columns(rec):
        return 1
    rows = store.execute(f"SELECT key_format FROM {quote_ident(rec)}")
    return int(rows[0][0]) if rows and rows[0][0] is not None else 1


def require_key_format(store: Store, spec: Spec) -> None:
    """Refuse to read a table whose number keys an earlier blue-nb stored as they were written (``1.50`` beside
    ``1.5``): a StoreError that says to load it again. A spec without number keys reads any such table as it
    is: its string and binary keys were stored as they are now."""
    table = spec.table_name
    if not has_number_keys(spec) or loaded_key_format(store, table) >= KEY_FORMAT:
        return
    raise StoreError(f"{table!r} in {store.path} was loaded by an earlier blue-nb, which stored number keys as "
                     "they were written (1.50 and 1.5 as two keys); this one compares them by value",
                     where=str(store.path),
                     hint=f"load it again: blue-nb load {spec.source_path or 'SPEC'} --data DIR --{store.kind} "
                          f"{store.path}")


#: spec versions whose findings are kept per table (the most recent ones)
CHECKS_KEPT = 8


def kept_checks(store: Store, table: str, key: str) -> str | None:
    """The findings (text) that :func:`keep_checks` kept for the items of ``table`` under ``key``; None if none."""
    rec = checks_record_name(table)
    if not store.has_table(rec):
        return None
    rows = store.execute(f"SELECT findings FROM {quote_ident(rec)} WHERE key = ?", (key,))
    return rows[0][0] if rows else None


def keep_checks(store: Store, table: str, key: str, findings: str) -> None:
    """Keep the findings of the design checks on the items of ``table`` under ``key`` (what was checked, by
    what), with those of the last few other keys; the next load of the table drops them (:func:`swap_in`)."""
    rec = quote_ident(checks_record_name(table))

    def work() -> bool:
        store.execute(f"CREATE TABLE IF NOT EXISTS {rec} (key TEXT NOT NULL, kept_at DOUBLE NOT NULL, "
                      "findings TEXT NOT NULL)")
        store.execute(f"DELETE FROM {rec} WHERE key = ?", (key,))
        store.execute(f"INSERT INTO {rec} (key, kept_at, findings) VALUES (?, ?, ?)", (key, time.time(), findings))
        store.execute(f"DELETE FROM {rec} WHERE key NOT IN (SELECT key FROM {rec} ORDER BY kept_at DESC LIMIT ?)",
                      (CHECKS_KEPT,))
        return True
    _transaction(store, work)


def _transaction(store: Store, work: Callable[[], bool]) -> bool:
    store.begin()
    try:
        changed = work()
        store.commit()
        return changed
    except BaseException:
        store.rollback()
        raise


def finish(store: Store, load_id: str, table: str, commit_store: str) -> bool:
    """Roll a committed load forward here: swap its staging tables in and mark it ``done``, in one
    transaction. False when it was already done (idempotent)."""
    def work() -> bool:
        ensure_journal(store)
        if state_of(store, load_id) == DONE:
            return False
        swap_in(store, table)
        record(store, load_id, table, DONE, commit_store)
        return True
    return _transaction(store, work)


def abandon(store: Store, load_id: str, table: str, commit_store: str) -> bool:
    """Roll a load back here: drop its staging tables and mark it ``abandoned`` (unless it is done)."""
    def work() -> bool:
        if state_of(store, load_id) == DONE:
            return False
        drop_staging(store, table)
        if state_of(store, load_id) is not None:
            record(store, load_id, table, ABANDONED, commit_store)
        return True
    return _transaction(store, work)


def decide(commit_store: str, load_id: str) -> bool | None:
    """Did the load commit? Read from the commit store's journal: True (done there), False (not
    done, or the file is gone), None (the commit store cannot be read now)."""
    backend, _, path = commit_store.partition(":")
    if path == ":memory:" or not Path(path).is_file():
        return False
    try:
        other = open_driver(backend, path, timeout=_DECIDE_TIMEOUT)
    except StoreError:
        return None
    try:
        if backend == "sqlite":
            other.begin()              # waits while a running load holds its commit transaction open
            other.rollback()
        return state_of(other, load_id) == DONE
    except StoreError:
        return None
    finally:
        other.close()


def recover(store: Store, table: str | None = None) -> list[str]:
    """Finish or roll back every load left ``ready`` in this store; what was done, one line each."""
    if store.in_memory:
        return []
    notes = []
    for load_id, tbl, commit_store in pending(store, table):
        where = commit_store.partition(":")[2]
        verdict = decide(commit_store, load_id)
        if verdict is True:
            finish(store, load_id, tbl, commit_store)
            notes.append(f"{tbl}: finished the switch of an interrupted load that had committed in {where}: "
                         "the new items are in place")
        elif verdict is False:
            abandon(store, load_id, tbl, commit_store)
            notes.append(f"{tbl}: rolled back an interrupted load that had not committed in {where}: "
                         "the items are those of before it")
        else:
            notes.append(f"{tbl}: an interrupted load is still pending: {where} cannot be read now to tell whether "
                         "it committed")
    return notes
