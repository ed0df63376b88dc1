"""Arrow table cells -> the Python value model (pure: no pyarrow here), for the batch sizing of a table
(:func:`blue_nb.sizing.columnar.item_size_column`).

:func:`check_names` checks a table's columns against a ``types`` mapping (attribute -> DynamoDB type tag);
:func:`cell_value` reads one L / M / SS / NS / BS cell (``to_pylist()`` of a nested Arrow value, or DynamoDB
JSON text) back into the Python value model; :func:`row_where` says where a cell is.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from blue_nb.errors import ItemError
from blue_nb.items.values import TYPE_TAGS, from_wire, loads_wire

__all__ = ["NAME_HINT", "cell_value", "check_names", "row_where"]

NAME_HINT = "every column of the table is one attribute: give its DynamoDB type in `types`"
_TAGS_HINT = f"use one of {sorted(TYPE_TAGS)}"


def row_where(name: str, row: int) -> str:
    """Where a cell is: ``"name (row 3)"``."""
    return f"{name} (row {row})" if name else f"row {row}"


def check_names(names: list[str], types: Mapping[str, str]) -> None:
    """:class:`ItemError` for duplicate columns, columns without a (known) type, or bad attribute names."""
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ItemError(f"the table has duplicate columns {dup}", where=dup[0], hint="an item has each attribute once")
    for name in names:
        if name not in types:
            raise ItemError(f"column {name!r} has no type", where=name, hint=NAME_HINT)
        if types[name] not in TYPE_TAGS:
            raise ItemError(f"column {name!r} has unknown type {types[name]!r}", where=name, hint=_TAGS_HINT)
        if not name or len(name.encode("utf-8")) > 65_536:
            raise ItemError(f"attribute name {name[:60]!r} must be 1 byte to 64 KB long", where=name, hint="rename it")


def cell_value(v: Any, tag: str, shape: str, where: str) -> Any:
    """Python value of one L/M/SS/NS/BS cell, checked against ``tag``: DynamoDB JSON text, or a nested
    Arrow value as Python (``shape`` "map" / "struct" for those Arrow types). The null fields of a
    struct are absent keys (write DynamoDB JSON text to keep an explicit NULL inside a map)."""
    if isinstance(v, (str, bytes)):
        wire = loads_wire(v, where, strict=True)   # input from people: a repeated key is an error
        if len(wire) != 1 or next(iter(wire)) != tag:
            raise ItemError(f"cell {str(v)[:80]!r} is not a {tag} value", where=where, hint=f'write {{"{tag}": ...}}')
        return from_wire(wire, where)
    if tag == "M":
        if shape == "map":
            v = dict(v)
        elif shape == "struct":
            v = {k: x for k, x in v.items() if x is not None}
        if isinstance(v, Mapping):
            return v
    if not isinstance(v, list) or tag == "M":
        raise ItemError(f"cell {v!r:.80} is not a {tag} value", where=where, hint=f"{tag} cells hold DynamoDB JSON")
    if tag == "L":
        return v
    kinds = {"SS": (str,), "NS": (int, Decimal), "BS": (bytes,)}[tag]
    if not v or not all(isinstance(x, kinds) and not isinstance(x, bool) for x in v):
        raise ItemError(f"cell {v!r:.80} is not a non-empty {tag}", where=where,
                        hint="sets hold only strings (SS), numbers (NS) or bytes (BS), and are never empty")
    out = set(v)
    if len(out) != len(v):
        raise ItemError(f"{tag} cell {v!r:.80} contains duplicates", where=where, hint="a set cannot repeat a value")
    return out
