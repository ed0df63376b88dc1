"""The items <-> Arrow codec on Python cells (pure: no pyarrow here).

Items -> table, the items half of the items <-> Arrow codec: :func:`item_columns` checks the items against a
``types`` mapping (attribute -> DynamoDB type tag) and lays each attribute out as the cells its
Arrow column holds: S ``str``, N canonical number text, B ``bytes``, BOOL ``bool``, NULL ``True``
where there, L / M / SS / NS / BS compact DynamoDB JSON text, and ``None`` where an item does not
have the attribute. :func:`blue_nb.sizing.columnar.items_to_table` turns these lists into Arrow
arrays (the importlinter "pure" contract keeps pyarrow out of :mod:`blue_nb.items`).

Table -> values: :func:`cell_value` reads one L / M / SS / NS / BS cell (``to_pylist()`` of a
nested Arrow value, or DynamoDB JSON text) back into the Python value model.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from decimal import Decimal
from operator import methodcaller
from typing import Any

from blue_nb.errors import ItemError
from blue_nb.items.values import TYPE_TAGS, as_bytes, from_wire, loads_wire, number_text, to_wire, validate_number

__all__ = ["ARROW_KINDS", "cell_value", "check_names", "item_columns", "row_where"]

#: the Arrow value type of each tag's column: "string", "binary" or "bool"
ARROW_KINDS = {"S": "string", "N": "string", "B": "binary", "BOOL": "bool", "NULL": "bool",
               "L": "string", "M": "string", "SS": "string", "NS": "string", "BS": "string"}
NAME_HINT = "every column of the table is one attribute: give its DynamoDB type in `types`"
_TAGS_HINT = f"use one of {sorted(TYPE_TAGS)}"


class _Absent:
    """The cell of an attribute an item does not have."""


_ABSENT = _Absent()
_NZ_CHARS = frozenset("123456789")
_KINDS = {"S": str, "B": bytes, "BOOL": bool, "NULL": type(None)}
_FITS = {"S": lambda v: isinstance(v, str), "B": lambda v: as_bytes(v) is not None,
         "BOOL": lambda v: isinstance(v, bool), "NULL": lambda v: v is None}


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


def _cell_error(name: str, tag: str, v: Any, row: int, hint: str = "") -> ItemError:
    return ItemError(f"{type(v).__name__} value {v!r:.80} does not fit type {tag}", where=row_where(name, row),
                     hint=hint or f"the `types` mapping says {name!r} is {tag}")


def _number_cell(v: Any, name: str, row: int) -> str:
    """Canonical DynamoDB text of an int or Decimal (as :func:`blue_nb.items.values.number_text`)."""
    t = type(v)
    if t is int and -(10**38) < v < 10**38:
        return str(v)
    if t is Decimal:
        text = str(v)  # already canonical when short, plain, without trailing zeros and not -0
        if len(text) <= 38 and "E" not in text and (
                text[-1] in _NZ_CHARS if "." in text else text[-1:].isdigit() and text != "-0"):
            return text
    if isinstance(v, (bool, str)) or not isinstance(v, (int, Decimal, float)):
        raise _cell_error(name, "N", v, row, "N values are int or Decimal")
    return number_text(validate_number(v, row_where(name, row)))


def _cells(cells: list, name: str, tag: str) -> list:
    """The Arrow cells of one attribute from its values (``_ABSENT`` where an item does not have it)."""
    kinds = set(map(type, cells)) - {_Absent}
    if tag in _KINDS and not kinds <= {_KINDS[tag]}:
        r, v = next(((r, v) for r, v in enumerate(cells) if v is not _ABSENT and not _FITS[tag](v)), (0, _ABSENT))
        if v is not _ABSENT:
            raise _cell_error(name, tag, v, r, "None is a NULL value: leave the attribute out" if v is None else "")
    if tag == "NULL":
        return [None if v is _ABSENT else True for v in cells]
    if tag in _KINDS:
        return [None if v is _ABSENT else as_bytes(v) if tag == "B" else v for v in cells]
    if tag == "N":
        return [None if v is _ABSENT else _number_cell(v, name, r) for r, v in enumerate(cells)]
    texts = []
    for r, v in enumerate(cells):
        wire = None if v is _ABSENT else to_wire(v, row_where(name, r))
        if wire is not None and next(iter(wire)) != tag:
            raise _cell_error(name, tag, v, r)
        texts.append(wire if wire is None else json.dumps(wire, ensure_ascii=False, separators=(",", ":")))
    return texts


def item_columns(items: Iterable[Mapping[str, Any]], types: Mapping[str, str]) -> dict[str, list]:
    """Python items -> {attribute: its column's cells} for every attribute of ``types`` (``None`` =
    absent). :class:`ItemError` for untyped attributes or values not of their type."""
    items = items if isinstance(items, list) else list(items)
    check_names(list(types), types)
    known = set(types)
    if not set(map(type, items)) <= {dict} or not all(map(known.issuperset, items)):
        for r, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise ItemError(f"item {r} is a {type(item).__name__}, not a dict", hint="pass dicts")
            for k in item:
                if k not in known:
                    raise ItemError(f"item {r} has attribute {k!r} with no type", where=str(k), hint=NAME_HINT)
    return {name: _cells(list(map(methodcaller("get", name, _ABSENT), items)), name, tag)
            for name, tag in types.items()}


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
