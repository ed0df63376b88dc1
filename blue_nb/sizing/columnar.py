"""Vectorized item sizes over columnar data (Apache Arrow), exact to the byte.

Layer 1 (pyarrow + numpy over the pure layers). A :class:`pyarrow.Table` holds one attribute per
column (column name = attribute name) and one item per row; ``types`` maps each column to its
DynamoDB type. A null cell is an *absent* attribute: neither its name nor its value counts.
:func:`item_size_column` gives one size per row, identical to ``[item_size(i) for i in items]``:

* S: UTF-8 bytes, from the string offsets; B: raw bytes of a binary column (base64 text is
  decoded value by value); BOOL / NULL: 1 per non-null cell;
* N: the base-100 digit-pair rule (rules doc 1.1) run by numpy over the column's bytes, block by
  block (:func:`number_text_sizes`): plain texts (``"-12.500"``, ``"0.001"``, ``"1706900000"``)
  never reach Python, distinct or not; exponent forms (``"1E+125"``) and invalid texts go to
  :func:`blue_nb.sizing.number_size` once per distinct text (exact size or the precise
  :class:`ItemError`). Integer and decimal columns are cast to text first; floats are an error;
* L / M / SS / NS / BS: the slow path, cell by cell: DynamoDB JSON text (``'{"L": [...]}'``) or a
  nested Arrow value (list, map, struct) sized by the exact :func:`blue_nb.sizing.value_size`;
* dictionary-encoded columns are sized on their dictionary, then taken by index.

:func:`items_to_table` turns Python items into such a table and :func:`table_item_sizes` chains both.
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
from blue_nb.items.values import MAX_ADJUSTED, MAX_DIGITS, MIN_ADJUSTED, TYPE_TAGS, as_bytes, from_wire, loads_wire
from blue_nb.items.values import number_text, to_wire, validate_number

__all__ = ["item_size_column", "items_to_table", "number_text_sizes", "table_item_sizes"]

#: rows / bytes per numpy block of number texts: the temporaries stay in the CPU cache
_BLOCK_ROWS = 32768
_BLOCK_BYTES = 256 * 1024
_WALK_STEPS = 6  # steps over zeros next to the ends of a number before a lookup
_NAME_HINT = "every column of the table is one attribute: give its DynamoDB type in `types`"
_TAGS_HINT = f"use one of {sorted(TYPE_TAGS)}"
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


def _text_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
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
    cache: dict[str, int] = {}  # the exact path, once per distinct text
    for r, text in zip(rows.tolist(), arr.take(pa.array(rows, pa.int64())).to_pylist() if rows.size else []):
        text = text if isinstance(text, str) else text.decode("utf-8", "replace")
        if text not in cache:
            cache[text] = number_size(text, where=_row_where(where, base + r))
        out[r] = cache[text]
    return out


# ---------------------------------------------------------------- columns


def _valid(arr: pa.Array) -> np.ndarray | None:
    """Bool mask of non-null cells, or None when there is no null."""
    if pa.types.is_dictionary(arr.type) and arr.dictionary.null_count:  # nulls in the dictionary too
        arr = arr.dictionary_decode()
    return arr.is_valid().to_numpy(zero_copy_only=False) if arr.null_count else None


def _row_where(name: str, row: int) -> str:
    return f"{name} (row {row})" if name else f"row {row}"


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
    if not isinstance(v, (str, bytes)):
        return value_size(_arrow_value(v, tag, t, where), where)
    wire = loads_wire(v, where)
    if len(wire) != 1 or next(iter(wire)) != tag:
        raise ItemError(f"cell {str(v)[:80]!r} is not a {tag} value", where=where, hint=f'write {{"{tag}": ...}}')
    return value_size(from_wire(wire, where), where)


def _arrow_value(v: Any, tag: str, t: pa.DataType, where: str) -> Any:
    """Python value of a nested Arrow cell, checked against ``tag``; the null fields of a struct
    are absent keys (write DynamoDB JSON text to keep an explicit NULL inside a map)."""
    if tag == "M":
        if pa.types.is_map(t):
            v = dict(v)
        elif pa.types.is_struct(t):
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


def _check_names(names: list[str], types: Mapping[str, str]) -> None:
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ItemError(f"the table has duplicate columns {dup}", where=dup[0], hint="an item has each attribute once")
    for name in names:
        if name not in types:
            raise ItemError(f"column {name!r} has no type", where=name, hint=_NAME_HINT)
        if types[name] not in TYPE_TAGS:
            raise ItemError(f"column {name!r} has unknown type {types[name]!r}", where=name, hint=_TAGS_HINT)
        if not name or len(name.encode("utf-8")) > 65_536:
            raise ItemError(f"attribute name {name[:60]!r} must be 1 byte to 64 KB long", where=name, hint="rename it")


def item_size_column(table: pa.Table, types: Mapping[str, str]) -> np.ndarray:
    """One item size per row (int64), exactly as ``item_size``; ``types[column]`` is S N B BOOL NULL
    L M SS NS or BS, a null cell an absent attribute. :class:`ItemError` for a column without a
    type, an Arrow type that cannot hold it (floats for N), or an invalid value (column and row)."""
    _check_names(table.column_names, types)
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


# ---------------------------------------------------------------- Python items -> table


class _Absent:
    """The cell of an attribute an item does not have."""


_ABSENT = _Absent()
_NZ_CHARS = frozenset("123456789")
_KINDS = {"S": str, "B": bytes, "BOOL": bool, "NULL": type(None)}
_FITS = {"S": lambda v: isinstance(v, str), "B": lambda v: as_bytes(v) is not None,
         "BOOL": lambda v: isinstance(v, bool), "NULL": lambda v: v is None}


def _cell_error(name: str, tag: str, v: Any, row: int, hint: str = "") -> ItemError:
    return ItemError(f"{type(v).__name__} value {v!r:.80} does not fit type {tag}", where=_row_where(name, row),
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
    return number_text(validate_number(v, _row_where(name, row)))


def _column(cells: list, name: str, tag: str) -> pa.Array:
    """One Arrow column from an attribute's values (``_ABSENT`` where an item does not have it)."""
    kinds = set(map(type, cells)) - {_Absent}
    if tag in _KINDS and not kinds <= {_KINDS[tag]}:
        r, v = next(((r, v) for r, v in enumerate(cells) if v is not _ABSENT and not _FITS[tag](v)), (0, _ABSENT))
        if v is not _ABSENT:
            raise _cell_error(name, tag, v, r, "None is a NULL value: leave the attribute out" if v is None else "")
    if tag == "NULL":
        return pa.array([None if v is _ABSENT else True for v in cells], pa.bool_())
    if tag == "S":
        try:
            return pa.array([None if v is _ABSENT else v for v in cells], pa.string())
        except (UnicodeEncodeError, pa.ArrowException) as exc:
            raise ItemError(f"column {name!r} holds a string that is not valid Unicode", where=name,
                            hint="decode your input with the right encoding") from exc
    if tag in _KINDS:
        cells = [None if v is _ABSENT else as_bytes(v) if tag == "B" else v for v in cells]
        return pa.array(cells, pa.binary() if tag == "B" else pa.bool_())
    if tag == "N":
        return pa.array([None if v is _ABSENT else _number_cell(v, name, r) for r, v in enumerate(cells)], pa.string())
    texts = []
    for r, v in enumerate(cells):
        wire = None if v is _ABSENT else to_wire(v, _row_where(name, r))
        if wire is not None and next(iter(wire)) != tag:
            raise _cell_error(name, tag, v, r)
        texts.append(wire if wire is None else json.dumps(wire, ensure_ascii=False, separators=(",", ":")))
    return pa.array(texts, pa.string())


