"""Loading items into the stores: streamed into staging tables, then switched in at one commit
point, so that after any interruption every store holds the old items or the new ones, never a mix.

Phases of :func:`load_items`:

1. **prepare**, per store: finish or roll back an interrupted load of the table (journal
   recovery), drop leftover staging tables, create fresh ones (``{table}__next`` and its catalog;
   in the first store also ``{table}__next__src``, the source row of each key). In upsert mode the
   staging tables start as a copy of the current ones, made inside the database.
2. **stage** (:mod:`blue_nb.stores.stage`): the items (or the rows a source built for them) are read
   in chunks (a few thousand at a time: memory stays flat however many there are); each chunk is
   committed to the staging tables of every store. A key seen twice in the load is refused, naming
   both source rows: within a chunk by a set of its keys, across chunks by a primary key (the staged table's
   in a replace, ``{table}__next__src``'s in an upsert). The visible tables are untouched.
3. **switch** (:mod:`blue_nb.stores.journal`): the other stores record the load as ``ready``; one
   transaction in the *commit store* (the first store that is a file: SQLite when both are given)
   swaps its staging tables in and records the load ``done`` - the commit point; then each other
   store swaps in its own transaction. A store interrupted between the commit point and its swap
   finishes it (or, if the commit point was not reached, drops its staging) when next opened.

Before the commit point an error or an interrupt changes nothing (the staging tables are dropped
on the way out, or by the next load); after it, the message says which stores hold the new items
and which finish the switch when next opened (:class:`LoadInterrupted` for Ctrl-C).
"""

from __future__ import annotations

import contextlib
import gc
import time
import uuid
from typing import Iterable

from blue_nb.errors import BlueNbError, StoreError
from blue_nb.items.item_json import stored_item
from blue_nb.patterns import data_bytes
from blue_nb.layout import MAIN_COLUMNS, TableLayout, catalog_table_sql, main_table_sql, quote_ident
from blue_nb.layout import KEY_SQL, source_rows_name
from blue_nb.layout import StagedRows, load_time
from blue_nb.sizing import item_sizes
from blue_nb.spec import Spec
from blue_nb.stores import journal
from blue_nb.stores.base import Store
from blue_nb.stores.load_result import LoadResult, LoadResults
from blue_nb.stores.lock import load_lock
from blue_nb.stores.stage import chunks, stage

__all__ = ["LoadInterrupted", "LoadResult", "LoadResults", "load_items", "load_tables"]

_NAMES = {"sqlite": "SQLite", "duckdb": "DuckDB"}


