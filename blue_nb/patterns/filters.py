"""A FilterExpression evaluated on an item, as DynamoDB evaluates it.

Pure (layer 1): :func:`matches` takes the tree :func:`blue_nb.spec.expressions.parse_condition` read
from a pattern's ``filter``, an item (Python values: :mod:`blue_nb.items.values`) and the bound
``:values``, and says whether DynamoDB returns the item. The rules, DynamoDB's:

* a path that leads nowhere (a missing attribute, a key of something that is not a map, an index past a
  list's end) has no value: every comparison with it is false but ``<>``, which is true;
* ``=`` and ``<>`` compare type and value (numbers by value, sets as sets); ``< <= > >=`` and
  ``BETWEEN`` only compare a string with a string (by UTF-8 bytes), a number with a number, binary with
  binary: any other pair is false;
* ``begins_with`` takes a string or binary of the same type; ``contains`` a substring of a string, a
  subsequence of binary, a member of a set or an element (string, number or binary) of a list;
* ``size`` is a string's UTF-8 bytes, binary's bytes, the elements of a set or list, the keys of a map;
  it has no value on a number, a boolean or null;
* ``attribute_type`` names one of ``S N B BOOL NULL L M SS NS BS``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Mapping

from blue_nb.items.values import to_wire
from blue_nb.patterns.bind import sort_value
from blue_nb.spec.expressions import And, Between, Compare, Condition, Function, In, Not, Operand, Or, Path, Size, Value

__all__ = ["MISSING", "matches", "type_tag"]


class _Missing:
    """No value: a path that leads nowhere."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def type_tag(value: Any) -> str:
    """DynamoDB's type of a Python item value (``S``, ``N``, ... ``BS``): the tag of its wire form."""
    return next(iter(to_wire(value)))


def _resolve(path: Path, item: Mapping[str, Any]) -> Any:
    node: Any = item
    for part in path.parts:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return MISSING
            node = node[part]
        else:
            if not isinstance(node, dict) or part not in node:
                return MISSING
            node = node[part]
    return node


def _size(value: Any) -> Any:
    if value is MISSING:
        return MISSING
    tag = type_tag(value)
    if tag == "S":
        return Decimal(len(value.encode("utf-8")))
    if tag == "B":
        return Decimal(len(value))
    if tag in ("L", "M", "SS", "NS", "BS"):
        return Decimal(len(value))
    return MISSING


def _value(node: Operand, item: Mapping[str, Any], values: Mapping[str, Any]) -> Any:
    if isinstance(node, Value):
        return values[node.name]
    if isinstance(node, Size):
        return _size(_resolve(node.path, item))
    return _resolve(node, item)


def _equal(a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING:
        return False
    return type_tag(a) == type_tag(b) and a == b


def _ordered(a: Any, b: Any) -> tuple[Any, Any] | None:
    """(a, b) in their type's order when they are comparable (both S, both N or both B), else None."""
    if a is MISSING or b is MISSING:
        return None
    ta, tb = type_tag(a), type_tag(b)
    if ta != tb or ta not in ("S", "N", "B"):
        return None
    return sort_value(a), sort_value(b)


_ORDER = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}


def _contains(whole: Any, part: Any) -> bool:
    if whole is MISSING or part is MISSING:
        return False
    tw, tp = type_tag(whole), type_tag(part)
    if tw == "S":
        return tp == "S" and part in whole
    if tw == "B":
        return tp == "B" and bytes(part) in bytes(whole)
    if tw in ("SS", "NS", "BS"):
        return tw == tp + "S" and part in whole
    if tw == "L":
        return tp in ("S", "N", "B") and any(_equal(e, part) for e in whole)
    return False


def _function(node: Function, item: Mapping[str, Any], values: Mapping[str, Any]) -> bool:
    args = [_value(a, item, values) for a in node.args]
    first = args[0]
    if node.name == "attribute_exists":
        return first is not MISSING
    if node.name == "attribute_not_exists":
        return first is MISSING
    if node.name == "attribute_type":
        return first is not MISSING and type_tag(first) == args[1]
    if node.name == "begins_with":
        pair = _ordered(first, args[1])
        return pair is not None and type_tag(first) in ("S", "B") and pair[0].startswith(pair[1])
    return _contains(first, args[1])


def matches(tree: Condition, item: Mapping[str, Any], values: Mapping[str, Any]) -> bool:
    """Whether ``item`` passes the condition ``tree``, its ``:values`` bound to ``values`` (name -> value)."""
    if isinstance(tree, And):
        return matches(tree.left, item, values) and matches(tree.right, item, values)
    if isinstance(tree, Or):
        return matches(tree.left, item, values) or matches(tree.right, item, values)
    if isinstance(tree, Not):
        return not matches(tree.operand, item, values)
    if isinstance(tree, Function):
        return _function(tree, item, values)
    if isinstance(tree, Compare):
        a, b = _value(tree.left, item, values), _value(tree.right, item, values)
        if tree.op == "=":
            return _equal(a, b)
        if tree.op == "<>":
            return not _equal(a, b)
        pair = _ordered(a, b)
        return pair is not None and _ORDER[tree.op](*pair)
    if isinstance(tree, Between):
        a = _value(tree.operand, item, values)
        low, high = _ordered(a, _value(tree.low, item, values)), _ordered(a, _value(tree.high, item, values))
        return low is not None and high is not None and low[1] <= low[0] <= high[1]
    if isinstance(tree, In):
        a = _value(tree.operand, item, values)
        return any(_equal(a, _value(o, item, values)) for o in tree.options)
    raise TypeError(f"not a condition: {tree!r}")
