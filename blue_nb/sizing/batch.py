"""Fast item sizes for many items; results are identical to :func:`item_size` / :func:`wire_item_size`.

Items of one entity share their attribute names, so the batch is sized *column by column*:

1. items are grouped by a cheap signature (attribute count, first name); inside a group every
   column is pulled out with ``itemgetter(name)``: a missing name raises, and with equal counts
   that proves the group has exactly one set of names, whose bytes are counted once;
2. each column is sized with C-level ``map`` calls: a str column is measured with ``len`` (one
   ``isascii`` check for the whole column), number columns through a dict keyed by the number's
   text, BOOL/NULL columns are a constant 1; mixed or nested columns use the exact recursive
   walk of :mod:`blue_nb.sizing.items` value by value;
3. column sizes are added per item.

If anything is unusual (different names in a group, a bad value, ...) the group is split by
exact names, and a group that still fails is sized item by item with the reference walk, so
results and errors are exactly those of ``[item_size(i) for i in items]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from itertools import repeat
from operator import itemgetter
from typing import Any

from blue_nb.sizing.items import item_size, str_size, value_size, wire_item_size, wire_value_size
from blue_nb.sizing.numbers import number_size, text_number_size

__all__ = ["item_sizes", "wire_item_sizes"]

_CACHE_LIMIT = 1 << 17
_CHUNK = 512  # items per chunk: small enough for the column passes to hit the CPU cache
_NONE = type(None)
_ColumnSizer = Callable[[list, str, "_NumberSizes"], "list[int] | int"]


class _NumberSizes(dict):
    """number text -> size, filled on demand and cleared when it grows too big."""

    def __missing__(self, text: Any) -> int:
        if len(self) > _CACHE_LIMIT:
            self.clear()
        size = self[text] = text_number_size(text) if type(text) is str else number_size(text)
        return size


#: (digits, digits without trailing zeros) -> size, for positive integers without leading zeros
_INT_SIZES = {(n, core): 2 + (n - 1) // 2 - (n - core) // 2 for n in range(1, 39) for core in range(1, n + 1)}


def _number_column(texts: list, nums: _NumberSizes) -> list[int]:
    """Sizes of a column of number texts.

    A column of plain positive integers (ids, counters, epoch times: often all distinct) is
    sized with C-level passes from (length, length without trailing zeros); anything else
    goes through the ``nums`` cache, which computes exactly and raises on invalid numbers.
    """
    try:
        joined = "".join(texts)
        plain = joined.isdigit() and joined.isascii() and "0" not in set(map(itemgetter(0), texts))
    except (TypeError, IndexError):  # a non-str body or an empty text: let the cache decide
        plain = False
    if plain:
        lens = list(map(len, texts))
        if max(lens) <= 38:
            cores = map(len, map(str.rstrip, texts, repeat("0")))
            return list(map(_INT_SIZES.__getitem__, zip(lens, cores)))
    return list(map(nums.__getitem__, texts))


def _str_column(col: list) -> list[int]:
    """UTF-8 sizes of a column of str; raises TypeError if one is not a str.

    ``join`` checks the types (str subclasses size like str), one ``isascii`` covers the column.
    """
    if "".join(col).isascii():
        return list(map(len, col))
    return list(map(len, map(str.encode, col)))  # a lone surrogate raises: the caller falls back


# ---------------------------------------------------------------- Python columns


def _py_value(v: Any, name: str, nums: _NumberSizes) -> int:
    """Size of one value of a mixed column."""
    t = type(v)
    if t is str:
        return len(v) if v.isascii() else str_size(v, name)
    if t is Decimal or t is int:
        return nums[str(v)]
    if v is None or t is bool:
        return 1
    return value_size(v, name)


def _py_column(col: list, name: str, nums: _NumberSizes) -> list[int] | int:
    """Sizes of one column of Python values (an int when they are all the same)."""
    if type(col[0]) is str:
        try:
            return _str_column(col)
        except TypeError:
            pass
    kinds = set(map(type, col))
    if kinds <= {int, Decimal}:
        return _number_column(list(map(str, col)), nums)
    if kinds <= {bool, _NONE}:
        return 1
    if kinds == {bytes}:
        return list(map(len, col))
    return [_py_value(v, name, nums) for v in col]


# ---------------------------------------------------------------- wire columns

_GET_S, _GET_N = itemgetter("S"), itemgetter("N")


def _wire_bodies(col: list, getter: Callable) -> list | None:
    """The bodies of a column whose values all have exactly the one key of ``getter``, else None."""
    try:
        bodies = list(map(getter, col))
    except (KeyError, TypeError):
        return None
    return bodies if set(map(len, col)) == {1} else None


def _wire_column(col: list, name: str, nums: _NumberSizes) -> list[int] | int:
    """Sizes of one column of wire values (an int when they are all the same)."""
    first = col[0]
    if type(first) is dict and "S" in first:
        strs = _wire_bodies(col, _GET_S)
        if strs is not None:
            return _str_column(strs)
    elif type(first) is dict and "N" in first:
        texts = _wire_bodies(col, _GET_N)
        if texts is not None:
            return _number_column(texts, nums)
    elif set(map(type, col)) == {dict} and set(map(len, col)) == {1}:
        tags = set(map(next, map(iter, col)))
        if tags <= {"BOOL", "NULL"}:
            return 1
    return [wire_value_size(w, name) for w in col]


# ---------------------------------------------------------------- groups


def _group_sizes(group: Sequence[Mapping], sizer: _ColumnSizer, nums: _NumberSizes) -> list[int]:
    """Sizes of items that all have the same attribute count and names (KeyError if a name is missing).

    The caller guarantees equal counts (items are grouped by count), so finding every name of
    the first item in every item proves all items have exactly the same names.
    """
    names = tuple(group[0])
    fixed = sum(str_size(k, k) for k in names)
    columns: list[list[int]] = []
    for name in names:
        sizes = sizer(list(map(itemgetter(name), group)), name, nums)
        if isinstance(sizes, int):
            fixed += sizes
        else:
            columns.append(sizes)
    if not columns:
        return [fixed] * len(group)
    if len(columns) == 1:
        return list(map(fixed.__add__, columns[0]))
    return list(map(fixed.__add__, map(sum, zip(*columns))))


def _safe_group_sizes(group: list, sizer: _ColumnSizer, nums: _NumberSizes, exact: Callable) -> list[int]:
    """Column-wise sizes of a group; split by exact names, then item by item, when that fails."""
    try:
        return _group_sizes(group, sizer, nums)
    except Exception:  # noqa: BLE001 - fall back to exact grouping / the reference walk
        pass
    by_names: dict[tuple, list[int]] = {}
    for i, item in enumerate(group):
        by_names.setdefault(tuple(item) if isinstance(item, Mapping) else (), []).append(i)
    out = [0] * len(group)
    for indexes in by_names.values():
        part = [group[i] for i in indexes]
        try:
            sizes = _group_sizes(part, sizer, nums) if len(by_names) > 1 else None
        except Exception:  # noqa: BLE001 - the reference walk gives the exact result or error
            sizes = None
        for i, size in zip(indexes, sizes or map(exact, part)):
            out[i] = size
    return out


def _chunk_sizes(items: list, sizer: _ColumnSizer, nums: _NumberSizes, exact: Callable) -> list[int]:
    """Size one chunk: group by (count, first name), size each group column-wise."""
    try:
        signatures = list(zip(map(len, items), map(next, map(iter, items), [None] * len(items))))
        distinct = len(set(signatures))
    except Exception:  # noqa: BLE001 - not all mappings: let the reference walk raise
        return list(map(exact, items))
    if distinct == 1:
        return _safe_group_sizes(items, sizer, nums, exact)
    groups: dict[tuple, list[int]] = {}
    for i, sig in enumerate(signatures):
        groups.setdefault(sig, []).append(i)
    out = [0] * len(items)
    for indexes in groups.values():
        for i, size in zip(indexes, _safe_group_sizes([items[i] for i in indexes], sizer, nums, exact)):
            out[i] = size
    return out


def _sizes(items: Iterable[Mapping], sizer: _ColumnSizer, exact: Callable) -> list[int]:
    """Size all items, :data:`_CHUNK` at a time (column passes then stay in the CPU cache)."""
    items = items if isinstance(items, list) else list(items)
    nums = _NumberSizes()
    out: list[int] = []
    for start in range(0, len(items), _CHUNK):
        out += _chunk_sizes(items[start : start + _CHUNK], sizer, nums, exact)
    return out


def item_sizes(items: Iterable[Mapping[str, Any]]) -> list[int]:
    """Sizes of many Python items, fast; same numbers (and errors) as ``[item_size(i) for i in items]``."""
    return _sizes(items, _py_column, item_size)


def wire_item_sizes(wire_items: Iterable[Mapping[str, Any]]) -> list[int]:
    """Sizes of many DynamoDB JSON items, fast; same numbers (and errors) as ``[wire_item_size(i) ...]``."""
    return _sizes(wire_items, _wire_column, wire_item_size)
