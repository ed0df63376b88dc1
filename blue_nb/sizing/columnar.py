"""The batch path of item sizing: many items sized a column at a time, exact to the byte (the per-item path,
:mod:`blue_nb.sizing.exact`, is the reference it equals, errors included).

Loaded only when a batch is sized (pyarrow + numpy). Three inputs, the same column sizers:

* **Arrow tables** (a CSV file's columns): one attribute per column, one item per row; ``types`` maps
  each column to its DynamoDB type; a null cell is an absent attribute. :func:`item_size_column`:
  S / B lengths from the offsets (base64 text decoded value by value), BOOL / NULL 1; N by the
  base-100 digit-pair rule run by numpy over the texts' bytes (:func:`number_text_sizes`: exponent
  forms and invalid texts go to :func:`number_size` once per distinct text; integer and decimal
  columns are cast to text, floats are an error); L / M / SS / NS / BS cell by cell (DynamoDB JSON
  text or nested Arrow values) by the exact :func:`value_size`; dictionary columns on their dictionary.
* **Python items** (:func:`item_sizes`) and **DynamoDB JSON items** (:func:`wire_item_sizes`): items of
  one entity share their attribute names, so they are cut into chunks of :data:`_CHUNK` (the repeated
  passes stay in the CPU cache) and grouped by (attribute count, first name). Every name of a group's
  first item is fetched from every item with ``itemgetter``: a missing name raises, and with equal
  counts that proves the group has exactly the same names, whose bytes are counted once. The string
  values of an item are joined and measured with ``len`` (one ``isascii`` for the group); BOOL / NULL
  add 1 once their types are checked; a number column goes to the numpy kernel (from
  :data:`_KERNEL_MIN` values; a shorter one to :func:`number_size`, cached); every other column
  (nested, mixed, binary...) to the exact walk value by value.

  Anything unexpected (a str column holding a number, different names, an invalid value...) makes
  that part fall back: per column, then per exact name set, then item by item with the exact walk,
  so sizes and errors equal ``[item_size(i) for i in items]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from itertools import chain, repeat
from operator import itemgetter
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from blue_nb.errors import ItemError
from blue_nb.items.arrow import cell_value, check_names, row_where
from blue_nb.items.values import MAX_ADJUSTED, MAX_DIGITS, MIN_ADJUSTED
from blue_nb.sizing.exact import b64_raw_length, item_size, str_size, value_size, wire_item_size, wire_value_size
from blue_nb.sizing.numbers import MAX_NUMBER_BYTES, number_size

__all__ = ["item_size_column", "item_sizes", "number_text_sizes", "text_buffers", "wire_item_sizes"]

#: rows / bytes per numpy block of number texts: the temporaries stay in the CPU cache
_BLOCK_ROWS = 32768
_BLOCK_BYTES = 256 * 1024
_CHUNK = 2048  # Python / wire items sized at a time: the repeated passes over a chunk stay in the CPU cache
_KERNEL_MIN = 128  # numbers from which a column is sized by the numpy kernel (below: number_size, cached, is faster)
_WALK_STEPS = 6  # steps over zeros next to the ends of a number before a lookup
_NONE = type(None)
_GET_S, _GET_N = itemgetter("S"), itemgetter("N")
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


# ---------------------------------------------------------------- Python and wire items, a column at a time


def _number_column(col: list, name: str) -> list[int]:
    """Sizes of a column of numbers (texts, ints or Decimals): value by value (:func:`number_size`, cached) when
    short, by the numpy kernel from :data:`_KERNEL_MIN` values on (ints as Arrow int64, the rest as their text)."""
    if len(col) < _KERNEL_MIN:
        return list(map(number_size, col))
    if type(col[0]) is int:
        try:
            return _number_sizes(pa.array(col, pa.int64()), name, 0).tolist()
        except (OverflowError, pa.ArrowException):  # beyond int64, or not all ints: as text
            pass
    texts = col if type(col[0]) is str else list(map(str, col))  # str(): the text number_size reads
    return _number_chunk(pa.array(texts, pa.string()), name, 0).tolist()


def _text_sizes(strs: list) -> list[int]:
    """UTF-8 sizes of strings (raises TypeError if one is not a str, UnicodeError on surrogates)."""
    if "".join(strs).isascii():
        return list(map(len, strs))
    return list(map(len, map(str.encode, strs)))


def _tuples(getter: Callable, names: list[str]) -> Callable:
    """``getter`` that always returns a tuple (``itemgetter`` with one name does not)."""
    return getter if len(names) > 1 else lambda item: (getter(item),)


def _py_kind(v: Any) -> str:
    """How a value of the first item is sized: ``s`` string, ``1`` BOOL/NULL, ``x`` by column."""
    return "s" if type(v) is str else "1" if v is None or type(v) is bool else "x"


def _py_strings(group: list, names: list[str]) -> list[int]:
    """Per-item bytes of the string values under ``names`` (TypeError if one is not a str)."""
    getter = _tuples(itemgetter(*names), names)
    return _text_sizes(list(map("".join, map(getter, group))))


def _py_consts_ok(group: list, names: list[str]) -> bool:
    """True if every value under ``names`` is a bool or None."""
    values = chain.from_iterable(map(_tuples(itemgetter(*names), names), group))
    return set(map(type, values)) <= {bool, _NONE}


def _py_value(v: Any, name: str) -> int:
    """Size of one value of a mixed column."""
    t = type(v)
    if t is str:
        return len(v) if v.isascii() else str_size(v, name)
    if v is None or t is bool:
        return 1
    return value_size(v, name)


def _py_column(col: list, name: str) -> list[int] | int:
    """Sizes of one column of Python values (an int when they are all the same)."""
    kinds = set(map(type, col))
    if kinds == {str}:
        return _text_sizes(col)
    if kinds == {int}:
        return _number_column(col, name)
    if kinds <= {int, Decimal}:
        return _number_column(list(map(str, col)), name)
    if kinds <= {bool, _NONE}:
        return 1
    if kinds == {bytes}:
        return list(map(len, col))
    return [_py_value(v, name) for v in col]


def _wire_kind(w: Any) -> str:
    """How a wire value of the first item is sized: ``s`` S, ``1`` BOOL/NULL, ``x`` by column."""
    if type(w) is not dict or len(w) != 1:
        return "x"
    return "s" if "S" in w else "1" if "BOOL" in w or "NULL" in w else "x"


def _wire_flat(group: list, names: list[str]) -> list:
    """All wire values under ``names``, item after item (KeyError if a name is missing)."""
    return list(chain.from_iterable(map(_tuples(itemgetter(*names), names), group)))


def _wire_bodies(values: list, getter: Callable) -> list | None:
    """Bodies of wire values that all are one-key objects with ``getter``'s key, else None."""
    try:
        bodies = list(map(getter, values))  # a list / str / missing key raises
    except (KeyError, TypeError):
        return None
    return bodies if set(map(len, values)) == {1} and set(map(type, bodies)) == {str} else None


