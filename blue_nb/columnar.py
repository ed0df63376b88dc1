"""Vectorized item sizes over columnar data (Apache Arrow), exact to the byte.

Layer 1 (pyarrow + numpy over the pure layers). A :class:`pyarrow.Table` holds one attribute
per column (column name = attribute name) and one item per row; ``types`` gives each column's
DynamoDB type. A null cell is an *absent* attribute: neither its name nor its value counts.

:func:`item_size_column` returns one size per row, identical to
``[blue_nb.sizing.item_size(item) for item in items]``:

* **S** - UTF-8 bytes: the offsets of the string column (no pass over the text);
* **B** - raw bytes of a binary column (a string column is read as base64 text, value by value);
* **BOOL / NULL** - 1 per non-null cell;
* **N** - the base-100 digit-pair rule of the rules doc (section 1.1) run with numpy over the
  column's UTF-8 bytes, block by block (:func:`number_text_sizes`): every plain text (``"-12.500"``,
  ``"0.001"``, ``"1706900000"``, ``".5"``, ``"+7"``) is sized without a Python loop, whether
  its values repeat or not. Texts the kernel does not take (exponent forms such as ``"1E+125"``)
  and invalid numbers go to :func:`blue_nb.sizing.number_size` once per distinct text, which
  sizes them exactly or raises the precise :class:`ItemError`. Integer and decimal128/256
  columns are cast to their text first (vectorized); float columns are an error (use Decimal
  or number text);
* **L / M / SS / NS / BS** - the slow path: each cell (a DynamoDB JSON string such as
  ``'{"L": [{"S": "a"}]}'``, or a nested Arrow value: list, struct, map) is decoded and sized
  with the exact :func:`blue_nb.sizing.value_size`;
* dictionary-encoded columns of any type are sized on their dictionary, then taken by index.

:func:`items_to_table` turns Python items into such a table (numbers as canonical text,
nested values as DynamoDB JSON), and :func:`table_item_sizes` chains the two.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from decimal import Decimal
from operator import methodcaller
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from blue_nb.errors import ItemError
from blue_nb.sizing import b64_raw_length, number_size, value_size
from blue_nb.sizing.numbers import MAX_NUMBER_BYTES
from blue_nb.values import (
    MAX_ADJUSTED,
    MAX_DIGITS,
    MIN_ADJUSTED,
    TYPE_TAGS,
    as_bytes,
    from_wire,
    loads_wire,
    number_text,
    to_wire,
    validate_number,
)

__all__ = ["NESTED_TYPES", "item_size_column", "items_to_table", "number_text_sizes", "table_item_sizes"]

#: types sized value by value (the slow path)
NESTED_TYPES = frozenset({"L", "M", "SS", "NS", "BS"})

#: rows / bytes per numpy block of number texts: the temporaries stay small, in the CPU cache
#: and below malloc's mmap threshold (bigger blocks measured 2-3x slower)
_BLOCK_ROWS = 4096
_BLOCK_BYTES = 48 * 1024
_WALK_STEPS = 6  # steps over zeros next to the ends of a number before a lookup
_NAME_HINT = "every column of the table is one attribute: give its DynamoDB type in `types`"
_FLOAT_HINT = "floats are not exact: store numbers as decimal128, integers or number text (use Decimal)"


# ---------------------------------------------------------------- numbers


def _walk(buf: np.ndarray, pos: np.ndarray, rows: np.ndarray, bound: np.ndarray, step: int,
          zero: np.ndarray) -> np.ndarray:
    """Move ``pos[rows]`` by ``step`` over '0' and '.' bytes to the next non-zero digit.

    A row that walks past ``bound`` (exclusive) has no non-zero digit: it is marked in
    ``zero``. Gives up after _WALK_STEPS steps and returns the rows still walking.
    """
    for _ in range(_WALK_STEPS):
        if not rows.size:
            break
        p = pos[rows] + step
        inside = p != bound[rows]
        zero[rows[~inside]] = True
        rows, p = rows[inside], p[inside]
        pos[rows] = p
        rows = rows[buf.take(p) - np.uint8(49) > 8]  # not '1'..'9' yet
    return rows


def _number_block(buf: np.ndarray, off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sizes of the number texts ``buf[off[k]:off[k+1]]`` and a mask of texts left to the exact path.

    ``off`` is int64 and starts at 0. A text is taken here when it is a plain decimal: an
    optional sign, digits and at most one point, at least one digit, at most 38 significant
    digits and 1E-130 <= |x| < 1E126 (or zero). With ``p`` the position of the point (the
    end of the text if none), the digit at byte ``x`` stands for 10**(p - x - (x < p)); ``hi``
    and ``lo`` are the powers of the first and last non-zero digits, and
    size = 1 + (hi//2 - lo//2 + 1) + negative, at most 21; zero is 1.

    Costs a few passes over the bytes (compare, count, find the points) and otherwise works
    per text: the first and last non-zero digits are looked for next to the ends of the text.
    """
    n = len(off) - 1
    starts, ends = off[:-1], off[1:]
    lens = ends - starts
    if len(buf) == 0:  # only empty texts
        return np.ones(n, dtype=np.int64), np.ones(n, dtype=bool)
    top = len(buf) - 1
    nonempty = lens > 0
    if nonempty.all():
        first, last = buf.take(starts), buf.take(ends - 1)
    else:  # an empty text reads a neighbour's byte; it goes to the exact path anyway
        first, last = buf.take(np.minimum(starts, top)), buf.take(np.maximum(ends - 1, 0))
    neg = (first == 45) & nonempty  # '-'
    signed = neg | ((first == 43) & nonempty)  # '+'
    fallback = lens - signed < 1  # empty, or a sign alone
    d = buf - np.uint8(48)  # '0'..'9' -> 0..9, '.' -> 254, every other byte > 9 (uint8 wraps)
    isdot = d == 254
    dot_pos = np.flatnonzero(isdot)
    nondigit = d > 9
    if np.count_nonzero(nondigit) != dot_pos.size + np.count_nonzero(signed):  # other bytes somewhere
        bad = nondigit ^ isdot
        bad[starts[signed]] = False
        fallback[np.searchsorted(ends, np.flatnonzero(bad), side="right")] = True
    point = ends.copy()
    if dot_pos.size:
        dot_rows = np.searchsorted(ends, dot_pos, side="right")
        point[dot_rows] = dot_pos
        fallback[dot_rows[1:][dot_rows[1:] == dot_rows[:-1]]] = True  # two points
        fallback[dot_rows[lens[dot_rows] - signed[dot_rows] < 2]] = True  # a point and no digit
    # the first / last non-zero digits: usually the first digit and the last byte
    digits_start = starts + signed
    first_nz = digits_start.copy()
    last_nz = ends - 1
    zero = np.zeros(n, dtype=bool)
    ok = ~fallback
    lead = np.flatnonzero((buf.take(np.minimum(first_nz, top)) - np.uint8(49) > 8) & ok)
    trail = np.flatnonzero((last - np.uint8(49) > 8) & ok)
    lead = _walk(buf, first_nz, lead, ends, 1, zero)
    trail = _walk(buf, last_nz, trail, digits_start - 1, -1, zero)
    if lead.size or trail.size:  # long runs of zeros: look the digits up
        nz_pos = np.append(np.flatnonzero(d - np.uint8(1) < 9), top + 1)
        at = np.searchsorted(nz_pos, starts[lead])
        zero[lead] = nz_pos[at] >= ends[lead]
        first_nz[lead] = nz_pos[at]
        at = np.searchsorted(nz_pos, ends[trail]) - 1
        zero[trail] = (at < 0) | (nz_pos[at] < starts[trail])
        last_nz[trail] = nz_pos[at]
    hi = point - first_nz - (first_nz < point)
    lo = point - last_nz - (last_nz < point)
    fallback |= ~zero & ((hi - lo >= MAX_DIGITS) | (hi < MIN_ADJUSTED) | (hi > MAX_ADJUSTED))
    sizes = (hi >> 1) - (lo >> 1)
    sizes += 2
    sizes += neg
    np.minimum(sizes, MAX_NUMBER_BYTES, out=sizes)
    sizes[zero] = 1
    return sizes, fallback


