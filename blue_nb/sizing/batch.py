"""Fast item sizes for many items; results are identical to :func:`item_size` / :func:`wire_item_size`.

Items of one entity share their attribute names and value types. For each distinct
(names, value types) signature a *plan* is built once: the bytes of the names, the constant
part (BOOL / NULL = 1 each) and C-level getters that pull out the str, number and binary
values. Per item, the str values are joined and measured once, numbers are sized through a
dict keyed by their text, and only nested values (L, M, sets, odd types) take the exact
recursive walk of :mod:`blue_nb.sizing.items`. If anything looks wrong the item is sized by
the reference walk, so results and errors are the same as ``[item_size(i) for i in items]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from operator import itemgetter
from typing import Any

from blue_nb.sizing.items import b64_raw_length, item_size, value_size, wire_item_size, wire_value_size
from blue_nb.sizing.numbers import number_size, text_number_size

__all__ = ["item_sizes", "wire_item_sizes"]

_CACHE_LIMIT = 1 << 17
_Getter = Callable[[tuple], tuple]
_Plan = tuple[int, _Getter, _Getter, _Getter, tuple[tuple[int, str], ...]]


class _NumberSizes(dict):
    """number text -> size, filled on demand and cleared when it grows too big."""

    def __missing__(self, text: Any) -> int:
        if len(self) > _CACHE_LIMIT:
            self.clear()
        size = self[text] = text_number_size(text) if type(text) is str else number_size(text)
        return size


def _getter(indexes: list[int]) -> _Getter:
    """A C-level function returning the values at ``indexes`` as a tuple."""
    if not indexes:
        return lambda vals: ()
    if len(indexes) == 1:
        return lambda vals, i=indexes[0]: (vals[i],)
    return itemgetter(*indexes)


def _plan(keys: tuple[str, ...], kinds: tuple, kind_of: dict[Any, str]) -> _Plan:
    """Build the sizing plan of one (names, kinds) signature; ``kind_of`` maps a kind to s/n/b/1."""
    groups: dict[str, list[int]] = {"s": [], "n": [], "b": [], "1": [], "x": []}
    for i, kind in enumerate(kinds):
        groups[kind_of.get(kind, "x")].append(i)
    fixed = sum(len(k.encode("utf-8")) for k in keys) + len(groups["1"])
    others = tuple((i, keys[i]) for i in groups["x"])
    return fixed, _getter(groups["s"]), _getter(groups["n"]), _getter(groups["b"]), others


def _text_bytes(strs: Iterable[str]) -> int:
    """UTF-8 bytes of all strings together."""
    joined = "".join(strs)
    return len(joined) if joined.isascii() else len(joined.encode("utf-8"))


_PY_KINDS = {str: "s", int: "n", Decimal: "n", bytes: "b", bool: "1", type(None): "1"}


def _py_size(item: Mapping[str, Any], plans: dict, nums: _NumberSizes) -> int:
    """Size of one Python item by its plan (raises on anything unusual)."""
    keys = tuple(item)
    vals = tuple(item.values())
    kinds = tuple(map(type, vals))
    plan = plans.get((keys, kinds))
    if plan is None:
        if len(plans) > _CACHE_LIMIT:
            plans.clear()
        plan = plans[(keys, kinds)] = _plan(keys, kinds, _PY_KINDS)
    fixed, strs, numbers, binaries, others = plan
    total = fixed + _text_bytes(strs(vals)) + sum(map(nums.__getitem__, map(str, numbers(vals))))
    total += sum(map(len, binaries(vals)))
    for i, name in others:
        total += value_size(vals[i], name)
    return total


def item_sizes(items: Iterable[Mapping[str, Any]]) -> list[int]:
    """Sizes of many Python items, fast; same numbers (and errors) as ``[item_size(i) for i in items]``."""
    plans: dict = {}
    nums = _NumberSizes()
    out: list[int] = []
    append = out.append
    for item in items:
        try:
            append(_py_size(item, plans, nums))
        except Exception:  # noqa: BLE001 - the reference walk gives the exact result or error
            append(item_size(item))
    return out


_WIRE_KINDS = {"S": "s", "N": "n", "B": "b", "BOOL": "1", "NULL": "1"}
_get_s, _get_n, _get_b = itemgetter("S"), itemgetter("N"), itemgetter("B")


def _wire_size(item: Mapping[str, Any], plans: dict, nums: _NumberSizes) -> int:
    """Size of one wire item by its plan (raises on anything unusual)."""
    keys = tuple(item)
    vals = tuple(item.values())
    if sum(map(len, vals)) != len(vals) or not all(type(w) is dict for w in vals):
        raise ValueError("not one type key per value")
    tags = tuple(map(next, map(iter, vals)))
    plan = plans.get((keys, tags))
    if plan is None:
        if len(plans) > _CACHE_LIMIT:
            plans.clear()
        plan = plans[(keys, tags)] = _plan(keys, tags, _WIRE_KINDS)
    fixed, strs, numbers, binaries, others = plan
    total = fixed + _text_bytes(map(_get_s, strs(vals)))
    total += sum(map(nums.__getitem__, map(_get_n, numbers(vals))))
    total += sum(map(b64_raw_length, map(_get_b, binaries(vals))))
    for i, name in others:
        total += wire_value_size(vals[i], name)
    return total


def wire_item_sizes(wire_items: Iterable[Mapping[str, Any]]) -> list[int]:
    """Sizes of many DynamoDB JSON items, fast; same numbers (and errors) as ``[wire_item_size(i) ...]``."""
    plans: dict = {}
    nums = _NumberSizes()
    out: list[int] = []
    append = out.append
    for item in wire_items:
        try:
            append(_wire_size(item, plans, nums))
        except Exception:  # noqa: BLE001 - the reference walk gives the exact result or error
            append(wire_item_size(item))
    return out
