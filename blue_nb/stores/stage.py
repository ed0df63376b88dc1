"""The staging phase of a load (:mod:`blue_nb.stores.load`): every item written into the staging tables of
every store, one committed chunk at a time, and a key seen twice refused naming both source rows.

The load's input is a stream of ``(entity, item[, where])`` tuples, of :class:`~blue_nb.layout.StagedRows`
a source built itself, or of both; tuples become rows here, a chunk at a time. A replace load inserts
plainly (its staging tables start empty: a key met again is refused by the staged table's primary key) and
keeps the source rows (``{table}__next__src``) without a key of their own, for the message.
"""

from __future__ import annotations

import queue
import threading
from collections import Counter
from typing import Iterable, Iterator

from blue_nb.errors import SourceError
from blue_nb.layout import MAIN_COLUMNS, TableLayout, quote_ident
from blue_nb.layout import source_rows_name
from blue_nb.layout import StagedRows
from blue_nb.stores.base import KeyConflict, Store

__all__ = ["Ahead", "chunks", "duplicate", "stage", "write_chunk"]

SRC_COLUMNS = ["pk", "sk", "entity", "src"]


def stage(order: list[Store], layout: TableLayout, items: Iterable, bar, created: str,
          mode: str) -> tuple[int, dict[str, int]]:
    """Write every item into the staging tables, one committed chunk at a time. Returns the items written, and
    per entity. A key met again in a later chunk: in an upsert, the source rows' table (keyed) refuses it; in
    a replace, which inserts plainly, the staged table does. The chunks are made in a thread of their own
    (:class:`Ahead`) while the stores write the chunk before."""
    nxt = layout.staging()
    src_table = source_rows_name(layout.table)
    per_entity: Counter = Counter()
    written = 0
    with Ahead(_keyed(_staged(items, layout, min(s.chunk_size for s in order), created), per_entity)) as ready:
        for rows, src in ready:
            write_chunk(order, nxt, src_table, mode, rows, src)
            written += len(rows)
            bar.update(len(rows))
    return written, dict(per_entity)


def _keyed(chunks: Iterator[StagedRows], per_entity: Counter) -> Iterator[tuple[StagedRows, list[tuple]]]:
    """Each chunk with its source rows ``(pk, sk, entity, where)``, after refusing a key twice in it (the first
    repeat, with both rows); the items counted per entity."""
    for rows in chunks:
        keys = [m[:2] for m in rows.main]
        if len(set(keys)) < len(keys):
            seen: dict[tuple[str, str], tuple[str | None, str]] = {}
            for key, entity, where in zip(keys, rows.entities, rows.wheres):
                if key in seen:
                    raise duplicate(key, seen[key], (entity, where))
                seen[key] = (entity, where)
        per_entity.update(e or "?" for e in rows.entities)
        yield rows, [(*k, e, w) for k, e, w in zip(keys, rows.entities, rows.wheres)]


def write_chunk(order: list[Store], nxt, src_table: str, mode: str, rows: StagedRows, src: list[tuple]) -> None:
    """One chunk committed to the staging tables of every store, or to none."""
    begun = []
    try:
        for store in order:
            store.begin()
            begun.append(store)
        order[0].insert_new(src_table, SRC_COLUMNS, src)
        for store in order:
            put = store.insert_new if mode == "replace" else store.insert_rows
            put(nxt.table, MAIN_COLUMNS, rows.main)
            put(nxt.catalog, nxt.catalog_columns, rows.cat)
        for store in order:
            store.commit()
    except KeyConflict:
        for store in begun:
            store.rollback()
        raise _duplicate_across(order[0], src_table, {(pk, sk): (e, w) for pk, sk, e, w in src}) from None
    except BaseException:
        for store in begun:
            store.rollback()
        raise


