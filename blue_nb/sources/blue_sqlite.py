"""Rows of Blue's SQLite tables (ADR 0018: ``blue_{domain}(pk, sk, data JSON, created_at)``) as items.

Pure decoding; the file itself is read through the read-only SQLite store (the rooms of one
layer do not import each other, so the imports layer above joins the two, in
:mod:`blue_nb.imports.table_sources`). ``data`` holds the non-key attributes as plain JSON
(numbers read exactly, as Decimal; lists and maps kept; JSON has no sets or binary); when every
value of ``data`` is DynamoDB JSON (blue_nb's own store files hold the whole item so), it is
decoded as DynamoDB JSON instead.
"""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any, Iterable

from blue_nb.errors import ItemError, SourceError
from blue_nb.items.build import MAX_NESTING, loads_json
from blue_nb.items.values import TYPE_TAGS, item_from_wire, item_to_wire, loads_wire

__all__ = ["ADR_COLUMNS", "check_columns", "data_mode", "decode_row", "looks_wire", "wire_key_names"]

ADR_COLUMNS = ("pk", "sk", "data", "created_at")


def check_columns(path: str, table: str, columns: list[str]) -> list[str]:
    """The extra columns of an ADR 0018 table (ignored); a table without ADR 0018's columns is an error."""
    if not columns:
        raise SourceError(f"no table {table!r} in the file", where=f"{path}:{table}",
                          hint="name a blue_<domain> table of the file")
    missing = [c for c in ADR_COLUMNS if c not in columns]
    if missing:
        raise SourceError(f"table {table!r} has columns ({', '.join(columns)}); it needs ADR 0018's "
                          f"({', '.join(ADR_COLUMNS)}): {', '.join(missing)} missing", where=f"{path}:{table}",
                          hint="only tables in ADR 0018's shape are read: pk TEXT, sk TEXT, data JSON, created_at TEXT")
    return [c for c in columns if c not in ADR_COLUMNS]


def looks_wire(obj: Any) -> bool:
    """True when every value of a JSON object is a DynamoDB JSON value ({"S": ...}, {"N": ...}, ...)."""
    return isinstance(obj, dict) and bool(obj) and all(
        isinstance(v, dict) and len(v) == 1 and next(iter(v)) in TYPE_TAGS for v in obj.values())


def data_mode(samples: Iterable[str]) -> str:
    """"wire" when every sampled ``data`` value that is JSON is shaped as DynamoDB JSON, else "plain".

    A value that is not JSON at all, or DynamoDB JSON holding a bad value, says nothing about the
    table's way: it is left out here, and refused when its row is read, named by its own key."""
    seen = False
    for text in samples:
        try:
            obj = loads_wire(text)
        except ItemError:
            continue
        if not looks_wire(obj):
            return "plain"
        seen = True
        try:
            item_from_wire(obj)
        except ItemError:
            continue
    return "wire" if seen else "plain"


def wire_key_names(item: dict[str, Any], pk: str, sk: str) -> tuple[str, str | None]:
    """The attributes of a wire item that hold the pk / sk column values ("pk"/"sk" when they do)."""
    def find(text: str, first: str) -> str | None:
        if _text(item.get(first)) == text:
            return first
        return next((k for k, v in item.items() if _text(v) == text), None)
    pk_name = find(pk, "pk") or "pk"
    sk_name = (find(sk, "sk") or "sk") if sk != "" else None
    return pk_name, sk_name


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return None


def decode_row(pk: str, sk: str, data: str, where: str, mode: str, keys: tuple[str, str | None]) -> dict[str, Any]:
    """One row -> one item (checked as DynamoDB would). ``keys`` are the key attribute names."""
    pk_name, sk_name = keys
    try:
        if mode == "wire":
            obj = loads_wire(data, where)
            if not looks_wire(obj):
                raise SourceError("data is not DynamoDB JSON, unlike the other rows of the table", where=where,
                                  hint="write every row's data the same way: all DynamoDB JSON or all plain JSON")
            item = item_from_wire(obj, where)
        else:
            item = loads_json(data, where, ints=Decimal, max_depth=MAX_NESTING + 1, label="data",
                              hint="data holds the item's non-key attributes as one JSON object")
            if not isinstance(item, dict):
                raise SourceError("data is not a JSON object", where=where,
                                  hint="data holds the item's non-key attributes as one JSON object")
        for name, column in ((pk_name, pk), (sk_name, sk)):
            if name is None:
                continue
            if name in item and _text(item[name]) != column:
                raise SourceError(f"data holds {name}={_text(item[name])!r:.60}, but the {name} column is "
                                  f"{column!r:.60}", where=where, hint="the key columns and data must agree")
            item.setdefault(name, column)
        item_to_wire(item)                       # every value as DynamoDB would check it
    except ItemError as e:
        at = e.where if e.where.startswith(where) else f"{where} {e.where}".rstrip()
        raise SourceError(e.msg, where=at, hint=e.hint, cause=e) from e
    return item