def items_to_table(items: Iterable[Mapping[str, Any]], types: Mapping[str, str]) -> pa.Table:
    """Python items -> a table with one column per attribute of ``types``, one row per item: S string,
    N canonical number text, B binary, BOOL bool, NULL bool (True when there), L M SS NS BS DynamoDB
    JSON text; absent = null. :class:`ItemError` for untyped attributes or values not of their type."""
    items = items if isinstance(items, list) else list(items)
    _check_names(list(types), types)
    known = set(types)
    if not set(map(type, items)) <= {dict} or not all(map(known.issuperset, items)):
        for r, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise ItemError(f"item {r} is a {type(item).__name__}, not a dict", hint="pass dicts")
            for k in item:
                if k not in known:
                    raise ItemError(f"item {r} has attribute {k!r} with no type", where=str(k), hint=_NAME_HINT)
    columns = {name: _column(list(map(methodcaller("get", name, _ABSENT), items)), name, tag)
               for name, tag in types.items()}
    if not columns:  # items without attributes: rows without columns
        return pa.Table.from_struct_array(pa.array([{}] * len(items), pa.struct([])))
    return pa.table(columns)


def table_item_sizes(items: Iterable[Mapping[str, Any]], types: Mapping[str, str]) -> np.ndarray:
    """Sizes of Python items through the columnar path: ``item_size_column(items_to_table(...))``."""
    return item_size_column(items_to_table(items, types), types)
