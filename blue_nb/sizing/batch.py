"""Fast item sizes for many items; results are identical to :func:`item_size` / :func:`wire_item_size`.

Items of one entity share their attribute names, so a batch is sized group by group with
C-level passes (``map``/``itemgetter``/``join``) instead of a Python call per value:

1. items are cut into chunks (so repeated passes stay in the CPU cache) and grouped by
   (attribute count, first name). Every name of a group's first item is then fetched from
   every item with ``itemgetter``: a missing name raises, and with equal counts that proves
   the whole group has exactly the same names, whose bytes are counted once.
2. Names whose value in the first item is a string are sized together per item: the strings
   are joined and measured with ``len`` (one ``isascii`` for the group); BOOL/NULL names
   add a constant 1 once their types are checked; number columns are sized from their text
   (a plain-integer column by C-level string passes, anything else through a per-call cache);
   every other column (nested, mixed, binary...) uses the exact walk of
   :mod:`blue_nb.sizing.exact` value by value.

Anything unexpected (a str column holding a number, different names, an invalid value...)
makes that part fall back to a slower exact path: per column, then per exact name set, then
item by item with the reference walk, so sizes and errors equal ``[item_size(i) for i in items]``.

:func:`item_sizes` is the product's entry point: a batch of at least :data:`COLUMNAR_MIN_ITEMS`
Python items of which at least :data:`COLUMNAR_MIN_NUMBER_SHARE` of the (sampled) values are
numbers goes to :func:`blue_nb.sizing.columnar.python_item_sizes` (numbers sized in columns,
faster there from about 500-1000 items on this machine); other batches to the grouped path above.
If the columnar path raises, the grouped path sizes the batch again and gives the reference error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from itertools import chain, repeat
from operator import add, itemgetter, sub
from random import Random
from typing import Any

from blue_nb.sizing.exact import item_size, str_size, value_size, wire_item_size, wire_value_size
from blue_nb.sizing.numbers import MAX_NUMBER_BYTES, number_size, text_number_size
from blue_nb.items.values import MAX_ADJUSTED, MAX_DIGITS, MIN_ADJUSTED

__all__ = ["COLUMNAR_MIN_ITEMS", "item_sizes", "wire_item_sizes"]

#: Python items from which :func:`item_sizes` takes the columnar path (crossover measured on 20k
#: dialogue / synthetic text / numeric items: columnar is slower below ~500 items, 1.1-2.5x faster above 1000)
COLUMNAR_MIN_ITEMS = 1000
#: ... when at least this share of the values (in a sample of items) are int / Decimal: the columnar path
#: gains on numbers; on string-only items (the dialogue sample) the grouped path is ~15% faster
COLUMNAR_MIN_NUMBER_SHARE = 0.1
_SAMPLE = 64

_CACHE_LIMIT = 1 << 17
_CHUNK = 1024  # items per chunk: small enough for the repeated passes to hit the CPU cache
_NONE = type(None)
_GET_S, _GET_N = itemgetter("S"), itemgetter("N")


class _NumberSizes(dict):
    """number text -> size, filled on demand (exact, raises on invalid numbers), bounded."""

    def __missing__(self, text: Any) -> int:
        if len(self) > _CACHE_LIMIT:
            self.clear()
        size = self[text] = text_number_size(text) if type(text) is str else number_size(text)
        return size


# ---------------------------------------------------------------- shared column helpers


class _PlainSizes(dict):
    """(a, c) -> size of a plain unsigned decimal whose most significant non-zero digit has
    power of ten ``a - 1`` and which has ``c`` digits from there to the last non-zero digit;
    ``None`` when such a number is invalid (more than 38 digits or out of range)."""

    def __missing__(self, key: tuple[int, int]) -> int | None:
        a, c = key
        hi, lo = a - 1, a - c
        if c == 0:  # zero, however it is written
            size = 1
        elif c <= MAX_DIGITS and MIN_ADJUSTED <= hi <= MAX_ADJUSTED:
            size = min(2 + hi // 2 - lo // 2, MAX_NUMBER_BYTES)
        else:
            size = None
        self[key] = size
        return size


_PLAIN_SIZES = _PlainSizes()


def _plain_number_sizes(texts: list) -> list[int] | None:
    """Sizes of texts that are all plain unsigned decimals (``123``, ``0.50``, ``7.``), else None.

    Per text: digits = integer part + fraction part; ``a`` = digits after stripping leading
    zeros minus fraction digits, ``c`` = digits without leading and trailing zeros.
    """
    try:
        parts = list(map(str.partition, texts, repeat(".")))
        fractions = list(map(itemgetter(2), parts))
        digits = list(map(add, map(itemgetter(0), parts), fractions))
        joined = "".join(digits)
        if not (all(digits) and joined.isdigit() and joined.isascii()):
            return None
        a = map(sub, map(len, map(str.lstrip, digits, repeat("0"))), map(len, fractions))
        sizes = list(map(_PLAIN_SIZES.__getitem__, zip(a, map(len, map(str.strip, digits, repeat("0"))))))
    except TypeError:  # not all str
        return None
    return None if None in sizes else sizes


def _number_column(keys: list, nums: _NumberSizes) -> list[int]:
    """Sizes of a column of numbers given as texts (or as Python ints, which hash faster).

    Known numbers come from the cache; a column of mostly new, mostly distinct plain unsigned
    numbers (ids, epoch times, prices) is sized by C-level string passes instead of one Python
    call per value.
    """
    sizes = list(map(nums.get, keys, repeat(0)))  # 0 = not cached yet (int compares are fast)
    missing = sizes.count(0)
    if not missing:
        return sizes
    if missing * 4 > len(keys) and len(set(keys)) * 4 > len(keys):
        fast = _plain_number_sizes(keys if type(keys[0]) is str else list(map(str, keys)))
        if fast is not None:
            if len(nums) > _CACHE_LIMIT:
                nums.clear()
            nums.update(zip(keys, fast))  # repeated values are cache hits in the next chunks
            return fast
    return list(map(nums.__getitem__, keys))


def _text_sizes(strs: list) -> list[int]:
    """UTF-8 sizes of strings (raises TypeError if one is not a str, UnicodeError on surrogates)."""
    if "".join(strs).isascii():
        return list(map(len, strs))
    return list(map(len, map(str.encode, strs)))


def _tuples(getter: Callable, names: list[str]) -> Callable:
    """``getter`` that always returns a tuple (``itemgetter`` with one name does not)."""
    return getter if len(names) > 1 else lambda item: (getter(item),)


# ---------------------------------------------------------------- Python flavour


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
    kinds = set(map(type, col))
    if kinds == {str}:
        return _text_sizes(col)
    if kinds == {int}:
        return _number_column(col, nums)
    if kinds <= {int, Decimal}:
        return _number_column(list(map(str, col)), nums)
    if kinds <= {bool, _NONE}:
        return 1
    if kinds == {bytes}:
        return list(map(len, col))
    return [_py_value(v, name, nums) for v in col]


# ---------------------------------------------------------------- wire flavour


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


def _wire_column(col: list, name: str, nums: _NumberSizes) -> list[int] | int:
    """Sizes of one column of wire values (an int when they are all the same)."""
    first = col[0]
    if type(first) is dict and ("N" in first or "S" in first):
        bodies = _wire_bodies(col, _GET_N if "N" in first else _GET_S)
        if bodies is not None:
            return _number_column(bodies, nums) if "N" in first else _text_sizes(bodies)
    elif set(map(type, col)) == {dict} and set(map(len, col)) == {1}:
        if set(map(next, map(iter, col))) <= {"BOOL", "NULL"}:
            return 1
    return [wire_value_size(w, name) for w in col]


class _Flavour:
    """The per-model functions a group is sized with."""

    def __init__(self, kind: Callable, strings: Callable, consts_ok: Callable, column: Callable, exact: Callable):
        self.kind, self.strings, self.consts_ok, self.column, self.exact = kind, strings, consts_ok, column, exact


_PY = _Flavour(_py_kind, _py_strings, _py_consts_ok, _py_column, item_size)
_WIRE = _Flavour(_wire_kind, _wire_strings, _wire_consts_ok, _wire_column, wire_item_size)


# ---------------------------------------------------------------- groups and chunks


def _group_sizes(group: list, fl: _Flavour, nums: _NumberSizes) -> list[int]:
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
        sizes = fl.column(list(map(itemgetter(name), group)), name, nums)
        if isinstance(sizes, int):
            fixed += sizes
        else:
            lists.append(sizes)
    if not lists:
        return [fixed] * len(group)
    return list(map(fixed.__add__, lists[0] if len(lists) == 1 else map(sum, zip(*lists))))


def _safe_group_sizes(group: list, fl: _Flavour, nums: _NumberSizes) -> list[int]:
    """Sizes of a group; on failure split it by exact names, then size item by item."""
    try:
        return _group_sizes(group, fl, nums)
    except Exception:  # noqa: BLE001 - fall back to exact grouping / the reference walk
        pass
    by_names: dict[tuple, list[int]] = {}
    for i, item in enumerate(group):
        by_names.setdefault(tuple(item) if isinstance(item, Mapping) else (), []).append(i)
    out = [0] * len(group)
    for indexes in by_names.values():
        part = [group[i] for i in indexes]
        try:
            sizes = _group_sizes(part, fl, nums) if len(by_names) > 1 else None
        except Exception:  # noqa: BLE001 - the reference walk gives the exact result or error
            sizes = None
        for i, size in zip(indexes, sizes or map(fl.exact, part)):
            out[i] = size
    return out


def _chunk_sizes(items: list, fl: _Flavour, nums: _NumberSizes) -> list[int]:
    """Size one chunk: group by (count, first name), size each group."""
    if set(map(type, items)) != {dict}:  # other mappings (defaultdict...): the reference walk
        return list(map(fl.exact, items))
    signatures = list(zip(map(len, items), map(next, map(iter, items), repeat(None))))
    distinct = len(set(signatures))
    if distinct == 1:
        return _safe_group_sizes(items, fl, nums)
    groups: dict[tuple, list[int]] = {}
    for i, sig in enumerate(signatures):
        groups.setdefault(sig, []).append(i)
    out = [0] * len(items)
    for indexes in groups.values():
        for i, size in zip(indexes, _safe_group_sizes([items[i] for i in indexes], fl, nums)):
            out[i] = size
    return out


def _sizes(items: Iterable[Mapping], fl: _Flavour) -> list[int]:
    """Size all items, :data:`_CHUNK` at a time."""
    items = items if isinstance(items, list) else list(items)
    nums = _NumberSizes()
    out: list[int] = []
    for start in range(0, len(items), _CHUNK):
        out += _chunk_sizes(items[start : start + _CHUNK], fl, nums)
    return out


def _columnar():
    """The columnar sizing module."""
    from blue_nb.sizing import columnar  # deferred: pyarrow/numpy load only when a batch is sized in columns

    return columnar


def _number_share(items: list) -> float:
    """Share of int / Decimal values in :data:`_SAMPLE` items drawn from the batch (0 if not dicts);
    drawn at random (seeded by the batch size, so repeatable): a stride could alias with periodic data."""
    sample = list(map(items.__getitem__, Random(len(items)).sample(range(len(items)), min(_SAMPLE, len(items)))))
    if set(map(type, sample)) != {dict}:
        return 0.0
    kinds = list(map(type, chain.from_iterable(map(dict.values, sample))))
    return (kinds.count(int) + kinds.count(Decimal)) / max(1, len(kinds))


def item_sizes(items: Iterable[Mapping[str, Any]]) -> list[int]:
    """Sizes of many Python items, fast; same numbers (and errors) as ``[item_size(i) for i in items]``.

    Columnar from :data:`COLUMNAR_MIN_ITEMS` items with numbers in them, else (and for anything it
    rejects) grouped."""
    items = items if isinstance(items, list) else list(items)
    if len(items) >= COLUMNAR_MIN_ITEMS and _number_share(items) >= COLUMNAR_MIN_NUMBER_SHARE:
        try:
            return _columnar().python_item_sizes(items)
        except Exception:  # noqa: BLE001 - invalid or unexpected input: the exact paths give the reference error
            pass
    return _sizes(items, _PY)


def wire_item_sizes(wire_items: Iterable[Mapping[str, Any]]) -> list[int]:
    """Sizes of many DynamoDB JSON items, fast; same numbers (and errors) as ``[wire_item_size(i) ...]``."""
    return _sizes(wire_items, _WIRE)
