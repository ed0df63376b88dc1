"""How items sit in the local SQL stores, and the one place that names their tables and columns.

For a spec's table ``blue_{domain}`` each store holds:

- ``blue_{domain}``: exactly ADR 0018's table ``(pk, sk, data JSON, created_at)``; ``data`` is the
  whole item in DynamoDB JSON, so every type survives unchanged;
- ``blue_{domain}__items`` (the *catalog*): one row per item with its entity, its exact size in
  bytes and each index's key values (``{index}__pk``, ``{index}__sk``), indexed per index so an
  index query is not a full scan; an item without an index's keys has NULLs there (sparse index).

While a load runs it writes the next version beside them (see :mod:`blue_nb.stores.load`):
``blue_{domain}__next`` and its catalog ``blue_{domain}__next__items`` (same columns, no secondary
indexes until the switch), ``blue_{domain}__next__src`` (the source row of each key of the load,
in the first store only), ``blue_{domain}__next__spec`` (which spec the items were built with: becomes
``blue_{domain}__spec`` at the switch), and one journal table per store file, ``blue_nb_loads``.
After a load, ``blue_{domain}__checks`` keeps the design checks' findings on its items (one row per spec
version checked); the next load's switch drops it.

Pure: the DDL and the row shapes are data; the stores (layer 2) execute them. Every identifier
written into SQL goes through :func:`quote_ident`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from blue_nb.errors import StoreError
from blue_nb.items.item_json import dumps_item
from blue_nb.items.values import number_text, validate_number
from blue_nb.spec import Spec

__all__ = ["KEY_FORMAT", "KEY_SQL", "LOADS_TABLE", "MAIN_COLUMNS", "TableLayout", "catalog_name", "catalog_table_sql", "checks_record_name",
           "has_number_keys", "index_column", "item_shape_digest", "main_table_sql", "quote_ident", "source_rows_name", "spec_record_name",
           "staging_name", "stored_key"]

_IDENT = re.compile(r"^[A-Za-z0-9_.-]{1,255}$")
MAIN_COLUMNS = ["pk", "sk", "data", "created_at"]
LOADS_TABLE = "blue_nb_loads"        # the journal of loads: one per store file


def quote_ident(name: str) -> str:
    """A validated, double-quoted SQL identifier (table and index names are [A-Za-z0-9_.-])."""
    if not _IDENT.match(name or ""):
        raise StoreError(f"invalid identifier {name!r}", hint="table and index names use letters, digits, _ . -")
    return f'"{name}"'


def catalog_name(table: str) -> str:
    """The catalog table beside ``table``."""
    return f"{table}__items"


def staging_name(table: str) -> str:
    """The table a load writes the next version of ``table`` into (its catalog: ``catalog_name`` of it)."""
    return f"{table}__next"


def source_rows_name(table: str) -> str:
    """The staging side table of a load: (pk, sk) -> the source row ("file:line") that made the item."""
    return f"{staging_name(table)}__src"


def spec_record_name(table: str) -> str:
    """The side table saying which spec built the items of ``table``: one row (digest, spec, loaded_at)."""
    return f"{table}__spec"


def checks_record_name(table: str) -> str:
    """The side table keeping the design checks' findings on the items of ``table`` (see the module docstring)."""
    return f"{table}__checks"