def _wire_strings(group: list, names: list[str]) -> list[int]:
    """Per-item bytes of the S values under ``names`` (TypeError if one is not a plain S)."""
    bodies = _wire_bodies(_wire_flat(group, names), _GET_S)
    if bodies is None:
        raise TypeError("not all S values")
    return _text_sizes(list(map("".join, zip(*[iter(bodies)] * len(names)))))


def _wire_consts_ok(group: list, names: list[str]) -> bool:
    """True if every wire value under ``names`` is a one-key BOOL or NULL object."""
    flat = _wire_flat(group, names)
    if set(map(type, flat)) != {dict} or set(map(len, flat)) != {1}:
        return False
    return set(map(next, map(iter, flat))) <= {"BOOL", "NULL"}


def _wire_column(col: list, name: str) -> list[int] | int:
    """Sizes of one column of wire values (an int when they are all the same)."""
    first = col[0]
    if type(first) is dict and ("N" in first or "S" in first):
        bodies = _wire_bodies(col, _GET_N if "N" in first else _GET_S)
        if bodies is not None:
            return _number_column(bodies, name) if "N" in first else _text_sizes(bodies)
    elif set(map(type, col)) == {dict} and set(map(len, col)) == {1}:
        if set(map(next, map(iter, col))) <= {"BOOL", "NULL"}:
            return 1
    return [wire_value_size(w, name) for w in col]


