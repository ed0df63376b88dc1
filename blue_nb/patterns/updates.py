"""An UpdateExpression applied to an item, as DynamoDB applies it: the item after the update.

Pure (layer 1). :func:`apply_update` takes the actions :func:`blue_nb.spec.expressions.parse_update` read
from a pattern's ``update``, the item the write meets (None: a new item, its key only) and the bound
``:values``. Every value is taken from the item as it was before the update; then, in order, SET writes
a value (``a + :n`` and ``a - :n`` on numbers, ``if_not_exists(path, :v)``, ``list_append(a, b)``),
REMOVE drops an attribute or a list element, ADD adds to a number (a missing one counts as 0) or to a
set, DELETE takes elements out of a set (an emptied set is removed). What DynamoDB refuses is an
:class:`UpdateRefused` with its words.
"""

from __future__ import annotations

import copy
from decimal import Decimal, localcontext
from typing import Any, Mapping

from blue_nb.errors import ItemError
from blue_nb.items.values import validate_number
from blue_nb.patterns.filters import MISSING, type_tag
from blue_nb.spec.expressions import Arith, Path, UpdateAction, UpdateFunction, Value

__all__ = ["UpdateRefused", "apply_update"]

WRONG_TYPE = "An operand in the update expression has an incorrect data type"
NO_ATTRIBUTE = "The provided expression refers to an attribute that does not exist in the item"
BAD_PATH = "The document path provided in the update expression is invalid for update"


class UpdateRefused(ValueError):
    """An update DynamoDB refuses on this item, in DynamoDB's words."""


def _get(item: Mapping[str, Any], path: Path) -> Any:
    node: Any = item
    for part in path.parts:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return MISSING
        elif not isinstance(node, dict) or part not in node:
            return MISSING
        node = node[part]
    return node


def _number(a: Decimal, b: Decimal) -> Decimal:
    """``a + b`` exactly (not in Python's 28-digit context, which would round), refused when the sum is no number
    DynamoDB stores (more than 38 significant digits, or a magnitude out of its range)."""
    with localcontext() as ctx:
        ctx.prec = 400                       # 1E+125 + 1E-130 exactly: 256 digits
        total = a + b
    try:
        return validate_number(total)
    except ItemError as e:
        raise UpdateRefused(f"the result of the arithmetic is no number DynamoDB stores: {e.msg}") from e


def _value(node: Any, old: Mapping[str, Any], values: Mapping[str, Any]) -> Any:
    if isinstance(node, Value):
        return values[node.name]
    if isinstance(node, Path):
        got = _get(old, node)
        if got is MISSING:
            raise UpdateRefused(NO_ATTRIBUTE)
        return got
    if isinstance(node, Arith):
        a, b = _value(node.left, old, values), _value(node.right, old, values)
        if type_tag(a) != "N" or type_tag(b) != "N":
            raise UpdateRefused(WRONG_TYPE)
        return _number(Decimal(a), Decimal(b) if node.op == "+" else -Decimal(b))
    assert isinstance(node, UpdateFunction)
    if node.name == "if_not_exists":
        got = _get(old, node.args[0])
        return _value(node.args[1], old, values) if got is MISSING else got
    a, b = (_value(x, old, values) for x in node.args)
    if type_tag(a) != "L" or type_tag(b) != "L":
        raise UpdateRefused(WRONG_TYPE)
    return list(a) + list(b)


def _parent(item: dict, path: Path) -> tuple[Any, Any]:
    """(the container that holds the path's last part, that part); refused when the container is not there."""
    node: Any = item
    for part in path.parts[:-1]:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                raise UpdateRefused(BAD_PATH)
        elif not isinstance(node, dict) or part not in node:
            raise UpdateRefused(BAD_PATH)
        node = node[part]
    last = path.parts[-1]
    if isinstance(last, int) != isinstance(node, list):
        raise UpdateRefused(BAD_PATH)
    return node, last


def _set(item: dict, path: Path, value: Any) -> None:
    node, last = _parent(item, path)
    if isinstance(last, int):
        if last < len(node):
            node[last] = value
        else:
            node.append(value)                         # past the end: appended
    else:
        node[last] = value


def _remove(item: dict, path: Path) -> None:
    try:
        node, last = _parent(item, path)
    except UpdateRefused:
        return                                         # nothing there: nothing to remove
    if isinstance(last, int):
        if last < len(node):
            del node[last]
    else:
        node.pop(last, None)


def apply_update(old: Mapping[str, Any] | None, key: Mapping[str, Any], actions: list[UpdateAction],
                 values: Mapping[str, Any]) -> dict[str, Any]:
    """The item after ``actions`` (the update's, in order) on ``old`` (None: a new item made of ``key``)."""
    before = dict(old) if old is not None else dict(key)
    item = copy.deepcopy(before)
    for a in actions:
        if a.clause == "SET":
            _set(item, a.path, copy.deepcopy(_value(a.value, before, values)))
        elif a.clause == "REMOVE":
            _remove(item, a.path)
        else:
            given = values[a.value.name]
            have = _get(item, a.path)
            tag = type_tag(given)
            if a.clause == "ADD":
                if tag == "N" and (have is MISSING or type_tag(have) == "N"):
                    _set(item, a.path, _number(Decimal(0) if have is MISSING else Decimal(have), Decimal(given)))
                elif tag in ("SS", "NS", "BS") and (have is MISSING or type_tag(have) == tag):
                    _set(item, a.path, set(given) | (set() if have is MISSING else set(have)))
                else:
                    raise UpdateRefused(WRONG_TYPE)
            else:                                      # DELETE: elements out of a set
                if tag not in ("SS", "NS", "BS") or (have is not MISSING and type_tag(have) != tag):
                    raise UpdateRefused(WRONG_TYPE)
                if have is not MISSING:
                    left = set(have) - set(given)
                    if left:
                        _set(item, a.path, left)
                    else:
                        _remove(item, a.path)
    return item