def item_shape_digest(spec: Spec) -> str:
    """A digest of what shapes a spec's items (the table, its keys and indexes, the entities and their
    templates, attributes and sources): two specs with the same digest build the same items from the same
    rows, so items loaded with one can be checked for the other. Access patterns, rates, capacity and
    descriptions are left out: changing them needs no new load."""
    t = spec.table
    shape = {"table": [spec.table_name, t.partition_key, t.sort_key, t.partition_key_type, t.sort_key_type],
             "indexes": {n: [i.type, i.partition_key, i.sort_key, i.partition_key_type, i.sort_key_type]
                         for n, i in t.indexes.items()},
             "entities": {n: [e.key, e.attributes, e.source or n] for n, e in spec.entities.items()}}
    return hashlib.sha256(json.dumps(shape, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def index_column(index: str, key: str) -> str:
    """The catalog column holding an index's partition (``key="pk"``) or sort (``"sk"``) key value."""
    if key not in ("pk", "sk"):
        raise ValueError(f"index key column is 'pk' or 'sk', not {key!r}")
    return f"{index}__{key}"


def stored_key(value: Any) -> str | None:
    """A key value as stored in the TEXT key columns: a string as it is, a number (an int or a ``Decimal``)
    as DynamoDB's canonical text (:func:`~blue_nb.items.values.number_text`: ``1.5``, ``1.50`` and ``1.500``
    are one key, as in DynamoDB), binary as base64. Two key values of one type are equal exactly when
    their stored texts are, so every equality on a key (a query, a GetItem, the load's duplicate check) is
    an equality of texts."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (Decimal, int)) and not isinstance(value, bool):
        return number_text(validate_number(value))
    return str(value)


KEY_SQL = "PRIMARY KEY (pk, sk)"

#: How the key columns hold key values, recorded by each load beside the spec that built the items. 1 (loads
#: before it was recorded): numbers as they were written, so ``1.50`` and ``1.5`` were two keys; 2: numbers
#: in DynamoDB's canonical text (:func:`stored_key`). Strings and binary are stored alike in both.
KEY_FORMAT = 2


def has_number_keys(spec: Spec) -> bool:
    """Whether a key of the spec's table or of one of its indexes is a number (its stored keys then depend on
    :data:`KEY_FORMAT`)."""
    t = spec.table
    return "N" in {t.partition_key_type, t.sort_key_type if t.sort_key else "S",
                   *(i.partition_key_type for i in t.indexes.values() if i.type == "global"),
                   *(i.sort_key_type for i in t.indexes.values() if i.sort_key)}


def main_table_sql(table: str) -> str:
    """ADR 0018's table, exactly."""
    return (f"CREATE TABLE {quote_ident(table)} (\n  pk TEXT NOT NULL,\n  sk TEXT NOT NULL,\n"
            f"  data JSON NOT NULL,\n  created_at TEXT NOT NULL,\n  {KEY_SQL}\n)")


def catalog_table_sql(table: str, indexes: list[str]) -> list[str]:
    """The derived catalog table and its indexes."""
    cat = quote_ident(catalog_name(table))
    cols = "".join(f",\n  {quote_ident(index_column(i, 'pk'))} TEXT,\n  {quote_ident(index_column(i, 'sk'))} TEXT"
                   for i in indexes)
    stmts = [f"CREATE TABLE {cat} (\n  pk TEXT NOT NULL,\n  sk TEXT NOT NULL,\n  entity TEXT,\n"
             f"  size INTEGER NOT NULL{cols},\n  {KEY_SQL}\n)"]
    for i in indexes:
        stmts.append(f"CREATE INDEX {quote_ident(f'{table}__{i}')} ON {cat} "
                     f"({quote_ident(index_column(i, 'pk'))}, {quote_ident(index_column(i, 'sk'))})")
    return stmts


@dataclass(frozen=True)
class TableLayout:
    """The local tables of one spec: names, columns and the rows an item becomes."""

    table: str
    pk: str
    sk: str | None
    indexes: dict[str, tuple[str, str | None]]

    @classmethod
    def of(cls, spec: Spec) -> "TableLayout":
        quote_ident(spec.table_name)
        for name in spec.table.indexes:
            quote_ident(name)
        return cls(spec.table_name, spec.table.partition_key, spec.table.sort_key, spec.index_key_attributes())

    @property
    def catalog(self) -> str:
        return catalog_name(self.table)

    def staging(self) -> "TableLayout":
        """The same layout on the staging tables a load writes before it switches them in."""
        return TableLayout(staging_name(self.table), self.pk, self.sk, self.indexes)

    def index_pk(self, index: str) -> str:
        """The catalog column of an index's partition key (``"pk"`` for the table itself)."""
        return "pk" if index == "table" else index_column(index, "pk")

    def index_sk(self, index: str) -> str:
        """The catalog column of an index's sort key (``"sk"`` for the table itself)."""
        return "sk" if index == "table" else index_column(index, "sk")

    @property
    def catalog_columns(self) -> list[str]:
        cols = ["pk", "sk", "entity", "size"]
        for i in self.indexes:
            cols += [index_column(i, "pk"), index_column(i, "sk")]
        return cols

    def rows(self, entity: str | None, item: dict[str, Any], size: int, created: str) -> tuple[tuple, tuple]:
        """(main row, catalog row) of one item of ``size`` bytes."""
        pk = stored_key(item[self.pk])
        sk = stored_key(item.get(self.sk)) if self.sk else ""
        data = dumps_item(item)
        made = item.get("created_at") if isinstance(item.get("created_at"), str) else created
        cat = [pk, sk, entity, size]
        for ipk, isk in self.indexes.values():
            has = ipk in item and (isk is None or isk in item)
            cat += [stored_key(item[ipk]) if has else None, stored_key(item.get(isk)) if has and isk else None]
        return (pk, sk, data, made), tuple(cat)