def _blocks(offsets: np.ndarray) -> list[int]:
    """Row cuts for blocks of at most _BLOCK_ROWS rows and about _BLOCK_BYTES bytes."""
    n = len(offsets) - 1
    by_bytes = np.searchsorted(offsets[:-1], np.arange(offsets[0], offsets[-1], _BLOCK_BYTES))
    cuts = np.union1d(np.arange(0, n, _BLOCK_ROWS), by_bytes)
    return [*cuts[cuts < n].tolist(), n]


def _text_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(int64 offsets starting at 0, uint8 bytes) of a string/binary array (any offset width)."""
    if not (pa.types.is_string(arr.type) or pa.types.is_binary(arr.type)
            or pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)):
        arr = arr.cast(pa.large_string() if _is_stringy(arr.type) else pa.large_binary())
    _, obuf, dbuf = arr.buffers()[:3]
    width = np.int64 if pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type) else np.int32
    offsets = np.frombuffer(obuf, dtype=width)[arr.offset : arr.offset + len(arr) + 1].astype(np.int64)
    data = np.frombuffer(dbuf, dtype=np.uint8) if dbuf is not None and dbuf.size else np.zeros(0, np.uint8)
    return offsets, data


def number_text_sizes(arr: pa.Array | pa.ChunkedArray, where: str = "") -> np.ndarray:
    """Exact DynamoDB sizes (int64) of a column of number texts; null cells size 0.

    Plain texts are sized by the numpy kernel; other texts (exponent forms) through
    :func:`number_size` once per distinct text. An invalid number raises :class:`ItemError`
    with ``where`` and the row.
    """
    if isinstance(arr, pa.ChunkedArray):
        parts, base = [], 0
        for chunk in arr.chunks:
            parts.append(_number_chunk(chunk, where, base))
            base += len(chunk)
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return _number_chunk(arr, where, 0)


def _number_chunk(arr: pa.Array, where: str, base: int) -> np.ndarray:
    """:func:`number_text_sizes` of one array whose first row is row ``base`` of the column."""
    n = len(arr)
    out = np.zeros(n, dtype=np.int64)
    if n == 0 or arr.null_count == n:
        return out
    offsets, data = _text_buffers(arr)
    fallback = np.zeros(n, dtype=bool)
    cuts = _blocks(offsets)
    for a, b in zip(cuts[:-1], cuts[1:]):
        off = offsets[a : b + 1]
        out[a:b], fallback[a:b] = _number_block(data[off[0] : off[-1]], off - off[0])
    valid = _valid(arr)
    if valid is not None:
        out[~valid] = 0
        fallback &= valid
    rows = np.flatnonzero(fallback)
    if rows.size:
        cache: dict[str, int] = {}
        texts = arr.take(pa.array(rows)).to_pylist()
        for r, text in zip(rows.tolist(), texts):
            size = cache.get(text)
            if size is None:
                if not isinstance(text, str):
                    text = text.decode("utf-8", "replace")
                size = cache[text] = number_size(text, where=_row_where(where, base + r))
            out[r] = size
    return out


# ---------------------------------------------------------------- columns


def _valid(arr: pa.Array) -> np.ndarray | None:
    """Bool mask of non-null cells, or None when there is no null."""
    if arr.null_count == 0:
        return None
    return arr.is_valid().to_numpy(zero_copy_only=False)


def _row_where(name: str, row: int) -> str:
    return f"{name} (row {row})" if name else f"row {row}"


def _is_stringy(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or getattr(pa.types, "is_string_view", lambda _: False)(t)


def _is_binaryish(t: pa.DataType) -> bool:
    return (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)
            or getattr(pa.types, "is_binary_view", lambda _: False)(t))


def _type_error(name: str, tag: str, t: pa.DataType, hint: str = "") -> ItemError:
    return ItemError(f"column {name!r} has Arrow type {t}, which cannot hold {tag} values", where=name,
                     hint=hint or f"give {tag} attributes a column of the matching Arrow type (see blue_nb.columnar)")


def _lengths(arr: pa.Array) -> np.ndarray:
    """Byte lengths of a string/binary array (0 for nulls), as int32 or int64."""
    if pa.types.is_fixed_size_binary(arr.type):
        return np.full(len(arr), arr.type.byte_width, dtype=np.int64)
    if not (pa.types.is_string(arr.type) or pa.types.is_binary(arr.type)
            or pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)):
        arr = arr.cast(pa.large_string() if _is_stringy(arr.type) else pa.large_binary())
    lengths = pc.binary_length(arr)  # from the offsets, in C++
    if lengths.null_count:
        lengths = lengths.fill_null(0)
    return lengths.to_numpy()


def _value_sizes(arr: pa.Array, name: str, tag: str, base: int) -> np.ndarray:
    """Value sizes (without the name) of one array; the values of null cells are unspecified."""
    t = arr.type
    n = len(arr)
    if pa.types.is_null(t):
        return np.zeros(n, dtype=np.int64)
    if pa.types.is_dictionary(t):
        values = arr.dictionary if len(arr.dictionary) else pa.array([], t.value_type)
        sizes = _value_sizes(values, f"{name} (dictionary)", tag, 0)
        sizes = sizes if len(sizes) else np.zeros(1, np.int64)
        indices = arr.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        return sizes[indices]
    if tag == "S":
        if not _is_stringy(t):
            raise _type_error(name, tag, t, "S attributes need a string column")
        return _lengths(arr)
    if tag == "B":
        if _is_binaryish(t):
            return _lengths(arr)
        if _is_stringy(t):  # base64 text, as in DynamoDB JSON
            return _per_value(arr, name, base, lambda v, w: b64_raw_length(v, w))
        raise _type_error(name, tag, t, "B attributes need a binary column (raw bytes) or base64 text")
    if tag == "BOOL":
        if not pa.types.is_boolean(t):
            raise _type_error(name, tag, t, "BOOL attributes need a boolean column")
        return np.ones(n, dtype=np.int64)
    if tag == "NULL":
        return np.ones(n, dtype=np.int64)  # any non-null cell means the NULL attribute is there
    if tag == "N":
        return _number_sizes(arr, name, base)
    return _per_value(arr, name, base, lambda v, w: _nested_size(v, tag, t, w))


def _number_sizes(arr: pa.Array, name: str, base: int) -> np.ndarray:
    """Sizes of an N column: number text, integers or decimals (cast to text, vectorized)."""
    t = arr.type
    if pa.types.is_floating(t):
        raise ItemError(f"column {name!r} holds floats ({t}): DynamoDB numbers must be exact", where=name,
                        hint=_FLOAT_HINT)
    if pa.types.is_integer(t) or pa.types.is_decimal(t):
        arr = pc.cast(arr, pa.string())
    elif not (_is_stringy(t) or _is_binaryish(t)) or pa.types.is_fixed_size_binary(t):
        raise _type_error(name, "N", t, "N attributes need number text, integer or decimal columns")
    return _number_chunk(arr, name, base)


def _per_value(arr: pa.Array, name: str, base: int, size_of) -> np.ndarray:
    """The slow path: ``size_of(value, where)`` for each non-null cell."""
    out = np.zeros(len(arr), dtype=np.int64)
    for r, v in enumerate(arr.to_pylist()):
        if v is not None:
            out[r] = size_of(v, _row_where(name, base + r))
    return out


def _nested_size(v: Any, tag: str, t: pa.DataType, where: str) -> int:
    """Size of one L/M/SS/NS/BS cell: DynamoDB JSON text, or a nested Arrow value as Python."""
    if isinstance(v, (str, bytes)):
        wire = loads_wire(v, where)
        if len(wire) != 1 or next(iter(wire)) != tag:
            raise ItemError(f"cell {str(v)[:80]!r} is not a {tag} value", where=where,
                            hint=f'{tag} cells hold DynamoDB JSON such as {{"{tag}": ...}}')
        return value_size(from_wire(wire, where), where)
    return value_size(_arrow_value(v, tag, t, where), where)


def _arrow_value(v: Any, tag: str, t: pa.DataType, where: str) -> Any:
    """Python value of a nested Arrow cell, checked against ``tag``.

    Map cells (lists of key/value pairs) become dicts; struct cells become dicts whose null
    fields are absent keys (write DynamoDB JSON text to keep an explicit NULL inside a map).
    """
    if tag == "M":
        if pa.types.is_map(t):
            v = dict(v)
        elif pa.types.is_struct(t):
            v = {k: x for k, x in v.items() if x is not None}
        if not isinstance(v, Mapping):
            raise ItemError(f"cell {v!r:.80} is not a map", where=where, hint="M cells hold DynamoDB JSON, structs or maps")
        return v
    if not isinstance(v, list):
        raise ItemError(f"cell {v!r:.80} is not a list", where=where, hint=f"{tag} cells hold DynamoDB JSON or Arrow lists")
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


def _check_names(table: pa.Table, types: Mapping[str, str]) -> None:
    names = table.column_names
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ItemError(f"the table has duplicate columns {dup}", where=dup[0], hint="an item has each attribute once")
    for name in names:
        if name not in types:
            raise ItemError(f"column {name!r} has no type", where=name, hint=_NAME_HINT)
        if types[name] not in TYPE_TAGS:
            raise ItemError(f"column {name!r} has unknown type {types[name]!r}", where=name,
                            hint=f"use one of {sorted(TYPE_TAGS)}")
        if not name or len(name.encode("utf-8")) > 65_536:
            raise ItemError(f"attribute name {name[:60]!r} must be 1 byte to 64 KB long", where=name,
                            hint="rename the column")


def item_size_column(table: pa.Table, types: Mapping[str, str]) -> np.ndarray:
    """One DynamoDB item size per row of ``table`` (int64), exactly as ``item_size`` counts it.

    Each column is one attribute; ``types[name]`` is its DynamoDB type (S N B BOOL NULL L M
    SS NS BS). A null cell is an absent attribute (0 bytes). Raises :class:`ItemError` for a
    column without a type, a column whose Arrow type cannot hold its DynamoDB type (floats for
    N), or an invalid value (naming the column and row).
    """
    _check_names(table, types)
    total = np.zeros(table.num_rows, dtype=np.int64)
    names = 0  # name bytes of the columns without nulls, added once at the end
    for name in table.column_names:
        tag = types[name]
        name_len = len(name.encode("utf-8"))
        column = table.column(name)
        sparse = column.null_count > 0
        base = 0
        for chunk in [c for c in column.chunks if len(c)] or [pa.array([], column.type)]:
            n = len(chunk)
            sizes = _value_sizes(chunk, name, tag, base)
            part = total[base : base + n]
            valid = _valid(chunk)
            if valid is None:
                part += sizes
                if sparse:
                    part += name_len
            else:
                sizes = sizes + name_len
                np.add(part, sizes, out=part, where=valid)
            base += n
        if not sparse:
            names += name_len
    if names:
        total += names
    return total


# ---------------------------------------------------------------- Python items -> table

_NONE = type(None)
_NZ_CHARS = frozenset("123456789")


def _cell_error(name: str, tag: str, v: Any, row: int, hint: str = "") -> ItemError:
    return ItemError(f"{type(v).__name__} value {v!r:.80} does not fit type {tag}", where=_row_where(name, row),
                     hint=hint or f"the `types` mapping says {name!r} is {tag}")


def _number_cell(v: Any, name: str, row: int) -> str:
    """Canonical DynamoDB text of an int or Decimal (as :func:`blue_nb.values.number_text`)."""
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
    return number_text(validate_number(v, _row_where(name, row)))


def _first_bad(cells: list, ok) -> tuple[int, Any]:
    """(row, value) of the first non-None cell for which ``ok(value)`` is false."""
    return next((r, v) for r, v in enumerate(cells) if v is not None and not ok(v))


def _column(cells: list, name: str, tag: str) -> pa.Array:
    """One Arrow column from the attribute's values (None where the attribute is absent)."""
    kinds = set(map(type, cells)) - {_NONE}
    if tag == "S":
        if not kinds <= {str}:
            r, v = _first_bad(cells, lambda x: isinstance(x, str))
            raise _cell_error(name, tag, v, r, "S values are str")
        try:
            return pa.array(cells, pa.string())
        except (UnicodeEncodeError, pa.ArrowException) as exc:
            raise ItemError(f"column {name!r} holds a string that is not valid Unicode", where=name,
                            hint="decode your input with the right encoding") from exc
    if tag == "N":
        return pa.array([None if v is None else _number_cell(v, name, r) for r, v in enumerate(cells)], pa.string())
    if tag == "B":
        if not kinds <= {bytes}:
            r, v = _first_bad(cells, lambda x: as_bytes(x) is not None)
            if v is not None:
                raise _cell_error(name, tag, v, r, "B values are bytes")
            cells = [None if v is None else as_bytes(v) for v in cells]
        return pa.array(cells, pa.binary())
    if tag == "BOOL":
        if not kinds <= {bool}:
            r, v = _first_bad(cells, lambda x: isinstance(x, bool))
            raise _cell_error(name, tag, v, r, "BOOL values are True / False")
        return pa.array(cells, pa.bool_())
    texts = []
    for r, v in enumerate(cells):
        if v is None:
            texts.append(None)
            continue
        wire = to_wire(v, _row_where(name, r))
        if next(iter(wire)) != tag:
            raise _cell_error(name, tag, v, r)
        texts.append(json.dumps(wire, ensure_ascii=False, separators=(",", ":")))
    return pa.array(texts, pa.string())