@contextlib.contextmanager
def _no_cycle_collection():
    """Python's cycle collector paused while a load runs. A load makes millions of short-lived dicts and
    lists, none in a reference cycle (reference counting frees each chunk); the collector would walk the
    heap again and again for nothing: a quarter of the load's time (100k items into SQLite, 7.8 s -> 5.9 s)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class LoadInterrupted(KeyboardInterrupt):
    """Ctrl-C during a load. ``message`` says truly what the stores hold; ``committed`` is whether
    the load passed its commit point (the new items are in, or will be when each store is opened)."""

    def __init__(self, message: str, committed: bool):
        super().__init__(message)
        self.message = message
        self.committed = committed


def load_items(stores: list[Store], spec: Spec, items: Iterable[tuple | StagedRows], *, mode: str = "replace",
               total: int | None = None, progress: bool = True, created: str | None = None,
               load_id: str | None = None) -> LoadResults:
    """Load ``(entity, item)`` or ``(entity, item, where)`` tuples into one or more stores in one pass;
    a source that built the rows of its items itself gives :class:`~blue_nb.layout.StagedRows`
    among them (made with the same ``created``: the time of the load, by default now).

    ``where`` names the source row ("file:line") for messages; without it an item is named by its
    position. All of it lands, or, on any error or interrupt before the commit point, none of it,
    in every store (see the module docstring for the phases). ``mode='replace'``: the table then
    mirrors the data exactly; ``'upsert'``: other items are kept and an item with the key of one
    already in the table replaces it. Two items of one load with the same key are a
    :class:`~blue_nb.errors.SourceError` naming both source rows, whatever the mode. The results
    (one per store, in the order given) say what the load replaced and how long it took.
    ``load_id`` names the load in the journals (default: a new one), so that a caller can later ask the
    commit store whether it committed (:func:`blue_nb.stores.journal.decide`).
    """
    return load_tables(stores, [(spec, items, total, load_id)], mode=mode, progress=progress, created=created)[0]


def load_tables(stores: list[Store], tables: list[tuple[Spec, Iterable[tuple | StagedRows], int | None, str | None]],
                *, mode: str = "replace", progress: bool = True, created: str | None = None) -> list[LoadResults]:
    """Load several tables into the stores as :func:`load_items` loads one, all of them at one commit
    point: ``tables`` holds ``(spec, items, total, load_id)`` per table (``load_id`` None: a new one).
    Every table is staged first; then one transaction in the commit store swaps all of them in, so
    an error or an interrupt leaves every table old, or (after the commit point) every table new.
    The results: one :class:`LoadResults` per table, in the order given."""
    if mode not in ("replace", "upsert"):
        raise StoreError(f"unknown load mode {mode!r}", hint="use 'replace' or 'upsert'")
    if not stores:
        return [LoadResults() for _ in tables]
    started = time.perf_counter()
    first = next((s for s in stores if not s.in_memory), stores[0])       # the commit store
    order = [first, *[s for s in stores if s is not first]]
    plans = [(TableLayout.of(spec), spec, items, total, load_id or uuid.uuid4().hex)
             for spec, items, total, load_id in tables]
    names = [layout.table for layout, *_ in plans]
    if len(set(names)) < len(names):
        raise StoreError(f"table {names[0]!r} is given twice in one load", hint="load each table once")
    results = [{id(s): LoadResult(layout.table, load_id=load_id, mode=mode, store=s.kind, path=str(s.path))
                for s in stores} for layout, _, _, _, load_id in plans]
    staged: list[tuple[str, str]] = []                  # (table, load id) of each table prepared so far
    counts: list[tuple[int, dict[str, int]]] = []
    with load_lock(order), _no_cycle_collection():
        try:
            for (layout, spec, items, total, load_id), res in zip(plans, results):
                bar = _progress(total, f"load {layout.table} into {', '.join(s.kind for s in stores)}", progress)
                try:
                    staged.append((layout.table, load_id))
                    for store in order:
                        r = res[id(store)]
                        r.notes = [f"created folder {store.created_folder}"] if store.created_folder else []
                        r.notes += list(store.recovered) if not counts else []
                        r.items_before = _prepare(store, layout, mode, r.notes, with_src=store is first, spec=spec)
                    counts.append(stage(order, layout, items, bar, created or load_time(), mode))
                    nxt = layout.staging().table
                    for store in order:
                        res[id(store)].items_after = store.count(nxt)
                finally:
                    bar.close()
        except BaseException as e:
            for table, load_id in staged:
                _discard(order, table, load_id)
            if isinstance(e, KeyboardInterrupt) and not isinstance(e, LoadInterrupted):
                raise LoadInterrupted("interrupted: nothing was changed (the load had not reached its switch)",
                                      committed=False) from e
            raise
        try:
            _switch(order, staged)
        except KeyboardInterrupt as e:   # one that landed outside the switch's own handlers
            if isinstance(e, LoadInterrupted) or not _committed(order[0], staged[0][1]):
                raise
            raise LoadInterrupted(f"interrupted after the switch: {_after_commit(order[:1], order[1:])}",
                                  committed=True) from e
    try:
        out = []
        for res, (written, per_entity) in zip(results, counts):
            one = LoadResults()
            for store in stores:
                r = res[id(store)]
                r.items_written, r.per_entity = written, dict(per_entity)
                # replace: every item that was there; upsert: those written again under their key
                r.replaced = r.items_before if mode == "replace" else written - (r.items_after - r.items_before)
                r.seconds = time.perf_counter() - started
                one.append(r)
            out.append(one)
    except KeyboardInterrupt as e:
        raise LoadInterrupted(f"interrupted after the load completed: {_after_commit(order, [])}",
                              committed=True) from e
    return out


def _prepare(store: Store, layout: TableLayout, mode: str, notes: list[str], *, with_src: bool, spec: Spec) -> int:
    """Settle any earlier load of the table, then create fresh staging tables; the items before."""
    notes += journal.recover(store, layout.table)
    left = journal.pending(store, layout.table)
    if left:
        raise StoreError(f"an interrupted load of {layout.table!r} is still pending here: its commit store "
                         f"{left[0][2].partition(':')[2]} cannot be read to tell whether it committed",
                         where=store.path, hint="close any program that holds that file open, then load again")
    store.check_table(layout)
    before = store.count(layout.table) if store.has_table(layout.table) else 0
    if mode == "upsert" and before:
        try:                                 # an upsert keeps the items there: their keys must compare as the new ones
            journal.require_key_format(store, spec)
        except StoreError as e:
            raise StoreError(e.msg, where=e.where, hint="load it again with --mode replace") from None
    nxt = layout.staging()
    store.begin()
    try:
        journal.drop_staging(store, layout.table)
        store.execute(main_table_sql(nxt.table))
        store.execute(catalog_table_sql(nxt.table, list(nxt.indexes))[0])       # its indexes come at the switch
        if with_src:                 # keyed in an upsert only: a replace's staged table refuses a repeated key
            key = f", {KEY_SQL}" if mode == "upsert" else ""
            store.execute(f"CREATE TABLE {quote_ident(source_rows_name(layout.table))} (pk TEXT NOT NULL, "
                          f"sk TEXT NOT NULL, entity TEXT, src TEXT NOT NULL{key})")
        if mode == "upsert" and before:
            _copy_current(store, layout)
        journal.stage_spec_record(store, layout.table, spec, keep=bool(mode == "upsert" and before))
        store.commit()
    except BaseException:
        store.rollback()
        raise
    return before


def _copy_current(store: Store, layout: TableLayout) -> None:
    """Upsert: the staging tables start as the current ones (catalog rows recomputed if the indexes changed)."""
    nxt = layout.staging()
    cols = ", ".join(quote_ident(c) for c in MAIN_COLUMNS)
    store.execute(f"INSERT INTO {quote_ident(nxt.table)} ({cols}) SELECT {cols} FROM {quote_ident(layout.table)}")
    if store.table_columns(layout.catalog) == layout.catalog_columns:
        cols = ", ".join(quote_ident(c) for c in layout.catalog_columns)
        store.execute(f"INSERT INTO {quote_ident(nxt.catalog)} ({cols}) "
                      f"SELECT {cols} FROM {quote_ident(layout.catalog)}")
        return
    has_entity = "entity" in store.table_columns(layout.catalog)
    t, c = quote_ident(layout.table), quote_ident(layout.catalog)
    entity = "c.entity" if has_entity else "NULL"
    join = f"LEFT JOIN {c} c ON c.pk = t.pk AND c.sk = t.sk" if has_entity else ""
    # one query streamed in chunks (a query per chunk, ordered and limited, would order the table again each time)
    data = data_bytes(store.kind, "t.data")
    stream = store.rows(f"SELECT t.pk, t.sk, {data}, t.created_at, {entity} FROM {t} t {join}", [], store.chunk_size)
    for rows in chunks(stream, store.chunk_size):
        found = [stored_item(r[2]) for r in rows]
        cats = [layout.rows(r[4], item, size, r[3])[1] for r, item, size in zip(rows, found, item_sizes(found))]
        store.insert_rows(nxt.catalog, layout.catalog_columns, cats)


def _switch(order: list[Store], tables: list[tuple[str, str]]) -> None:
    """Mark the others ready, commit every table in the first store in one transaction, then swap the
    others in (see the journal); ``tables`` holds (table, load id) pairs."""
    first, others = order[0], order[1:]
    decision = first.ref
    committed = False
    first.begin()                  # held from here: a recovery elsewhere waits for the outcome
    try:
        journal.ensure_journal(first)
        for store in others:
            journal.ensure_journal(store)
            for table, load_id in tables:
                journal.record(store, load_id, table, journal.READY, decision)
        for table, load_id in tables:
            journal.swap_in(first, table)
            journal.record(first, load_id, table, journal.DONE, decision)
        first.commit()
        committed = True
    except BaseException as e:
        first.rollback()
        committed = _committed(first, tables[0][1])
        if not committed:
            for table, load_id in tables:
                _discard(order, table, load_id)
            if isinstance(e, KeyboardInterrupt):
                raise LoadInterrupted("interrupted: nothing was changed (the load stopped before its switch)",
                                      committed=False) from e
            raise
    done = [first]
    try:
        for store in others:
            for table, load_id in tables:
                journal.finish(store, load_id, table, decision)
            done.append(store)
    except BaseException as e:
        rest = [s for s in others if s not in done]
        for store in rest:
            if store.in_memory:          # gone with the process, so not left for a recovery: finish it now
                try:
                    for table, load_id in tables:
                        journal.finish(store, load_id, table, decision)
                    done.append(store)
                except BaseException:    # noqa: BLE001 - the message below names it as unfinished
                    pass
        rest = [s for s in others if s not in done]
        if not rest and not isinstance(e, KeyboardInterrupt):
            return
        msg = _after_commit(done, rest)
        if isinstance(e, KeyboardInterrupt):
            raise LoadInterrupted(f"interrupted after the switch: {msg}", committed=True) from e
        cause = e.msg if isinstance(e, BlueNbError) else repr(e)
        raise StoreError(f"the load committed, but a store failed to switch ({cause}): {msg}",
                         where=rest[0].path if rest else "", cause=e,
                         hint="open that store again (any blue-nb command or open_store does): it finishes the switch "
                              "then") from e


def _committed(store: Store, load_id: str) -> bool:
    try:
        return journal.state_of(store, load_id) == journal.DONE
    except StoreError:
        return False


def _after_commit(done: list[Store], rest: list[Store]) -> str:
    have = " and ".join(_name(s) for s in done)
    if not rest:
        return f"the new items are in {have}"
    later = [s for s in rest if not s.in_memory]
    lost = [s for s in rest if s.in_memory]
    text = f"the new items are in {have}"
    if later:
        text += f"; {' and '.join(_name(s) for s in later)} finish{'es' if len(later) == 1 else ''} the switch " \
                "when next opened"
    if lost:
        text += f"; the in-memory {' and '.join(_name(s) for s in lost)} still hold{'s' if len(lost) == 1 else ''} " \
                "the old items"
    return text


def _name(store: Store) -> str:
    name = _NAMES.get(store.kind, store.kind)
    return name if store.in_memory else f"{name} ({store.path})"


def _discard(order: list[Store], table: str, load_id: str) -> None:
    """Before the commit point: roll back, drop the staging tables, mark ready loads abandoned.
    Best effort: what is left over is dropped by the next load or by recovery."""
    for store in order:
        try:
            store.rollback()
            journal.abandon(store, load_id, table, order[0].ref)
        except Exception:     # noqa: BLE001 - the load's own error is the one to report
            pass


class _NoBar:
    def update(self, n: int) -> None: ...
    def close(self) -> None: ...


def _progress(total: int | None, desc: str, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm  # deferred: tqdm.auto loads asyncio, ~0.1 s of every command's start
    return tqdm(total=total, desc=desc, unit="item", unit_scale=True, mininterval=0.5)
