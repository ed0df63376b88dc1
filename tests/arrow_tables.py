"""Python items -> an Arrow table, for the tests of the batch sizing of a table
(:func:`blue_nb.sizing.columnar.item_size_column`): :func:`items_to_table` lays each attribute of a ``types``
mapping (attribute -> DynamoDB type tag) out as an Arrow column (S string, N canonical number text, B binary,
BOOL bool, NULL bool (True when there), L / M / SS / NS / BS compact DynamoDB JSON text, null where an item
does not have the attribute); :func:`table_item_sizes` sizes items through such a table. The product sizes
Python items with :func:`blue_nb.sizing.item_sizes`; these build the tables the tests size."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from decimal import Decimal
from operator import methodcaller
from typing import Any

import numpy as np
import pyarrow as pa

from blue_nb.errors import ItemError
from blue_nb.items.arrow import NAME_HINT, check_names, row_where
from blue_nb.items.values import as_bytes, number_text, to_wire, validate_number
from blue_nb.sizing.columnar import item_size_column

#: the Arrow value type of each tag's column
ARROW_TYPES = {"S": pa.string(), "N": pa.string(), "B": pa.binary(), "BOOL": pa.bool_(), "NULL": pa.bool_(),
               "L": pa.string(), "M": pa.string(), "SS": pa.string(), "NS": pa.string(), "BS": pa.string()}


class _Absent:
    """The cell of an attribute an item does not have."""


_ABSENT = _Absent()
_NZ_CHARS = frozenset("123456789")
_KINDS = {"S": str, "B": bytes, "BOOL": bool, "NULL": type(None)}
_FITS = {"S": lambda v: isinstance(v, str), "B": lambda v: as_bytes(v) is not None,
         "BOOL": lambda v: isinstance(v, bool), "NULL": lambda v: v is None}


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




def items_to_table(items: Iterable[Mapping[str, Any]], types: Mapping[str, str]) -> pa.Table:
    """Python items -> a table with one column per attribute of ``types``, one row per item (cells:
    :func:`item_columns`). :class:`ItemError` for untyped attributes or values not of their type."""
    items = items if isinstance(items, list) else list(items)
    columns = {}
    for name, cells in item_columns(items, types).items():
        try:
            columns[name] = pa.array(cells, ARROW_TYPES[types[name]])
        except (UnicodeEncodeError, pa.ArrowException) as exc:
            raise ItemError(f"column {name!r} holds a string that is not valid Unicode", where=name,
                            hint="decode your input with the right encoding") from exc
    if not columns:  # items without attributes: rows without columns
        return pa.Table.from_struct_array(pa.array([{}] * len(items), pa.struct([])))
    return pa.table(columns)


def table_item_sizes(items: Iterable[Mapping[str, Any]], types: Mapping[str, str]) -> np.ndarray:
    """Sizes of Python items through a table: ``item_size_column(items_to_table(...))``."""
    return item_size_column(items_to_table(items, types), types)
