"""Vectorized item sizes over columnar data (Apache Arrow), exact to the byte.

Loaded only when a batch is sized in columns (pyarrow + numpy). A :class:`pyarrow.Table` holds one
attribute per column and one item per row; ``types`` maps each column to its DynamoDB type; a null
cell is an absent attribute. :func:`item_size_column` equals ``[item_size(i) for i in items]``:
S / B lengths from the offsets (base64 text decoded value by value), BOOL / NULL 1; N by the
base-100 digit-pair rule run by numpy over the texts' bytes (:func:`number_text_sizes`: exponent
forms and invalid texts go to :func:`number_size` once per distinct text; integer and decimal
columns are cast to text, floats are an error); L / M / SS / NS / BS cell by cell (DynamoDB JSON
text or nested Arrow values) by the exact :func:`value_size`; dictionary columns on their dictionary.

:func:`items_to_table` / :func:`table_item_sizes` go from Python items through a table;
:func:`python_item_sizes` sizes Python items directly, numbers in columns (the product's fast path).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from itertools import repeat
from operator import itemgetter
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from blue_nb.errors import ItemError
from blue_nb.items.arrow import ARROW_KINDS, cell_value, check_names, item_columns, row_where
from blue_nb.items.values import MAX_ADJUSTED, MAX_DIGITS, MIN_ADJUSTED
from blue_nb.sizing.exact import b64_raw_length, str_size, value_size
from blue_nb.sizing.numbers import MAX_NUMBER_BYTES, number_size

__all__ = ["item_size_column", "items_to_table", "number_text_sizes", "python_item_sizes", "table_item_sizes",
           "text_buffers"]

#: rows / bytes per numpy block of number texts: the temporaries stay in the CPU cache
_BLOCK_ROWS = 32768
_BLOCK_BYTES = 256 * 1024
_GROUP_ROWS = 4096  # Python items sized per slice of a group (python_item_sizes)
_WALK_STEPS = 6  # steps over zeros next to the ends of a number before a lookup
_FLOAT_HINT = "floats are not exact: store numbers as decimal128, integers or number text (use Decimal)"


# ---------------------------------------------------------------- numbers


def _walk(buf: np.ndarray, pos: np.ndarray, rows: np.ndarray, bound: np.ndarray, step: int, zero: np.ndarray):
    """Move ``pos[rows]`` by ``step`` over '0' / '.' to a non-zero digit; a row reaching ``bound`` is
    marked ``zero``. Gives up after _WALK_STEPS steps: returns the rows still walking."""
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
    """Sizes of the texts ``buf[off[k]:off[k+1]]`` (``off`` from 0) and the mask left to the exact path.

    Taken: plain decimals (sign, digits, at most one point) of <= 38 significant digits within
    1E-130 <= |x| < 1E126, or zero. With ``p`` the point's position (the text's end if none) the
    digit at byte ``x`` is worth 10**(p - x - (x < p)); with ``hi`` / ``lo`` the powers of the
    first / last non-zero digits, size = 1 + (hi//2 - lo//2 + 1) + negative, at most 21; zero: 1.
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
    sizes = np.minimum((hi >> 1) - (lo >> 1) + 2 + neg, MAX_NUMBER_BYTES)
    sizes[zero] = 1
    return sizes, fallback


def _blocks(offsets: np.ndarray) -> list[int]:
    """Row cuts for blocks of at most _BLOCK_ROWS rows and _BLOCK_BYTES bytes (or one long row)."""
    cuts, n = [0], len(offsets) - 1
    while cuts[-1] < n:
        a = cuts[-1]
        b = min(a + _BLOCK_ROWS, n)
        if offsets[b] - offsets[a] > _BLOCK_BYTES:
            b = max(a + 1, int(np.searchsorted(offsets, offsets[a] + _BLOCK_BYTES, side="right")) - 1)
        cuts.append(b)
    return cuts


def _with_offsets(arr: pa.Array) -> pa.Array:
    """A string/binary array with an offsets buffer (views are cast to large_string/large_binary)."""
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_binary(t) or pa.types.is_large_string(t) or pa.types.is_large_binary(t):
        return arr
    return arr.cast(pa.large_string() if _is_stringy(t) else pa.large_binary())


def text_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(int64 offsets, uint8 bytes) of a string/binary array of any offset width."""
    arr = _with_offsets(arr)
    _, obuf, dbuf = arr.buffers()[:3]
    width = np.int64 if pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type) else np.int32
    offsets = np.frombuffer(obuf, dtype=width)[arr.offset : arr.offset + len(arr) + 1].astype(np.int64)
    data = np.frombuffer(dbuf, dtype=np.uint8) if dbuf is not None and dbuf.size else np.zeros(0, np.uint8)
    return offsets, data


def number_text_sizes(arr: pa.Array | pa.ChunkedArray, where: str = "") -> np.ndarray:
    """Exact sizes (int64) of a column of number texts, 0 for nulls; an invalid number raises
    :class:`ItemError` with ``where`` and the row. Exponent forms: :func:`number_size` per distinct text."""
    if not isinstance(arr, pa.ChunkedArray):
        return _number_chunk(arr, where, 0)
    bases = np.cumsum([0] + [len(c) for c in arr.chunks]).tolist()
    return np.concatenate([np.zeros(0, np.int64)] + [_number_chunk(c, where, b) for c, b in zip(arr.chunks, bases)])


def _number_chunk(arr: pa.Array, where: str, base: int) -> np.ndarray:
    """:func:`number_text_sizes` of one array whose first row is row ``base`` of the column."""
    n = len(arr)
    out = np.zeros(n, dtype=np.int64)
    if n == 0 or arr.null_count == n:
        return out
    offsets, data = text_buffers(arr)
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
    cache: dict[str, int] = {}  # the exact path, once per distinct text
    for r, text in zip(rows.tolist(), arr.take(pa.array(rows, pa.int64())).to_pylist() if rows.size else []):
        text = text if isinstance(text, str) else text.decode("utf-8", "replace")
        if text not in cache:
            cache[text] = number_size(text, where=row_where(where, base + r))
        out[r] = cache[text]
    return out


# ---------------------------------------------------------------- columns


def _valid(arr: pa.Array) -> np.ndarray | None:
    """Bool mask of non-null cells, or None when there is no null."""
    if pa.types.is_dictionary(arr.type) and arr.dictionary.null_count:  # nulls in the dictionary too
        arr = arr.dictionary_decode()
    return arr.is_valid().to_numpy(zero_copy_only=False) if arr.null_count else None


def _never(_: Any) -> bool:  # pyarrow < 16 has no view types
    return False


def _is_stringy(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or getattr(pa.types, "is_string_view", _never)(t)


def _is_binaryish(t: pa.DataType) -> bool:
    return (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)
            or getattr(pa.types, "is_binary_view", _never)(t))


def _type_error(name: str, tag: str, t: pa.DataType, hint: str = "") -> ItemError:
    return ItemError(f"column {name!r} has Arrow type {t}, which cannot hold {tag} values", where=name,
                     hint=hint or f"give {tag} attributes a column of the matching Arrow type (see blue_nb.sizing.columnar)")


def _lengths(arr: pa.Array) -> np.ndarray:
    """Byte lengths of a string/binary array (0 for nulls), as int32 or int64."""
    lengths = pc.binary_length(_with_offsets(arr))  # from the offsets, in C++
    if lengths.null_count:
        lengths = lengths.fill_null(0)
    return lengths.to_numpy()


def _value_sizes(arr: pa.Array, name: str, tag: str, base: int) -> np.ndarray | int:
    """Value sizes (without the name) of one array, or one int for all; null cells: unspecified."""
    t = arr.type
    n = len(arr)
    if pa.types.is_null(t):
        return np.zeros(n, dtype=np.int64)
    if pa.types.is_dictionary(t):
        values = arr.dictionary if len(arr.dictionary) else pa.array([], t.value_type)
        sizes = np.broadcast_to(_value_sizes(values, f"{name} (dictionary)", tag, 0), len(values))
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
            return _per_value(arr, name, base, b64_raw_length)
        raise _type_error(name, tag, t, "B attributes need a binary column (raw bytes) or base64 text")
    if tag == "BOOL":
        if not pa.types.is_boolean(t):
            raise _type_error(name, tag, t, "BOOL attributes need a boolean column")
        return 1
    if tag == "NULL":
        return 1  # any non-null cell means the NULL attribute is there
    if tag == "N":
        return _number_sizes(arr, name, base)
    shape = "map" if pa.types.is_map(t) else "struct" if pa.types.is_struct(t) else ""  # L M SS NS BS: exact walk
    return _per_value(arr, name, base, lambda v, w: value_size(cell_value(v, tag, shape, w), w))


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
            out[r] = size_of(v, row_where(name, base + r))
    return out


def item_size_column(table: pa.Table, types: Mapping[str, str]) -> np.ndarray:
    """One item size per row (int64), exactly as ``item_size``; ``types[column]`` is S N B BOOL NULL
    L M SS NS or BS, a null cell an absent attribute. :class:`ItemError` for a column without a
    type, an Arrow type that cannot hold it (floats for N), or an invalid value (column and row)."""
    check_names(table.column_names, types)
    total = np.zeros(table.num_rows, dtype=np.int64)
    for name in table.column_names:
        column, name_len, base = table.column(name), len(name.encode("utf-8")), 0
        for chunk in [c for c in column.chunks if len(c)] or [pa.array([], column.type)]:
            sizes = _value_sizes(chunk, name, types[name], base)
            part, valid = total[base : base + len(chunk)], _valid(chunk)
            if valid is None:  # in place: no temporary column
                part += sizes
                part += name_len
            else:
                np.add(part, sizes + name_len, out=part, where=valid)
            base += len(chunk)
    return total


# ---------------------------------------------------------------- Python items


_ARROW_TYPES = {"string": pa.string(), "binary": pa.binary(), "bool": pa.bool_()}


def items_to_table(items: Iterable[Mapping[str, Any]], types: Mapping[str, str]) -> pa.Table:
    """Python items -> a table with one column per attribute of ``types``, one row per item: S string,
    N canonical number text, B binary, BOOL bool, NULL bool (True when there), L M SS NS BS DynamoDB
    JSON text; absent = null (cells: :func:`blue_nb.items.arrow.item_columns`). :class:`ItemError`
    for untyped attributes or values not of their type."""
    items = items if isinstance(items, list) else list(items)
    columns = {}
    for name, cells in item_columns(items, types).items():
        try:
            columns[name] = pa.array(cells, _ARROW_TYPES[ARROW_KINDS[types[name]]])
        except (UnicodeEncodeError, pa.ArrowException) as exc:
            raise ItemError(f"column {name!r} holds a string that is not valid Unicode", where=name,
                            hint="decode your input with the right encoding") from exc
    if not columns:  # items without attributes: rows without columns
        return pa.Table.from_struct_array(pa.array([{}] * len(items), pa.struct([])))
    return pa.table(columns)


def table_item_sizes(items: Iterable[Mapping[str, Any]], types: Mapping[str, str]) -> np.ndarray:
    """Sizes of Python items through the columnar path: ``item_size_column(items_to_table(...))``."""
    return item_size_column(items_to_table(items, types), types)


def _py_numbers(col: list, kinds: set, name: str) -> np.ndarray:
    """Sizes of a column of ints / Decimals: int64 or their str() texts, sized by the numpy kernel."""
    if kinds == {int}:
        try:
            return _number_sizes(pa.array(col, pa.int64()), name, 0)
        except (OverflowError, pa.ArrowException):  # beyond int64: as text
            pass
    return _number_chunk(pa.array(list(map(str, col)), pa.string()), name, 0)  # str(): the reference's text


def _py_column(col: list, name: str) -> np.ndarray | int:
    """Value sizes of one attribute of a group; the type tag is inferred from the values' types."""
    kinds = set(map(type, col))
    if kinds == {str}:  # UTF-8 bytes (UnicodeEncodeError on a lone surrogate)
        return np.fromiter(map(len, col if "".join(col).isascii() else map(str.encode, col)), np.int64, len(col))
    if kinds <= {int, Decimal}:
        return _py_numbers(col, kinds, name)
    if kinds <= {bool, type(None)}:
        return 1
    if kinds == {bytes}:
        return np.fromiter(map(len, col), np.int64, len(col))
    return np.fromiter(map(value_size, col, repeat(name)), np.int64, len(col))  # mixed / nested: exact walk


def _py_group(group: list, names: tuple) -> np.ndarray:
    """Sizes of items that all have exactly the attribute names ``names``."""
    total = np.full(len(group), sum(str_size(k, k) for k in names), dtype=np.int64)
    first = group[0]
    strs = [k for k in names if type(first[k]) is str]
    if strs:  # all str attributes at once: one joined string per item
        getter = itemgetter(*strs) if len(strs) > 1 else lambda item: (item[strs[0]],)
        try:
            total += _py_column(list(map("".join, map(getter, group))), "")
        except (TypeError, UnicodeError):  # not all str: per column below
            strs = []
    for name in names:
        if name not in strs:
            total += _py_column(list(map(itemgetter(name), group)), name)
    return total


def python_item_sizes(items: list) -> list[int]:
    """Sizes of Python items (plain dicts) with the numbers sized in columns: the product's path for
    large batches (:func:`blue_nb.sizing.item_sizes`). Items are grouped by their exact attribute
    names; per group the strings of an item are joined and measured by C-level passes (faster than
    copying them into Arrow), int / Decimal columns become Arrow int64 or text sized by the numpy
    kernel, BOOL / NULL count 1, bytes their length, anything else the exact :func:`value_size`.
    Equal to ``[item_size(i) for i in items]`` when it returns; raises (ItemError, TypeError...)
    on anything else, and the caller then takes the reference path for the reference error."""
    if set(map(type, items)) != {dict}:
        raise TypeError("not all items are plain dicts")
    signatures = list(map(tuple, items))
    groups = dict.fromkeys(signatures)
    for n, names in enumerate(groups):
        groups[names] = n
    ids = np.fromiter(map(groups.__getitem__, signatures), np.int64, len(signatures))
    order = np.argsort(ids, kind="stable")
    out = np.zeros(len(items), dtype=np.int64)
    start = 0
    for names, end in zip(groups, np.cumsum(np.bincount(ids)).tolist()):
        for a in range(start, end, _GROUP_ROWS):  # slices: the joined strings stay in the CPU cache
            rows = order[a : min(a + _GROUP_ROWS, end)]
            out[rows] = _py_group(list(map(items.__getitem__, rows.tolist())), names)
        start = end
    return out.tolist()
