"""The scratch store of an import: raw items by key in a temporary SQLite file.

An import first streams its source into this store, so that an incremental export can apply its
updates and deletes by key while memory stays flat, and so that the later passes (inference, row
files, the load, the checks) read the items back in key order as often as they need.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from blue_nb.errors import SourceError
from blue_nb.imports.infer_keys import canonical_key, is_key_value
from blue_nb.items.values import dumps_wire, item_from_wire, item_to_wire, loads_wire
from blue_nb.stores import Store, open_store
from blue_nb.stores.base import KeyConflict

__all__ = ["Applied", "RawStore"]

_CHUNK = 5_000


@dataclass
class Applied:
    """What applying a source's changes did."""

    items: int = 0              # full-export / table items
    inserted: int = 0           # incremental puts of a new key
    updated: int = 0            # incremental puts over an existing key
    deleted: int = 0            # incremental deletes of an existing key
    absent_deletes: int = 0     # deletes of a key that was not there
    absent_updates: int = 0     # updates (an OldImage given) of a key that was not there: a gap in the history


class RawStore:
    """Raw items by key (their DynamoDB JSON and where each came from) in a scratch SQLite file."""

    def __init__(self, path: str | Path, key_names: tuple[str, ...]):
        self.key_names = key_names
        self.store: Store = open_store("sqlite", path)
        self.store.execute("PRAGMA synchronous=OFF")          # scratch data: no fsync per transaction
        self.store.execute("CREATE TABLE raw (k TEXT PRIMARY KEY, data TEXT NOT NULL, src TEXT NOT NULL)")
        self.store.execute("CREATE TABLE assigned (k TEXT PRIMARY KEY, entity TEXT NOT NULL)")

    def close(self) -> None:
        self.store.close()

    def key_of(self, item: dict[str, Any], where: str) -> str:
        """The canonical text of an item's key (:func:`~.infer_keys.canonical_key`); a SourceError naming the
        key attribute when the item lacks it."""
        key = canonical_key(item, self.key_names)
        if key is None:
            name = next(n for n in self.key_names if not is_key_value(item.get(n)))
            raise SourceError(f"the item has no {'value' if name in item else 'attribute'} {name!r} for the "
                              f"table key ({', '.join(self.key_names)})", where=where,
                              hint="if the key is another attribute, say which: key=(partition key, sort key) "
                                   "(blue-nb import --key PK,SK)")
        return key

    # -- writing ---------------------------------------------------------------------------
    def apply(self, changes: Iterable[tuple], applied: Applied | None = None) -> Applied:
        """Apply changes: ``(op, item, where, kind)`` with op put/delete and kind item/insert/update/delete.
        Items of a full export (kind ``item``) must have distinct keys: a repeat is an error naming both."""
        applied = applied or Applied()
        batch: list[tuple[str, str, str]] = []
        pending = 0                                  # incremental changes in the open transaction
        try:
            for op, item, where, kind, *_ in changes:
                if kind == "item":
                    batch.append((self.key_of(item, where), dumps_wire(item_to_wire(item)), where))
                    if len(batch) >= _CHUNK:
                        applied.items += self._insert(batch)
                        batch = []
                    continue
                if batch:
                    applied.items += self._insert(batch)
                    batch = []
                if not pending:
                    self.store.begin()
                self._change(op, item, where, applied, kind)
                pending += 1
                if pending >= _CHUNK:
                    self.store.commit()
                    pending = 0
            if pending:
                self.store.commit()
                pending = 0
        finally:
            if pending:
                self.store.rollback()
        if batch:
            applied.items += self._insert(batch)
        return applied

    def _insert(self, batch: list[tuple[str, str, str]]) -> int:
        self.store.begin()
        try:
            self.store.insert_new("raw", ["k", "data", "src"], batch)
            self.store.commit()
        except KeyConflict:
            self.store.rollback()
            raise self._repeat(batch) from None
        except BaseException:
            self.store.rollback()
            raise
        return len(batch)

    def _repeat(self, batch: list[tuple[str, str, str]]) -> SourceError:
        """The first key of ``batch`` already stored (or repeated within it), as an error naming both places."""
        seen: dict[str, str] = {}
        for k, _, where in batch:
            found = self.store.execute("SELECT src FROM raw WHERE k = ?", (k,))
            first = found[0][0] if found else seen.get(k)
            if first:
                return SourceError(f"two items with the same key {k}: {first} and {where}", where=where,
                                   hint="a table holds one item per key: is the key right? Say which attributes "
                                        "it is: key=(partition key, sort key) (blue-nb import --key PK,SK)")
            seen[k] = where
        return SourceError("a key is repeated in the source, but it could not be found again", where=batch[0][2])

    def _change(self, op: str, item: dict[str, Any], where: str, applied: Applied, kind: str = "") -> None:
        k = self.key_of(item, where)
        there = bool(self.store.execute("SELECT 1 FROM raw WHERE k = ?", (k,)))
        if op == "delete":
            if there:
                self.store.execute("DELETE FROM raw WHERE k = ?", (k,))
                applied.deleted += 1
            else:
                applied.absent_deletes += 1
            return
        self.store.execute("INSERT OR REPLACE INTO raw (k, data, src) VALUES (?, ?, ?)",
                           (k, dumps_wire(item_to_wire(item)), where))
        if there:
            applied.updated += 1
        elif kind == "update":                       # an update of a key that was never put: history is missing
            applied.absent_updates += 1
        else:
            applied.inserted += 1

    def assign(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Record the entity of each key: (key text, entity) pairs; a key recorded before takes the new one."""
        batch = []
        for pair in pairs:
            batch.append(pair)
            if len(batch) >= _CHUNK:
                self._assigned(batch)
                batch = []
        if batch:
            self._assigned(batch)

    def _assigned(self, batch: list[tuple[str, str]]) -> None:
        self.store.begin()
        try:
            self.store.insert_rows("assigned", ["k", "entity"], batch)
            self.store.commit()
        except BaseException:
            self.store.rollback()
            raise

    # -- reading ---------------------------------------------------------------------------
    def count(self) -> int:
        return self.store.execute("SELECT count(*) FROM raw")[0][0]

    def items(self) -> Iterator[tuple[str, dict[str, Any], str]]:
        """(key text, item, where) of every item, in key order."""
        for k, data, src in self.store.rows("SELECT k, data, src FROM raw ORDER BY k", [], 2_000):
            yield k, item_from_wire(loads_wire(data)), src

    def items_of(self, entity: str) -> Iterator[tuple[str, dict[str, Any], str]]:
        """(key text, item, where) of the items assigned to one entity, in key order."""
        sql = "SELECT r.k, r.data, r.src FROM raw r JOIN assigned a ON a.k = r.k WHERE a.entity = ? ORDER BY r.k"
        for k, data, src in self.store.rows(sql, [entity], 2_000):
            yield k, item_from_wire(loads_wire(data)), src

    def entity_items(self) -> Iterator[tuple[str, dict[str, Any], str]]:
        """(entity, item, where) of every assigned item, in key order: what the loader takes."""
        sql = "SELECT a.entity, r.data, r.src FROM raw r JOIN assigned a ON a.k = r.k ORDER BY r.k"
        for entity, data, src in self.store.rows(sql, [], 2_000):
            yield entity, item_from_wire(loads_wire(data)), src