def _explicit_none(items: list, name: str, cells: list) -> int | None:
    """Row of the first item holding ``name: None`` (None is the absent marker in ``cells``)."""
    nones = cells.count(None)
    if nones and nones != len(items) - sum(map(methodcaller("__contains__", name), items)):
        return next(r for r, (item, v) in enumerate(zip(items, cells)) if v is None and name in item)
    return None


def items_to_table(items: Iterable[Mapping[str, Any]], types: Mapping[str, str]) -> pa.Table:
    """Python items -> one Arrow column per attribute of ``types`` (in that order), one row per item.

    S -> string, N -> canonical number text (string), B -> binary, BOOL -> bool, NULL -> bool
    (True when present), L / M / SS / NS / BS -> DynamoDB JSON text. A missing attribute is a
    null cell. Raises :class:`ItemError` for an attribute missing from ``types``, an unknown
    type, or a value that does not fit its type (floats included).
    """
    items = items if isinstance(items, list) else list(items)
    for name, tag in types.items():
        if tag not in TYPE_TAGS:
            raise ItemError(f"attribute {name!r} has unknown type {tag!r}", where=name,
                            hint=f"use one of {sorted(TYPE_TAGS)}")
    known = set(types)
    if not all(map(known.issuperset, items)):
        for r, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise ItemError(f"item {r} is a {type(item).__name__}, not a dict", hint="pass dicts of attribute -> value")
            extra = [k for k in item if k not in known]
            if extra:
                raise ItemError(f"item {r} has attribute {extra[0]!r} with no type", where=str(extra[0]), hint=_NAME_HINT)
    columns = {}
    for name, tag in types.items():
        cells = list(map(methodcaller("get", name), items))
        if tag == "NULL":
            r, v = next(((r, v) for r, v in enumerate(cells) if v is not None), (0, None))
            if v is not None:
                raise _cell_error(name, tag, v, r, "NULL values are None")
            present = list(map(methodcaller("__contains__", name), items))
            columns[name] = pa.array([True if p else None for p in present], pa.bool_())
            continue
        row = _explicit_none(items, name, cells)
        if row is not None:
            raise _cell_error(name, tag, None, row, "None is a NULL value: leave the attribute out, or type it NULL")
        columns[name] = _column(cells, name, tag)
    if not columns:  # items without attributes: rows without columns
        return pa.Table.from_struct_array(pa.array([{}] * len(items), pa.struct([])))
    return pa.table(columns)


def table_item_sizes(items: Iterable[Mapping[str, Any]], types: Mapping[str, str]) -> np.ndarray:
    """Sizes of Python items through the columnar path: ``item_size_column(items_to_table(...))``."""
    return item_size_column(items_to_table(items, types), types)