class Ahead:
    """An iterator's items made in a thread of their own, ``depth`` ahead of the caller: a load's next chunk is
    built (Python) while the stores write the one before (SQLite and DuckDB let go of Python's lock while they
    work), so on two cores a load takes about the time of the longer of the two, not their sum. An error of the
    iterator is raised to the caller at its place in the order. Leaving the ``with`` block (done, an error, an
    interrupt) stops the thread at its next hand-over and waits for it, so ``it``'s own source can be read on
    afterwards by the caller."""

    _END = object()

    def __init__(self, it: Iterator, depth: int = 1):
        self._it = it
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="blue-nb-load-chunks", daemon=True)

    def __enter__(self) -> Iterator:
        self._thread.start()
        return self._items()

    def __exit__(self, *exc) -> None:
        self._stop.set()
        while self._thread.is_alive():       # a put blocked on a full queue sees the stop within its timeout
            self._thread.join(0.05)

    def _run(self) -> None:
        try:
            for x in self._it:
                if not self._hand((x, None)):
                    break
            else:
                self._hand((self._END, None))
        except BaseException as e:        # to the caller, in order
            self._hand((None, e))
        finally:
            close = getattr(self._it, "close", None)
            if close is not None:
                close()

    def _hand(self, got: tuple) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(got, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _items(self) -> Iterator:
        while True:
            x, error = self._queue.get()
            if error is not None:
                raise error
            if x is self._END:
                return
            yield x


def _staged(items: Iterable, layout: TableLayout, n: int, created: str) -> Iterator[StagedRows]:
    """The load's input in chunks of about ``n`` rows: tuples built into rows ``n`` at a time, rows a source
    built gathered until there are ``n``."""
    tuples: list[tuple] = []
    ready = StagedRows()
    done = 0                                  # items before ``tuples`` and ``ready``: positions name items
    for x in items:
        if isinstance(x, StagedRows):
            if tuples:
                ready.extend(StagedRows.of_items(layout, tuples, created, done + len(ready) + 1))
                tuples = []
            ready.extend(x)
        else:
            tuples.append(x)
            if len(tuples) + len(ready) < n:
                continue
            ready.extend(StagedRows.of_items(layout, tuples, created, done + len(ready) + 1))
            tuples = []
        if len(ready) >= n:
            done += len(ready)
            yield ready
            ready = StagedRows()
    if tuples:
        ready.extend(StagedRows.of_items(layout, tuples, created, done + len(ready) + 1))
    if len(ready):
        yield ready


def duplicate(key: tuple[str, str], first: tuple[str | None, str], second: tuple[str | None, str]) -> SourceError:
    (e1, w1), (e2, w2) = first, second
    what = f"{e1} row" if e1 == e2 else f"{e1} row and a {e2} row"
    return SourceError(
        f"two source rows make the same item key (pk {key[0]!r}, sk {key[1]!r}): {w1} and {w2} (a {what}); "
        "the second would silently replace the first", where=w2,
        hint=f"make the key templates unique: add the column that tells these rows apart to the key template of "
             f"{e2 or 'the entity'} (e.g. its sort key), or remove the duplicate row")


def _duplicate_across(store: Store, src_table: str,
                      chunk: dict[tuple[str, str], tuple[str | None, str]]) -> SourceError:
    """The first key of ``chunk`` already staged by an earlier chunk, as a duplicate error."""
    keys = list(chunk)
    for i in range(0, len(keys), 500):
        part = keys[i:i + 500]
        pks = sorted({k[0] for k in part})
        marks = ", ".join("?" for _ in pks)
        rows = store.execute(f"SELECT pk, sk, entity, src FROM {quote_ident(src_table)} WHERE pk IN ({marks})", pks)
        found = {(pk, sk): (e, w) for pk, sk, e, w in rows}
        for k in part:
            if k in found:
                return duplicate(k, found[k], chunk[k])
    return SourceError("a key of the load is already staged, but it could not be found again", where=store.path,
                       hint="load again; if it happens again, report it")


def chunks(items: Iterable, n: int) -> Iterator[list]:
    chunk = []
    for x in items:
        chunk.append(x)
        if len(chunk) >= n:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
