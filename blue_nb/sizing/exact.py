"""Item size in bytes, exactly as DynamoDB counts it (rules doc section 1).

An item's size is the sum over its attributes of (UTF-8 bytes of the name + value size):

* S: UTF-8 bytes; N: :func:`number_size`; B: raw bytes (not base64); BOOL / NULL: 1
* L: 3 + sum(1 + element); M: 3 + sum(key bytes + 1 + value); empty L / M: 3
* SS / NS / BS: sum of the element sizes, no overhead

These are the exact, recursive reference walks. They check types (a float is an
:class:`ItemError`) but do not re-validate everything :mod:`blue_nb.items.values` checks (an empty
set sizes as 0 here). For many items use the batch path, :func:`blue_nb.sizing.item_sizes` (:mod:`.columnar`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from blue_nb.errors import ItemError
from blue_nb.sizing.numbers import number_size
from blue_nb.items.values import MAX_DEPTH, as_bytes

__all__ = ["b64_raw_length", "item_size", "str_size", "value_size", "wire_item_size", "wire_value_size"]


def str_size(s: str, where: str = "") -> int:
    """UTF-8 byte length of ``s`` (``len`` for ASCII)."""
    if not isinstance(s, str):
        raise ItemError(f"{s!r:.80} is not a string", where=where, hint="names, S and SS values are strings")
    if s.isascii():
        return len(s)
    try:
        return len(s.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise ItemError(f"string {s!r:.80} is not valid Unicode (lone surrogate)", where=where,
                        hint="decode your input with the right encoding") from exc


def _too_deep(where: str) -> ItemError:
    """The error for values nested deeper than DynamoDB allows."""
    return ItemError(f"nesting deeper than {MAX_DEPTH} levels of lists/maps", where=where, hint="flatten the value")


# ---------------------------------------------------------------- Python values


def _set_kind(v: Any) -> str:
    """``s`` / ``n`` / ``b`` for a set element, ``?`` if it cannot be in a set."""
    if isinstance(v, str):
        return "s"
    if isinstance(v, (int, Decimal)) and not isinstance(v, bool):
        return "n"
    return "b" if as_bytes(v) is not None else "?"


def _set_size(value: set | frozenset, where: str) -> int:
    """Sum of element sizes of a str / number / bytes set (no overhead)."""
    kinds = {_set_kind(v) for v in value}
    if len(kinds) > 1 or "?" in kinds:
        raise ItemError(f"set {value!r:.80} mixes or holds unsupported types", where=where,
                        hint="a set must hold only str, only numbers (int/Decimal) or only bytes")
    if kinds == {"s"}:
        return sum(str_size(v, where) for v in value)
    if kinds == {"n"}:
        return sum(number_size(v, where) for v in value)
    return sum(len(as_bytes(v) or b"") for v in value)


def _value_size(v: Any, where: str, depth: int) -> int:
    """Size of one Python value; ``depth`` is the L/M depth of the enclosing container."""
    if isinstance(v, str):
        return str_size(v, where)
    if v is None or isinstance(v, bool):
        return 1
    if isinstance(v, (int, Decimal, float)):
        return number_size(v, where)
    raw = as_bytes(v)
    if raw is not None:
        return len(raw)
    if isinstance(v, Mapping):
        if depth >= MAX_DEPTH:
            raise _too_deep(where)
        return 3 + sum(str_size(k, where) + 1 + _value_size(x, f"{where}.{k}", depth + 1) for k, x in v.items())
    if isinstance(v, (list, tuple)):
        if depth >= MAX_DEPTH:
            raise _too_deep(where)
        return 3 + sum(1 + _value_size(x, f"{where}[{i}]", depth + 1) for i, x in enumerate(v))
    if isinstance(v, (set, frozenset)):
        return _set_size(v, where)
    raise ItemError(f"{type(v).__name__} value {v!r:.80} is not a DynamoDB type", where=where,
                    hint="use str, Decimal, bytes, bool, None, list, dict or a set")


def value_size(v: Any, where: str = "") -> int:
    """Bytes DynamoDB counts for one Python value (without its attribute name)."""
    return _value_size(v, where, 0)


def item_size(item: Mapping[str, Any]) -> int:
    """Bytes DynamoDB counts for a Python item: names + values, nested map keys included."""
    if not isinstance(item, Mapping):
        raise ItemError(f"an item must be a dict, got {type(item).__name__}", hint="pass a dict of attribute -> value")
    return sum(str_size(k, k) + _value_size(v, k, 0) for k, v in item.items())


# ---------------------------------------------------------------- wire values


def b64_raw_length(text: str | bytes, where: str = "") -> int:
    """Decoded length of a base64 B value without decoding it (raw bytes count as they are)."""
    if not isinstance(text, str):
        raw = as_bytes(text)
        if raw is None:
            raise ItemError(f"binary value {text!r:.80} must be a base64 string", where=where)
        return len(raw)
    n = len(text)
    if n % 4 == 0 and text.isascii():
        return n // 4 * 3 - (2 if text.endswith("==") else 1 if text.endswith("=") else 0)
    try:
        return len(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError) as exc:
        raise ItemError(f"binary value {text[:60]!r} is not valid base64", where=where,
                        hint="use standard base64 with padding") from exc


def _wire_size(w: Any, where: str, depth: int) -> int:
    """Size of one wire value; ``depth`` is the L/M depth of the enclosing container."""
    if not isinstance(w, Mapping) or len(w) != 1:
        raise ItemError(f"a value must be an object with exactly one type key, got {w!r:.80}", where=where,
                        hint='write e.g. {"S": "text"} or {"N": "12"}')
    ((tag, body),) = w.items()
    if tag == "S":
        return str_size(body, where)
    if tag == "N":
        return number_size(body, where)
    if tag == "B":
        return b64_raw_length(body, where)
    if tag in ("BOOL", "NULL"):
        return 1
    if tag in ("L", "M"):
        if depth >= MAX_DEPTH:
            raise _too_deep(where)
        if not isinstance(body, list if tag == "L" else Mapping):
            raise ItemError(f"{tag} value {body!r:.80} has the wrong JSON type", where=where)
        if tag == "L":
            return 3 + sum(1 + _wire_size(x, f"{where}[{i}]", depth + 1) for i, x in enumerate(body))
        return 3 + sum(str_size(k, where) + 1 + _wire_size(x, f"{where}.{k}", depth + 1) for k, x in body.items())
    if tag in ("SS", "NS", "BS") and not isinstance(body, list):
        raise ItemError(f"{tag} value {body!r:.80} is not a list", where=where)
    if tag == "SS":
        return sum(str_size(x, where) for x in body)
    if tag == "NS":
        return sum(number_size(x, where) for x in body)
    if tag == "BS":
        return sum(b64_raw_length(x, where) for x in body)
    raise ItemError(f"unknown type key {tag!r}", where=where, hint="use S, N, B, BOOL, NULL, L, M, SS, NS or BS")


def wire_value_size(w: Mapping[str, Any], where: str = "") -> int:
    """Bytes DynamoDB counts for one DynamoDB JSON value (B counted decoded)."""
    return _wire_size(w, where, 0)


def wire_item_size(wire_item: Mapping[str, Any]) -> int:
    """Bytes DynamoDB counts for a DynamoDB JSON item (names + values)."""
    if not isinstance(wire_item, Mapping):
        raise ItemError(f"a wire item must be an object, got {type(wire_item).__name__}",
                        hint='pass a dict such as {"pk": {"S": "x"}}')
    return sum(str_size(k, k) + _wire_size(v, k, 0) for k, v in wire_item.items())