class _Flavour:
    """How the items of one model (Python or DynamoDB JSON) are sized: a value's kind in the first item of a
    group, the joined strings, the BOOL / NULL check, one column, one item by the exact walk."""

    def __init__(self, kind: Callable, strings: Callable, consts_ok: Callable, column: Callable, exact: Callable):
        self.kind, self.strings, self.consts_ok, self.column, self.exact = kind, strings, consts_ok, column, exact


_PY = _Flavour(_py_kind, _py_strings, _py_consts_ok, _py_column, item_size)
_WIRE = _Flavour(_wire_kind, _wire_strings, _wire_consts_ok, _wire_column, wire_item_size)


def _group_sizes(group: list, fl: _Flavour) -> list[int]:
    """Sizes of items that all have the same attribute count (KeyError if a name is missing).

    Equal counts + every name of the first item found in every item = identical names.
    """
    first = group[0]
    names = tuple(first)
    fixed = sum(str_size(k, k) for k in names)
    kinds: dict[str, list[str]] = {"s": [], "1": [], "x": []}
    for name in names:
        kinds[fl.kind(first[name])].append(name)
    lists: list[list[int]] = []
    rest = kinds["x"]
    if kinds["s"]:
        try:
            lists.append(fl.strings(group, kinds["s"]))
        except (TypeError, UnicodeError):  # a str column holds something else: size it per column
            rest += kinds["s"]
    if kinds["1"]:
        if fl.consts_ok(group, kinds["1"]):
            fixed += len(kinds["1"])
        else:
            rest += kinds["1"]
    for name in rest:
        sizes = fl.column(list(map(itemgetter(name), group)), name)
        if isinstance(sizes, int):
            fixed += sizes
        else:
            lists.append(sizes)
    if not lists:
        return [fixed] * len(group)
    return list(map(fixed.__add__, lists[0] if len(lists) == 1 else map(sum, zip(*lists))))


def _safe_group_sizes(group: list, fl: _Flavour) -> list[int]:
    """Sizes of a group; on failure split it by exact names, then size item by item."""
    try:
        return _group_sizes(group, fl)
    except Exception:  # noqa: BLE001 - fall back to exact grouping / the reference walk
        pass
    by_names: dict[tuple, list[int]] = {}
    for i, item in enumerate(group):
        by_names.setdefault(tuple(item) if isinstance(item, Mapping) else (), []).append(i)
    out = [0] * len(group)
    for indexes in by_names.values():
        part = [group[i] for i in indexes]
        try:
            sizes = _group_sizes(part, fl) if len(by_names) > 1 else None
        except Exception:  # noqa: BLE001 - the reference walk gives the exact result or error
            sizes = None
        for i, size in zip(indexes, sizes or map(fl.exact, part)):
            out[i] = size
    return out


def _chunk_sizes(items: list, fl: _Flavour) -> list[int]:
    """Size one chunk: group by (count, first name), size each group."""
    if set(map(type, items)) != {dict}:  # other mappings (defaultdict...): the reference walk
        return list(map(fl.exact, items))
    signatures = list(zip(map(len, items), map(next, map(iter, items), repeat(None))))
    if len(set(signatures)) == 1:
        return _safe_group_sizes(items, fl)
    groups: dict[tuple, list[int]] = {}
    for i, sig in enumerate(signatures):
        groups.setdefault(sig, []).append(i)
    out = [0] * len(items)
    for indexes in groups.values():
        for i, size in zip(indexes, _safe_group_sizes([items[i] for i in indexes], fl)):
            out[i] = size
    return out


def _sizes(items: Iterable[Mapping], fl: _Flavour) -> list[int]:
    """Size all items, :data:`_CHUNK` at a time."""
    items = items if isinstance(items, list) else list(items)
    out: list[int] = []
    for start in range(0, len(items), _CHUNK):
        out += _chunk_sizes(items[start : start + _CHUNK], fl)
    return out


def item_sizes(items: Iterable[Mapping[str, Any]]) -> list[int]:
    """Sizes of many Python items, a column at a time; the same numbers (and errors) as
    ``[item_size(i) for i in items]`` (see the module docstring)."""
    return _sizes(items, _PY)


def wire_item_sizes(wire_items: Iterable[Mapping[str, Any]]) -> list[int]:
    """Sizes of many DynamoDB JSON items, a column at a time; the same numbers (and errors) as
    ``[wire_item_size(i) for i in wire_items]``."""
    return _sizes(wire_items, _WIRE)
